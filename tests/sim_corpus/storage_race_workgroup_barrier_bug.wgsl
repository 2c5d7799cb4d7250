// expect: storage-race
// workgroups: 2
// bind: 0=u32:random:128 1=u32:uninit:128 2=u32:uninit:128
// A neighbour exchange through a storage buffer with workgroupBarrier between the write and the
// read, as a CUDA port writes it after __syncthreads(): WGSL's workgroupBarrier orders only
// workgroup memory, so the neighbour's store need not be visible (storageBarrier does it).
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> scratch: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let base = wid.x * 64u;
    scratch[base + lid] = input[base + lid] * 3u;
    workgroupBarrier();
    output[base + lid] = scratch[base + (lid + 1u) % 64u];
}
