// Run-length encoding (src/runs.rs), after the selection's single pass over the runs' heads
// (select/compact.wgsl with POSITIONS): each run's length, the distance from its head's position
// to the next head's (the last run's to the count), for the run count R the pass wrote.

//!include shared/grid

@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> selected: array<u32>;
@group(0) @binding(2) var<storage, read> positions: array<u32>;
@group(0) @binding(3) var<storage, read_write> lengths: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    // (a workgroup past this run's grid starts past the count: shared/grid)
    let walk = element_walk(count_word, wid.x);
    let n = walk.y;
    let runs = min(selected[0], n);
    for (var r = walk.x + lid; r < runs; r += walk.z) {
        let end = select(n, positions[min(r + 1u, runs - 1u)], r + 1u < runs);
        lengths[r] = end - positions[r];
    }
}
