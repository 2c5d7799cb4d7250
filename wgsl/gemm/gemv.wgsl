// GEMM for a few rows of A (the matrix-vector products of LLM decoding, batched): C (M×N) =
// A (M×K) · B (K×N), row-major, B f32, f16 or int4 (docs/gemm.md, "int4 weight format"), A f32
// with f32 B and f16 otherwise, C f32. Such a product reads B once and does almost nothing
// else, so the kernel is built for B's bandwidth, not for reuse. A workgroup is CV column
// groups × KT lanes of K (CV · KT = 256): invocation (cv, kt) owns a few consecutive columns
// for all rows of its block (one vec4 of a B row per k, f32: 4 columns, f16: 8; or four packed
// words per 8 k, int4: 4 columns) and every KT-th k (word) of the workgroup's K range, four loads
// a step, issued a step ahead of their multiply-adds (transposed B: as the step begins); the KT
// partial sums of a column are added in workgroup memory at the end. A subgroup's invocations
// are CV consecutive column groups of one k, then the next k: each B row is read in runs of CV
// column groups (the host keeps a run at least one 32-byte sector). The register-tiled kernel
// (tiled.wgsl) spent 31 of every 32 rows of its tile on nothing here, with a barrier per 8 of K.
//
// Layout: workgroup w = x + y · (the grid's width) of K slice z owns rows [rb·ROWS, (rb+1)·ROWS)
// for rb = w % ROW_BLOCKS, column groups [cb·CV, (cb+1)·CV) for cb = w / ROW_BLOCKS, and
// [z·KSLICE, (z+1)·KSLICE) of K (split-K: slice z writes its partial product to c[z·M·N ..],
// summed by splitk_sum.wgsl; one slice writes C). The host folds the BLOCKS workgroups of a
// slice into rows where they are more than one dispatch dimension allows; those past BLOCKS
// (the last row's rest) exit. The row blocks of a column block are consecutive workgroups, so
// they run together and all but the first read their B from L2. The slice is worked through in
// chunks of CHUNK: the block's A for the chunk (ROWS × CHUNK) is staged in workgroup memory as
// f32, then multiplied; its loads are issued during the chunk before, held in registers. With
// few columns (CV small) one slice can cover all of K, and the split-K sum, a second dispatch,
// is not needed.
//
// Params and bindings are the tiled kernel's (gemv_pass in src/gemm/ fills both alike), and so
// is the layout (gemm/lib/layout.wgsl): A and B at row strides, offsets and a batch (LAYOUT:
// workgroup_id.z = matrix · slices + slice), C written at its row stride, only at its elements.
// B stored transposed (B_T, N×K): one column per invocation (COLS_BT), each lane reading loads
// of the column's row along K, as the int4 path reads its words.
//
// Loads of B are unconditional (indices clamped into the matrix, the value then zeroed past K
// or N): under an `if`, NVIDIA's compiler issues each load after the previous one's branch.
// For the same reason the kernel is built without runtime checks (src/gpu/mod.rs,
// runtime_checks); every access is proven in bounds by the simulator tests
// (tests/behaviour/gemm.rs: edges in N and K, several slices).
// wgsimd: runtime checks off

override B_FMT: u32 = 0u;
override HAS_ZEROS: bool = false;
// rows per workgroup (M, or MAX_ROWS when M is larger): a constant, so that the steps of rows
// past it compile away and the sums stay in registers; and the blocks of rows, ceil(M / ROWS)
override ROWS: u32 = 1u;
override ROW_BLOCKS: u32 = 1u;
// workgroups per K slice: column blocks × ROW_BLOCKS
override BLOCKS: u32 = 1u;
const WG: u32 = 256u;
// column groups per workgroup (a power of two up to 32), and lanes of K per column group
override CV: u32 = 32u;
override KT: u32 = WG / CV;
// K staged at a time: a multiple of 4·KT (f32 / f16: four loads per step of KT lanes) or of
// 32·KT (int4: four words of 8 per step); K per workgroup: a multiple of CHUNK
override CHUNK: u32 = 256u;
override KSLICE: u32 = 256u;
override AS_LEN: u32 = ROWS * CHUNK;
// the host keeps ROWS at most this (gemv_pass in src/gemm/, `rows`); main writes its per-row
// steps out for 8 rows
const MAX_ROWS: u32 = 8u;
const_assert MAX_ROWS == 8u;
// Columns per invocation by format (cols), and B's loads per lane per step (f32 / f16: one
// vec4 of a B row per k; int4: one vec4 of four packed words per 8 k), written out below: the
// host reads them to size the column groups, the steps and the chunks (gemv_pass in
// src/gemm/).
const COLS_F32: u32 = 4u;
const COLS_F16: u32 = 8u;
const COLS_INT4: u32 = 4u;
// int4 with N a multiple of 4 (the host's choice): a column group's four words of a packed row
// are one aligned vec4 load; else four word loads
override INT4_VEC: bool = false;
// B stored transposed (B_T, N×K): one column per invocation, one load of its row along K (4 f32
// or 8 f16) per step lane, like the int4 words
const COLS_BT: u32 = 1u;
const STEP_LOADS: u32 = 4u;
const_assert STEP_LOADS == 4u;
// A's loads per invocation of one chunk, issued during the chunk before and held in registers
// until the chunk is staged (the host keeps ROWS · CHUNK / a_epl() at most A_LOADS · WG): at
// int4 2 / 4 × 4096×14336 (7 chunks at 4 rows) 23.4 / 31.3 µs against 25.6 / 34.6 with each
// chunk's A loaded as it is staged (H200, 2026-12-01)
const A_LOADS: u32 = 6u;
const_assert A_LOADS == 6u;
// words of `red` per invocation: a row's sums of its (at most 8) columns
const RED_WORDS: u32 = max(max(COLS_F32, COLS_BT), max(COLS_F16, COLS_INT4));

//!include gemm/lib/operands

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> scales: array<u32>;
@group(0) @binding(4) var<storage, read> zeros: array<u32>;
@group(0) @binding(5) var<storage, read_write> c: array<f32>;
@group(0) @binding(6) var<storage, read_write> c16: array<u32>;

// (f16 output written by this pass, OUT_F16 in gemm/lib/operands.wgsl, saves the rounding
// pass's dispatch: about 10 µs on the H100 against 15 µs for 1×4096×4096 f16.)

// [row][k - k0]: this workgroup's chunk of A, in f32
var<workgroup> As: array<f32, AS_LEN>;
// [kt][cv][column of the group]: one row's partial sums, to be added over kt (then the sums of
// the columns' parts)
var<workgroup> red: array<f32, WG * RED_WORDS>;
// The bits of the float 2^23 (0x4B000000), for int4's dequantization (nibble), set at the start
// of main from an expression NVIDIA's compiler cannot fold: held in a register, a nibble's mask
// and OR are one instruction; as a literal they took two (int4 1 / 2 / 4×14336×4096 18.3 / 26.0
// / 35.6 µs against 21.4 / 29.2 / 39.0, H200, 2026-11-30; read from the params' constant bank
// directly, no faster). The expression's second term is K's bit 31, always 0: the int4 path's
// A holds K f16 in one binding below 4 GiB (src/gemm/limits.rs, binding_limit).
var<private> float_2p23: u32;

// Columns per invocation.
fn cols() -> u32 {
    if B_FMT == 2u {
        return COLS_INT4;
    }
    if B_T {
        return COLS_BT;
    }
    return select(COLS_F32, COLS_F16, B_FMT == 1u);
}

// Elements of A per load: f32 with f32 B, else f16.
fn a_epl() -> u32 {
    return select(8u, 4u, B_FMT == 0u);
}

// One load of A into As at `at`, as f32.
fn stage_a(at: u32, x: vec4<u32>) {
    if B_FMT == 0u {
        let f = bitcast<vec4<f32>>(x);
        As[at] = f.x;
        As[at + 1u] = f.y;
        As[at + 2u] = f.z;
        As[at + 3u] = f.w;
    } else {
        // (int4: element j of the 8 times 16^-place(j), exactly: see nibble)
        var h = halves(x);
        if B_FMT == 2u {
            h[0] *= vec4<f32>(1.0, 0.0625, 0.00390625, 0.000244140625);
            h[1] *= vec4<f32>(0.0000152587890625, 1.0, 0.0625, 0.00390625);
        }
        As[at] = h[0].x;
        As[at + 1u] = h[0].y;
        As[at + 2u] = h[0].z;
        As[at + 3u] = h[0].w;
        As[at + 4u] = h[1].x;
        As[at + 5u] = h[1].y;
        As[at + 6u] = h[1].z;
        As[at + 7u] = h[1].w;
    }
}

// One chunk's loads of A for an invocation, as loaded (load j: index lid + j·WG of the chunk's
// ROWS × CHUNK / a_epl() loads, row by row).
struct ALoads {
    l0: vec4<u32>,
    l1: vec4<u32>,
    l2: vec4<u32>,
    l3: vec4<u32>,
    l4: vec4<u32>,
    l5: vec4<u32>,
}

// Load i of the chunk at k0 of the block from row0: zero past K, past M and past the chunk's
// loads.
fn a_load(k0: u32, i: u32, row0: u32) -> vec4<u32> {
    let epl = a_epl();
    let per_row = CHUNK / epl;
    let r = i / per_row;
    let kv = (k0 + (i % per_row) * epl) / epl;
    var x = vec4<u32>(0u);
    if i < ROWS * per_row && kv * epl < params.k && row0 + r < params.m {
        x = k_tail(a[a_base + (row0 + r) * params.a_row_vecs + kv], kv, epl);
    }
    return x;
}

fn a_chunk(k0: u32, lid: u32, row0: u32) -> ALoads {
    return ALoads(a_load(k0, lid, row0), a_load(k0, lid + WG, row0),
        a_load(k0, lid + 2u * WG, row0), a_load(k0, lid + 3u * WG, row0),
        a_load(k0, lid + 4u * WG, row0), a_load(k0, lid + 5u * WG, row0));
}

// Load j (index i) of a chunk into As, if the chunk has it.
fn a_put(i: u32, x: vec4<u32>) {
    let epl = a_epl();
    let per_row = CHUNK / epl;
    if i < ROWS * per_row {
        stage_a((i / per_row) * CHUNK + (i % per_row) * epl, x);
    }
}

fn a_stage(lid: u32, x: ALoads) {
    a_put(lid, x.l0);
    a_put(lid + WG, x.l1);
    a_put(lid + 2u * WG, x.l2);
    a_put(lid + 3u * WG, x.l3);
    a_put(lid + 4u * WG, x.l4);
    a_put(lid + 5u * WG, x.l5);
}

// B's vec4 at row k, column vec v; zero past K or N (loaded from a clamped index either way).
fn b_vec(k: u32, v: u32) -> vec4<u32> {
    let at = b_base + min(k, params.k - 1u) * params.b_row_vecs + min(v, params.b_vecs - 1u);
    let x = b[at];
    return select(vec4<u32>(0u), x, k < params.k && v < params.b_vecs);
}

// Elements per load of transposed B along K: 4 f32 or 8 f16.
fn bt_epl() -> u32 {
    return select(4u, 8u, B_FMT == 1u);
}

// Transposed B (B_T): load kv of column n's row (n < N); zero from K on (loaded from a clamped
// index either way; the K tail inside the last load zeroed: the caller's padding may hold
// anything).
fn bt_vec(n: u32, kv: u32) -> vec4<u32> {
    let x = b[b_base + n * params.b_row_vecs + min(kv, params.b_vecs - 1u)];
    return select(vec4<u32>(0u), k_tail(x, kv, bt_epl()), kv < params.b_vecs);
}

// One step's four loads of B, as loaded: of a column's row along K (transposed B), or
// vectors of B's rows (b_step).
struct Loads {
    q0: vec4<u32>,
    q1: vec4<u32>,
    q2: vec4<u32>,
    q3: vec4<u32>,
}

// Row r's term of one load `q` of transposed B at kv (loads from the chunk's start): the dot
// product of its 4 or 8 values with A's.
fn bt_term(r: u32, kv: u32, q: vec4<u32>) -> f32 {
    let at = r * CHUNK + kv * bt_epl();
    let x = vec4<f32>(As[at], As[at + 1u], As[at + 2u], As[at + 3u]);
    if B_FMT == 0u {
        return dot(x, bitcast<vec4<f32>>(q));
    }
    let h = halves(q);
    let y = vec4<f32>(As[at + 4u], As[at + 5u], As[at + 6u], As[at + 7u]);
    return dot(x, h[0]) + dot(y, h[1]);
}

// Row r's terms of a step of transposed B at kv: loads kv, kv + KT, kv + 2·KT, kv + 3·KT.
fn bt_terms(r: u32, kv: u32, st: Loads) -> f32 {
    return bt_term(r, kv, st.q0) + bt_term(r, kv + KT, st.q1) + bt_term(r, kv + 2u * KT, st.q2)
        + bt_term(r, kv + 3u * KT, st.q3);
}

// f16 B: the 8 columns of a vec4<u32> as two vec4<f32>.
fn halves(w: vec4<u32>) -> array<vec4<f32>, 2> {
    let lo = vec4<f32>(unpack2x16float(w.x), unpack2x16float(w.y));
    let hi = vec4<f32>(unpack2x16float(w.z), unpack2x16float(w.w));
    return array<vec4<f32>, 2>(lo, hi);
}

// f32 / f16: one step's four vectors of B, as loaded (k, k + KT, k + 2·KT, k + 3·KT, each
// index capped at `last`, like int4_step).
fn b_step(k: u32, last: u32, v: u32) -> Loads {
    return Loads(b_vec(min(k, last), v), b_vec(min(k + KT, last), v),
        b_vec(min(k + 2u * KT, last), v), b_vec(min(k + 3u * KT, last), v));
}

// B's four vectors of one step as f32 columns: lo holds columns 0..3 of each (f32: all of
// them), hi columns 4..7 (f16 only).
struct Step {
    lo: array<vec4<f32>, 4>,
    hi: array<vec4<f32>, 4>,
}

// Row r's terms of a step at kk (A[r][kk + i·KT] times vector i, summed over i < 4): the lo
// and hi columns.
fn row_terms(r: u32, kk: u32, st: Step) -> array<vec4<f32>, 2> {
    let at = r * CHUNK + kk;
    let x = vec4<f32>(As[at], As[at + KT], As[at + 2u * KT], As[at + 3u * KT]);
    let lo = x.x * st.lo[0] + x.y * st.lo[1] + x.z * st.lo[2] + x.w * st.lo[3];
    var hi = vec4<f32>(0.0);
    if B_FMT == 1u {
        hi = x.x * st.hi[0] + x.y * st.hi[1] + x.z * st.hi[2] + x.w * st.hi[3];
    }
    return array<vec4<f32>, 2>(lo, hi);
}

// int4: one packed row of a column group's four columns (n0 .. n0 + 3), loads only (issued
// before any of a step's arithmetic): the words, and the scales and zero points as f16 pairs
// (columns 0, 1 and 2, 3). A row past B's end (or a column past N) reads a clamped index; the
// first gets zero scales, the second is never stored.
struct Int4Raw {
    words: vec4<u32>,
    scale: vec2<u32>,
    zero: vec2<u32>,
}

// The f16 scales (or zero points) of columns at i and j of the group's row, as a pair.
fn f16_pair(of_scales: bool, i: u32, j: u32) -> u32 {
    if INT4_VEC {
        // (i even, j = i + 1: one word, both halves)
        return f16_bits(of_scales, i);
    }
    // (the bits moved as they are: no f16 round trip through f32 to flush a subnormal scale)
    return (f16_bits(of_scales, i) & 0xFFFFu) | (f16_bits(of_scales, j) << 16u);
}

fn int4_raw(row: u32, n0: u32) -> Int4Raw {
    let rr = min(row, params.b_rows - 1u);
    let cn = min(vec4<u32>(n0) + vec4<u32>(0u, 1u, 2u, 3u), vec4<u32>(params.n - 1u));
    var x: Int4Raw;
    if INT4_VEC {
        x.words = b[(rr * params.n + cn.x) / 4u];
    } else {
        let w = vec4<u32>(rr * params.n) + cn;
        x.words = vec4<u32>(b[w.x / 4u][w.x % 4u], b[w.y / 4u][w.y % 4u],
            b[w.z / 4u][w.z % 4u], b[w.w / 4u][w.w % 4u]);
    }
    let grp = vec4<u32>((rr * 8u) / GROUP * params.n) + cn;
    x.scale = vec2<u32>(f16_pair(true, grp.x, grp.y), f16_pair(true, grp.z, grp.w));
    x.scale = select(vec2<u32>(0u), x.scale, row < params.b_rows);
    if HAS_ZEROS {
        x.zero = vec2<u32>(f16_pair(false, grp.x, grp.y), f16_pair(false, grp.z, grp.w));
    }
    return x;
}

// A packed row dequantized but for the scale: dj holds q − zero of element j of the 8 along K,
// one column per component.
struct Int4Quad {
    d0: vec4<f32>,
    d1: vec4<f32>,
    d2: vec4<f32>,
    d3: vec4<f32>,
    d4: vec4<f32>,
    d5: vec4<f32>,
    d6: vec4<f32>,
    d7: vec4<f32>,
    scale: vec4<f32>,
}

// The place of nibble j (j < 8, a constant at each call) in the word it is masked from:
// nibbles 0..4 in the word itself (bits 0..19 of the 23 of an f32 mantissa), 5..7 in the word
// shifted right by 20.
fn place(j: u32) -> u32 {
    return select(j, j - 5u, j >= 5u);
}

// Nibble j of each word minus its zero point, times 16^place(j), exactly: the nibble masked in
// place and ORed into the mantissa of 2^23 (`float_2p23`: one instruction) is the float
// 2^23 + q·16^p, so q needs neither a shift nor an integer-to-float conversion (a quarter-rate
// instruction on NVIDIA); 2^23 (with the default zero point, 2^23 + 8·16^p, one subtraction)
// comes off exactly (multiples of 16^p below 2^24), and 16^p·(q − zero) rounds as q − zero
// does. A's staged elements carry 16^-p (stage_a), so each product is A's element times
// q − zero, rounded exactly as q − zero is.
fn nibble(x: Int4Raw, j: u32, zero: vec4<f32>) -> vec4<f32> {
    let p = place(j);
    let w = select(x.words, x.words >> vec4<u32>(20u), j >= 5u);
    let bits = (w & vec4<u32>(15u << (4u * p))) | vec4<u32>(float_2p23);
    let scale = f32(1u << (4u * p));
    if !HAS_ZEROS {
        return bitcast<vec4<f32>>(bits) - (8388608.0 + 8.0 * scale);
    }
    return (bitcast<vec4<f32>>(bits) - 8388608.0) - zero * scale;
}

fn int4_quad(x: Int4Raw) -> Int4Quad {
    var zero = vec4<f32>(8.0);
    if HAS_ZEROS {
        zero = vec4<f32>(unpack2x16float(x.zero.x), unpack2x16float(x.zero.y));
    }
    let scale = vec4<f32>(unpack2x16float(x.scale.x), unpack2x16float(x.scale.y));
    return Int4Quad(nibble(x, 0u, zero), nibble(x, 1u, zero), nibble(x, 2u, zero),
        nibble(x, 3u, zero), nibble(x, 4u, zero), nibble(x, 5u, zero), nibble(x, 6u, zero),
        nibble(x, 7u, zero), scale);
}

// Row r's terms of a quad at kw (packed words from the chunk's start): the scale times the dot
// product of A's 8 values with each column's q − zero (the scale applied once per word).
fn int4_terms(r: u32, kw: u32, q: Int4Quad) -> vec4<f32> {
    let at = r * CHUNK + kw * 8u;
    let x = vec4<f32>(As[at], As[at + 1u], As[at + 2u], As[at + 3u]);
    let y = vec4<f32>(As[at + 4u], As[at + 5u], As[at + 6u], As[at + 7u]);
    let dot = x.x * q.d0 + x.y * q.d1 + x.z * q.d2 + x.w * q.d3 + y.x * q.d4 + y.y * q.d5
        + y.z * q.d6 + y.w * q.d7;
    return q.scale * dot;
}

// int4: one step's four packed rows, as loaded.
struct Int4Step {
    r0: Int4Raw,
    r1: Int4Raw,
    r2: Int4Raw,
    r3: Int4Raw,
}

// The step of packed rows `row`, row + KT, row + 2·KT, row + 3·KT, each index capped at `last`
// (a prefetch past the slice's end reads its last row again: a cached line, never used).
fn int4_step(row: u32, last: u32, n0: u32) -> Int4Step {
    return Int4Step(int4_raw(min(row, last), n0), int4_raw(min(row + KT, last), n0),
        int4_raw(min(row + 2u * KT, last), n0), int4_raw(min(row + 3u * KT, last), n0));
}

// Every row's terms of one packed row at kw, added to the row sums (literal indices, each row
// under `if ROWS > r`, a constant: see main). One packed row is dequantized at a time, the
// scales and zero points kept as f16 pairs until then: 88 registers at one row, 146 at eight on
// the H200 with the next step's loads in flight (eight read without float_2p23). Without the
// prefetch, four rows dequantized at once held 97 and 123 registers against 73 and 113 and ran
// 2–7% slower at 1–16 rows; the scale applied per element, half a row at a time, 1–3% slower
// still (2026-11-29).
fn int4_rows(lo: ptr<function, array<vec4<f32>, MAX_ROWS>>, kw: u32, x: Int4Raw) {
    let q = int4_quad(x);
    (*lo)[0] += int4_terms(0u, kw, q);
    if ROWS > 1u { (*lo)[1] += int4_terms(1u, kw, q); }
    if ROWS > 2u { (*lo)[2] += int4_terms(2u, kw, q); }
    if ROWS > 3u { (*lo)[3] += int4_terms(3u, kw, q); }
    if ROWS > 4u { (*lo)[4] += int4_terms(4u, kw, q); }
    if ROWS > 5u { (*lo)[5] += int4_terms(5u, kw, q); }
    if ROWS > 6u { (*lo)[6] += int4_terms(6u, kw, q); }
    if ROWS > 7u { (*lo)[7] += int4_terms(7u, kw, q); }
}

// Where a workgroup writes: its first column, the first row of its block (C's rows from
// c_base, at params.c_row: its matrix's, or its K slice's partial product).
struct Out {
    lid: u32,
    col0: u32,
    row0: u32,
}

// column `col`'s sum of the `per` parts in `red` (in a fixed order: the f16 store rounds the
// very sum the f32 store writes)
fn column_sum(col: u32, nc: u32, per: u32) -> f32 {
    var sum = 0.0;
    for (var q = 0u; q < per; q++) {
        sum += red[q * nc + col];
    }
    return sum;
}

// reduce + store row r (after every lane's accumulation; every invocation calls it): each
// column's KT partial sums are added in two stages by all invocations (the column's WG / (CV ·
// cols) invocations take `cols` partial sums each, then one adds theirs), and the sum is
// written to this slice's partial product of the row (or to C itself with one slice). lo, hi:
// the invocation's sums of row r.
fn store_row(o: Out, r: u32, lo: vec4<f32>, hi: vec4<f32>) {
    red[o.lid * RED_WORDS] = lo.x;
    if cols() > 1u {
        red[o.lid * RED_WORDS + 1u] = lo.y;
        red[o.lid * RED_WORDS + 2u] = lo.z;
        red[o.lid * RED_WORDS + 3u] = lo.w;
    }
    if cols() > 4u {
        red[o.lid * RED_WORDS + 4u] = hi.x;
        red[o.lid * RED_WORDS + 5u] = hi.y;
        red[o.lid * RED_WORDS + 6u] = hi.z;
        red[o.lid * RED_WORDS + 7u] = hi.w;
    }
    // barrier: every lane's partial sums of row r are in `red`
    workgroupBarrier();
    // columns of the workgroup and invocations per column (powers of two: nc divides WG)
    let nc = CV * cols();
    let per = WG / nc;
    let col = o.lid % nc;
    var part = 0.0;
    for (var t = o.lid / nc; t < KT; t += per) {
        part += red[(t * CV + col / cols()) * RED_WORDS + col % cols()];
    }
    // barrier: every partial sum has been read before the parts overwrite them
    workgroupBarrier();
    red[o.lid] = part;
    // barrier: the parts are in
    workgroupBarrier();
    if o.lid < nc {
        let n = o.col0 + col;
        if OUT_F16 {
            // even columns write a word of C16: theirs and the next (the host fuses only with
            // N even, so a word never straddles two rows, nc even, and one K slice)
            if col % 2u == 0u && n < params.n && o.row0 + r < params.m {
                let lo = column_sum(col, nc, per);
                let hi = column_sum(col + 1u, nc, per);
                c16[(c_base + (o.row0 + r) * params.c_row + n) / 2u] = pack_f16(lo, hi);
            }
        } else {
            let sum = column_sum(col, nc, per);
            if n < params.n && o.row0 + r < params.m {
                c[c_base + (o.row0 + r) * params.c_row + n] = sum;
            }
        }
    }
    // barrier: `red` is read before the next row overwrites it
    workgroupBarrier();
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    float_2p23 = 0x4B000000u | (params.k & 0x80000000u);
    let w = wid.x + wid.y * nwg.x;
    if w >= BLOCKS {
        return;
    }
    // this workgroup's matrix and K slice (workgroup_id.z = matrix · splits + slice; without
    // LAYOUT one matrix, and z is the slice)
    let slice = select(wid.z, wid.z % params.splits, LAYOUT);
    set_bases(select(0u, wid.z / params.splits, LAYOUT), slice);
    let row0 = (w % ROW_BLOCKS) * ROWS;
    let block = w / ROW_BLOCKS;
    // accumulate: row r's sums in lo[r] (f32 and int4: all four columns) and hi[r] (f16:
    // columns 4..7). Every per-row step below is written out for rows 0..7 with literal
    // indices, each under `if ROWS > r` (a constant): as loops over r, NVIDIA's compiler kept
    // the sums in local memory (256 bytes; 1×4096×4096 f16 took 0.012 ms, 2 rows 0.038, 8
    // rows 0.102, where the register-tiled kernel took 0.049; H100, 2026-11-23).
    var lo: array<vec4<f32>, MAX_ROWS>;
    var hi: array<vec4<f32>, MAX_ROWS>;
    let cv = lid % CV;
    let kt = lid / CV;
    let g = block * CV + cv;
    // prefetch: each step's loads of B are issued a step ahead, before the previous step's
    // multiply-adds (and across the chunks' barriers: a lane's steps advance by STEP_LOADS·KT
    // rows of K through the whole slice, CHUNK being whole steps), so their latency overlaps
    // that arithmetic; the step after the slice's last reads its last row again (never used).
    // f32 / f16: rows of B; int4: packed rows.
    let n0 = g * COLS_INT4;
    var k_next = slice * KSLICE + kt;
    let k_last = (slice + 1u) * KSLICE - 1u;
    var b_next: Loads;
    var q_next: Int4Step;
    if B_FMT == 2u {
        k_next = slice * (KSLICE / 8u) + kt;
        q_next = int4_step(k_next, k_last / 8u, n0);
    } else if !B_T {
        b_next = b_step(k_next, k_last, g);
    }
    // the slice, chunk by chunk (bounds uniform in the workgroup: the barriers are too)
    let k_end = min((slice + 1u) * KSLICE, params.k);
    var a_next = a_chunk(slice * KSLICE, lid, row0);
    for (var k0 = slice * KSLICE; k0 < k_end; k0 += CHUNK) {
        // barrier: the previous chunk's multiply-adds are done with As
        workgroupBarrier();
        // stage: the block's chunk of A, loaded during the chunk before (a load of 4 f32 or
        // 8 f16 at a time), zero past K and past M; then the next chunk's loads are issued
        a_stage(lid, a_next);
        if k0 + CHUNK < k_end {
            a_next = a_chunk(k0 + CHUNK, lid, row0);
        }
        // barrier: the chunk of A is staged before anyone multiplies
        workgroupBarrier();
        if B_FMT == 2u {
            // int4: columns 4g .. 4g + 3, every KT-th packed row (8 of K) of the chunk, four
            // per step, loaded a step ahead; dequantized once for all rows
            for (var kb = kt; kb < CHUNK / 8u; kb += STEP_LOADS * KT) {
                let q = q_next;
                k_next += STEP_LOADS * KT;
                q_next = int4_step(k_next, k_last / 8u, n0);
                int4_rows(&lo, kb, q.r0);
                int4_rows(&lo, kb + KT, q.r1);
                int4_rows(&lo, kb + 2u * KT, q.r2);
                int4_rows(&lo, kb + 3u * KT, q.r3);
            }
        } else if B_T {
            // transposed B: column n's row, every KT-th load (4 f32 or 8 f16 of K) of the
            // chunk, four per step, loads first
            let n = min(g, params.n - 1u);
            let e = bt_epl();
            for (var kv = kt; kv < CHUNK / e; kv += STEP_LOADS * KT) {
                let kv0 = k0 / e + kv;
                let st = Loads(bt_vec(n, kv0), bt_vec(n, kv0 + KT), bt_vec(n, kv0 + 2u * KT),
                    bt_vec(n, kv0 + 3u * KT));
                lo[0].x += bt_terms(0u, kv, st);
                if ROWS > 1u { lo[1].x += bt_terms(1u, kv, st); }
                if ROWS > 2u { lo[2].x += bt_terms(2u, kv, st); }
                if ROWS > 3u { lo[3].x += bt_terms(3u, kv, st); }
                if ROWS > 4u { lo[4].x += bt_terms(4u, kv, st); }
                if ROWS > 5u { lo[5].x += bt_terms(5u, kv, st); }
                if ROWS > 6u { lo[6].x += bt_terms(6u, kv, st); }
                if ROWS > 7u { lo[7].x += bt_terms(7u, kv, st); }
            }
        } else {
            // f32 / f16: column vec g of B's rows, k = kt, kt + KT, ... of the chunk, four per
            // step, loaded a step ahead
            for (var kk = kt; kk < CHUNK; kk += STEP_LOADS * KT) {
                let b0 = b_next.q0;
                let b1 = b_next.q1;
                let b2 = b_next.q2;
                let b3 = b_next.q3;
                k_next += STEP_LOADS * KT;
                b_next = b_step(k_next, k_last, g);
                var st: Step;
                if B_FMT == 0u {
                    st.lo = array<vec4<f32>, 4>(bitcast<vec4<f32>>(b0), bitcast<vec4<f32>>(b1),
                        bitcast<vec4<f32>>(b2), bitcast<vec4<f32>>(b3));
                } else {
                    let h0 = halves(b0);
                    let h1 = halves(b1);
                    let h2 = halves(b2);
                    let h3 = halves(b3);
                    st.lo = array<vec4<f32>, 4>(h0[0], h1[0], h2[0], h3[0]);
                    st.hi = array<vec4<f32>, 4>(h0[1], h1[1], h2[1], h3[1]);
                }
                let t0 = row_terms(0u, kk, st);
                lo[0] += t0[0];
                hi[0] += t0[1];
                if ROWS > 1u { let t = row_terms(1u, kk, st); lo[1] += t[0]; hi[1] += t[1]; }
                if ROWS > 2u { let t = row_terms(2u, kk, st); lo[2] += t[0]; hi[2] += t[1]; }
                if ROWS > 3u { let t = row_terms(3u, kk, st); lo[3] += t[0]; hi[3] += t[1]; }
                if ROWS > 4u { let t = row_terms(4u, kk, st); lo[4] += t[0]; hi[4] += t[1]; }
                if ROWS > 5u { let t = row_terms(5u, kk, st); lo[5] += t[0]; hi[5] += t[1]; }
                if ROWS > 6u { let t = row_terms(6u, kk, st); lo[6] += t[0]; hi[6] += t[1]; }
                if ROWS > 7u { let t = row_terms(7u, kk, st); lo[7] += t[0]; hi[7] += t[1]; }
            }
        }
    }

    // reduce + store, row by row (ROWS is the same for the whole workgroup: uniform barriers)
    let o = Out(lid, block * CV * cols(), row0);
    store_row(o, 0u, lo[0], hi[0]);
    if ROWS > 1u { store_row(o, 1u, lo[1], hi[1]); }
    if ROWS > 2u { store_row(o, 2u, lo[2], hi[2]); }
    if ROWS > 3u { store_row(o, 3u, lo[3], hi[3]); }
    if ROWS > 4u { store_row(o, 4u, lo[4], hi[4]); }
    if ROWS > 5u { store_row(o, 5u, lo[5], hi[5]); }
    if ROWS > 6u { store_row(o, 6u, lo[6], hi[6]); }
    if ROWS > 7u { store_row(o, 7u, lo[7], hi[7]); }
}
