// expect: clean
// workgroups: 1
// bind: 0=u32:random:64 1=u32:uninit:64
// Fixed: the first write is a store, not a read-modify-write.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    output[lid] = input[lid];
}
