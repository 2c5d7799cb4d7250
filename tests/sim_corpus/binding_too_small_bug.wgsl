// expect: binding-too-small
// workgroups: 1
// bind: 0=u32:[64,3,0] 1=u32:zeros:64
// The uniform block is 16 bytes (a vec2<u32> after two words); the host fills the 12 bytes of
// the members this pass reads. WebGPU refuses a binding smaller than its type, though nothing
// here reads past the 12 bytes.
struct Params {
    n: u32,
    scale: u32,
    window: vec2<u32>,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid < params.n {
        output[lid] = lid * params.scale;
    }
}
