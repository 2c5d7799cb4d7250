// include-only
// A selection's count and grid, from the head of its control block (shared/count): the same in
// the prepare stage and in the marks and scatter stages, so those need no params block and no
// count runs a pass before them (the host dispatches the grid it computes, SelectArgs in
// src/select.rs; the simulator runs the prepare stage to check it). The control block is the
// scan's (scan/prepare.wgsl) with the selection's dispatch arguments after it, at SELECT_ARGS.
//!include shared/count

override MAX_COUNT: u32 = 0xffffffffu;
// the word of the control block where the selection's dispatch arguments start (past the scan's
// layout; the host reads the scan's size from scan/prepare.wgsl)
override SELECT_ARGS: u32 = 1088u;
// the grid: a workgroup per WG_SIZE * ITEMS elements, at most MAX_WORKGROUPS, at least one
override ITEMS: u32 = 8u;
override MAX_WORKGROUPS: u32 = 1024u;

const WG_SIZE: u32 = 256u;

// This run's elements: the head's count word, clamped.
fn run_elements(head: vec4<u32>) -> u32 {
    return run_count_of(head.x, head[COUNT_LIMIT], MAX_COUNT);
}

// The workgroups of the marks and scatter stages for `n` elements.
fn select_grid(n: u32) -> u32 {
    return clamp((n + WG_SIZE * ITEMS - 1u) / (WG_SIZE * ITEMS), 1u, MAX_WORKGROUPS);
}
