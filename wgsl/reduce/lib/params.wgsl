// include-only
//!include shared/count
// The params of each chunk of a reduction of `count` elements. Every copy of a reducer's
// control block is marked PARAMS_DERIVED (with its chunk) when it is made, and the stages
// compute their chunk's params from the head (shared/count) themselves, so no count needs a
// prepare pass: that dispatch and the wait for it were 7.7 µs of a 2^20-element reduction's
// 16.5 on the H200 (2026-11-27). The prepare stage computes the same params and the grids;
// it runs where a GPU count takes indirect grids (src/record.rs), and on the simulator as the
// oracle of the host's grids (ReduceArgs in src/reduce.rs). It leaves the marks alone.
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

// Chunk c's params for a head (the count word and its limit, shared/count).
fn chunk_params(head: vec4<u32>, c: u32) -> ReduceParams {
    let count = run_count_of(head.x, head[COUNT_LIMIT], MAX_COUNT);
    var total = 0u;
    var base = 0u;
    for (var i = 0u; i < CHUNKS; i++) {
        let g = chunk_grid(count, i);
        base += select(0u, g, i < c);
        total += g;
    }
    return ReduceParams(chunk_len(count, c), base, total, count, 0u, chunk_grid(count, c), 0u, 0u);
}

// The params a stage runs with: its block's, or computed from the head where the block says
// PARAMS_DERIVED.
fn run_params(block: ReduceParams, head: vec4<u32>) -> ReduceParams {
    if block.derive == PARAMS_DERIVED {
        var p = chunk_params(head, block.chunk);
        // the opaque zero of the f32 sums comes from the block as well (docs/reduce.md)
        p.zero = block.zero;
        return p;
    }
    return block;
}
