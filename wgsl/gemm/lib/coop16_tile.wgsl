// include-only
// The tile declarations of the 16×16×16 cooperative kernels (gemm/coop16, gemm/coop16_int4):
// the subgroup's block of C, the tile's overrides, the fragment types. The stage enables f16 and
// wgpu_cooperative_matrix.

// the block of C each subgroup owns
const WM: u32 = 64u;
const WN: u32 = 32u;

// the tile (the plan always sets BM, BN, BK and SG: src/gemm/coop.rs)
override BM: u32 = 128u;
override BN: u32 = 128u;
override BK: u32 = 32u;
// The subgroup size the plan requires (the adapter's minimum = maximum).
override SG: u32 = 32u;

const FRAG: u32 = 16u;
alias FragA = coop_mat16x16<f16, A>;
alias FragB = coop_mat16x16<f16, B>;
alias FragC = coop_mat16x16<f32, C>;
