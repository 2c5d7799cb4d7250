// include-only
// The count and grid of a chunked pass over the elements, from the head of its control block
// (shared/count): the same in a prepare stage, which writes the grid as dispatch arguments, and
// in the stages dispatched from them, so those need no params block and no count runs a pass
// before them (the host dispatches the grid it computes: `ChunkGrid` in src/fold.rs; the
// simulator runs the prepare stage to check it).
//!include shared/count

override MAX_COUNT: u32 = 0xffffffffu;
// a workgroup per WG_SIZE * ITEMS elements, at least one, at most MAX_WORKGROUPS, or above
// LARGE_COUNT elements at most LARGE_WORKGROUPS (no fewer than MAX_WORKGROUPS: the bound grows
// with the count, so a table sized for the largest count holds every run's)
override ITEMS: u32 = 8u;
override MAX_WORKGROUPS: u32 = 1024u;
override LARGE_COUNT: u32 = 0xffffffffu;
override LARGE_WORKGROUPS: u32 = 1024u;

const WG_SIZE: u32 = 256u;

// This run's elements: the head's count word, clamped.
fn run_elements(head: vec4<u32>) -> u32 {
    return run_count_of(head.x, head[COUNT_LIMIT], MAX_COUNT);
}

// The workgroups of the pass for `n` elements.
fn elements_grid(n: u32) -> u32 {
    let most = select(MAX_WORKGROUPS, max(LARGE_WORKGROUPS, MAX_WORKGROUPS), n > LARGE_COUNT);
    return clamp((n + WG_SIZE * ITEMS - 1u) / (WG_SIZE * ITEMS), 1u, most);
}

// An elementwise stage's walk of workgroup `w` over this run's elements (the head's count):
// (its first index, the count, the stride); a workgroup past the run's grid (one sized for a
// larger count) starts past the count and has nothing to do.
fn element_walk(head: vec4<u32>, w: u32) -> vec3<u32> {
    let n = run_elements(head);
    let grid = elements_grid(n);
    return vec3<u32>(select(n, w * WG_SIZE, w < grid), n, grid * WG_SIZE);
}

// The tiles (WG_SIZE * ITEMS elements) of workgroup `w` of `grid` for `n` elements: [x, y), the
// same number to each but the last ones, in order.
fn chunk_tiles(n: u32, grid: u32, w: u32) -> vec2<u32> {
    let tile = WG_SIZE * ITEMS;
    let tiles = (n + tile - 1u) / tile;
    let per = (tiles + grid - 1u) / grid;
    let first = min(w * per, tiles);
    return vec2<u32>(first, min(first + per, tiles));
}
