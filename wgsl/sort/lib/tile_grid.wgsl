// include-only
// The radix sort's grids of workgroups past the dispatch limit (sort/lib/control.wgsl's passes,
// the segmented local path's route): MAX_DIM is the device's workgroups per dimension.

override MAX_DIM: u32 = 65535u;

// A grid of `tiles` workgroups: 1-D up to MAX_DIM, else the fewest rows of equal width (the
// kernels number workgroups row by row and let the few past the last tile leave).
fn tile_grid(tiles: u32) -> vec3<u32> {
    if tiles == 0u {
        return vec3<u32>(0u, 1u, 1u);
    }
    let rows = (tiles + MAX_DIM - 1u) / MAX_DIM;
    return vec3<u32>((tiles + rows - 1u) / rows, rows, 1u);
}
