// include-only
// A bounded multi-producer multi-consumer ring queue in storage memory, u32 atomics only, and the
// task the persistent-kernel work queue runs (docs/queue.md has the state machine, the ABA
// argument and the forward-progress argument).
//
// Ring layout (`ring`): word 0 = head, word 1 = tail, words 2.. = CAP slots.
// - head and tail are packed `version << IDX_BITS | index`: a 20-bit version above a 12-bit slot
//   index (CAP <= 4096, a power of two). Every successful CAS bumps the version, so a CAS with a
//   value read before any other successful update can never succeed by accident (ABA) unless
//   exactly 2^20 updates happened in between.
// - a slot is one word `payload << 2 | state`, state EMPTY -> WRITING -> FULL -> READING -> EMPTY,
//   plus the two abort edges WRITING -> EMPTY and READING -> FULL taken by the owner when its
//   head/tail CAS loses. The payload travels inside the state word, so no ordering between two
//   addresses is needed (WGSL atomics are relaxed).
// try_enqueue / try_dequeue never wait: any lost race returns "retry later".
// Latency clock (when the override LATENCY is true): ctl[CTL_CLOCK] is a logical clock that every
// child push and every task start advance by one (atomicAdd returns the tick); ticks[2t] is task
// t's enqueue tick, ticks[2t + 1] its start tick. The host seeds task 0 with tick 0 and the clock
// with 1, so a complete run ends with the clock at exactly 2 * n_tasks (docs/queue.md, latency).
// With DEVICE_CLOCK as well (shared/device_clock), the two words are the low words of the
// device's clock instead, and the logical clock stands still.
// Tasks run on *teams* (queue/lib/team: a subgroup, or one invocation without subgroups).
// Source: Vyukov's bounded MPMC queue (per-slot state) with IBM-style versioned (tagged) CAS.
// The including stage declares the bindings params, input, results, runs, ring, ctl, spill and
// ticks (as every stage of wgsl/queue/ does), and `fn spilled(at: u32)`, which push_child calls
// after it appended a child at spill[at] (the persistent kernel counts the child launch there).

// invocations per workgroup of the persistent and child kernels
const QUEUE_WG: u32 = 64u;
//!include queue/lib/team
//!include shared/device_clock

struct Params {
    n_tasks: u32,
    words_per_task: u32,
    fanout: u32,
    cap: u32,
    // the round's parity (the host binds one Params for even rounds, one for odd): which of the
    // two CTL_END words and child-argument triples this round's passes use
    parity: u32,
}

// record enqueue and start ticks (the host sets it per plan; off = no clock traffic at all)
override LATENCY: bool = false;

const IDX_BITS: u32 = 12u;
const IDX_MASK: u32 = (1u << IDX_BITS) - 1u;
const S_EMPTY: u32 = 0u;
const S_WRITING: u32 = 1u;
const S_FULL: u32 = 2u;
const S_READING: u32 = 3u;
const NONE: u32 = 0xffffffffu;
// words of `ctl` (the host reads the layout from these constants)
const CTL_WORDS: u32 = 64u;
const CTL_DONE: u32 = 0u;
const CTL_SPILL: u32 = 1u;
// ctl[CTL_END + p]: the spill list's end as the child dispatch of the last round of parity p
// took it (the persistent pass of that round raises it to every entry appended before it ended;
// on the clock's line, away from the done counter's, which every task's end hits)
const CTL_END: u32 = 34u;
const CTL_CLOCK: u32 = 32u;
const CTL_ROUND: u32 = 33u;
const CTL_MARKS: u32 = 48u;
const CTL_MARKS_LEN: u32 = 16u;
// attempts at enqueueing a child before it is spilled to the next (child) dispatch
const ENQ_TRIES: u32 = 4u;
// every child is spilled, none goes through the ring: each is a child launch (the bench times
// what one costs; QueuePolicy::spill_all)
override SPILL_ALL: bool = false;

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

// The next tick of the latency clock, or the device clock's low word now.
fn tick() -> u32 {
    if DEVICE_CLOCK {
        return device_clock().x;
    }
    return atomicAdd(&ctl[CTL_CLOCK], 1u);
}

// The leader enqueues `child`, or spills it to the child-launch list after ENQ_TRIES lost
// attempts. The enqueue tick is taken before the first attempt, so the latency includes them.
fn push_child(child: u32) {
    if LATENCY {
        ticks[2u * child] = tick();
    }
    for (var a = 0u; a < ENQ_TRIES && !SPILL_ALL; a++) {
        if try_enqueue(child) {
            return;
        }
    }
    let at = atomicAdd(&ctl[CTL_SPILL], 1u);
    spill[at] = child;
    spilled(at);
}

// The spill entries that child dispatches before this round's have taken: the last round's end
// (the other parity's word, which no pass of this round writes). Each entry below it has run or
// is running; the child dispatch of this round takes those from here to CTL_END + parity.
fn launched() -> u32 {
    return atomicLoad(&ctl[CTL_END + 1u - params.parity]);
}

// Upper bound on the loop back-edges one invocation takes in run_task: the sum loop (one per
// tm.size words, plus the exit), the children loop, and ENQ_TRIES + 1 per push_child (rows of lanes
// in lockstep take a loop's back-edges even where the loop has no active lane: count them all).
// QueueProblem::validate states the same bound in Rust with tm.size = 1.
fn task_steps(tm: Team) -> u32 {
    return (params.words_per_task + tm.size - 1u) / tm.size + 2u + params.fanout * (ENQ_TRIES + 2u);
}

// Runs task `t` with the whole team (call in team-uniform control flow): takes its start tick,
// sums its range of `input`, records the result and the run, pushes its children
// fanout*t+1 ..= fanout*t+fanout (those < n_tasks), then counts it done. Children are pushed before
// `done` moves, so done == n_tasks means every task ran.
fn run_task(tm: Team, t: u32) {
    if LATENCY && tm.lane == 0u {
        ticks[2u * t + 1u] = tick();
    }
    // sum: lanes stride over the range, uniform bound
    let w = params.words_per_task;
    let base = t * w;
    var acc = 0u;
    for (var i = 0u; i < w; i += tm.size) {
        let j = i + tm.lane;
        if j < w {
            acc += input[base + j];
        }
    }
    let total = team_add(acc);
    if tm.lane == 0u {
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
