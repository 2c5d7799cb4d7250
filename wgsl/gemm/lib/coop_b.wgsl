// include-only
// B of the cooperative-matrix GEMMs (gemm/coop16, gemm/coop8) as f16 (read gemm/lib/coop.wgsl):
// a tile item is one vec4<u32> of 8 f16, along N (B stored K×N) or along K (B_T, stored N×K),
// staged into Bs along its row (stage_b8) or down a column (B_T, stage_b_col8: the staging file).
// The stage declares the binding `b` (`array<vec4<u32>>`).

fn b_items() -> u32 {
    return BK * BN / 8u;
}

fn fetch_b(li: u32, k0: u32, n0: u32) -> vec4<u32> {
    if B_T {
        // B stored N×K: column n0 + li / per_row of the tile, 8 of K per load (stash_b writes
        // them down the tile's rows)
        let per_row = BK / 8u;
        let col = n0 + li / per_row;
        let kv = k0 / 8u + li % per_row;
        if li < b_items() && col < params.n && kv < params.b_vecs {
            return k_tail(b[b_base + col * params.b_row_vecs + kv], kv, 8u);
        }
        return vec4<u32>(0u);
    }
    let per_row = BN / 8u;
    let kr = k0 + li / per_row;
    let nv = n0 / 8u + li % per_row;
    if li < b_items() && kr < params.k && nv < params.b_vecs {
        return b[b_base + kr * params.b_row_vecs + nv];
    }
    return vec4<u32>(0u);
}

fn stash_b(li: u32, buf: u32, v: vec4<u32>) {
    if li >= b_items() {
        return;
    }
    if B_T {
        // 8 of K of one column (fetch_b), down the tile's rows
        let per_row = BK / 8u;
        let at = buf * B_ROWS * B_STRIDE + (li % per_row) * 8u * B_STRIDE + li / per_row;
        stage_b_col8(at, halves_lo(v), halves_hi(v));
        return;
    }
    let per_row = BN / 8u;
    stage_b8(buf * B_ROWS * B_STRIDE + (li / per_row) * B_STRIDE + (li % per_row) * 8u, v);
}

// Sub-steps of B (B_SUB > 1) are int4 weights' alone (src/gemm/coop.rs refuses them for f16 B):
// never called here.
fn fetch_groups(lid: u32, k0: u32, n0: u32) -> vec2<u32> {
    return vec2<u32>(0u);
}

fn stash_b_sub(lid: u32, s: u32, cur: Staged, groups: vec2<u32>) {}
