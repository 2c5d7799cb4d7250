// Portable register-tiled GEMM: C (M×N, f32) = A (M×K) · B (K×N), all row-major, f32 accumulation.
//
// The SIMT hierarchy of Volkov & Demmel, "Benchmarking GPUs to tune dense linear algebra" (SC'08),
// as CUTLASS's SIMT GEMM names it: a workgroup owns a BM×BN tile of C; every K step it stages a
// BM×BK slice of A (transposed, k-major) and a BK×BN slice of B in workgroup memory; each
// invocation owns a TM×TN block of C in registers and does TM·TN FMAs per k from TM/4 + TN/4 vec4
// reads of workgroup memory. Two workgroup buffers (double buffering) plus a register prefetch:
// the global loads of step t+1 are issued before the FMAs of step t and written to the other
// buffer after them, so one barrier per step suffices.
//
// Invocation layout (mirrored and checked exhaustively in Rust, src/gemm/policy.rs, at plan time):
//   tx = lid % WG_X, ty = lid / WG_X, WG_X = BN/TN, WG_Y = BM/TM;
//   rows of C: 4·(ty + i·WG_Y) + r for i < TM/4, r < 4; columns 4·(tx + j·WG_X) + c for j < TN/4.
//   The interleave keeps each subgroup's workgroup-memory reads contiguous (conflict-free).
//
// Element formats (overrides, constant after specialization):
//   A_FMT 0: f32, 4 per vec4<u32> (bitcast);  1: f16, 8 per vec4<u32> (unpack2x16float).
//   B_FMT 0: f32;  1: f16;  2: int4, 8 per u32 along K with one f16 scale (and optional f16
//   zero, else 8) per group of 128 along K: w = (q - zero) · scale. See docs/gemm.md.
// The host pads A rows to a whole vec4 of K and B rows to a whole vec4 of N (zeros), so a vec4 is
// entirely inside or outside the matrix; every other edge is handled here: loads outside M, N, K
// read zero, stores outside M, N are skipped. No function takes an array by value.

override BM: u32 = 128u;
override BN: u32 = 128u;
override BK: u32 = 8u;
override TM: u32 = 8u;
override TN: u32 = 8u;
override A_FMT: u32 = 0u;
override B_FMT: u32 = 0u;
override HAS_ZEROS: bool = false;

override WG_X: u32 = BN / TN;
override WG_Y: u32 = BM / TM;
override WG: u32 = WG_X * WG_Y;

// Register budget of one invocation; the Rust policy check reads these constants.
const MAX_ACC: u32 = 16u;   // vec4 accumulators: TM·TN/4 ≤ 16
const MAX_TM4: u32 = 4u;    // TM/4 ≤ 4
const MAX_FETCH: u32 = 4u;  // prefetched vec4 per invocation per operand

const GROUP: u32 = 128u;    // int4 quantization group along K

struct Params {
    m: u32,
    n: u32,
    k: u32,
    // vec4<u32> per row of A (K padded) and of B (N padded); for int4, u32 per packed row (= N)
    a_row_vecs: u32,
    b_row_vecs: u32,
    k_tiles: u32,
    // int4: packed rows (ceil(K/8))
    b_rows: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> scales: array<u32>;
@group(0) @binding(4) var<storage, read> zeros: array<u32>;
@group(0) @binding(5) var<storage, read_write> c: array<f32>;

// [buffer][k][BM/4]: A transposed, so a column of the A tile is contiguous
var<workgroup> As: array<vec4<f32>, 2u * BK * BM / 4u>;
// [buffer][k][BN/4]
var<workgroup> Bs: array<vec4<f32>, 2u * BK * BN / 4u>;

fn a_epl() -> u32 {
    return select(4u, 8u, A_FMT == 1u);
}

fn b_epl() -> u32 {
    return select(4u, 8u, B_FMT == 1u);
}

fn a_items() -> u32 {
    return BM * BK / a_epl();
}

fn b_items() -> u32 {
    if B_FMT == 2u {
        return BK / 8u * BN;
    }
    return BK * BN / b_epl();
}

fn f16_word(buf_is_scales: bool, idx: u32) -> f32 {
    var w: u32;
    if buf_is_scales {
        w = scales[idx / 2u];
    } else {
        w = zeros[idx / 2u];
    }
    return unpack2x16float(w >> (16u * (idx & 1u))).x;
}

// Global -> registers: item `li` of the A tile at (m0, k0); zero outside the matrix.
fn fetch_a(li: u32, m0: u32, k0: u32) -> vec4<u32> {
    let per_row = BK / a_epl();
    let row = m0 + li / per_row;
    let kv = k0 / a_epl() + li % per_row;
    if li < a_items() && row < params.m && kv < params.a_row_vecs {
        return a[row * params.a_row_vecs + kv];
    }
    return vec4<u32>(0u);
}

// Global -> registers: item `li` of the B tile at (k0, n0). For int4: (word, scale bits, zero bits).
fn fetch_b(li: u32, k0: u32, n0: u32) -> vec4<u32> {
    if li >= b_items() {
        return vec4<u32>(0u);
    }
    if B_FMT == 2u {
        let kb = k0 / 8u + li / BN;
        let n = n0 + li % BN;
        if kb < params.b_rows && n < params.n {
            let w = kb * params.n + n;
            let g = (kb * 8u) / GROUP * params.n + n;
            var z = 8.0;
            if HAS_ZEROS {
                z = f16_word(false, g);
            }
            return vec4<u32>(b[w / 4u][w % 4u], bitcast<u32>(f16_word(true, g)), bitcast<u32>(z), 0u);
        }
        return vec4<u32>(0u);
    }
    let per_row = BN / b_epl();
    let kr = k0 + li / per_row;
    let nv = n0 / b_epl() + li % per_row;
    if kr < params.k && nv < params.b_row_vecs {
        return b[kr * params.b_row_vecs + nv];
    }
    return vec4<u32>(0u);
}

// Registers -> workgroup buffer `buf`: item `li` of the A tile, transposed.
fn stash_a(li: u32, buf: u32, v: vec4<u32>) {
    if li >= a_items() {
        return;
    }
    let per_row = BK / a_epl();
    let row = li / per_row;
    let kk = (li % per_row) * a_epl();
    let base = buf * BK;
    if A_FMT == 1u {
        for (var h = 0u; h < 4u; h++) {
            let p = unpack2x16float(v[h]);
            As[(base + kk + 2u * h) * (BM / 4u) + row / 4u][row % 4u] = p.x;
            As[(base + kk + 2u * h + 1u) * (BM / 4u) + row / 4u][row % 4u] = p.y;
        }
    } else {
        let f = bitcast<vec4<f32>>(v);
        for (var e = 0u; e < 4u; e++) {
            As[(base + kk + e) * (BM / 4u) + row / 4u][row % 4u] = f[e];
        }
    }
}

// Registers -> workgroup buffer `buf`: item `li` of the B tile (int4 dequantized here).
fn stash_b(li: u32, buf: u32, k0: u32, v: vec4<u32>) {
    if li >= b_items() {
        return;
    }
    let base = buf * BK;
    if B_FMT == 2u {
        let kb = li / BN;
        let n = li % BN;
        let s = bitcast<f32>(v.y);
        let z = bitcast<f32>(v.z);
        for (var j = 0u; j < 8u; j++) {
            let kk = kb * 8u + j;
            let q = f32((v.x >> (4u * j)) & 15u);
            // nibbles past K are padding: zero, whatever the scale
            let w = select(0.0, (q - z) * s, k0 + kk < params.k);
            Bs[(base + kk) * (BN / 4u) + n / 4u][n % 4u] = w;
        }
        return;
    }
    let per_row = BN / b_epl();
    let kr = li / per_row;
    let nv = (li % per_row) * (b_epl() / 4u);
    let at = (base + kr) * (BN / 4u) + nv;
    if B_FMT == 1u {
        let lo = unpack2x16float(v.x);
        let hi = unpack2x16float(v.y);
        let lo2 = unpack2x16float(v.z);
        let hi2 = unpack2x16float(v.w);
        Bs[at] = vec4<f32>(lo, hi);
        Bs[at + 1u] = vec4<f32>(lo2, hi2);
    } else {
        Bs[at] = bitcast<vec4<f32>>(v);
    }
}

@compute @workgroup_size(WG_X, WG_Y)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n0 = wid.x * BN;
    let m0 = wid.y * BM;
    let tx = lid % WG_X;
    let ty = lid / WG_X;
    let k_tiles = params.k_tiles;

    var acc: array<vec4<f32>, MAX_ACC>;
    var pa: array<vec4<u32>, MAX_FETCH>;
    var pb: array<vec4<u32>, MAX_FETCH>;
    let fa = (a_items() + WG - 1u) / WG;
    let fb = (b_items() + WG - 1u) / WG;

    // load: tile 0 into buffer 0
    for (var r = 0u; r < fa; r++) {
        pa[r] = fetch_a(lid + r * WG, m0, 0u);
    }
    for (var r = 0u; r < fb; r++) {
        pb[r] = fetch_b(lid + r * WG, 0u, n0);
    }
    for (var r = 0u; r < fa; r++) {
        stash_a(lid + r * WG, 0u, pa[r]);
    }
    for (var r = 0u; r < fb; r++) {
        stash_b(lid + r * WG, 0u, 0u, pb[r]);
    }
    // barrier: tile 0 is complete in buffer 0 before anyone multiplies
    workgroupBarrier();

    for (var t = 0u; t < k_tiles; t++) {
        let cur = t % 2u;
        let more = t + 1u < k_tiles;
        let k_next = (t + 1u) * BK;
        // prefetch: issue the global loads of tile t+1 now, consume them after the FMAs
        if more {
            for (var r = 0u; r < fa; r++) {
                pa[r] = fetch_a(lid + r * WG, m0, k_next);
            }
            for (var r = 0u; r < fb; r++) {
                pb[r] = fetch_b(lid + r * WG, k_next, n0);
            }
        }
        // multiply: TM×TN outer products per k from registers
        for (var kk = 0u; kk < BK; kk++) {
            let arow = (cur * BK + kk) * (BM / 4u);
            let brow = (cur * BK + kk) * (BN / 4u);
            var av: array<vec4<f32>, MAX_TM4>;
            for (var i = 0u; i < TM / 4u; i++) {
                av[i] = As[arow + ty + i * WG_Y];
            }
            for (var j = 0u; j < TN / 4u; j++) {
                let bv = Bs[brow + tx + j * WG_X];
                for (var i = 0u; i < TM / 4u; i++) {
                    let ai = av[i];
                    let at = i * 4u * (TN / 4u) + j;
                    acc[at] = fma(vec4<f32>(ai.x), bv, acc[at]);
                    acc[at + TN / 4u] = fma(vec4<f32>(ai.y), bv, acc[at + TN / 4u]);
                    acc[at + 2u * (TN / 4u)] = fma(vec4<f32>(ai.z), bv, acc[at + 2u * (TN / 4u)]);
                    acc[at + 3u * (TN / 4u)] = fma(vec4<f32>(ai.w), bv, acc[at + 3u * (TN / 4u)]);
                }
            }
        }
        // stash: tile t+1 into the other buffer. Its last readers ran in step t-1, before the
        // barrier that ended it, so no barrier is needed before these writes.
        if more {
            for (var r = 0u; r < fa; r++) {
                stash_a(lid + r * WG, 1u - cur, pa[r]);
            }
            for (var r = 0u; r < fb; r++) {
                stash_b(lid + r * WG, 1u - cur, k_next, pb[r]);
            }
        }
        // barrier: tile t+1 is complete, and everyone is done reading buffer `cur` (rewritten
        // in step t+1)
        workgroupBarrier();
    }

    // store: skip rows and columns outside C
    for (var i = 0u; i < TM / 4u; i++) {
        for (var r = 0u; r < 4u; r++) {
            let row = m0 + 4u * (ty + i * WG_Y) + r;
            if row < params.m {
                for (var j = 0u; j < TN / 4u; j++) {
                    let col = n0 + 4u * (tx + j * WG_X);
                    let v = acc[(i * 4u + r) * (TN / 4u) + j];
                    for (var e = 0u; e < 4u; e++) {
                        if col + e < params.n {
                            c[row * params.n + col + e] = v[e];
                        }
                    }
                }
            }
        }
    }
}
