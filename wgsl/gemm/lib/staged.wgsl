// include-only
// The register prefetch of the GEMM kernels (gemm/lib/tiled.wgsl and
// gemm/lib/coop.wgsl): one K step's share of A and B for this invocation, held between
// its global loads and its stash into workgroup memory (double buffering). The includer
// declares WG (invocations per workgroup), `a_items()`, `b_items()` (vec4 items per tile of A
// and of B) and `fetch_a(li, m0, k0)`, `fetch_b(li, k0, n0)`: item li of the A tile at (m0, k0)
// and of the B tile at (k0, n0), zero outside the matrix.

// `fa` A items and `fb` B items (each ≤ 4), as named fields: NVIDIA's compiler put a
// loop-indexed array in local memory.
struct Staged {
    a0: vec4<u32>, a1: vec4<u32>, a2: vec4<u32>, a3: vec4<u32>,
    b0: vec4<u32>, b1: vec4<u32>, b2: vec4<u32>, b3: vec4<u32>,
}

// loads per invocation per operand (constant after specialization; the hosts check them against
// MAX_FETCH)
fn fetches_a() -> u32 {
    return (a_items() + WG - 1u) / WG;
}

fn fetches_b() -> u32 {
    return (b_items() + WG - 1u) / WG;
}

// load: items lid, lid + WG, ... of the A tile at (m0, k0) and of the B tile at (k0, n0)
fn fetch_tile(lid: u32, m0: u32, n0: u32, k0: u32, fa: u32, fb: u32) -> Staged {
    var s: Staged;
    s.a0 = fetch_a(lid, m0, k0);
    if fa > 1u { s.a1 = fetch_a(lid + WG, m0, k0); }
    if fa > 2u { s.a2 = fetch_a(lid + 2u * WG, m0, k0); }
    if fa > 3u { s.a3 = fetch_a(lid + 3u * WG, m0, k0); }
    s.b0 = fetch_b(lid, k0, n0);
    if fb > 1u { s.b1 = fetch_b(lid + WG, k0, n0); }
    if fb > 2u { s.b2 = fetch_b(lid + 2u * WG, k0, n0); }
    if fb > 3u { s.b3 = fetch_b(lid + 3u * WG, k0, n0); }
    return s;
}
