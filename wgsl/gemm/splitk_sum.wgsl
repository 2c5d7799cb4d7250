// Split-K epilogue: C[i] = Σ_z partials[z·count + i], z = 0 .. splits-1, in that fixed order
// (deterministic for a given split count). tiled.wgsl writes one partial product per split when
// the tile grid alone is too small to fill the GPU (skinny M, e.g. M = 1..64 with N = K = 4096).
// One element per invocation over a 2-D grid (the host keeps each dimension within the limit).
//
// With OUT_F16 (f16 output, GemmOptions::out = OutFormat::F16) each invocation sums two elements
// and writes them rounded to f16 in one word (gemm/lib/f16_round.wgsl), element 2i in the low half
// of word i, the high half +0 past the last element: the same bits the separate rounding pass
// (to_f16.wgsl) would give, without its dispatch. C's words are f32 bits otherwise.
//
// With STRIDED, C is the caller's (docs/gemm.md, "Layout"): the partial products hold `count` =
// matrices × M × N elements, rows of N, and element (matrix, row, col) goes to C's element
// c_off + matrix · c_mat + row · c_row + col, so nothing of C's rows past N is written. f16 C
// then goes by words of a row (its row stride and offsets are even: a word never holds two
// rows): with N odd, the last word of a row keeps its high half (the caller's padding) as it was.
// The host also plans this pass with one "split" to round a product's f32 C into a caller's f16
// C (N odd, where the product pass does not round).

//!include gemm/lib/f16_round

const WG_SIZE: u32 = 256u;

override OUT_F16: bool = false;

struct Params {
    count: u32,
    splits: u32,
    // STRIDED: C's rows and columns, and its layout in elements
    m: u32,
    n: u32,
    c_row: u32,
    c_off: u32,
    c_mat: u32,
    _pad: u32,
}

override STRIDED: bool = false;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partials: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<u32>;

fn sum_of(i: u32) -> f32 {
    var acc = 0.0;
    for (var z = 0u; z < params.splits; z++) {
        acc += partials[z * params.count + i];
    }
    return acc;
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = (wid.x + wid.y * nwg.x) * WG_SIZE + lid;
    if STRIDED {
        strided(i);
        return;
    }
    if OUT_F16 {
        // word i: elements 2i and 2i + 1
        let first = 2u * i;
        if first >= params.count {
            return;
        }
        var hi = 0.0;
        if first + 1u < params.count {
            hi = sum_of(first + 1u);
        }
        c[i] = pack_f16(sum_of(first), hi);
        return;
    }
    if i >= params.count {
        return;
    }
    c[i] = bitcast<u32>(sum_of(i));
}

// STRIDED: item i, an element of C (f32) or a word of a row of C (f16).
fn strided(i: u32) {
    let n = params.n;
    if OUT_F16 {
        let words = (n + 1u) / 2u;
        let row = i / words;
        if row >= params.count / n {
            return;
        }
        let col = 2u * (i % words);
        let e = row * n + col;
        let at = (params.c_off + (row / params.m) * params.c_mat + (row % params.m) * params.c_row
            + col) / 2u;
        if col + 1u < n {
            c[at] = pack_f16(sum_of(e), sum_of(e + 1u));
        } else {
            // the row's last element alone: the high half is the caller's
            c[at] = (c[at] & 0xFFFF0000u) | (pack_f16(sum_of(e), 0.0) & 0xFFFFu);
        }
        return;
    }
    if i >= params.count {
        return;
    }
    let row = i / n;
    let at = params.c_off + (row / params.m) * params.c_mat + (row % params.m) * params.c_row
        + i % n;
    c[at] = bitcast<u32>(sum_of(i));
}
