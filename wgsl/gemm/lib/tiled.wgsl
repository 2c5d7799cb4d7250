// include-only
// The body of the portable register-tiled GEMM (gemm/tiled): overrides, the workgroup tiles
// with their global fetch and stash, the lane layout and tile order, and the K loop
// (`tiled_main`, for the stage's entry point). The stage file declares TM, TN (consts the Rust
// policy check reads), the accumulator struct `Acc`, `step_at` (one k of the outer product from
// workgroup row k) and `store_acc` (the block of C out), the bindings of gemm/lib/operands.wgsl,
// then includes this.
//
// K loop knobs (overrides, constant after specialization; set from src/gemm/policy.rs):
//   BUFFERS 2: two workgroup buffers plus a register prefetch: the global loads of step t+1 are
//     issued before the FMAs of step t and stashed in the other buffer after them, one barrier
//     per step. BUFFERS 1: one buffer (half the workgroup memory), the same register prefetch,
//     and a second barrier before the stash.
//   PAIRED: the K loop is unrolled by two steps, so each step reads a buffer whose index is a
//     literal (workgroup addresses fold into immediates); a trailing single step for odd counts.
//   UNROLL 4 or 8: k per iteration of the inner loop (BK a multiple of it).

//!include gemm/lib/staged

override BM: u32 = 128u;
override BN: u32 = 128u;
override BK: u32 = 8u;
override A_FMT: u32 = 0u;
override B_FMT: u32 = 0u;
override HAS_ZEROS: bool = false;
// lane layout: 0 = row-major, else w × (32/w) patches per 32 invocations (see tiled.wgsl)
override WARP_X: u32 = 0u;
override BUFFERS: u32 = 2u;
override PAIRED: bool = false;
override UNROLL: u32 = 4u;

override WG_X: u32 = BN / TN;
override WG_Y: u32 = BM / TM;
override WG: u32 = WG_X * WG_Y;

// Workgroup array lengths, named: naga 30's override processing panics on the anonymous
// override an array-size expression becomes when a named override after it in the module is used
// in a global expression (pipeline_constants.rs, "unreachable" for an override without a name).
override AS_LEN: u32 = BUFFERS * BK * BM / 4u;
override BS_LEN: u32 = BUFFERS * BK * BN / 4u;

const MAX_FETCH: u32 = 4u;  // prefetched vec4 per invocation per operand (`Staged`)

//!include gemm/lib/operands

// [buffer][k][BM/4]: A transposed, so a column of the A tile is contiguous
var<workgroup> As: array<vec4<f32>, AS_LEN>;
// [buffer][k][BN/4]
var<workgroup> Bs: array<vec4<f32>, BS_LEN>;

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

// Global -> registers: item `li` of the A tile at (m0, k0); zero outside the matrix.
fn fetch_a(li: u32, m0: u32, k0: u32) -> vec4<u32> {
    let per_row = BK / a_epl();
    let row = m0 + li / per_row;
    let kv = k0 / a_epl() + li % per_row;
    if li < a_items() && row < params.m && kv < params.a_vecs {
        return k_tail(a[a_base + row * params.a_row_vecs + kv], kv, a_epl());
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
            let x = int4_word(kb, n);
            return vec4<u32>(x.word, bitcast<u32>(x.scale), bitcast<u32>(x.zero), 0u);
        }
        return vec4<u32>(0u);
    }
    if B_T {
        // B stored N×K: column n0 + li / per_row of the tile, loads along K (as A's rows)
        let per_row = BK / b_epl();
        let col = n0 + li / per_row;
        let kv = k0 / b_epl() + li % per_row;
        if col < params.n && kv < params.b_vecs {
            return k_tail(b[b_base + col * params.b_row_vecs + kv], kv, b_epl());
        }
        return vec4<u32>(0u);
    }
    let per_row = BN / b_epl();
    let kr = k0 + li / per_row;
    let nv = n0 / b_epl() + li % per_row;
    if kr < params.k && nv < params.b_vecs {
        return b[b_base + kr * params.b_row_vecs + nv];
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
    if B_T {
        // a column's epl elements along K, written down the tile's k rows (as stash_a)
        let per_row = BK / b_epl();
        let col = li / per_row;
        let kk = (li % per_row) * b_epl();
        let at = (base + kk) * (BN / 4u) + col / 4u;
        let lane = col % 4u;
        let s = BN / 4u; // one k further
        if B_FMT == 1u {
            let p0 = unpack2x16float(v.x);
            let p1 = unpack2x16float(v.y);
            let p2 = unpack2x16float(v.z);
            let p3 = unpack2x16float(v.w);
            Bs[at][lane] = p0.x;
            Bs[at + s][lane] = p0.y;
            Bs[at + 2u * s][lane] = p1.x;
            Bs[at + 3u * s][lane] = p1.y;
            Bs[at + 4u * s][lane] = p2.x;
            Bs[at + 5u * s][lane] = p2.y;
            Bs[at + 6u * s][lane] = p3.x;
            Bs[at + 7u * s][lane] = p3.y;
        } else {
            let f = bitcast<vec4<f32>>(v);
            Bs[at][lane] = f.x;
            Bs[at + s][lane] = f.y;
            Bs[at + 2u * s][lane] = f.z;
            Bs[at + 3u * s][lane] = f.w;
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

// Registers -> workgroup buffer `buf`: the tile fetched at k0.
fn stash_tile(s: Staged, lid: u32, buf: u32, k0: u32) {
    let fa = fetches_a();
    let fb = fetches_b();
    stash_a(lid, buf, s.a0);
    if fa > 1u { stash_a(lid + WG, buf, s.a1); }
    if fa > 2u { stash_a(lid + 2u * WG, buf, s.a2); }
    if fa > 3u { stash_a(lid + 3u * WG, buf, s.a3); }
    stash_b(lid, buf, k0, s.b0);
    if fb > 1u { stash_b(lid + WG, buf, k0, s.b1); }
    if fb > 2u { stash_b(lid + 2u * WG, buf, k0, s.b2); }
    if fb > 3u { stash_b(lid + 3u * WG, buf, k0, s.b3); }
}

// Invocation -> (tx, ty); a bijection of 0..WG onto WG_X × WG_Y (checked in Rust: `lane_xy`).
fn lane_xy(lid: u32) -> vec2<u32> {
    if WARP_X == 0u {
        return vec2<u32>(lid % WG_X, lid / WG_X);
    }
    let w = max(WARP_X, 1u);
    let blk = lid / 32u;
    let l = lid % 32u;
    // (at least 1 so a patch wider than the workgroup validates and GemmPolicy::check names it)
    let bx = max(WG_X / w, 1u);
    return vec2<u32>((blk % bx) * w + l % w, (blk / bx) * (32u / w) + l / w);
}

//!include gemm/lib/tile_order

// One row of C (of this workgroup's matrix and split, from c_base): 8 columns from two vec4
// accumulators, skipping what is outside C (so a caller's padding between N and the row stride
// is never written); with OUT_F16 (one split, N, the row stride and C's offsets even), rounded to
// f16 in four words of two (each quad starts at a multiple of 4 of N: a pair is inside C or
// outside it whole).
fn store_row(row: u32, col0: u32, col1: u32, v0: vec4<f32>, v1: vec4<f32>) {
    if row >= params.m {
        return;
    }
    let n = params.n;
    if OUT_F16 {
        let w = (c_base + row * params.c_row) / 2u;
        if col0 < n { c16[w + col0 / 2u] = pack_f16(v0.x, v0.y); }
        if col0 + 2u < n { c16[w + col0 / 2u + 1u] = pack_f16(v0.z, v0.w); }
        if col1 < n { c16[w + col1 / 2u] = pack_f16(v1.x, v1.y); }
        if col1 + 2u < n { c16[w + col1 / 2u + 1u] = pack_f16(v1.z, v1.w); }
        return;
    }
    let at = c_base + row * params.c_row;
    if col0 < n { c[at + col0] = v0.x; }
    if col0 + 1u < n { c[at + col0 + 1u] = v0.y; }
    if col0 + 2u < n { c[at + col0 + 2u] = v0.z; }
    if col0 + 3u < n { c[at + col0 + 3u] = v0.w; }
    if col1 < n { c[at + col1] = v1.x; }
    if col1 + 1u < n { c[at + col1 + 1u] = v1.y; }
    if col1 + 2u < n { c[at + col1 + 2u] = v1.z; }
    if col1 + 3u < n { c[at + col1 + 3u] = v1.w; }
}


// One K step t of split range ..t1, multiplying workgroup buffer `cur` (a literal when PAIRED).
fn k_step(acc: Acc, t: u32, t1: u32, cur: u32, lid: u32, m0: u32, n0: u32, xy: vec2<u32>) -> Acc {
    let buf = cur % BUFFERS;
    let more = t + 1u < t1;
    let kn = (t + 1u) * BK;
    // prefetch: issue the global loads of tile t+1 now, consume them after the FMAs. Always:
    // past K the fetch's bounds checks give zeros without loading (at the end of a split that
    // is not the last, it loads the next split's tile for nothing). Under `if more`, NVIDIA's
    // compiler merged the loads into the variable with moves right after them, which waited
    // for the loads before the FMAs (seen in the cooperative kernel's SASS, docs/gemm.md).
    let st = fetch_tile(lid, m0, n0, kn, fetches_a(), fetches_b());
    // multiply: UNROLL k per iteration (fewer loop-bound checks, which wgpu adds to every loop)
    var r = acc;
    for (var kk = 0u; kk < BK; kk += UNROLL) {
        let k = buf * BK + kk;
        r = step_at(r, k, xy);
        r = step_at(r, k + 1u, xy);
        r = step_at(r, k + 2u, xy);
        r = step_at(r, k + 3u, xy);
        if UNROLL == 8u {
            r = step_at(r, k + 4u, xy);
            r = step_at(r, k + 5u, xy);
            r = step_at(r, k + 6u, xy);
            r = step_at(r, k + 7u, xy);
        }
    }
    if BUFFERS == 1u {
        // barrier: everyone is done reading the only buffer before it is overwritten
        workgroupBarrier();
    }
    // stash: tile t+1 into the next buffer. With two buffers its last readers ran in step t-1,
    // before the barrier that ended it, so no barrier is needed before these writes.
    if more {
        stash_tile(st, lid, (buf + 1u) % BUFFERS, kn);
    }
    // barrier: tile t+1 is complete, and everyone is done reading buffer `buf` (rewritten in
    // step t+1 with two buffers)
    workgroupBarrier();
    return r;
}

// The kernel, for the stage's entry point (`@workgroup_size(WG_X, WG_Y)`).
fn tiled_main(lid: u32, wid: vec3<u32>, nwg: vec3<u32>) {
    let tile = tile_of(wid, nwg);
    if FOLDED != 0u && past_c(tile) {
        return;
    }
    let n0 = tile.x * BN;
    let m0 = tile.y * BM;
    let xy = lane_xy(lid);
    // the workgroup's matrix and K split (workgroup_id.z = matrix · splits + split; without
    // LAYOUT one matrix, and z is the split)
    let mat = select(0u, wid.z / params.splits, LAYOUT);
    let split = select(wid.z, wid.z % params.splits, LAYOUT);
    set_bases(mat, split);
    // this split's K tiles: t0 .. t1 (uniform over the workgroup)
    let t0 = split * params.tiles_per_split;
    let t1 = min(t0 + params.tiles_per_split, params.k_tiles);

    // load: the split's first tile into buffer 0
    stash_tile(fetch_tile(lid, m0, n0, t0 * BK, fetches_a(), fetches_b()), lid, 0u, t0 * BK);
    // barrier: the first tile is complete in buffer 0 before anyone multiplies
    workgroupBarrier();

    var acc: Acc;
    if PAIRED {
        // steps t0 + 2i read buffer 0, t0 + 2i + 1 buffer 1 (both 0 with one buffer)
        var t = t0;
        for (; t + 1u < t1; t += 2u) {
            acc = k_step(acc, t, t1, 0u, lid, m0, n0, xy);
            acc = k_step(acc, t + 1u, t1, 1u, lid, m0, n0, xy);
        }
        if t < t1 {
            acc = k_step(acc, t, t1, 0u, lid, m0, n0, xy);
        }
    } else {
        for (var t = t0; t < t1; t++) {
            acc = k_step(acc, t, t1, (t - t0) % 2u, lid, m0, n0, xy);
        }
    }

    // store: the invocation's block of C, skipping what is outside C
    store_acc(m0, n0, xy, acc);
}
