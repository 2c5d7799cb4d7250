// include-only
// Top-k by radix select: a row's K selected keys (topk/lib/keys), gathered in workgroup memory
// in any order, written to the row's outputs in key order (the row stage, wide_order). The
// including stage declares `values` and `indices`, the caller's outputs as read-write u32
// arrays, and WG_SIZE.

//!include topk/lib/keys

// the gathered keys (K <= MAX_K: src/topk/select.rs)
const MAX_K: u32 = 1024u;
var<workgroup> wg_hi: array<u32, MAX_K>;
var<workgroup> wg_lo: array<u32, MAX_K>;

// Writes the K keys in wg_hi/wg_lo (all written, the workgroup past a barrier) to the row's
// outputs in key order: each key's place is the number of keys above it (keys are unique).
fn write_ranked(lid: u32, out_at: u32) {
    for (var s = lid; s < K; s += WG_SIZE) {
        let h = wg_hi[s];
        let l = wg_lo[s];
        var rank = 0u;
        for (var t = 0u; t < K; t++) {
            rank += select(0u, 1u, key_above(wg_hi[t], wg_lo[t], h, l));
        }
        values[out_at + rank] = value_of(h);
        indices[out_at + rank] = lo_of(l);
    }
}
