// include-only
//!include shared/count
//!include sort/lib/tile_grid
// The radix sort's control block: what one run's key count (the head, shared/count) makes of
// the passes' params and workgroup counts, so one prepared plan sorts any count up to its
// maximum. In OneSweep's blocks, all marked (DERIVE_MARK), the histogram stage, the sort's
// first, writes it, so no one-invocation pass and no wait for it precede the sort; the host
// dispatches the grids it computes for the count (src/sort/build.rs) and the simulator checks
// them against this file's arithmetic by running the prepare stage. Reduce-then-scan's
// prepare stage writes it on the device. The including stage declares `control`, the block as
// a read-write u32 array.

override MAX_COUNT: u32 = 0xffffffffu;
// keys per tile of the ranking stage (the host reads it from the stage)
override TILE: u32 = 1u;
// 1: OneSweep (a global histogram and the state to clear); 0: reduce-then-scan (per-pass
// histograms of HIST_GROUP tiles, and the scan's count)
override ONESWEEP: u32 = 1u;
// OneSweep's global histogram: its workgroups, at most, and its tile (keys)
override HIST_WORKGROUPS: u32 = 1056u;
override HIST_TILE: u32 = 5120u;
// reduce-then-scan's histogram: tiles per workgroup
override HIST_GROUP: u32 = 8u;
// OneSweep's state: the global counts before STATE_TICKETS, the tickets, the status words from
// STATE_STATUS; digit passes
override STATE_TICKETS: u32 = 1024u;
override STATE_STATUS: u32 = 1088u;
override PASSES: u32 = 4u;

// control layout (the host reads these): the count at word 0, DERIVE_MARK at word 1, then the
// dispatch arguments of the histogram (HIST_ARGS), of the ranking passes (TILE_ARGS) and of
// the copy back of a one-pass sort (COPY_ARGS); the params blocks (uniforms: 256-byte blocks) of the sort stages (SortParams,
// SORT_PARAMS) and of the copy (WordsParams, COPY_PARAMS)
const MARK: u32 = 1u;
const HIST_ARGS: u32 = 8u;
const TILE_ARGS: u32 = 12u;
const COPY_ARGS: u32 = 16u;
const SORT_PARAMS: u32 = 64u;
const COPY_PARAMS: u32 = 192u;
const CONTROL_WORDS: u32 = 256u;
const_assert COUNT_LIMIT != MARK && COUNT_LIMIT < HIST_ARGS;

// word MARK of the block of GPU counts (copy 0): OneSweep's histogram stage writes the block
const DERIVE_MARK: u32 = 0xffffffffu;

fn set_args(at: u32, grid: vec3<u32>) {
    control[at] = grid.x;
    control[at + 1u] = grid.y;
    control[at + 2u] = grid.z;
}

// A grid-stride grid for `words` words: a workgroup per 256 words, at most 4096.
fn words_grid(words: u32) -> vec3<u32> {
    return vec3<u32>(clamp((words + 255u) / 256u, 1u, 4096u), 1u, 1u);
}

// This run's keys: the count word, clamped to the head's limit and the plan's maximum
// (shared/count).
fn run_count() -> u32 {
    return run_count_of(control[0], control[COUNT_LIMIT], MAX_COUNT);
}

fn tiles_of(n: u32) -> u32 {
    return (n + TILE - 1u) / TILE;
}

// OneSweep's state words for `tiles` tiles: the global counts and tickets, then each digit
// pass's status word per tile and digit.
fn state_words(tiles: u32) -> u32 {
    return STATE_STATUS + PASSES * tiles * RADIX;
}

// OneSweep's global histogram grid for `n` keys: four of its tiles per workgroup, between a
// quarter of HIST_WORKGROUPS and all of them (each workgroup adds its 1024 counts to the same
// global words, so fewer workgroups of more tiles win until the grid stops filling the
// machine): 264 workgroups took 24 µs at 2^22 keys against 26-27 for 528-1056, 35 at 2^23
// against 42 for 1056, and at 2^24 528 and 1056 timed the same (per-pass timestamps, H100,
// 2026-11-27). At least one workgroup: with none, every digit's global count would stay 0.
fn hist_workgroups(n: u32) -> u32 {
    let tiles = (n + HIST_TILE - 1u) / HIST_TILE;
    let wgs = clamp(tiles / 4u, HIST_WORKGROUPS / 4u, HIST_WORKGROUPS);
    return clamp(min(wgs, tiles), 1u, MAX_DIM);
}

// The params and dispatch arguments of a run of `n` keys.
fn write_blocks(n: u32) {
    let tiles = tiles_of(n);
    control[SORT_PARAMS] = n;
    control[SORT_PARAMS + 1u] = tiles;
    control[SORT_PARAMS + 2u] = tiles;
    control[SORT_PARAMS + 3u] = 0u;
    set_args(TILE_ARGS, tile_grid(tiles));
    if ONESWEEP != 0u {
        set_args(HIST_ARGS, vec3<u32>(hist_workgroups(n), 1u, 1u));
    } else {
        set_args(HIST_ARGS, tile_grid((tiles + HIST_GROUP - 1u) / HIST_GROUP));
    }
    control[COPY_PARAMS] = n;
    set_args(COPY_ARGS, words_grid(n));
}
