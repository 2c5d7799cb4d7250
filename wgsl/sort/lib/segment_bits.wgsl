// include-only
// What the segmented local path's stages sort on and carry (src/sort/segments.rs): the bits
// [BEGIN_BIT, END_BIT) of the keys' sortable images (sort/lib/keys.wgsl), and PAYLOAD.

// the bits sorted on
override BEGIN_BIT: u32 = 0u;
override END_BIT: u32 = 32u;
// 0: keys alone; 1: values ride along; 2: the keys' indices ride along
override PAYLOAD: u32 = 0u;

// The bits sorted on of a sortable key.
fn sort_bits(k: u32) -> u32 {
    let width = END_BIT - BEGIN_BIT;
    let mask = select((1u << (width & 31u)) - 1u, 0xffffffffu, width >= 32u);
    return (k >> (BEGIN_BIT & 31u)) & mask;
}
