// include-only
// The params of the GEMM kernels (the register-tiled gemm/tiled, the few-rows gemm/gemv and the
// cooperative gemm/coop16, gemm/coop8; the host fills them in src/gemm/layout.rs) and the
// operands' layout: row strides, offsets and batches of the caller's matrices, transposed B, the
// K tail of a load. The includer declares the binding `params: Params`. docs/gemm.md, "Layout".

struct Params {
    m: u32,
    n: u32,
    k: u32,
    // row strides in vec4<u32> loads: A's, and B's (transposed, B_T: the rows of its N×K storage);
    // for int4 weights, u32 per packed row (= N)
    a_row_vecs: u32,
    b_row_vecs: u32,
    k_tiles: u32,
    // int4: packed rows (ceil(K/8))
    b_rows: u32,
    // split-K: K tiles per split; split z writes its partial product at c_split · z
    // (summed by splitk_sum.wgsl)
    tiles_per_split: u32,
    // loads of a row that hold matrix elements: A's of K, B's of N (transposed: of K)
    a_vecs: u32,
    b_vecs: u32,
    // K splits per matrix: workgroup_id.z = matrix · splits + split
    splits: u32,
    // the layout (docs/gemm.md, "Layout"): C's row stride in elements (of the buffer this pass
    // writes: the caller's C, or rows of N of the plan's own), where matrix 0 starts (A, B in
    // loads, C in elements), and one matrix of a batch to the next; taken where LAYOUT is on
    c_row: u32,
    a_off: u32,
    b_off: u32,
    c_off: u32,
    a_mat: u32,
    b_mat: u32,
    c_mat: u32,
    c_split: u32,
    _pad: u32,
}

// 1: offsets or a batch (params.a_off .. c_mat): matrix bases computed per workgroup; 0 (the
// GEMM's own layout, one matrix): the bases are constants, and the loads as they were.
override LAYOUT: bool = false;
// 1: A's rows (and transposed B's) have a K tail inside a load that is not known to be zero (a
// caller's row stride with K not a whole number of loads): the tail is zeroed after the load
// (`k_tail`). 0: the padding is zero (the GEMM's own layout) or K fills whole loads.
override MASK_K: bool = false;
// 1: B is stored transposed, N×K (row n holds column n of B along K).
override B_T: bool = false;

// Where this workgroup's matrices start (A, B in loads, C in elements; C with its split's
// partial product), set once by the kernel's entry before any load (`set_bases`).
var<private> a_base: u32;
var<private> b_base: u32;
var<private> c_base: u32;

// Matrix `mat` of the batch, K split `split`.
fn set_bases(mat: u32, split: u32) {
    a_base = 0u;
    b_base = 0u;
    c_base = split * params.c_split;
    if LAYOUT {
        a_base = params.a_off + mat * params.a_mat;
        b_base = params.b_off + mat * params.b_mat;
        c_base += params.c_off + mat * params.c_mat;
    }
}

// Load `v`, the `kv`-th of a row along K of `epl` elements each (4 f32 or 8 f16): with MASK_K,
// the elements at K and past it zeroed (the caller's padding may hold anything, NaN included).
fn k_tail(v: vec4<u32>, kv: u32, epl: u32) -> vec4<u32> {
    if !MASK_K {
        return v;
    }
    // elements of this load inside K
    let valid = vec4<u32>(params.k - min(kv * epl, params.k));
    // the first element of each word: 1 per word (f32) or 2 (f16, low half first)
    let per = epl / 4u;
    let first = vec4<u32>(0u, 1u, 2u, 3u) * per;
    let whole = select(vec4<u32>(0u), vec4<u32>(0xFFFFFFFFu), first + per <= valid);
    let low = select(vec4<u32>(0u), vec4<u32>(0xFFFFu), first < valid);
    return v & (whole | low);
}
