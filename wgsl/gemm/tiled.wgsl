// Portable register-tiled GEMM: C (M×N, f32) = A (M×K) · B (K×N), all row-major, f32 accumulation.
//
// The SIMT hierarchy of Volkov & Demmel, "Benchmarking GPUs to tune dense linear algebra" (SC'08),
// as CUTLASS's SIMT GEMM names it: a workgroup owns a BM×BN tile of C; every K step it stages a
// BM×BK slice of A (transposed, k-major) and a BK×BN slice of B in workgroup memory; each
// invocation owns an 8×8 (TM×TN) block of C in registers and does 64 FMAs per k from 4 vec4
// reads of workgroup memory. Two workgroup buffers (double buffering) plus a register prefetch:
// the global loads of step t+1 are issued before the FMAs of step t and written to the other
// buffer after them, so one barrier per step suffices.
//
// Invocation layout (mirrored and checked exhaustively in Rust, src/gemm/policy.rs, at plan time):
//   (tx, ty) = lane_xy(lid), WG_X = BN/TN, WG_Y = BM/TM;
//   rows of C: 4·(ty + i·WG_Y) + r for i < 2, r < 4; columns 4·(tx + j·WG_X) + c for j < 2.
//   The interleave keeps each subgroup's workgroup-memory reads contiguous (conflict-free).
//   WARP_X = 0: row-major, tx = lid % WG_X (a subgroup of 32 spans 16×2 invocations at WG_X = 16:
//   16 distinct B vec4 per read). WARP_X = w > 0: blocks of 32 consecutive invocations form
//   w × (32/w) patches of (tx, ty) (CUTLASS's 8×4 warp arrangement at w = 8: per read, 8 distinct
//   B vec4 and 4 distinct A vec4 per subgroup of 32, i.e. 128 + 64 bytes of workgroup memory).
// Workgroups map to tiles in grouped order (`tile_of`); with split-K, workgroup_id.z selects a
// range of K tiles and the partial product goes to its own slice of the output.
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
override A_FMT: u32 = 0u;
override B_FMT: u32 = 0u;
override HAS_ZEROS: bool = false;
// lane layout: 0 = row-major, else w × (32/w) patches per 32 invocations (see the header)
override WARP_X: u32 = 0u;

override WG_X: u32 = BN / TN;
override WG_Y: u32 = BM / TM;
override WG: u32 = WG_X * WG_Y;

// The invocation's block of C (struct `Acc`) and its prefetch registers are fixed here, with
// literal names: NVIDIA's SPIR-V compiler put a loop-indexed accumulator array in local memory
// (1.8 TFLOP/s on the H100 at 4096³). The Rust policy check reads these constants from the module.
const TM: u32 = 8u;         // rows of C per invocation: 4·ty + r and 4·(ty + WG_Y) + r
const TN: u32 = 8u;         // columns: 4·tx + c and 4·(tx + WG_X) + c
const MAX_FETCH: u32 = 4u;  // prefetched vec4 per invocation per operand (pa0..pa3, pb0..pb3)

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
    // split-K: K tiles per split; split z (workgroup_id.z) writes its partial product to
    // c[z·M·N ..], summed by splitk_sum.wgsl
    tiles_per_split: u32,
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
    let col = row / 4u;
    let lane = row % 4u;
    let at = (base + kk) * (BM / 4u) + col;
    let s = BM / 4u; // one k further
    if A_FMT == 1u {
        let p0 = unpack2x16float(v.x);
        let p1 = unpack2x16float(v.y);
        let p2 = unpack2x16float(v.z);
        let p3 = unpack2x16float(v.w);
        As[at][lane] = p0.x;
        As[at + s][lane] = p0.y;
        As[at + 2u * s][lane] = p1.x;
        As[at + 3u * s][lane] = p1.y;
        As[at + 4u * s][lane] = p2.x;
        As[at + 5u * s][lane] = p2.y;
        As[at + 6u * s][lane] = p3.x;
        As[at + 7u * s][lane] = p3.y;
    } else {
        let f = bitcast<vec4<f32>>(v);
        As[at][lane] = f.x;
        As[at + s][lane] = f.y;
        As[at + 2u * s][lane] = f.z;
        As[at + 3u * s][lane] = f.w;
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

// The invocation's 8×8 block of C: c<r><j> = row r, column vec4 j. A struct (not an array), so
// every access has a constant member and stays in registers.
struct Acc {
    c00: vec4<f32>, c01: vec4<f32>,
    c10: vec4<f32>, c11: vec4<f32>,
    c20: vec4<f32>, c21: vec4<f32>,
    c30: vec4<f32>, c31: vec4<f32>,
    c40: vec4<f32>, c41: vec4<f32>,
    c50: vec4<f32>, c51: vec4<f32>,
    c60: vec4<f32>, c61: vec4<f32>,
    c70: vec4<f32>, c71: vec4<f32>,
}

// One k of the outer product: rows from a0 (4·ty..) and a1 (4·(ty + WG_Y)..), columns from b0, b1.
fn step(c: Acc, a0: vec4<f32>, a1: vec4<f32>, b0: vec4<f32>, b1: vec4<f32>) -> Acc {
    var r: Acc;
    r.c00 = fma(vec4<f32>(a0.x), b0, c.c00); r.c01 = fma(vec4<f32>(a0.x), b1, c.c01);
    r.c10 = fma(vec4<f32>(a0.y), b0, c.c10); r.c11 = fma(vec4<f32>(a0.y), b1, c.c11);
    r.c20 = fma(vec4<f32>(a0.z), b0, c.c20); r.c21 = fma(vec4<f32>(a0.z), b1, c.c21);
    r.c30 = fma(vec4<f32>(a0.w), b0, c.c30); r.c31 = fma(vec4<f32>(a0.w), b1, c.c31);
    r.c40 = fma(vec4<f32>(a1.x), b0, c.c40); r.c41 = fma(vec4<f32>(a1.x), b1, c.c41);
    r.c50 = fma(vec4<f32>(a1.y), b0, c.c50); r.c51 = fma(vec4<f32>(a1.y), b1, c.c51);
    r.c60 = fma(vec4<f32>(a1.z), b0, c.c60); r.c61 = fma(vec4<f32>(a1.z), b1, c.c61);
    r.c70 = fma(vec4<f32>(a1.w), b0, c.c70); r.c71 = fma(vec4<f32>(a1.w), b1, c.c71);
    return r;
}

// One k read from workgroup buffer row `k` (an index into [buffer][k]) and multiplied in.
fn step_at(c: Acc, k: u32, tx: u32, ty: u32) -> Acc {
    let arow = k * (BM / 4u);
    let brow = k * (BN / 4u);
    return step(c, As[arow + ty], As[arow + ty + WG_Y], Bs[brow + tx], Bs[brow + tx + WG_X]);
}

// Invocation -> (tx, ty); a bijection of 0..WG onto WG_X × WG_Y (checked in Rust: `lane_xy`).
fn lane_xy(lid: u32) -> vec2<u32> {
    if WARP_X == 0u {
        return vec2<u32>(lid % WG_X, lid / WG_X);
    }
    let w = max(WARP_X, 1u);
    let blk = lid / 32u;
    let l = lid % 32u;
    let bx = WG_X / w;
    return vec2<u32>((blk % bx) * w + l % w, (blk / bx) * (32u / w) + l / w);
}

// Workgroup -> tile: groups of GROUP_M tile rows walked column by column (Triton's grouped
// ordering), so the workgroups resident at once share rows of A and columns of B in L2. A
// bijection of the grid onto itself; mirrored and checked in src/gemm/policy.rs (`tile_of`).
const GROUP_M: u32 = 8u;

fn tile_of(wid: vec3<u32>, nwg: vec3<u32>) -> vec2<u32> {
    let per_group = GROUP_M * nwg.x;
    let pid = wid.x + wid.y * nwg.x;
    let first_m = (pid / per_group) * GROUP_M;
    let rows = min(nwg.y - first_m, GROUP_M);
    let r = pid % per_group;
    // (tile column, tile row)
    return vec2<u32>(r / rows, first_m + r % rows);
}

// One row of C (of split `z`'s partial): 8 columns from two vec4 accumulators, skipping what is
// outside C.
fn store_row(z: u32, row: u32, col0: u32, col1: u32, v0: vec4<f32>, v1: vec4<f32>) {
    if row >= params.m {
        return;
    }
    let at = (z * params.m + row) * params.n;
    let n = params.n;
    if col0 < n { c[at + col0] = v0.x; }
    if col0 + 1u < n { c[at + col0 + 1u] = v0.y; }
    if col0 + 2u < n { c[at + col0 + 2u] = v0.z; }
    if col0 + 3u < n { c[at + col0 + 3u] = v0.w; }
    if col1 < n { c[at + col1] = v1.x; }
    if col1 + 1u < n { c[at + col1 + 1u] = v1.y; }
    if col1 + 2u < n { c[at + col1 + 2u] = v1.z; }
    if col1 + 3u < n { c[at + col1 + 3u] = v1.w; }
}

@compute @workgroup_size(WG_X, WG_Y)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let tile = tile_of(wid, nwg);
    let n0 = tile.x * BN;
    let m0 = tile.y * BM;
    let xy = lane_xy(lid);
    let tx = xy.x;
    let ty = xy.y;
    // this split's K tiles: t0 .. t1 (uniform over the workgroup)
    let t0 = wid.z * params.tiles_per_split;
    let t1 = min(t0 + params.tiles_per_split, params.k_tiles);
    let kz = t0 * BK;
    // loads per invocation per operand (constant after specialization; checked ≤ MAX_FETCH)
    let fa = (a_items() + WG - 1u) / WG;
    let fb = (b_items() + WG - 1u) / WG;

    var acc: Acc;
    var pa0: vec4<u32>; var pa1: vec4<u32>; var pa2: vec4<u32>; var pa3: vec4<u32>;
    var pb0: vec4<u32>; var pb1: vec4<u32>; var pb2: vec4<u32>; var pb3: vec4<u32>;

    // load: the split's first tile into buffer 0 (the same fetch/stash sequence as the loop below)
    pa0 = fetch_a(lid, m0, kz);
    if fa > 1u { pa1 = fetch_a(lid + WG, m0, kz); }
    if fa > 2u { pa2 = fetch_a(lid + 2u * WG, m0, kz); }
    if fa > 3u { pa3 = fetch_a(lid + 3u * WG, m0, kz); }
    pb0 = fetch_b(lid, kz, n0);
    if fb > 1u { pb1 = fetch_b(lid + WG, kz, n0); }
    if fb > 2u { pb2 = fetch_b(lid + 2u * WG, kz, n0); }
    if fb > 3u { pb3 = fetch_b(lid + 3u * WG, kz, n0); }
    stash_a(lid, 0u, pa0);
    if fa > 1u { stash_a(lid + WG, 0u, pa1); }
    if fa > 2u { stash_a(lid + 2u * WG, 0u, pa2); }
    if fa > 3u { stash_a(lid + 3u * WG, 0u, pa3); }
    stash_b(lid, 0u, kz, pb0);
    if fb > 1u { stash_b(lid + WG, 0u, kz, pb1); }
    if fb > 2u { stash_b(lid + 2u * WG, 0u, kz, pb2); }
    if fb > 3u { stash_b(lid + 3u * WG, 0u, kz, pb3); }
    // barrier: the first tile is complete in buffer 0 before anyone multiplies
    workgroupBarrier();

    for (var t = t0; t < t1; t++) {
        let cur = (t - t0) % 2u;
        let more = t + 1u < t1;
        let kn = (t + 1u) * BK;
        // prefetch: issue the global loads of tile t+1 now, consume them after the FMAs
        if more {
            pa0 = fetch_a(lid, m0, kn);
            if fa > 1u { pa1 = fetch_a(lid + WG, m0, kn); }
            if fa > 2u { pa2 = fetch_a(lid + 2u * WG, m0, kn); }
            if fa > 3u { pa3 = fetch_a(lid + 3u * WG, m0, kn); }
            pb0 = fetch_b(lid, kn, n0);
            if fb > 1u { pb1 = fetch_b(lid + WG, kn, n0); }
            if fb > 2u { pb2 = fetch_b(lid + 2u * WG, kn, n0); }
            if fb > 3u { pb3 = fetch_b(lid + 3u * WG, kn, n0); }
        }
        // multiply: 8×8 outer product per k from 4 vec4 reads of workgroup memory, four k per
        // iteration (BK is a multiple of 4: fewer loop-bound checks, which wgpu adds to every loop)
        for (var kk = 0u; kk < BK; kk += 4u) {
            let k = cur * BK + kk;
            acc = step_at(acc, k, tx, ty);
            acc = step_at(acc, k + 1u, tx, ty);
            acc = step_at(acc, k + 2u, tx, ty);
            acc = step_at(acc, k + 3u, tx, ty);
        }
        // stash: tile t+1 into the other buffer. Its last readers ran in step t-1, before the
        // barrier that ended it, so no barrier is needed before these writes.
        if more {
            let nb = 1u - cur;
            stash_a(lid, nb, pa0);
            if fa > 1u { stash_a(lid + WG, nb, pa1); }
            if fa > 2u { stash_a(lid + 2u * WG, nb, pa2); }
            if fa > 3u { stash_a(lid + 3u * WG, nb, pa3); }
            stash_b(lid, nb, kn, pb0);
            if fb > 1u { stash_b(lid + WG, nb, kn, pb1); }
            if fb > 2u { stash_b(lid + 2u * WG, nb, kn, pb2); }
            if fb > 3u { stash_b(lid + 3u * WG, nb, kn, pb3); }
        }
        // barrier: tile t+1 is complete, and everyone is done reading buffer `cur` (rewritten
        // in step t+1)
        workgroupBarrier();
    }

    // store: rows 4·ty + r and 4·(ty + WG_Y) + r, columns 4·tx.. and 4·(tx + WG_X)..
    let r0 = m0 + 4u * ty;
    let r1 = m0 + 4u * (ty + WG_Y);
    let q0 = n0 + 4u * tx;
    let q1 = n0 + 4u * (tx + WG_X);
    store_row(wid.z, r0, q0, q1, acc.c00, acc.c01);
    store_row(wid.z, r0 + 1u, q0, q1, acc.c10, acc.c11);
    store_row(wid.z, r0 + 2u, q0, q1, acc.c20, acc.c21);
    store_row(wid.z, r0 + 3u, q0, q1, acc.c30, acc.c31);
    store_row(wid.z, r1, q0, q1, acc.c40, acc.c41);
    store_row(wid.z, r1 + 1u, q0, q1, acc.c50, acc.c51);
    store_row(wid.z, r1 + 2u, q0, q1, acc.c60, acc.c61);
    store_row(wid.z, r1 + 3u, q0, q1, acc.c70, acc.c71);
}
