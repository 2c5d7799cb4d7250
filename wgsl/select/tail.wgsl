// Partition, after the single-pass selection (select/compact.wgsl): the elements not selected,
// which it left in order in `rejects`, moved after the selected ones: rejects[i] to
// output[k + i] for the selected count k and i below n - k. Only the others move here (CUB's
// DevicePartition writes them reversed from the end in its one pass; this keeps them in input
// order, at 4 bytes read and 4 written per element not selected).

//!include shared/grid

@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
@group(0) @binding(1) var<storage, read> selected: array<u32>;
@group(0) @binding(2) var<storage, read> rejects: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    // (a workgroup past this run's grid starts past the count: shared/grid)
    let walk = element_walk(count_word, wid.x);
    let n = walk.y;
    let k = min(selected[0], n);
    for (var i = walk.x + lid; i < n - k; i += walk.z) {
        output[k + i] = rejects[i];
    }
}
