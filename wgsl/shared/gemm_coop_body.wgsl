// include-only
// The helpers of the cooperative-matrix GEMMs (the entry points in shared/gemm_coop.wgsl, 4×2
// fragments per subgroup, and shared/gemm_coop_wide.wgsl, 4×4): params and bindings, the global
// fetch of the staged tiles, the C store helpers, the grouped tile order. The stage file
// enables f16 and wgpu_cooperative_matrix, declares BM, BN, BK, SG, WM, WN, FRAG and the
// fragment types FragA, FragB, FragC, and includes one staging file before the entry point:
// shared/gemm_coop_stage_h.wgsl (f16 arrays, one 16-bit store per element) or
// shared/gemm_coop_stage_v.wgsl (vec4<u32> arrays, one 16-byte store per 8 elements). Both
// give As, Bs, stash_a, stash_b and the fragment loads frag_a, frag_b, indexed in f16 elements.

//!include shared/gemm_staged
//!include shared/f16_round

// f16 of padding per staged row: keeps rows 16-byte aligned and staggers the banks
const PAD: u32 = 8u;
const MAX_FETCH: u32 = 4u;

override SG_X: u32 = BN / WN;
override SG_Y: u32 = BM / WM;
override WG: u32 = SG_X * SG_Y * SG;
override A_STRIDE: u32 = BK + PAD;
override B_STRIDE: u32 = BN + PAD;
// Staged tile buffers: 2 (one barrier per K step: tile t+1 is stashed into the other buffer
// while tile t is read) or 1 (two barriers per K step, half the memory, so twice the BK fits).
override NBUF: u32 = 2u;
// Staged B buffers: NBUF, or 2 with NBUF = 1 (src/gemm/coop.rs checks NBUF ≤ NBUF_B ≤ 2): then
// B of tile t+1 is stashed before step t's first barrier, overlapping the other subgroups'
// multiply-adds, and only A between the two barriers (stage_next).
override NBUF_B: u32 = NBUF;

struct Params {
    m: u32,
    n: u32,
    k: u32,
    a_row_vecs: u32,
    b_row_vecs: u32,
    k_tiles: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

// 1: f16 output rounded by this kernel (round_tile) into c16; 0: C in f32 only. The plan
// (src/gemm/coop.rs) sets it only with N even, so a word of two f16 never straddles two rows,
// nor two workgroups' tiles; otherwise the gemm/to_f16 pass rounds C afterwards.
override OUT_F16: u32 = 0u;
// f16 C with OUT_F16, two per word (element 2i in the low half of word i), rows padded like C's;
// a 16-byte stand-in otherwise
@group(0) @binding(4) var<storage, read_write> c16: array<u32>;

// The subgroup size a workgroup ran at, where it is not SG (0 otherwise; zeroed by the host):
// the layout assigns fragments to SG-wide subgroups, so the host plans for one size, and on an
// adapter that reports a range (wgpu's Metal backend says 4..64; Apple GPUs run 32) a GPU
// that runs another width must not compute with it. Such workgroups stop at once
// (subgroup_guard) and the host reports an error instead of C (src/gemm/coop.rs,
// `planned_subgroup`; GemmPlan::subgroup_mismatch).
@group(0) @binding(5) var<storage, read_write> sg_guard: array<atomic<u32>>;

// (a vec4: every workgroup variable of these kernels is a multiple of 16 bytes, or the driver
// may place the staged tiles off the 16-byte rows their cooperative loads need: docs/gemm.md,
// eighth session)
var<workgroup> sg_width: vec4<u32>;
// 1: the host planned SG rather than read it from the adapter (Metal), so the kernel checks it
// (subgroup_guard); 0 where the adapter reports one size: no check, no barrier. H100 (wgsimd
// bench, 2026-11-26, against the kernel before the guard, alternating, twice each): with the
// check always on, coop16 268.6-268.7 against 270.7-270.9 TFLOP/s at 8192³ and 239.5-239.6
// against 240.5-241.0 at 4096³; with it off here, 270.6-270.9 against 270.8-270.9 and
// 240.8-241.2 against 241.4-242.1.
override SG_GUARD: u32 = 1u;

// Whether this workgroup's subgroups are SG wide (uniform: callers may return on it before
// the cooperative operations, which naga wants in uniform control flow; the builtin itself is
// not uniform to naga); if not, one invocation records the width.
fn subgroup_guard(lid: u32, width: u32) -> bool {
    if lid == 0u {
        sg_width = vec4<u32>(width);
    }
    // barrier (inside workgroupUniformLoad): invocation 0's width is in
    let w = workgroupUniformLoad(&sg_width).x;
    if w != SG && lid == 0u {
        atomicMax(&sg_guard[0], w);
    }
    return w == SG;
}

// 1: a tile may cross C's right edge (or N is not a multiple of 4), so the store may take the
// edge path. 0: the plan (src/gemm/coop.rs) guarantees N is a multiple of BN and of 4; the edge
// path is dead and its staging squares shrink to 16 bytes, leaving their memory (16 KiB on 16
// subgroups) to the staged tiles. The bottom edge never needs the path: the host pads C with
// rows up to a whole tile (they come out zero, A's rows past M being staged as zeros), and both
// paths write the padding rows, so every element of the buffer is written.
override EDGES: u32 = 1u;
// one FRAG×FRAG staging square per subgroup, for edge tiles (named: naga 30 note in docs/gemm.md).
// Never shorter than 16 bytes: the driver may place As and Bs after it, and their cooperative
// loads need 16-byte alignment (with one word, every EDGES = 0 product on the H100 came out
// wrong: ldmatrix read rows 4 bytes off).
override CS_LEN: u32 = EDGES * SG_X * SG_Y * FRAG * FRAG + 4u;
var<workgroup> Cs: array<f32, CS_LEN>;

fn a_items() -> u32 {
    return BM * BK / 8u;
}

fn b_items() -> u32 {
    return BK * BN / 8u;
}

fn fetch_a(li: u32, m0: u32, k0: u32) -> vec4<u32> {
    let per_row = BK / 8u;
    let row = m0 + li / per_row;
    let kv = k0 / 8u + li % per_row;
    if li < a_items() && row < params.m && kv < params.a_row_vecs {
        return a[row * params.a_row_vecs + kv];
    }
    return vec4<u32>(0u);
}

fn fetch_b(li: u32, k0: u32, n0: u32) -> vec4<u32> {
    let per_row = BN / 8u;
    let kr = k0 + li / per_row;
    let nv = n0 / 8u + li % per_row;
    if li < b_items() && kr < params.k && nv < params.b_row_vecs {
        return b[kr * params.b_row_vecs + nv];
    }
    return vec4<u32>(0u);
}

// stash: a fetched tile's A into A buffer `buf`, its B into B buffer `buf` (stash_a, stash_b:
// the staging file)
fn stash_a_tile(lid: u32, buf: u32, s: Staged, fa: u32) {
    stash_a(lid, buf, s.a0);
    if fa > 1u { stash_a(lid + WG, buf, s.a1); }
    if fa > 2u { stash_a(lid + 2u * WG, buf, s.a2); }
    if fa > 3u { stash_a(lid + 3u * WG, buf, s.a3); }
}

fn stash_b_tile(lid: u32, buf: u32, s: Staged, fb: u32) {
    stash_b(lid, buf, s.b0);
    if fb > 1u { stash_b(lid + WG, buf, s.b1); }
    if fb > 2u { stash_b(lid + 2u * WG, buf, s.b2); }
    if fb > 3u { stash_b(lid + 3u * WG, buf, s.b3); }
}

// both, into buffer `buf` of each
fn stash_tile(lid: u32, buf: u32, s: Staged, fa: u32, fb: u32) {
    stash_a_tile(lid, buf, s, fa);
    stash_b_tile(lid, buf, s, fb);
}

// The end of K step t (after its multiply-adds; `more`: a tile t+1 exists, fetched into `pre`):
// tile t+1 staged and every subgroup past it. Called in uniform control flow by both entry
// points (shared/gemm_coop.wgsl, shared/gemm_coop_wide.wgsl).
// - Two buffers of each: stash into the buffers step t−1 read (its readers passed the barrier
//   that ended step t−1), then one barrier: tile t+1 staged.
// - One of each: barrier (every subgroup has read tile t), stash, barrier (tile t+1 staged).
// - One A buffer, two B buffers: B first, before the first barrier, into the B buffer step t−1
//   read; then as with one of each, A alone between the barriers. H100 (seventeenth session,
//   coop16 128×256×32, TFLOP/s at 8192³ / 4096³): 271.0 / 242.0 against 259.7 / 233.2 with B
//   after the first barrier (docs/gemm.md).
fn stage_next(lid: u32, t: u32, more: bool, pre: Staged, fa: u32, fb: u32) {
    let next = t + 1u;
    let early_b = NBUF == 1u && NBUF_B == 2u;
    if early_b && more {
        stash_b_tile(lid, next % NBUF_B, pre, fb);
    }
    if NBUF == 1u {
        workgroupBarrier();
    }
    if more {
        stash_a_tile(lid, next % NBUF, pre, fa);
        if !early_b {
            stash_b_tile(lid, next % NBUF_B, pre, fb);
        }
    }
    workgroupBarrier();
}

// naga 30's WGSL front end pushes a cooperative store without flushing the pending expressions
// of its operands (the SPIR-V writer then panics, "Expression is not cached"); a store inside a
// function sees only arguments, which need no flushing. Matrices are passed by value, never arrays.
fn store_c(m: FragC, at: u32, ld: u32) {
    coopStoreT(m, &c[at], ld);
}

fn store_staged(m: FragC, at: u32) {
    coopStoreT(m, &Cs[at], FRAG);
}

// Copies subgroup `s`'s staged FRAG×FRAG square to C at (row0, col0), skipping the columns
// outside C (rows past M are C's padding, written like the rest).
// Call between two barriers (after the coopStoreT into Cs, before Cs is reused).
fn spill(s: u32, lane: u32, row0: u32, col0: u32) {
    for (var e = lane; e < FRAG * FRAG; e += SG) {
        let row = row0 + e / FRAG;
        let col = col0 + e % FRAG;
        if col < params.n {
            c[row * params.n + col] = Cs[s * FRAG * FRAG + e];
        }
    }
}

// An edge fragment: staged in subgroup `s`'s square, then the part inside C copied lane by lane.
// Barriers: the square is complete before lanes read it, and read before it is overwritten.
// Called in uniform control flow (every subgroup of the workgroup, same fragment count).
fn edge_store(m: FragC, s: u32, lane: u32, row0: u32, col0: u32) {
    store_staged(m, s * FRAG * FRAG);
    workgroupBarrier();
    spill(s, lane, row0, col0);
    workgroupBarrier();
}

// f16 output (OUT_F16; call in uniform control flow, after the tile's fragments are stored):
// WGSL has no f32 → f16 conversion of a cooperative matrix, so the fragments go to C in f32 as
// always, and the workgroup reads its own tile back (from L2: it has just written it) and stores
// it rounded. This replaces the gemm/to_f16 pass, which reads all of C again after the product.
// Each invocation takes 8 columns (4 words) per step and issues their 8 loads before any store:
// with a pair per step, each step waited a round trip to L2 (the stores may alias the loads
// for all the compiler knows), and at 4096³ on the H100 that cost as much as the pass. (BN is
// a multiple of 8, as fetch_b needs: a group never straddles a tile's rows.)
fn round_tile(lid: u32, m0: u32, n0: u32) {
    // barrier: every subgroup's fragments (and edge tiles' copies) of this tile are in C
    storageBarrier();
    let words = params.n / 2u;
    for (var g = lid; g < BM * BN / 8u; g += WG) {
        let row = m0 + g / (BN / 8u);
        let word = n0 / 2u + (g % (BN / 8u)) * 4u;
        // load: the group's pairs inside C (N is even: a pair is inside or outside whole)
        let at = row * params.n + 2u * word;
        var v = array<vec2<f32>, 4>();
        if word < words { v[0] = vec2<f32>(c[at], c[at + 1u]); }
        if word + 1u < words { v[1] = vec2<f32>(c[at + 2u], c[at + 3u]); }
        if word + 2u < words { v[2] = vec2<f32>(c[at + 4u], c[at + 5u]); }
        if word + 3u < words { v[3] = vec2<f32>(c[at + 6u], c[at + 7u]); }
        // round and store
        let w = row * words + word;
        if word < words { c16[w] = pack_f16(v[0].x, v[0].y); }
        if word + 1u < words { c16[w + 1u] = pack_f16(v[1].x, v[1].y); }
        if word + 2u < words { c16[w + 2u] = pack_f16(v[2].x, v[2].y); }
        if word + 3u < words { c16[w + 3u] = pack_f16(v[3].x, v[3].y); }
    }
}

//!include shared/gemm_tile_order

// `no_tile`'s answer, where the grid was folded (FOLDED, shared/gemm_tile_order): a vec4, as
// `sg_width`, so every workgroup variable is a multiple of 16 bytes (see `Cs`)
var<workgroup> fold_past: vec4<u32>;

// `past` (invocation 0's `past_c`, the same in every invocation) as a value naga knows to be
// uniform: the cooperative operations after a return must be in control flow it knows to be
// uniform, and it does not count `tile` as uniform. (`past_c` is called by the caller: called
// in here, naga 30 counted this function's result as non-uniform.)
fn no_tile(lid: u32, past: bool) -> bool {
    if lid == 0u {
        fold_past = vec4<u32>(select(0u, 1u, past));
    }
    // barrier (inside workgroupUniformLoad): invocation 0's answer is in
    return workgroupUniformLoad(&fold_past).x != 0u;
}

