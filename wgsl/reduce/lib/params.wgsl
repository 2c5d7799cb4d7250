// include-only
// The params of each chunk of a reduction of `count` elements. The prepare stage writes them
// into the control blocks for the host's counts (which the host gets by running that stage on
// the simulator); a stage bound to the control copy of GPU counts finds PARAMS_DERIVED there
// and computes its chunk's params from the count word itself, so a GPU count costs no prepare
// pass: that dispatch and the wait for it were 7.7 µs of a 2^20-element reduction's 16.5 on
// the H200 (2026-11-27).
//
// Chunks: the input is bound CHUNK elements at a time (the device's binding limit); chunk c
// holds elements [c * CHUNK, (c + 1) * CHUNK) of the count. Its workgroups: enough for one vec4
// per invocation per step, at most MAX_WORKGROUPS (SMALL_WORKGROUPS for a short run,
// MID_WORKGROUPS for a middling one), none where
// the chunk is empty (but chunk 0 always has one, so an empty input still gets its identity
// written). The including stage defines WG_SIZE, the reduce stage's invocations per workgroup.

override CHUNKS: u32 = 1u;
override CHUNK: u32 = 0xffffffffu;
override MAX_COUNT: u32 = 0xffffffffu;
override MAX_WORKGROUPS: u32 = 4096u;
// a run of at most SMALL_COUNT elements takes at most SMALL_WORKGROUPS per chunk (the policy's
// evidence: src/reduce.rs, ReducePolicy); the cap grows with the count, so a grid sized for a
// larger count always holds this run's
override SMALL_WORKGROUPS: u32 = 528u;
override SMALL_COUNT: u32 = 16777216u;
// a run of at most MID_COUNT elements takes at most MID_WORKGROUPS (between the two above)
override MID_WORKGROUPS: u32 = 1056u;
override MID_COUNT: u32 = 67108864u;

struct ReduceParams {
    n: u32,          // elements in this chunk
    out_base: u32,   // index of this chunk's first partial
    total: u32,      // partials over all chunks
    count: u32,      // elements over all chunks
    zero: u32,       // always 0: see dd_zero in shared/ops.wgsl
    grid: u32,       // this chunk's workgroups: those past it (a dispatch sized for the
                     // reducer's maximum count, see src/count.rs) leave at once
    derive: u32,     // PARAMS_DERIVED: the block of copy 0, for GPU counts (below)
    chunk: u32,      // with PARAMS_DERIVED: this block's chunk
}

// `ReduceParams::derive` of a block whose params the stage computes from the count word
const PARAMS_DERIVED: u32 = 0xffffffffu;

fn chunk_len(count: u32, c: u32) -> u32 {
    let first = c * CHUNK;
    return select(0u, min(CHUNK, count - first), count > first);
}

fn chunk_grid(count: u32, c: u32) -> u32 {
    let vecs = (chunk_len(count, c) + 3u) / 4u;
    var cap = select(MAX_WORKGROUPS, MID_WORKGROUPS, count <= MID_COUNT);
    cap = select(cap, SMALL_WORKGROUPS, count <= SMALL_COUNT);
    let grid = min((vecs + WG_SIZE - 1u) / WG_SIZE, cap);
    return select(grid, max(grid, 1u), c == 0u);
}

// Chunk c's params for a count word `word` (clamped to MAX_COUNT).
fn chunk_params(word: u32, c: u32) -> ReduceParams {
    let count = min(word, MAX_COUNT);
    var total = 0u;
    var base = 0u;
    for (var i = 0u; i < CHUNKS; i++) {
        let g = chunk_grid(count, i);
        base += select(0u, g, i < c);
        total += g;
    }
    return ReduceParams(chunk_len(count, c), base, total, count, 0u, chunk_grid(count, c), 0u, 0u);
}

// The params a stage runs with: its block's, or computed from the count word where the block
// says PARAMS_DERIVED.
fn run_params(block: ReduceParams, word: u32) -> ReduceParams {
    if block.derive == PARAMS_DERIVED {
        var p = chunk_params(word, block.chunk);
        // the opaque zero of the f32 sums comes from the block as well (docs/reduce.md)
        p.zero = block.zero;
        return p;
    }
    return block;
}
