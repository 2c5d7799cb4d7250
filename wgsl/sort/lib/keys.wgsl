// include-only
// The radix sort's key order and digits, for every sort stage.
//
// Keys are sorted by their "sortable" image (shared/order; DESCENDING sorts the complement).
// The first pass maps raw keys in (MAP_IN), the last maps them back out (MAP_OUT). A pass sorts
// on the digit [SHIFT, SHIFT + BITS) of the sortable key; BITS = 0 gives digit 0 (an identity
// pass).

// digit values: 8-bit digits
const RADIX: u32 = 256u;

//!include shared/order
//!include sort/lib/wide

override SHIFT: u32 = 0u;
override BITS: u32 = 8u;
// keys_in holds raw keys (first pass) / keys_out gets raw keys (last pass)
override MAP_IN: u32 = 0u;
override MAP_OUT: u32 = 0u;
// 64-bit keys in the caller's layout (the fused sort, src/sort/fused.rs; sort/lib/wide.wgsl):
// a pass sorts word WIDE_HALF (0 low, 1 high) of the keys' sortable images and carries the
// other word as its value. WIDE_IN: keys_in holds the caller's raw keys, two words a key, low first (the
// sort's first pass, which maps both words itself); WIDE_OUT: the pass writes raw keys into
// keys_out in that layout, the carried word included (the sort's last pass). 0 in every other
// pass and every 32-bit sort, which compile these paths out.
override WIDE_IN: u32 = 0u;
override WIDE_OUT: u32 = 0u;
override WIDE_HALF: u32 = 0u;

// The uniform every sort stage binds as `params`.
struct SortParams {
    n: u32,          // keys
    tiles: u32,      // workgroups that have a tile (others leave)
    hist_tiles: u32, // row length of the digit-major histogram (reduce-then-scan)
    _pad: u32,
}

fn digit_of(k: u32) -> u32 {
    return (k >> SHIFT) & ((1u << BITS) - 1u);
}
