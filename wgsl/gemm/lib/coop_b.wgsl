// include-only
// B of the cooperative-matrix GEMMs (gemm/coop16, gemm/coop8) as f16 (read gemm/lib/coop.wgsl):
// a tile item is one vec4<u32> of 8 f16, along N (B stored K×N) or along K (B_T, stored N×K),
// staged into Bs as two 8-byte stores, or 8 f16 down a column for B_T (gemm/lib/coop_stage.wgsl
// declares Bs). The stage
// declares the binding `b` (`array<vec4<u32>>`).

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
        // 8 of K of one column (fetch_b), down the tile's rows: one f16 component a row
        let per_row = BK / 8u;
        let at = buf * BK * B_STRIDE + (li % per_row) * 8u * B_STRIDE + li / per_row;
        let c = at % 4u;
        let q = at / 4u;
        let rows = B_STRIDE / 4u;
        let lo = halves_lo(v);
        let hi = halves_hi(v);
        Bs[q][c] = lo.x;
        Bs[q + rows][c] = lo.y;
        Bs[q + 2u * rows][c] = lo.z;
        Bs[q + 3u * rows][c] = lo.w;
        Bs[q + 4u * rows][c] = hi.x;
        Bs[q + 5u * rows][c] = hi.y;
        Bs[q + 6u * rows][c] = hi.z;
        Bs[q + 7u * rows][c] = hi.w;
        return;
    }
    let per_row = BN / 8u;
    let at = (buf * BK * B_STRIDE + (li / per_row) * B_STRIDE + (li % per_row) * 8u) / 4u;
    Bs[at] = halves_lo(v);
    Bs[at + 1u] = halves_hi(v);
}
