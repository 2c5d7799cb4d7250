// expect: clean
// workgroups: 3
// bind: 0=u32:random:192 1=u32:random:4 2=u32:zeros:192
// Looks like the overlapping-tiles bug, is fine: every workgroup reads word 0 of a read_write
// buffer (reads alone do not race, whoever else reads it), and stores only its own 64-word tile,
// which it then reads back across lanes and rewrites (one workgroup: ordered by its storage
// barriers).
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> params: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let base = wid.x * 64u;
    output[base + lid] = input[base + lid] + params[0];
    // barriers: the neighbour's store is in before the read, every read is done before the
    // rewrite
    storageBarrier();
    let v = output[base + (lid + 1u) % 64u];
    storageBarrier();
    output[base + lid] = v * 2u;
}
