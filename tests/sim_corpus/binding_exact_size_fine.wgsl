// expect: clean
// workgroups: 1
// bind: 0=u32:[64,3,0,0] 1=u32:zeros:64
// Looks bad, is fine: binding_too_small_bug's uniform block bound to exactly its 16 bytes,
// though the pass reads only the first 8.
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
