// Interpreter semantics: control flow (loop/continue/continuing/break-if, switch with
// fall-through selectors and a case that falls out), structs, vectors, a matrix product, private
// initializers, bit builtins, ballot/exclusive-mul/broadcast-first, atomics, workgroupUniformLoad,
// i32 division/remainder/shift. tests/simulator/semantics.rs computes every expected word on the
// CPU.
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> cnt: atomic<u32>;
var<private> pv: u32 = 7u;
var<workgroup> wflag: u32;

struct Pair { a: u32, b: vec2<u32> }

fn classify(x: u32) -> u32 {
    switch x % 5u {
        case 0u, 1u: { return 10u; }
        case 2u: { if x > 10u { return 20u; } }
        default: { return 30u; }
    }
    return 40u;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) s: u32) {
    // loop with continue and continuing/break-if
    var acc = 0u;
    var i = 0u;
    loop {
        i++;
        if i % 3u == 0u { continue; }
        acc += i;
        continuing { break if i >= lid % 7u + 1u; }
    }
    out[lid * 8u + 0u] = acc;
    out[lid * 8u + 1u] = classify(lid);
    // struct, vector, matrix
    var p = Pair(lid, vec2<u32>(lid * 2u, lid * 3u));
    p.b.y += 1u;
    let m = mat2x2<f32>(vec2<f32>(1.0, 2.0), vec2<f32>(3.0, 4.0));
    let v = m * vec2<f32>(f32(lid), 1.0);
    out[lid * 8u + 2u] = p.a + p.b.x + p.b.y + u32(v.y);
    // private with initializer, bit ops
    pv += lid;
    out[lid * 8u + 3u] = pv + countOneBits(lid) + extractBits(lid, 1u, 3u) + firstTrailingBit(lid + 64u);
    // subgroup: ballot, exclusive mul, broadcast first
    let bal = subgroupBallot(lane % 2u == 0u);
    let ex = subgroupExclusiveMul(select(1u, 2u, lane < 3u));
    out[lid * 8u + 4u] = countOneBits(bal.x) + countOneBits(bal.y) + countOneBits(bal.z) + countOneBits(bal.w) + ex * 100u;
    out[lid * 8u + 5u] = subgroupBroadcastFirst(lid);
    // atomics + workgroupUniformLoad
    let old = atomicAdd(&cnt, 1u);
    if lid == 0u { wflag = 5u; }
    let wf = workgroupUniformLoad(&wflag);
    let r = atomicCompareExchangeWeak(&cnt, 1000u, 0u);
    out[lid * 8u + 6u] = wf + select(0u, 1u, r.exchanged) + select(0u, 2u, old < 64u);
    // i32 arithmetic
    let si = i32(lid) - 32;
    out[lid * 8u + 7u] = bitcast<u32>(si / 5 + si % 5 + (si >> 2u) + abs(si));
}
