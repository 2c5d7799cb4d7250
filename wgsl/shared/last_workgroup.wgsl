// include-only
// Last-workgroup fold: the reductions' stage-1 workgroups publish one 64-bit partial each, and
// the workgroup that arrives last reduces them all, in the same dispatch. This replaces a second
// "combine" dispatch, whose launch and the barrier before it cost 14-17 µs on the H100 (4% of
// a 2^28-element sum).
//
// Why tagged words instead of "store partial, fence, count": WGSL's atomics are relaxed and it
// has no device-scope fence, so seeing the arrival counter at its last value does not promise
// that the other workgroups' partials are visible yet. Each partial is therefore published as
// two atomic words that each carry a tag bit and 31 payload bits (62 bits: callers keep their
// values within them), and the folding workgroup re-reads a slot until both words carry this
// run's tag. Per-location coherence of atomics is all this needs.
// Tags instead of clearing: the tag bit is the parity of the run's epoch (a counter the folder
// advances), inverted, so the words left from the previous run, and the zeros the host creates
// the slots with, never look ready. Every run writes every slot, so a slot never holds a value
// two runs old. (Clearing each slot after reading it made the sum 12 µs slower than two
// dispatches on the H100.)
// Forward progress: the folding workgroup waits only for stores that workgroups which have
// already arrived have already issued; it never waits for a workgroup to be scheduled.
// Layout of `fold_slots` (the including stage's binding `fold_slots: array<atomic<u32>>`,
// zeroed when created): the arrival counter at word 0, the epoch at word 1, then 2 words per
// partial. The counter and the epoch stay where they are whatever the run's partial count,
// so runs of different sizes share the slots.

const FOLD_PAYLOAD: u32 = 0x7fffffffu;
// partials each folding invocation loads before waiting on any (fold_gather8)
const FOLD_BATCH: u32 = 8u;

var<workgroup> fold_is_last: u32;
// the run's epoch, for the folding workgroup (written with fold_is_last)
var<workgroup> fold_run_epoch: u32;

// This run's epoch, for the invocation that will publish (`reader`; 0 for the others). Every
// workgroup of a run, in every chunk's dispatch, reads the same value: each reads it before it
// arrives, and the folder advances it only after everyone has arrived.
fn fold_epoch(reader: bool) -> u32 {
    if reader {
        return atomicLoad(&fold_slots[1]);
    }
    return 0u;
}

// The tag bit of words written in `epoch`: 1 in epoch 0, so zeroed slots are not ready.
fn fold_tag(epoch: u32) -> u32 {
    return select(0x80000000u, 0u, (epoch & 1u) != 0u);
}

// Publishes partial i = (lo, hi), hi < 2^30. Called by one invocation.
fn fold_publish(i: u32, v: vec2<u32>, epoch: u32) {
    let tag = fold_tag(epoch);
    atomicStore(&fold_slots[2u + 2u * i], tag | (v.x & FOLD_PAYLOAD));
    atomicStore(&fold_slots[3u + 2u * i], tag | (v.x >> 31u) | ((v.y << 1u) & FOLD_PAYLOAD));
}

// Counts this workgroup in (after its fold_publish) and tells everyone whether it arrived last
// of `total`. Call from uniform control flow, with `publisher` true for the one invocation
// that published.
fn fold_arrive(publisher: bool, total: u32, epoch: u32) -> bool {
    if publisher {
        let before = atomicAdd(&fold_slots[0], 1u);
        fold_is_last = select(0u, 1u, before + 1u == total);
        fold_run_epoch = epoch;
    }
    // barrier (inside workgroupUniformLoad): the flag is read after it was written, and the
    // result is uniform, so the caller may reduce under it
    return workgroupUniformLoad(&fold_is_last) != 0u;
}

// The two words of partial i as loaded now (possibly not yet this run's).
fn fold_load(i: u32) -> vec2<u32> {
    return vec2<u32>(atomicLoad(&fold_slots[2u + 2u * i]), atomicLoad(&fold_slots[3u + 2u * i]));
}

// Partial i from its loaded words `w`: re-reads the slot until both words carry `tag`.
fn fold_take(i: u32, w: vec2<u32>, tag: u32) -> vec2<u32> {
    var x = w;
    while ((x.x ^ tag) | (x.y ^ tag)) >= 0x80000000u {
        x = fold_load(i);
    }
    return vec2<u32>((x.x & FOLD_PAYLOAD) | (x.y << 31u), (x.y & FOLD_PAYLOAD) >> 1u);
}

// Eight partials: i + k * stride for k < 8.
struct Fold8 {
    v0: vec2<u32>,
    v1: vec2<u32>,
    v2: vec2<u32>,
    v3: vec2<u32>,
    v4: vec2<u32>,
    v5: vec2<u32>,
    v6: vec2<u32>,
    v7: vec2<u32>,
}

fn fold_take_or(i: u32, w: vec2<u32>, tag: u32, count: u32, none: vec2<u32>) -> vec2<u32> {
    if i < count {
        return fold_take(i, w, tag);
    }
    return none;
}

// Partials i, i + stride, ..., i + 7 * stride of this run (after fold_arrive); those at or past `count` come back as
// `none` (the caller's identity). All eight loads are issued before the first wait, so they
// overlap: one memory round trip per eight partials. Named fields, not an array: with a local
// array here lavapipe ran the whole kernel 4x slower, even in workgroups that never fold.
fn fold_gather8(i: u32, stride: u32, count: u32, none: vec2<u32>) -> Fold8 {
    let last = count - 1u;
    let t = fold_tag(fold_run_epoch);
    let w0 = fold_load(min(i, last));
    let w1 = fold_load(min(i + stride, last));
    let w2 = fold_load(min(i + 2u * stride, last));
    let w3 = fold_load(min(i + 3u * stride, last));
    let w4 = fold_load(min(i + 4u * stride, last));
    let w5 = fold_load(min(i + 5u * stride, last));
    let w6 = fold_load(min(i + 6u * stride, last));
    let w7 = fold_load(min(i + 7u * stride, last));
    return Fold8(
        fold_take_or(i, w0, t, count, none),
        fold_take_or(i + stride, w1, t, count, none),
        fold_take_or(i + 2u * stride, w2, t, count, none),
        fold_take_or(i + 3u * stride, w3, t, count, none),
        fold_take_or(i + 4u * stride, w4, t, count, none),
        fold_take_or(i + 5u * stride, w5, t, count, none),
        fold_take_or(i + 6u * stride, w6, t, count, none),
        fold_take_or(i + 7u * stride, w7, t, count, none),
    );
}

// Ends the run: the counter back to 0, the epoch advanced. The folder calls it once, after
// taking every partial (the next run sees both through the dispatch boundary).
fn fold_done() {
    atomicStore(&fold_slots[0], 0u);
    atomicStore(&fold_slots[1], fold_run_epoch + 1u);
}
