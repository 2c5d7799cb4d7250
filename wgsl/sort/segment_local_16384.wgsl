// Segmented radix sort, the local path (sort/lib/segment_local.wgsl) for segments of at most
// 16384 keys: 512 invocations of 32 keys, staged through tile_mem in two rounds of 16 keys an invocation
// (src/sort/segments.rs: SEGMENT_BUCKETS).

const KPT: u32 = 32u;
const STAGE_KPT: u32 = 16u;
const WG_SIZE: u32 = 512u;

//!include sort/lib/segment_local
