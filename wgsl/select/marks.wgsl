// Select, stage 1: each element's mark, 1 where it is selected and 0 where not, for the scan
// that follows (scan/chained.wgsl) to turn into each selected element's place. KIND 0: flags
// as bytes, four to a word (numpy's bool and uint8); 1: flags as u32; 2: the elements
// themselves, kept where `keep` (select/lib/keep, or the caller's predicate) holds; 3: the
// elements themselves, marked where a run of equal words begins (the first element, and each
// that differs from the one before it: src/runs.rs). A nonzero flag selects. The elements past the count keep their marks' words undefined: the scan reads
// the count's alone.

//!include shared/grid
//!include select/lib/keep

override KIND: u32 = 0u;

// the head of this run's control copy (shared/count)
@group(0) @binding(0) var<uniform> count_word: vec4<u32>;
// the flags (KIND 0, 1) or the elements (KIND 2), as words
@group(0) @binding(1) var<storage, read> flags: array<u32>;
@group(0) @binding(2) var<storage, read_write> marks: array<u32>;

fn mark(i: u32) -> u32 {
    if KIND == 0u {
        return select(0u, 1u, ((flags[i / 4u] >> (8u * (i % 4u))) & 0xffu) != 0u);
    }
    if KIND == 1u {
        return select(0u, 1u, flags[i] != 0u);
    }
    if KIND == 2u {
        return select(0u, 1u, keep(bitcast<Element>(flags[i])));
    }
    return select(0u, 1u, i == 0u || flags[i] != flags[i - 1u]);
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let n = run_elements(count_word);
    let grid = elements_grid(n);
    // a workgroup past this run's grid (one sized for a larger count) has nothing to do
    if wid.x >= grid {
        return;
    }
    for (var i = wid.x * WG_SIZE + lid; i < n; i += grid * WG_SIZE) {
        marks[i] = mark(i);
    }
}
