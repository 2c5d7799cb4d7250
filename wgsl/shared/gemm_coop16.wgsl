// include-only
// The 16×16×16 fragment shape (f16 operands, f32 accumulator) and the tile overrides of the
// cooperative-matrix GEMMs gemm/coop16, coop16v, coop16w and coop16vw (the plan always sets
// BM, BN, BK and SG: src/gemm/coop.rs). The stage file enables f16 and wgpu_cooperative_matrix,
// declares its subgroup block WM×WN, and includes this, a staging file and an entry point.

override BM: u32 = 128u;
override BN: u32 = 128u;
override BK: u32 = 32u;
// The subgroup size the plan requires (the adapter's minimum = maximum).
override SG: u32 = 32u;

const FRAG: u32 = 16u;
alias FragA = coop_mat16x16<f16, A>;
alias FragB = coop_mat16x16<f16, B>;
alias FragC = coop_mat16x16<f32, C>;
