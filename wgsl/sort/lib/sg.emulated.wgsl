// include-only
// The subgroup primitives of sg.subgroup.wgsl for adapters without subgroups: virtual
// subgroups of RS_VLANES consecutive invocations, ballots and shuffles through workgroup memory.
// Same results as a real subgroup of that size; each call holds workgroup barriers, so call from
// uniform control flow only. WG_SIZE (defined by the includer) must be a multiple of RS_VLANES.

const RS_VLANES: u32 = 32u;

var<workgroup> rs_ballot_words: array<atomic<u32>, WG_SIZE / RS_VLANES>;
var<workgroup> rs_shuffle_buf: array<u32, WG_SIZE>;

fn rs_lane(inv: Inv) -> u32 {
    return inv.lid % RS_VLANES;
}

fn rs_size(inv: Inv) -> u32 {
    return RS_VLANES;
}

fn rs_index(inv: Inv) -> u32 {
    return inv.lid / RS_VLANES;
}

fn rs_count(inv: Inv) -> u32 {
    return WG_SIZE / RS_VLANES;
}

fn rs_ballot(inv: Inv, p: bool) -> vec4<u32> {
    let w = inv.lid / RS_VLANES;
    // barrier: the previous ballot's readers are done with the word
    workgroupBarrier();
    if inv.lid % RS_VLANES == 0u {
        atomicStore(&rs_ballot_words[w], 0u);
    }
    // barrier: the word is cleared before any lane sets its bit
    workgroupBarrier();
    if p {
        atomicOr(&rs_ballot_words[w], 1u << (inv.lid % RS_VLANES));
    }
    // barrier: every lane's bit is in
    workgroupBarrier();
    return vec4<u32>(atomicLoad(&rs_ballot_words[w]), 0u, 0u, 0u);
}

fn rs_shuffle(inv: Inv, x: u32, src: u32) -> u32 {
    // barrier: the previous shuffle's readers are done with the buffer
    workgroupBarrier();
    rs_shuffle_buf[inv.lid] = x;
    // barrier: every lane's value is in
    workgroupBarrier();
    return rs_shuffle_buf[(inv.lid / RS_VLANES) * RS_VLANES + min(src, RS_VLANES - 1u)];
}
