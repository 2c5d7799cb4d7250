// include-only
// A histogram run's count and grid, from the head of its control block (shared/count), the same
// in the prepare stage and the counting stage, so the counting stage needs no params block and
// no count runs a pass before it (the host dispatches the grid it computes, HistogramArgs in
// src/histogram.rs; the simulator runs the prepare stage to check it).
//!include shared/count

override MAX_COUNT: u32 = 0xffffffffu;
// samples per u32 word: 4 bytes, or one 32-bit sample
override PER_WORD: u32 = 1u;
// the grid: a workgroup per WG_SIZE * VECS vec4s of samples, at most MAX_WORKGROUPS (the
// policy's, src/histogram.rs), at least one
override VECS: u32 = 8u;
override MAX_WORKGROUPS: u32 = 1024u;

const WG_SIZE: u32 = 256u;

// This run's samples: the head's count word, clamped.
fn run_samples(head: vec4<u32>) -> u32 {
    return run_count_of(head.x, head[COUNT_LIMIT], MAX_COUNT);
}

// The workgroups of a run of `n` samples.
fn hist_grid(n: u32) -> u32 {
    let per_vec = 4u * PER_WORD;
    let vecs = (n + per_vec - 1u) / per_vec;
    return clamp((vecs + WG_SIZE * VECS - 1u) / (WG_SIZE * VECS), 1u, MAX_WORKGROUPS);
}
