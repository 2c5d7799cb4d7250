// expect: non-uniform-subgroup-op
// workgroups: 1
// bind: 0=u32:zeros:64
// The last lane of every quad skips the branch, and the other three take quadBroadcast inside
// it: a quad operation with lanes of its quad inactive is undefined, whatever the rest of the
// subgroup does.
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) lane: u32) {
    var v = 0u;
    if lane % 4u != 3u {
        v = quadBroadcast(lid, 0u);
    }
    output[lid] = v;
}
