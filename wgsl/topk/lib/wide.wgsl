// include-only
// The wide stages' per-row state (src/topk/select.rs): several workgroups share a row, so a
// round is two dispatches, `wide_count` (the digit counts of the candidates into `hist`, 256
// words a row) and `wide_choose` (the bucket, into `state`, two vec4s a row: the Sel of
// topk/lib/keys). Round 0 reads no state (every key a candidate, K needed) and each choose
// clears the counts it read, so `hist` is zero between runs (its buffer starts zeroed) and
// nothing clears it before a run. The including stage declares `state` as an array of vec4<u32>.

//!include topk/lib/keys

// Row `row`'s selection before round ROUND.
fn sel_before(row: u32) -> Sel {
    if ROUND == 0u {
        return fresh_sel();
    }
    let a = state[2u * row];
    let b = state[2u * row + 1u];
    return Sel(a.xy, a.zw, b.x, b.y);
}

// the round this pass counts or chooses (the gather: rounds())
override ROUND: u32 = 0u;
