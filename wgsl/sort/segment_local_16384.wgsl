// Segmented radix sort, the local path (sort/lib/segment_local.wgsl) for segments of at most
// 16384 keys: 512 invocations of 32 keys, staged through tile_mem in two rounds of 16 keys an invocation
// (src/sort/segments.rs: SEGMENT_BUCKETS).

const KPT: u32 = 32u;
const STAGE_KPT: u32 = 16u;
const WG_SIZE: u32 = 512u;

//!include sort/lib/segment_local

@group(0) @binding(0) var<storage, read_write> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> values: array<u32>;
@group(0) @binding(2) var<storage, read> lists: array<u32>;
@group(0) @binding(3) var<storage, read> state: array<u32>;
@group(0) @binding(4) var<storage, read> bases: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    segment_local(inv, wid.x + wid.y * nwg.x);
}
