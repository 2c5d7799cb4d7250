// include-only
// The scan's tile layout and its loads and stores. A tile is rows of WG_SIZE vec4<u32>; in row j
// the invocation of scan rank r owns vec4 number j * WG_SIZE + r of the tile. Every load of a
// row is one coalesced stretch of memory (CUB's "striped" arrangement), and scan order is row by
// row, rank by rank, lane by lane.
// Edges: the including stage declares `input: array<vec4<u32>>` and `input_words: array<u32>`,
// two views of one buffer, and `output` / `output_words` likewise: the caller's buffers may end
// with the count, inside a vec4, so the last one to three elements are read and written as
// words. Elements at or past `n` load as 0 and are never stored, so a partial last tile neither
// reads out of bounds nor writes past the count (the loads are shared/chain's `load_vec`).
// INCLUSIVE = 1 gives the inclusive scan. Elements combine by the chain's operator (`chain_op`,
// shared/chain), in order.

//!include shared/chain_params

override INCLUSIVE: u32 = 0u;

// The vec4's elements combined in order.
fn hsum(v: vec4<u32>) -> u32 {
    return chain_op(chain_op(chain_op(v.x, v.y), v.z), v.w);
}

// The scanned vec4 whose elements follow `run` (exclusive or inclusive per INCLUSIVE), which
// holds something where `have` (only the first element of all has nothing before it, and there
// `run` is the identity, chain_join's "neither", which an exclusive scan writes).
fn scan_vec(run: u32, have: bool, x: vec4<u32>) -> vec4<u32> {
    if CHAIN_ADDS {
        // (the sum's prefixes, then the vec4 added for the inclusive scan: the same values as
        // the chain below, in the form the sum's figures were measured with)
        let ex = vec4<u32>(run, run + x.x, run + x.x + x.y, run + x.x + x.y + x.z);
        if INCLUSIVE != 0u {
            return ex + x;
        }
        return ex;
    }
    let i0 = chain_join(run, have, x.x, true);
    let i1 = chain_op(i0, x.y);
    let i2 = chain_op(i1, x.z);
    if INCLUSIVE != 0u {
        return vec4<u32>(i0, i1, i2, chain_op(i2, x.w));
    }
    return vec4<u32>(run, i0, i1, i2);
}

// Stores the scanned vec4 at index v: whole, or its elements below n.
fn store_vec(n: u32, v: u32, x: vec4<u32>) {
    let first = v * 4u;
    if first + 4u <= n {
        output[v] = x;
        return;
    }
    if first < n {
        output_words[first] = x.x;
    }
    if first + 1u < n {
        output_words[first + 1u] = x.y;
    }
    if first + 2u < n {
        output_words[first + 2u] = x.z;
    }
}
