// include-only
// The scan stages' tile layout: a tile is ROWS rows of WG_SIZE vec4<u32>; in row j the
// invocation of scan rank r owns vec4 number j * WG_SIZE + r of the tile. Every load of a row is
// one coalesced stretch of memory (CUB's "striped" arrangement), and scan order is row by row,
// rank by rank, lane by lane. Elements at or past `n` load as 0, so a partial last tile never
// reads out of bounds. Rows are written out, not looped, so nothing lands in local memory.
// The including stage declares `input: array<vec4<u32>>` and `input_words: array<u32>`, two
// views of one buffer: the caller's buffer may end with the count, inside a vec4, so the last
// one to three elements are read as words.

//!include scan/lib/params

// The vec4 at index v of the chunk, with elements at or past n as 0.
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

fn hsum(v: vec4<u32>) -> u32 {
    return v.x + v.y + v.z + v.w;
}
