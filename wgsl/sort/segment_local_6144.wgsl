// Segmented radix sort, the local path (sort/lib/segment_local.wgsl) for segments of at most
// 6144 keys: 256 invocations of 24 keys, staged through tile_mem in two rounds of 12 keys an invocation
// (src/sort/segments.rs: SEGMENT_BUCKETS).

const KPT: u32 = 24u;
const STAGE_KPT: u32 = 12u;
const WG_SIZE: u32 = 256u;

//!include sort/lib/segment_local
