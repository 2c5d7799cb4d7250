// Word-wise buffer operations whose length is known only on the device (`params.words`,
// written by an algorithm's prepare pass): `fill` sets dst[0 .. words) to VALUE, `copy` copies
// src[0 .. words) to dst (`fill` sets words * PER). Grid-stride loops over the (indirect or capped) grid; words past
// either buffer's end are left alone. A plan's fills (Plan::fill, Plan::invalidate) are this
// with `words` covering the whole buffer.

override VALUE: u32 = 0u;
// `fill`'s words for each one `params.words` counts (a caller's 64-bit keys: 2)
override PER: u32 = 1u;

struct WordsParams {
    words: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: WordsParams;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(256)
fn fill(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = min(params.words * PER, arrayLength(&dst));
    let stride = nwg.x * 256u;
    for (var i = gid.x; i < n; i += stride) {
        dst[i] = VALUE;
    }
}

@compute @workgroup_size(256)
fn copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = min(params.words, min(arrayLength(&src), arrayLength(&dst)));
    let stride = nwg.x * 256u;
    for (var i = gid.x; i < n; i += stride) {
        dst[i] = src[i];
    }
}
