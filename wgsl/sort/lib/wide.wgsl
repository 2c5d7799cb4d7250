// include-only
// The order of 64-bit keys (src/sort/wide.rs): a key is two words, little-endian (word 0 the
// low half), sorted by its "sortable" image, an order-preserving pair of u32 halves: u64 as
// is, i64 with the sign bit flipped, f64 with all bits of negatives flipped and the sign bit of
// the rest set (f64::total_cmp's order); descending sorts the complement. The 32-bit digit
// passes sort the low half, then the high half (sort/lib/keys.wgsl's passes with KEY_TYPE u32).

// 0 = u64, 1 = i64, 2 = f64
override KEY_TYPE: u32 = 0u;
override DESCENDING: u32 = 0u;

// (low, high) of a raw key to its sortable halves.
fn wide_to_sortable(x: vec2<u32>) -> vec2<u32> {
    var k = x;
    if KEY_TYPE == 1u {
        k.y = x.y ^ 0x80000000u;
    } else if KEY_TYPE == 2u {
        k = select(vec2<u32>(x.x, x.y | 0x80000000u), ~x, (x.y & 0x80000000u) != 0u);
    }
    if DESCENDING != 0u {
        k = ~k;
    }
    return k;
}

// The raw high half of a key from its sortable high half alone (the low half's mapping
// depends on the high half's sign, never the other way round).
fn wide_high_from_sortable(h: u32) -> u32 {
    var y = h;
    if DESCENDING != 0u {
        y = ~y;
    }
    if KEY_TYPE == 1u {
        y = y ^ 0x80000000u;
    } else if KEY_TYPE == 2u {
        y = select(~y, y & 0x7fffffffu, (y & 0x80000000u) != 0u);
    }
    return y;
}

// The raw low half of a key from its sortable halves.
fn wide_low_from_sortable(k: vec2<u32>) -> u32 {
    var x = k.x;
    var y = k.y;
    if DESCENDING != 0u {
        x = ~x;
        y = ~y;
    }
    // an f64 whose sortable sign bit is clear was negative: all its bits were flipped
    if KEY_TYPE == 2u && (y & 0x80000000u) == 0u {
        x = ~x;
    }
    return x;
}
