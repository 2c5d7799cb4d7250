// include-only
// A selection's count and grid (shared/grid), from the head of its control block: the same in
// the prepare stage and in the marks and scatter stages (and the runs' stages after them), so
// those need no params block and no count runs a pass before them (the host dispatches the grid
// it computes, `ChunkGrid` in src/fold.rs; the simulator runs the prepare stage to check
// it). The control block is the scan's (scan/prepare.wgsl) with the selection's dispatch
// arguments after it, at SELECT_ARGS.
//!include shared/grid

// the word of the control block where the selection's dispatch arguments start (past the scan's
// layout; the host reads the scan's size from scan/prepare.wgsl)
override SELECT_ARGS: u32 = 1088u;
