// include-only
// The order-preserving u32 image of a 32-bit key ("sortable"), which the radix sort ranks and
// top-k selects by: u32 as is, i32 with the sign bit flipped, f32 with all bits of negatives
// flipped and the sign bit of the rest set (f32::total_cmp's order); DESCENDING complements it
// (the sort's descending order, top-k's smallest).

// 0 = u32, 1 = i32, 2 = f32
override KEY_TYPE: u32 = 0u;
override DESCENDING: u32 = 0u;

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
