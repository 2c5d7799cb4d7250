// include-only
// A vec4 of a u32 input whose element count need not fill its last vec4. The including stage
// declares the input as `input: array<vec4<u32>>` and `input_words: array<u32>`, two views of
// one buffer: a binding of n words holds n / 4 whole vec4s, so the last one to three elements
// are read as words (the GPU binds whole elements of a view, the simulator the same).

// The vec4 at index v, with elements at or past n as 0.
fn load_vec(n: u32, v: u32) -> vec4<u32> {
    let first = v * 4u;
    if first + 4u <= n {
        return input[v];
    }
    if first >= n {
        return vec4<u32>(0u);
    }
    let rest = n - first;
    return vec4<u32>(
        input_words[first],
        select(0u, input_words[min(first + 1u, n - 1u)], rest > 1u),
        select(0u, input_words[min(first + 2u, n - 1u)], rest > 2u),
        0u,
    );
}
