// expect: clean
// workgroups: 2
// bind: 0=u32:random:128 1=u32:uninit:128 2=u32:uninit:128 3=u32:zeros:1
// Looks bad, is fine: the same neighbour exchange with storageBarrier between the write and the
// read; every invocation also reads one shared input word (read-only: nothing can race with it)
// and adds to one storage word, atomically.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> scratch: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;
@group(0) @binding(3) var<storage, read_write> total: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let base = wid.x * 64u;
    scratch[base + lid] = input[base + lid] * 3u + input[0];
    // barrier: every invocation's store to scratch is visible to its neighbour
    storageBarrier();
    output[base + lid] = scratch[base + (lid + 1u) % 64u];
    atomicAdd(&total, 1u);
}
