// include-only
// The radix sort's key order and digits, for every sort stage.
//
// Keys are sorted by their "sortable" image, an order-preserving u32: u32 as is, i32 with the
// sign bit flipped, f32 with all bits of negatives flipped and the sign bit of the rest set
// (f32::total_cmp's order); descending sorts the complement. The first pass maps raw keys in
// (MAP_IN), the last maps them back out (MAP_OUT). A pass sorts on the digit
// [SHIFT, SHIFT + BITS) of the sortable key; BITS = 0 gives digit 0 (an identity pass).

// digit values: 8-bit digits
const RADIX: u32 = 256u;

// 0 = u32, 1 = i32, 2 = f32
override KEY_TYPE: u32 = 0u;
override DESCENDING: u32 = 0u;
override SHIFT: u32 = 0u;
override BITS: u32 = 8u;
// keys_in holds raw keys (first pass) / keys_out gets raw keys (last pass)
override MAP_IN: u32 = 0u;
override MAP_OUT: u32 = 0u;

// The uniform every sort stage binds as `params`.
struct SortParams {
    n: u32,          // keys
    tiles: u32,      // workgroups that have a tile (others leave)
    hist_tiles: u32, // row length of the digit-major histogram (reduce-then-scan)
    _pad: u32,
}

fn to_sortable(x: u32) -> u32 {
    var k = x;
    if KEY_TYPE == 1u {
        k = x ^ 0x80000000u;
    } else if KEY_TYPE == 2u {
        k = select(x | 0x80000000u, ~x, (x & 0x80000000u) != 0u);
    }
    if DESCENDING != 0u {
        k = ~k;
    }
    return k;
}

fn from_sortable(k: u32) -> u32 {
    var x = k;
    if DESCENDING != 0u {
        x = ~x;
    }
    if KEY_TYPE == 1u {
        x = x ^ 0x80000000u;
    } else if KEY_TYPE == 2u {
        x = select(~x, x & 0x7fffffffu, (x & 0x80000000u) != 0u);
    }
    return x;
}

fn digit_of(k: u32) -> u32 {
    return (k >> SHIFT) & ((1u << BITS) - 1u);
}
