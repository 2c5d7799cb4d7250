// Runs of equal keys (src/runs.rs), stage 1: each element's mark, 1 where a run of equal words
// begins (the first element, and each that differs from the one before it) and 0 elsewhere, for
// the scan that follows (scan/chained.wgsl) to turn into each element's run. The elements past
// the count keep their marks' words undefined: the scan reads the count's alone.

//!include shared/grid

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
// the keys, as words
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> marks: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    // (a workgroup past this run's grid starts past the count: shared/grid)
    let walk = element_walk(count_word, wid.x);
    for (var i = walk.x + lid; i < walk.y; i += walk.z) {
        marks[i] = select(0u, 1u, i == 0u || input[i] != input[i - 1u]);
    }
}
