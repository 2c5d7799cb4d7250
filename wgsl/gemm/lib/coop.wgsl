// include-only
// The cooperative-matrix GEMM (gemm/coop16, coop16_int4, coop8, coop8_int4): params, A's fetch
// and stash, the C store helpers, the grouped tile order and the kernel itself (`coop_main`, 4×2
// accumulator fragments per subgroup; gemm/coop16.wgsl's header has the design). The stage file
// enables f16 and wgpu_cooperative_matrix, declares BM, BN, BK, SG, WM, WN, FRAG, the fragment
// types FragA, FragB, FragC and the bindings `params: Params`, `a` (`array<vec4<u32>>`), B's,
// `c` (`array<f32>`), `c16` (`array<u32>`) and `sg_guard` (`array<atomic<u32>>`), and includes
// a staging file (As, Bs, stage_a8, stage_b8, stage_b_col8, stage_b_pair and the fragment loads
// frag_a, frag_b: gemm/lib/coop_stage.wgsl in vec4<f16> arrays, gemm/lib/coop_stage_b2.wgsl with
// B in vec2<f16> for coop16_int4, gemm/lib/coop_stage_h.wgsl in f16 ones for coop8) and B's
// operand file (`b_items`, `fetch_b`, `stash_b`, and for sub-steps of B `fetch_groups` and
// `stash_b_sub`: gemm/lib/coop_b.wgsl for f16 B, gemm/lib/coop_b_int4.wgsl for int4 weights)
// before this.

//!include gemm/lib/staged
//!include gemm/lib/f16_round

// f16 of padding per staged row: keeps rows 16-byte aligned and staggers the banks
const PAD: u32 = 8u;
const MAX_FETCH: u32 = 4u;

// Fragment rows of C a subgroup owns: WM / FRAG, or 1 or 2 for a tile of that many fragment rows
// (BM = FM · FRAG: the few-rows tiles, src/gemm/coop/tiles.rs `rows_tile`, where the other rows
// would be padding)
override FM: u32 = WM / FRAG;
override SG_X: u32 = BN / WN;
override SG_Y: u32 = BM / (FM * FRAG);
override WG: u32 = SG_X * SG_Y * SG;
override A_STRIDE: u32 = BK + PAD;
override B_STRIDE: u32 = BN + PAD;
// Staged tile buffers: 2 (one barrier per K step: tile t+1 is stashed into the other buffer
// while tile t is read) or 1 (two barriers per K step, half the memory, so twice the BK fits).
override NBUF: u32 = 2u;
// Tiles in flight in registers: 1 (tile t+1 fetched at the start of step t, stashed at its end)
// or 2 (tile t+2 fetched at the start of step t, stashed a step later: a step's loads have two
// steps' time to land; one more set of prefetch registers). 2 for the few-rows tiles (the
// policy's `prefetch`, src/gemm/coop/tiles.rs `rows_tile`), whose steps are short and wait on
// their loads: 16×14336×4096 71.7 against 82.3 µs, 16×4096×14336 62.5 against 70.5, 8×4096²
// 23.7 against 24.7; 32 rows 80.1 / 69.6 against 90.7 / 78.1 at 32×14336×4096 / 32×4096×14336
// (H200, 2026-11-30, two staging buffers; with one, 16×4096×14336 43.0 against 45.9); the other
// tiles keep 1 (their steps are long). The K loop copies tile t+2's registers into the prefetch
// set at each step's end, and NVIDIA's compiler makes that copy wait for the loads. Two steps
// an iteration with two named sets ran level or slower (24.8 / 75.5 / 64.6 against 23.7 / 71.5 /
// 62.6 µs at 16 rows of 4096² / 14336×4096 / 4096×14336; in another form 71.6 against 71.0 at
// 16×14336×4096 and 82.2 against 79.1 at 32×14336×4096), and its SASS still copied the second
// set; choosing the set by a branch on the step's parity put the copies right after the loads
// (95 against 72 µs) (H200, 2026-11-30).
override PREFETCH: u32 = 1u;
// Staged B buffers: NBUF, or 2 with NBUF = 1 (src/gemm/coop.rs checks NBUF ≤ NBUF_B ≤ 2): then
// B of tile t+1 is stashed before step t's first barrier, overlapping the other subgroups'
// multiply-adds, and only A between the two barriers (stage_next).
override NBUF_B: u32 = NBUF;
// Sub-steps of B in a K step (int4 weights: gemm/lib/coop_b_int4.wgsl): 1, B's BK rows staged
// with A at the end of the step before; or BK / 32 (2 to 4): a step's A is staged whole and its
// B stays in registers, packed, and is dequantized 32 rows at a time into one B buffer, each
// sub-step between two barriers (`B_ROWS` rows of Bs). A step's loads then have all its
// sub-steps' time to land, and a K step of 128 is one quantization group: its scales and zero
// points load once a column (`fetch_groups`). The plan sets it with NBUF = NBUF_B = 1, PREFETCH
// 1 and WG = BN (src/gemm/coop.rs, `check`), so item j of an invocation is sub-step j's.
override B_SUB: u32 = 1u;
override B_ROWS: u32 = BK / B_SUB;

// (params: gemm/lib/layout.wgsl; b_rows for int4 weights only. workgroup_id.z = matrix · splits + K slice:
// slice z takes K tiles [z · tiles_per_split, (z + 1) · tiles_per_split) and stores its partial
// product, rows padded to whole tiles like the GEMM's own C, at c_base + z · c_split for the
// split-K sum; one slice stores C itself. The host splits K only in the GEMM's own layout, one
// matrix: src/gemm/coop/pass.rs, `splits`.)
//!include gemm/lib/layout

// 1: f16 output rounded by this kernel (round_tile) into c16; 0: C in f32 only. The plan
// (src/gemm/coop/pass.rs) sets it only with N even, so a word of two f16 never straddles two rows,
// nor two workgroups' tiles; otherwise the gemm/to_f16 pass rounds C afterwards.
override OUT_F16: u32 = 0u;
// (c16: f16 C with OUT_F16, two per word, element 2i in the low half of word i, rows padded like
// C's; a 16-byte stand-in otherwise)

// The subgroup size a workgroup ran at, where it is not SG (0 otherwise; zeroed by the host):
// the layout assigns fragments to SG-wide subgroups, so the host plans for one size, and on an
// adapter that reports a range (wgpu's Metal backend says 4..64; Apple GPUs run 32) a GPU
// that runs another width must not compute with it. Such workgroups stop at once
// (subgroup_guard) and the host reports an error instead of C (src/gemm/coop.rs,
// `planned_subgroup`; Gemm::subgroup_mismatch). It lands in `sg_guard`.

// (a vec4: every workgroup variable of these kernels is a multiple of 16 bytes, or the driver
// may place the staged tiles off the 16-byte rows their cooperative loads need)
var<workgroup> sg_width: vec4<u32>;
// 1: the host planned SG rather than read it from the adapter (Metal), so the kernel checks it
// (subgroup_guard); 0 where the adapter reports one size: no check, no barrier (with the check
// on, coop16 ran 268.6 against 270.7 TFLOP/s at 8192³; H100, 2026-11-26).
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

// 1: rows past M are not written (a caller's C, which has none); 0: C is the GEMM's own, with
// rows up to a whole tile (they come out zero).
override MASK_M: u32 = 0u;

// 1: a tile may cross C's right edge (or C's rows are not 16-byte aligned), or with MASK_M its
// bottom edge, so the store may take the edge path. 0: the plan (src/gemm/coop.rs, `edges_for`)
// guarantees whole tiles in N (and with MASK_M in M) and aligned rows; the edge path is dead and
// its staging squares shrink to 16 bytes, leaving their memory (16 KiB on 16 subgroups) to the
// staged tiles. In the GEMM's own C the bottom edge never needs the path: the host pads C with
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

fn fetch_a(li: u32, m0: u32, k0: u32) -> vec4<u32> {
    let per_row = BK / 8u;
    let row = m0 + li / per_row;
    let kv = k0 / 8u + li % per_row;
    if li < a_items() && row < params.m && kv < params.a_vecs {
        return k_tail(a[a_base + row * params.a_row_vecs + kv], kv, 8u);
    }
    return vec4<u32>(0u);
}

// A's item li (8 of K of one row) into A buffer `buf`
fn stash_a(li: u32, buf: u32, v: vec4<u32>) {
    if li >= a_items() {
        return;
    }
    let per_row = BK / 8u;
    stage_a8(buf * BM * A_STRIDE + (li / per_row) * A_STRIDE + (li % per_row) * 8u, v);
}

// stash: a fetched tile's A into A buffer `buf`, its B into B buffer `buf` (stash_b: the B
// operand's file)
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
// tile t+1 staged and every subgroup past it. Called in uniform control flow by coop_main.
// - Two buffers of each: stash into the buffers step t−1 read (its readers passed the barrier
//   that ended step t−1), then one barrier: tile t+1 staged.
// - One of each: barrier (every subgroup has read tile t), stash, barrier (tile t+1 staged).
// - One A buffer, two B buffers: B first, before the first barrier, into the B buffer step t−1
//   read; then as with one of each, A alone between the barriers. H100 (2026-11-26, coop16
//   128×256×32, TFLOP/s at 8192³ / 4096³): 271.0 / 242.0 against 259.7 / 233.2 with B after
//   the first barrier.
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
// outside C, and with MASK_M the rows past M (without, they are the padding rows of the GEMM's
// own C, written like the rest).
// Call between two barriers (after the coopStoreT into Cs, before Cs is reused).
fn spill(s: u32, lane: u32, row0: u32, col0: u32) {
    for (var e = lane; e < FRAG * FRAG; e += SG) {
        let row = row0 + e / FRAG;
        let col = col0 + e % FRAG;
        if col < params.n && (MASK_M == 0u || row < params.m) {
            c[c_base + row * params.c_row + col] = Cs[s * FRAG * FRAG + e];
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
        if MASK_M != 0u && row >= params.m {
            continue;
        }
        let word = n0 / 2u + (g % (BN / 8u)) * 4u;
        // load: the group's pairs inside C (N is even: a pair is inside or outside whole; f32
        // C and f16 C share the element layout, whose row stride and offsets are even)
        let at = c_base + row * params.c_row + 2u * word;
        var v = array<vec2<f32>, 4>();
        if word < words { v[0] = vec2<f32>(c[at], c[at + 1u]); }
        if word + 1u < words { v[1] = vec2<f32>(c[at + 2u], c[at + 3u]); }
        if word + 2u < words { v[2] = vec2<f32>(c[at + 4u], c[at + 5u]); }
        if word + 3u < words { v[3] = vec2<f32>(c[at + 6u], c[at + 7u]); }
        // round and store
        let w = at / 2u;
        if word < words { c16[w] = pack_f16(v[0].x, v[0].y); }
        if word + 1u < words { c16[w + 1u] = pack_f16(v[1].x, v[1].y); }
        if word + 2u < words { c16[w + 2u] = pack_f16(v[2].x, v[2].y); }
        if word + 3u < words { c16[w + 3u] = pack_f16(v[3].x, v[3].y); }
    }
}

//!include gemm/lib/tile_order

// `no_tile`'s answer, where the grid was folded (FOLDED, gemm/lib/tile_order.wgsl): a vec4, as
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

// The kernel, for the stage's entry point (`@workgroup_size(WG)`).
fn coop_main(lid: u32, sg_id: u32, lane: u32, width: u32, wid: vec3<u32>, nwg: vec3<u32>) {
    // subgroups of another width than planned: stop, and say so (subgroup_guard)
    if SG_GUARD != 0u {
        if !subgroup_guard(lid, width) {
            return;
        }
    }
    let tile = tile_of(wid, nwg);
    if FOLDED != 0u {
        if no_tile(lid, past_c(tile)) {
            return;
        }
    }
    // the workgroup's matrix (without LAYOUT, one) and K slice: its K tiles from t0 on
    let slice = wid.z % params.splits;
    set_bases(select(0u, wid.z / params.splits, LAYOUT), slice);
    let t0 = slice * params.tiles_per_split;
    let k_tiles = min(params.tiles_per_split, params.k_tiles - t0);
    let k0 = t0 * BK;
    let n0 = tile.x * BN;
    let m0 = tile.y * BM;
    let wm = sg_id / SG_X;
    let wn = sg_id % SG_X;
    let fa = fetches_a();
    let fb = fetches_b();

    var c00 = FragC();
    var c01 = FragC();
    var c10 = FragC();
    var c11 = FragC();
    var c20 = FragC();
    var c21 = FragC();
    var c30 = FragC();
    var c31 = FragC();
    if B_SUB > 1u {
        // load: tile 0, its A staged, its B kept in registers for its sub-steps
        var cur = fetch_tile(lid, m0, n0, k0, fa, fb);
        var groups = fetch_groups(lid, k0, n0);
        stash_a_tile(lid, 0u, cur, fa);
        for (var t = 0u; t < k_tiles; t++) {
            // prefetch tile t+1, unconditionally (as below)
            let ahead = fetch_tile(lid, m0, n0, k0 + (t + 1u) * BK, fa, fb);
            let ahead_groups = fetch_groups(lid, k0 + (t + 1u) * BK, n0);
            for (var s = 0u; s < B_SUB; s++) {
                stash_b_sub(lid, s, cur, groups);
                // barrier: sub-step s of B is staged (at s = 0, the step's A too)
                workgroupBarrier();
                // multiply: FM×2 fragments per FRAG of the sub-step's K (FM is 1 or 2)
                for (var ks = 0u; ks < B_ROWS / FRAG; ks++) {
                    let abase = wm * FM * FRAG * A_STRIDE + s * B_ROWS + ks * FRAG;
                    let bbase = ks * FRAG * B_STRIDE + wn * WN;
                    let a0 = frag_a(abase);
                    let b0 = frag_b(bbase);
                    let b1 = frag_b(bbase + FRAG);
                    c00 = coopMultiplyAdd(a0, b0, c00);
                    c01 = coopMultiplyAdd(a0, b1, c01);
                    if FM > 1u {
                        let a1 = frag_a(abase + FRAG * A_STRIDE);
                        c10 = coopMultiplyAdd(a1, b0, c10);
                        c11 = coopMultiplyAdd(a1, b1, c11);
                    }
                }
                // barrier: every subgroup has read sub-step s (at the last, the step's A)
                workgroupBarrier();
            }
            // stash: tile t+1's A (its B stays in registers)
            if t + 1u < k_tiles {
                stash_a_tile(lid, 0u, ahead, fa);
            }
            cur = ahead;
            groups = ahead_groups;
        }
    } else {
        // load: tile 0 into buffer 0 (`pre` holds the prefetch registers: with PREFETCH 2, tile 1)
        var pre = fetch_tile(lid, m0, n0, k0, fa, fb);
        stash_tile(lid, 0u, pre, fa, fb);
        if PREFETCH == 2u {
            pre = fetch_tile(lid, m0, n0, k0 + BK, fa, fb);
        }
        // barrier: tile 0 is staged before any fragment load
        workgroupBarrier();

        for (var t = 0u; t < k_tiles; t++) {
            let cur = t % NBUF;
            let cur_b = t % NBUF_B;
            let more = t + 1u < k_tiles;
            // prefetch tile t+PREFETCH into registers, unconditionally: after the last tile of K the
            // fetch's bounds checks give zeros without loading (after a slice's last, the next
            // slice's first tiles are loaded and not stashed). Under `if more`, NVIDIA's compiler
            // merged the loads into `pre` with moves right after them, so each step waited for its
            // global loads before its first multiply-add (as its SASS shows).
            let ahead = fetch_tile(lid, m0, n0, k0 + (t + PREFETCH) * BK, fa, fb);
            // multiply: FM×2 fragments per FRAG of K (FM is 4, or 1 or 2 for the few-rows tiles)
            for (var ks = 0u; ks < BK / FRAG; ks++) {
                let abase = cur * BM * A_STRIDE + wm * FM * FRAG * A_STRIDE + ks * FRAG;
                let bbase = cur_b * B_ROWS * B_STRIDE + ks * FRAG * B_STRIDE + wn * WN;
                let a0 = frag_a(abase);
                let b0 = frag_b(bbase);
                let b1 = frag_b(bbase + FRAG);
                c00 = coopMultiplyAdd(a0, b0, c00);
                c01 = coopMultiplyAdd(a0, b1, c01);
                if FM > 1u {
                    let a1 = frag_a(abase + FRAG * A_STRIDE);
                    c10 = coopMultiplyAdd(a1, b0, c10);
                    c11 = coopMultiplyAdd(a1, b1, c11);
                }
                if FM > 2u {
                    let a2 = frag_a(abase + 2u * FRAG * A_STRIDE);
                    let a3 = frag_a(abase + 3u * FRAG * A_STRIDE);
                    c20 = coopMultiplyAdd(a2, b0, c20);
                    c21 = coopMultiplyAdd(a2, b1, c21);
                    c30 = coopMultiplyAdd(a3, b0, c30);
                    c31 = coopMultiplyAdd(a3, b1, c31);
                }
            }
            // stash tile t+1 and barrier(s): fetched a step ago with PREFETCH 2, this step otherwise
            if PREFETCH == 2u {
                stage_next(lid, t, more, pre, fa, fb);
                pre = ahead;
            } else {
                stage_next(lid, t, more, ahead, fa, fb);
            }
        }
    }

    // store
    let r0 = m0 + wm * FM * FRAG;
    let q0 = n0 + wn * WN;
    // (the GEMM's own C has rows up to whole tiles: there only the right edge needs the edge
    // path; a caller's C (MASK_M) has none, so the bottom edge takes it too. Rows 16-byte
    // aligned: the row stride and the matrix's start multiples of 4.)
    let inside = n0 + BN <= params.n && (MASK_M == 0u || m0 + BM <= params.m);
    let full = EDGES == 0u || (inside && params.c_row % 4u == 0u && c_base % 4u == 0u);
    if full {
        let ld = params.c_row;
        let at = c_base + r0 * ld + q0;
        store_c(c00, at, ld);
        store_c(c01, at + FRAG, ld);
        if FM > 1u {
            store_c(c10, at + FRAG * ld, ld);
            store_c(c11, at + FRAG * ld + FRAG, ld);
        }
        if FM > 2u {
            store_c(c20, at + 2u * FRAG * ld, ld);
            store_c(c21, at + 2u * FRAG * ld + FRAG, ld);
            store_c(c30, at + 3u * FRAG * ld, ld);
            store_c(c31, at + 3u * FRAG * ld + FRAG, ld);
        }
    } else {
        // edge tile (uniform over the workgroup): each fragment staged, then copied lane by lane
        edge_store(c00, sg_id, lane, r0, q0);
        edge_store(c01, sg_id, lane, r0, q0 + FRAG);
        if FM > 1u {
            edge_store(c10, sg_id, lane, r0 + FRAG, q0);
            edge_store(c11, sg_id, lane, r0 + FRAG, q0 + FRAG);
        }
        if FM > 2u {
            edge_store(c20, sg_id, lane, r0 + 2u * FRAG, q0);
            edge_store(c21, sg_id, lane, r0 + 2u * FRAG, q0 + FRAG);
            edge_store(c30, sg_id, lane, r0 + 3u * FRAG, q0);
            edge_store(c31, sg_id, lane, r0 + 3u * FRAG, q0 + FRAG);
        }
    }
    // round: f16 output
    if OUT_F16 != 0u {
        round_tile(lid, m0, n0);
    }
}
