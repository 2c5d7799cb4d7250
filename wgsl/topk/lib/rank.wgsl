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

// Up to this many keys are ranked by counting (K comparisons an invocation); more are sorted.
const COUNT_RANK_MAX_K: u32 = 32u;

// Writes the K keys in wg_hi/wg_lo (all written, the workgroup past a barrier) to the row's
// outputs in key order, largest first. Up to COUNT_RANK_MAX_K keys, each key's place is the
// number of keys above it (keys are unique). More: a bitonic sort in workgroup memory, K padded
// to a power of two n with keys below every real one (a real key's lo, below 2^30 as a row is
// within one binding, gets bit 31; a pad is (0, 0)), log2(n) (log2(n) + 1) / 2 steps of n / 2
// compare-exchanges, a barrier after each: for K = 1024 55 steps where counting took 4096
// comparisons an invocation, all in one workgroup (k = 1024 of 2^20 on the H200: 0.328 ms
// against 0.098 for k = 16, 2026-11-30).
fn write_ranked(lid: u32, out_at: u32) {
    if K <= COUNT_RANK_MAX_K {
        for (var s = lid; s < K; s += WG_SIZE) {
            let h = wg_hi[s];
            let l = wg_lo[s];
            var rank = 0u;
            for (var t = 0u; t < K; t++) {
                rank += select(0u, 1u, key_above(wg_hi[t], wg_lo[t], h, l));
            }
            values[out_at + rank] = from_sortable(h);
            indices[out_at + rank] = lo_of(l);
        }
        return;
    }
    var n = 1u;
    while n < K {
        n = n << 1u;
    }
    for (var s = lid; s < n; s += WG_SIZE) {
        if s < K {
            wg_lo[s] = wg_lo[s] | 0x80000000u;
        } else {
            wg_hi[s] = 0u;
            wg_lo[s] = 0u;
        }
    }
    // barrier: the keys are marked and padded
    workgroupBarrier();
    for (var size = 2u; size <= n; size = size << 1u) {
        for (var stride = size >> 1u; stride > 0u; stride = stride >> 1u) {
            // pair t: i (bit `stride` clear) and i + stride; blocks of `size` with that bit of
            // i clear end largest first, the others smallest first, so each merge of two is
            // bitonic and the last (size = n) leaves all largest first
            for (var t = lid; t < n / 2u; t += WG_SIZE) {
                let i = 2u * t - (t & (stride - 1u));
                let j = i + stride;
                let hi_i = wg_hi[i];
                let lo_i = wg_lo[i];
                let hi_j = wg_hi[j];
                let lo_j = wg_lo[j];
                if key_above(hi_j, lo_j, hi_i, lo_i) == ((i & size) == 0u) {
                    wg_hi[i] = hi_j;
                    wg_lo[i] = lo_j;
                    wg_hi[j] = hi_i;
                    wg_lo[j] = lo_i;
                }
            }
            // barrier: this step's exchanges are done before the next reads
            workgroupBarrier();
        }
    }
    for (var s = lid; s < K; s += WG_SIZE) {
        values[out_at + s] = from_sortable(wg_hi[s]);
        indices[out_at + s] = lo_of(wg_lo[s] & 0x7fffffffu);
    }
}
