// Segmented radix sort, the local path's bucket of short segments (src/sort/segments.rs): one
// workgroup sorts one segment of at most WG_SIZE keys, an invocation a key, by ranking: a key's
// place is the number of the segment's keys that sort before it (on the bits [BEGIN_BIT,
// END_BIT) of the sortable images, sort/lib/keys.wgsl), smaller or equal and earlier, which is
// stable. O(m) steps a key, no digit passes: for short segments a tile's four ranking passes
// over at least 3072 keys cost more.

//!include sort/lib/keys
//!include sort/lib/segment_bits

const WG_SIZE: u32 = 256u;

// this stage's bucket (sort/lib/segment_local.wgsl)
override BUCKET: u32 = 0u;

@group(0) @binding(0) var<storage, read_write> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> values: array<u32>;
@group(0) @binding(2) var<storage, read> lists: array<u32>;
@group(0) @binding(3) var<storage, read> state: array<u32>;
@group(0) @binding(4) var<storage, read> bases: array<u32>;

// the segment's keys, the bits sorted on
var<workgroup> sorted_bits: array<u32, WG_SIZE>;

@compute @workgroup_size(WG_SIZE)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = wid.x + wid.y * nwg.x;
    if i >= state[BUCKET] {
        return;
    }
    let at = 2u * (bases[BUCKET] + i);
    let start = lists[at];
    let m = min(lists[at + 1u] - start, WG_SIZE);
    var key = 0u;
    var val = start + lid;
    if lid < m {
        key = to_sortable(keys[start + lid]);
        if PAYLOAD == 1u {
            val = values[start + lid];
        }
        sorted_bits[lid] = sort_bits(key);
    }
    // barriers: every key and value is read (so the writes below may overwrite them), and the
    // keys' bits are shared
    storageBarrier();
    workgroupBarrier();
    if lid < m {
        let mine = sorted_bits[lid];
        var r = 0u;
        for (var j = 0u; j < m; j++) {
            let b = sorted_bits[j];
            r += u32(b < mine || (b == mine && j < lid));
        }
        keys[start + r] = from_sortable(key);
        if PAYLOAD != 0u {
            values[start + r] = val;
        }
    }
}
