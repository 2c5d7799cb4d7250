// GEMM for a few rows of A (M ≤ MAX_ROWS, the matrix-vector products of LLM decoding):
// C (M×N) = A (M×K) · B (K×N), row-major, B f32, f16 or int4 (docs/gemm.md, "int4 weight
// format"), A f32 with f32 B and f16 otherwise, C f32. Such a product reads B once and does
// almost nothing else, so the kernel is built for B's bandwidth, not for reuse. A workgroup is
// CV column groups × KT lanes of K: invocation (cv, kt) owns a few consecutive columns for all M
// rows (one vec4 of a B row per k, f32: 4 columns, f16: 8; or one packed word per 8 k, int4: 1
// column) and every KT-th k (word) of the workgroup's K slice, four loads issued before their
// multiply-adds; the KT partial sums of a column are added in workgroup memory at the end. A
// subgroup's 32 invocations (or fewer) are consecutive column groups of one k: coalesced rows.
// The register-tiled kernel (tiled.wgsl) spent 31 of every 32 rows of its tile on nothing here,
// with a barrier per 8 of K.
//
// Layout: workgroup (x, y) owns column groups [x·CV, (x+1)·CV) and K slice y (split-K: slice y
// writes its partial product to c[y·M·N ..], summed by splitk_sum.wgsl; one slice writes C).
// The slice of A (ROWS × KSLICE) is staged in workgroup memory as f32 first.
//
// Params and bindings are the tiled kernel's (src/gemm/mod.rs fills both the same way).
//
// Loads of B are unconditional (indices clamped into the matrix, the value then zeroed past K
// or N): under an `if`, NVIDIA's compiler issues each load after the previous one's branch.
// For the same reason the kernel is built without runtime checks (src/gpu/mod.rs,
// runtime_checks); every access is proven in bounds by the simulator tests
// (tests/gemm_sim.rs, gemv_on_the_simulator: edges in N and K, several slices).
// wgsimd: runtime checks off

override B_FMT: u32 = 0u;
override HAS_ZEROS: bool = false;
// M: a constant, so that the loops over rows unroll and the accumulators stay in registers
override ROWS: u32 = 1u;
// K per workgroup: a multiple of 64 (KT lanes × four loads per step for f32 / f16, KT whole
// int4 words of 8)
override KSLICE: u32 = 256u;
override AS_LEN: u32 = ROWS * KSLICE;

const WG: u32 = 256u;
// lanes of K per column group, and column groups per workgroup
const KT: u32 = 8u;
const CV: u32 = WG / KT;
// the host keeps M at most this (src/gemm/mod.rs, GEMV_MAX_ROWS)
const MAX_ROWS: u32 = 8u;

//!include shared/gemm_portable

// [row][k - k0]: this workgroup's slice of A, in f32
var<workgroup> As: array<f32, AS_LEN>;
// [kt][cv][column of the group]: one row's partial sums, to be added over kt
var<workgroup> red: array<f32, WG * 8u>;

// Columns per invocation.
fn cols() -> u32 {
    if B_FMT == 2u {
        return 1u;
    }
    return select(4u, 8u, B_FMT == 1u);
}

// A[r][k] as f32 (k < K).
fn a_at(r: u32, k: u32) -> f32 {
    if B_FMT == 0u {
        return bitcast<f32>(a[r * params.a_row_vecs + k / 4u][k % 4u]);
    }
    let w = a[r * params.a_row_vecs + k / 8u][(k % 8u) / 2u];
    return unpack2x16float(w >> (16u * (k & 1u))).x;
}

// B's vec4 at row k, column vec v; zero past K or N (loaded from a clamped index either way).
fn b_vec(k: u32, v: u32) -> vec4<u32> {
    let at = min(k, params.k - 1u) * params.b_row_vecs + min(v, params.b_row_vecs - 1u);
    let x = b[at];
    return select(vec4<u32>(0u), x, k < params.k && v < params.b_row_vecs);
}

// f16 B: the 8 columns of a vec4<u32> as two vec4<f32>.
fn halves(w: vec4<u32>) -> array<vec4<f32>, 2> {
    let lo = vec4<f32>(unpack2x16float(w.x), unpack2x16float(w.y));
    let hi = vec4<f32>(unpack2x16float(w.z), unpack2x16float(w.w));
    return array<vec4<f32>, 2>(lo, hi);
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let k0 = wid.y * KSLICE;
    // stage: the slice of A, zero past K
    for (var i = lid; i < ROWS * KSLICE; i += WG) {
        let r = i / KSLICE;
        let k = k0 + i % KSLICE;
        var x = 0.0;
        if k < params.k {
            x = a_at(r, k);
        }
        As[i] = x;
    }
    // barrier: the slice of A is staged before anyone multiplies
    workgroupBarrier();

    // accumulate: two vec4 per row r at 2r, 2r + 1 (f32 uses the first, int4 its .x)
    var acc: array<vec4<f32>, 2u * MAX_ROWS>;
    let cv = lid % CV;
    let kt = lid / CV;
    let g = wid.x * CV + cv;
    if B_FMT == 2u {
        // int4: column n, every KT-th packed word (8 of K), scale (and zero) per group of 128
        let n = g;
        if n < params.n {
            for (var kb = kt; kb < KSLICE / 8u; kb += KT) {
                let row = k0 / 8u + kb;
                if row < params.b_rows {
                    let w = row * params.n + n;
                    let word = b[w / 4u][w % 4u];
                    let grp = (row * 8u) / GROUP * params.n + n;
                    let s = f16_word(true, grp);
                    var z = 8.0;
                    if HAS_ZEROS {
                        z = f16_word(false, grp);
                    }
                    for (var r = 0u; r < ROWS; r++) {
                        var dot = 0.0;
                        for (var j = 0u; j < 8u; j++) {
                            let q = f32((word >> (4u * j)) & 15u);
                            dot += As[r * KSLICE + kb * 8u + j] * ((q - z) * s);
                        }
                        acc[2u * r].x += dot;
                    }
                }
            }
        }
    } else {
        // f32 / f16: column vec v of B's rows, k = kt, kt + KT, ... of the slice, four per step,
        // loads first
        let v = g;
        for (var kk = kt; kk < KSLICE; kk += 4u * KT) {
            let k = k0 + kk;
            let b0 = b_vec(k, v);
            let b1 = b_vec(k + KT, v);
            let b2 = b_vec(k + 2u * KT, v);
            let b3 = b_vec(k + 3u * KT, v);
            for (var r = 0u; r < ROWS; r++) {
                let at = r * KSLICE + kk;
                let x = vec4<f32>(As[at], As[at + KT], As[at + 2u * KT], As[at + 3u * KT]);
                if B_FMT == 0u {
                    acc[2u * r] += x.x * bitcast<vec4<f32>>(b0) + x.y * bitcast<vec4<f32>>(b1)
                        + x.z * bitcast<vec4<f32>>(b2) + x.w * bitcast<vec4<f32>>(b3);
                } else {
                    let h0 = halves(b0);
                    let h1 = halves(b1);
                    let h2 = halves(b2);
                    let h3 = halves(b3);
                    acc[2u * r] += x.x * h0[0] + x.y * h1[0] + x.z * h2[0] + x.w * h3[0];
                    acc[2u * r + 1u] += x.x * h0[1] + x.y * h1[1] + x.z * h2[1] + x.w * h3[1];
                }
            }
        }
    }

    // reduce + store, row by row: the KT partial sums of each column added by lane kt = 0, which
    // writes this slice's partial product (or C itself with one slice)
    let base = wid.y * params.m * params.n;
    let n0 = g * cols();
    for (var r = 0u; r < ROWS; r++) {
        for (var e = 0u; e < cols(); e++) {
            let part = acc[2u * r + e / 4u];
            red[lid * 8u + e] = part[e % 4u];
        }
        // barrier: every lane's partial sums of row r are in `red`
        workgroupBarrier();
        if kt == 0u {
            for (var e = 0u; e < cols(); e++) {
                var sum = 0.0;
                for (var t = 0u; t < KT; t++) {
                    sum += red[(t * CV + cv) * 8u + e];
                }
                let n = n0 + e;
                if n < params.n {
                    c[base + r * params.n + n] = sum;
                }
            }
        }
        // barrier: `red` is read before the next row overwrites it
        workgroupBarrier();
    }
}
