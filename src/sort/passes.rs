//! What every digit pass of a sort is made of, for the plans of `build.rs` and `fused.rs`: the
//! digits a bit range cuts into, and the buffers one pass binds.

use crate::plan::BufferId;

/// The (shift, bits) of each digit pass, least significant first; one 0-bit pass (identity)
/// for an empty range.
pub(super) fn digits(begin_bit: u32, end_bit: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    let mut s = begin_bit;
    while s < end_bit {
        let bits = (end_bit - s).min(8);
        v.push((s, bits));
        s += bits;
    }
    if v.is_empty() {
        v.push((0, 0));
    }
    v
}

/// What one digit pass binds: keys and values in and out.
#[derive(Clone, Copy)]
pub(super) struct Io {
    pub keys_in: BufferId,
    pub keys_out: BufferId,
    pub vals_in: BufferId,
    pub vals_out: BufferId,
    pub vals2_in: BufferId,
    pub vals2_out: BufferId,
}
