//! Reference for `wgsl/scan/`: prefix sums of u32 with wrapping arithmetic.

/// Exclusive (`inclusive = false`) or inclusive prefix sum, wrapping on overflow.
pub fn scan_u32(x: &[u32], inclusive: bool) -> Vec<u32> {
    let mut acc = 0u32;
    x.iter()
        .map(|&v| {
            let before = acc;
            acc = acc.wrapping_add(v);
            if inclusive {
                acc
            } else {
                before
            }
        })
        .collect()
}
