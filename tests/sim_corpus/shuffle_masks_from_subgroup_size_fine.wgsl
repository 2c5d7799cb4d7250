// expect: clean
// workgroups: 1
// bind: 0=u32:uninit:128
// sizes: 4,8,16,32,64
// Looks bad, is fine: shuffles with large masks, a shuffle-up whose edge lanes read off the
// subgroup, and a shuffle from the next lane, which the last lane reads past the subgroup. The
// masks and deltas come from the subgroup size, so they stay below it, the edge lanes'
// shuffle-up results are dropped (the inclusive-scan idiom), and a select drops the last
// lane's shuffle.
@group(0) @binding(0) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) size: u32) {
    var total = lid;
    for (var m = size / 2u; m > 0u; m >>= 1u) {
        total += subgroupShuffleXor(total, m);
    }
    var scan = lid;
    for (var d = 1u; d < size; d <<= 1u) {
        let y = subgroupShuffleUp(scan, d);
        if lane >= d {
            scan += y;
        }
    }
    let next = select(0u, subgroupShuffle(lid, lane + 1u), lane + 1u < size);
    output[2u * lid] = total ^ next;
    output[2u * lid + 1u] = scan;
}
