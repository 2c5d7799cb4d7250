// include-only
// A bounded multi-producer multi-consumer ring queue in storage memory, u32 atomics only, and the
// task the persistent-kernel work queue runs (docs/queue.md has the state machine, the ABA
// argument and the forward-progress argument).
//
// Ring layout (binding 4, `ring`): word 0 = head, word 1 = tail, words 2.. = CAP slots.
// - head and tail are packed `version << IDX_BITS | index`: a 20-bit version above a 12-bit slot
//   index (CAP <= 4096, a power of two). Every successful CAS bumps the version, so a CAS with a
//   value read before any other successful update can never succeed by accident (ABA) unless
//   exactly 2^20 updates happened in between.
// - a slot is one word `payload << 2 | state`, state EMPTY -> WRITING -> FULL -> READING -> EMPTY,
//   plus the two abort edges WRITING -> EMPTY and READING -> FULL taken by the owner when its
//   head/tail CAS loses. The payload travels inside the state word, so no ordering between two
//   addresses is needed (WGSL atomics are relaxed).
// try_enqueue / try_dequeue never wait: any lost race returns "retry later".
// Source: Vyukov's bounded MPMC queue (per-slot state) with IBM-style versioned (tagged) CAS, as in
// the CUDA microkernel seed of issue 7.

struct Params {
    n_tasks: u32,
    words_per_task: u32,
    fanout: u32,
    cap: u32,
}

struct Inv {
    @builtin(local_invocation_index) lid: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) sg_size: u32,
    @builtin(subgroup_id) sg_id: u32,
    @builtin(num_subgroups) n_sg: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<u32>;
// one result per task id: the wrapping u32 sum of its range of `input`
@group(0) @binding(2) var<storage, read_write> results: array<u32>;
// per task id: how many times it was executed (must end at exactly 1)
@group(0) @binding(3) var<storage, read_write> runs: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> ring: array<atomic<u32>>;
// ctl: 0 = tasks done, 1 = spill count (append index), 2 = child lo, 3 = child hi
@group(0) @binding(5) var<storage, read_write> ctl: array<atomic<u32>, 4>;
// spilled (child-launch) task ids, appended at ctl[1]; at most n_tasks ever
@group(0) @binding(6) var<storage, read_write> spill: array<u32>;

const IDX_BITS: u32 = 12u;
const IDX_MASK: u32 = 0xfffu;
const S_EMPTY: u32 = 0u;
const S_WRITING: u32 = 1u;
const S_FULL: u32 = 2u;
const S_READING: u32 = 3u;
const NONE: u32 = 0xffffffffu;
const CTL_DONE: u32 = 0u;
const CTL_SPILL: u32 = 1u;
const CTL_LO: u32 = 2u;
const CTL_HI: u32 = 3u;
// attempts at enqueueing a child before it is spilled to the next (child) dispatch
const ENQ_TRIES: u32 = 4u;

// The successor of a packed head/tail: next index mod cap, version + 1 (wrapping at 2^20).
fn ring_next(x: u32) -> u32 {
    let idx = ((x & IDX_MASK) + 1u) & (params.cap - 1u);
    return (((x >> IDX_BITS) + 1u) << IDX_BITS) | idx;
}

// Appends `task` (< 2^30). false = full or a lost race: retry later. Never waits.
fn try_enqueue(task: u32) -> bool {
    let t = atomicLoad(&ring[1]);
    let slot = 2u + (t & IDX_MASK);
    // claim: EMPTY -> WRITING (fails when the ring is full or another producer holds the slot)
    if !atomicCompareExchangeWeak(&ring[slot], S_EMPTY, S_WRITING).exchanged {
        return false;
    }
    // publish the position: only if tail is still exactly t (same index AND version)
    if !atomicCompareExchangeWeak(&ring[1], t, ring_next(t)).exchanged {
        atomicStore(&ring[slot], S_EMPTY); // abort edge WRITING -> EMPTY
        return false;
    }
    atomicStore(&ring[slot], (task << 2u) | S_FULL);
    return true;
}

// Removes the oldest task; NONE = empty or a lost race: retry later. Never waits.
fn try_dequeue() -> u32 {
    return dequeue_from(atomicLoad(&ring[0]));
}

// try_dequeue after its head load, split out so queue/aba_probe can run it with a stale `h`.
fn dequeue_from(h: u32) -> u32 {
    let slot = 2u + (h & IDX_MASK);
    let s = atomicLoad(&ring[slot]);
    if (s & 3u) != S_FULL {
        return NONE;
    }
    // claim: FULL -> READING, payload kept in the word
    if !atomicCompareExchangeWeak(&ring[slot], s, (s & ~3u) | S_READING).exchanged {
        return NONE;
    }
    // consume the position: only if head is still exactly h
    if !atomicCompareExchangeWeak(&ring[0], h, ring_next(h)).exchanged {
        atomicStore(&ring[slot], s); // abort edge READING -> FULL
        return NONE;
    }
    atomicStore(&ring[slot], S_EMPTY);
    return s >> 2u;
}

// Lane 0 enqueues `child`, or spills it to the child-launch list after ENQ_TRIES lost attempts.
fn push_child(child: u32) {
    for (var a = 0u; a < ENQ_TRIES; a++) {
        if try_enqueue(child) {
            return;
        }
    }
    let at = atomicAdd(&ctl[CTL_SPILL], 1u);
    spill[at] = child;
}

// Runs task `t` with the whole subgroup (call in subgroup-uniform control flow): sums its range of
// `input`, records the result and the run, pushes its children fanout*t+1 ..= fanout*t+fanout
// (those < n_tasks), then counts it done. Children are pushed before `done` moves, so
// done == n_tasks means every task ran.
fn run_task(inv: Inv, t: u32) {
    // sum: lanes stride over the range, uniform bound
    let w = params.words_per_task;
    let base = t * w;
    var acc = 0u;
    for (var i = 0u; i < w; i += inv.sg_size) {
        let j = i + inv.lane;
        if j < w {
            acc += input[base + j];
        }
    }
    let total = subgroupAdd(acc);
    if inv.lane == 0u {
        results[t] = total;
        atomicAdd(&runs[t], 1u);
        for (var c = 1u; c <= params.fanout; c++) {
            let child = t * params.fanout + c;
            if child < params.n_tasks {
                push_child(child);
            }
        }
        atomicAdd(&ctl[CTL_DONE], 1u);
    }
}
