// expect: clean
// workgroups: 2
// bind: 0=u32:iota:200 1=u32:uninit:2
// Seed bug 3, fixed: both loads are guarded by the array length.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> partials: array<u32>;
var<workgroup> tile: array<u32, 64>;

fn load(i: u32) -> u32 {
    let n = arrayLength(&input);
    if i < n {
        return input[i];
    }
    return 0u;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let i = wid.x * 128u + lid;
    tile[lid] = load(i) + load(i + 64u);
    for (var s = 32u; s > 0u; s >>= 1u) {
        // barrier: the previous level is complete
        workgroupBarrier();
        if lid < s {
            tile[lid] += tile[lid + s];
        }
    }
    // barrier: the root is written
    workgroupBarrier();
    if lid == 0u {
        partials[wid.x] = tile[0];
    }
}
