// include-only
// The tile declarations of the 8×8×8 cooperative kernels (gemm/coop8, gemm/coop8_int4): the
// tile's overrides, the subgroup's block of C, the fragment types. The stage enables f16 and
// wgpu_cooperative_matrix.

override BM: u32 = 64u;
override BN: u32 = 64u;
override BK: u32 = 32u;
// The subgroup size the plan requires (the adapter's minimum = maximum).
override SG: u32 = 32u;

const WM: u32 = 32u;
const WN: u32 = 16u;
const FRAG: u32 = 8u;
alias FragA = coop_mat8x8<f16, A>;
alias FragB = coop_mat8x8<f16, B>;
alias FragC = coop_mat8x8<f32, C>;
