// include-only
// The order of 64-bit keys (src/sort/wide.rs): a key is two words, little-endian (word 0 the
// low half), sorted by its "sortable" image, an order-preserving pair of u32 halves: u64 as
// is, i64 with the sign bit flipped, f64 with all bits of negatives flipped and the sign bit of
// the rest set (f64::total_cmp's order); descending sorts the complement. The 32-bit digit
// passes sort the low half, then the high half. The key type and direction are shared/order's
// overrides, with the 64-bit types' codes: KEY_TYPE 0 = u64, 1 = i64, 2 = f64.

//!include shared/order

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

// The raw low half of a key from its sortable low half, for a key that is not a negative f64
// (wide_low_flipped says when the raw low half is the complement of this).
fn wide_low_unflipped(x: u32) -> u32 {
    return select(x, ~x, DESCENDING != 0u);
}

// Whether a key's raw low half is the complement of wide_low_unflipped of its sortable low half:
// an f64 whose sortable high half `h` says negative (its sign bit, descending undone, clear).
fn wide_low_flipped(h: u32) -> bool {
    return KEY_TYPE == 2u && ((select(h, ~h, DESCENDING != 0u) & 0x80000000u) == 0u);
}

// The raw low half of a key from its sortable halves.
fn wide_low_from_sortable(k: vec2<u32>) -> u32 {
    let x = wide_low_unflipped(k.x);
    return select(x, ~x, wide_low_flipped(k.y));
}
