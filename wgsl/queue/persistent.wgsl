// The persistent kernel of the work queue: a few workgroups that live until the work is done or
// they give up, with team-specialised roles (a port of a CUDA persistent microkernel). A team is a
// subgroup, or one invocation in the emulated flavour (queue/lib/team):
// - scheduler teams (even team id) dequeue with the leader, hand the task to the whole team with
//   team_first (subgroupBroadcastFirst), then pass it to their paired worker team (id + 1)
//   through a workgroup-memory mailbox, or run it themselves when the mailbox is still taken;
// - worker teams (odd team id) take tasks from their mailbox and run them; a worker that stops
//   closes its mailbox (CLOSED) and runs what it held, so its scheduler runs later tasks itself
//   (a chain of tasks is not left in a mailbox nobody reads).
// A lone team (one subgroup per workgroup) is a scheduler with no worker: it runs everything.
// Every team operation sits in control flow uniform per team (conditions are broadcast values);
// no role waits at a barrier or on another invocation: polling is bounded (MAX_POLLS in all, fewer
// when LOOP_BUDGET asks, IDLE_POLLS in a row without work, SPILL_IDLE_POLLS in a quiet queue
// when a spilled child waits for the child dispatch, which starts only when this pass has
// ended), after which the workgroup simply exits. The host then re-dispatches while tasks remain
// (docs/queue.md, forward progress).
// This pass also writes the indirect arguments of the round's child dispatch, which runs right
// after it (no pass of their own, so a spilled child waits for this pass to end, no more): the
// first invocation covers what the last child dispatch spilled as the pass starts, and each
// block's first spill raises the block count (`spilled`).
//!include queue/lib/ring

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<u32>;
// one result per task id: the wrapping u32 sum of its range of `input`
@group(0) @binding(2) var<storage, read_write> results: array<u32>;
// per task id: how many times it was executed (must end at exactly 1)
@group(0) @binding(3) var<storage, read_write> runs: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> ring: array<atomic<u32>>;
// ctl: 0 = tasks done, 1 = spill count (append index), 32 = the latency clock (on a 128-byte
// line away from the done counter), 33 = rounds of this submission so far (the host zeroes it),
// 34 and 35 = the spill list's end per round parity (CTL_END), 48..64 = the clock as each
// round's persistent pass starts
@group(0) @binding(5) var<storage, read_write> ctl: array<atomic<u32>, CTL_WORDS>;
// spilled (child-launch) task ids, appended at ctl[1]; at most n_tasks ever
@group(0) @binding(6) var<storage, read_write> spill: array<u32>;
// per task: enqueue tick, start tick (written only when LATENCY)
@group(0) @binding(9) var<storage, read_write> ticks: array<u32>;
// the child dispatches' indirect arguments, a triple (and a spare word) per round parity: x is
// raised by this round's spills, y and z are 1; all eight are zero when the plan's buffer is
// made, and a fill pass after the last round zeroes them for the next run
@group(0) @binding(7) var<storage, read_write> args: array<atomic<u32>, 8>;

// polls per team before giving up; a poll is one dequeue attempt (scheduler) or one look at the
// mailbox (worker)
const MAX_POLLS: u32 = 4096u;
const IDLE_POLLS: u32 = 64u;
// empty polls in a row after which a team stops when spilled children wait and no task is in
// flight (queue_quiet): they run only in the child dispatch after this pass, so polling on delays
// them (a child launch on an idle queue took 61 µs, nearly all of it 64 idle polls of every
// team; stopping with tasks still in flight cut a tree of 2^18 tasks from 47 to 5 M tasks/s:
// early in the tree, lost races spill children while the ring is briefly empty; H200 2026-11-29).
// Each poll fewer saves a child launch 0.7 µs and costs the tree: 2 / 1 / 0 polls, a launch 9.96 /
// 9.22-9.25 / 8.55-8.61 µs, a tree of 2^20 tasks 107.2-107.6 / 83.1-83.5 / 75.8-80.5 M tasks/s
// (H200, 2026-11-30, one call)
const SPILL_IDLE_POLLS: u32 = 2u;
// a worker's mailbox once it has stopped: no hand-off succeeds (tasks are < 2^30, so t + 1 never
// equals it)
const CLOSED: u32 = 0xffffffffu;
// Loop back-edges one invocation may take in all, over every loop of this kernel (the host sets
// it per adapter; 0xffffffff = no limit). lavapipe (gallivm) keeps ONE counter per shader
// invocation (a SIMD row of 8 invocations), shared by every loop, and after 65535 back-edges ends
// every loop early: a task's sum loop stopped half way and stored a prefix sum (one-invocation
// teams take 24 back-edges per task, and a row ran thousands of tasks). The poll bound below
// keeps the whole kernel within the budget.
override LOOP_BUDGET: u32 = 60000u;
// widest child dispatch (the API's limit per dimension; the tests lower it so workgroups stride)
override MAX_CHILD_WORKGROUPS: u32 = 65535u;

// mailbox[s]: 0 = empty, else task + 1, for worker team s (one-invocation teams: QUEUE_WG of them)
var<workgroup> mailbox: array<atomic<u32>, QUEUE_WG>;

// Whether no task is in flight, given the done count and the spilled tasks the child dispatches
// have taken (`hi`, launched()): every task started is a dequeue (counted by the head's version, modulo 2^20)
// or one of those, so nothing runs when the two add up to the done count. Relaxed loads may see
// a stale picture; a wrong answer only ends a pass early (the next round goes on) or late.
// The ring must be empty too (a worker's empty polls are of its mailbox, not the ring): the
// tail's version counts the enqueues but the host's seeded task 0, the head's the dequeues. (The
// check made no measured difference to the tree: 2^18 67.1-71.0 against 68.8-70.5 M tasks/s;
// H200, 2026-11-29; it keeps a worker from stopping beside a ring a child dispatch has filled.)
fn queue_quiet(done: u32, hi: u32) -> bool {
    let versions = 1u << (32u - IDX_BITS);
    let dequeues = atomicLoad(&ring[0]) >> IDX_BITS;
    let enqueues = (atomicLoad(&ring[1]) >> IDX_BITS) + select(0u, 1u, params.n_tasks > 0u);
    return enqueues % versions == dequeues && (dequeues + hi) % versions == done % versions;
}

// Child-dispatch workgroups for the spill entries below `end`: those from launched() on, a
// block of CHILD_BLOCK each.
fn child_blocks(end: u32) -> u32 {
    return min((end - launched() + CHILD_BLOCK - 1u) / CHILD_BLOCK, MAX_CHILD_WORKGROUPS);
}

// A child went to spill[at]: this round's child dispatch runs it (relaxed atomics suffice, the
// dispatch boundary orders them before the child pass reads either word).
fn spilled(at: u32) {
    atomicMax(&ctl[CTL_END + params.parity], at + 1u);
    // a block's first entry counts the block: indices are dense, and blocks begun before this
    // pass the first invocation covers
    if (at - launched()) % CHILD_BLOCK == 0u {
        atomicMax(&args[4u * params.parity], child_blocks(at + 1u));
    }
}

@compute @workgroup_size(QUEUE_WG)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>) {
    let tm = team_of(inv);
    if wid.x == 0u && inv.lid == 0u {
        let p = params.parity;
        // this round's child arguments: y and z; x only ever rises in this pass (from 0: the
        // round before zeroed it, or the host)
        atomicStore(&args[4u * p + 1u], 1u);
        atomicStore(&args[4u * p + 2u], 1u);
        // the other parity's x: its dispatch (the last round's) has run; the next round raises it
        atomicStore(&args[4u * (1u - p)], 0u);
        // entries the last child dispatch spilled are this round's to launch too
        let end = atomicLoad(&ctl[CTL_SPILL]);
        atomicMax(&ctl[CTL_END + p], end);
        atomicMax(&args[4u * p], child_blocks(end));
        // count the round (the bench checks that a timed run started from the restored state),
        // and with the latency clock mark where it stands as the round starts (the host finds
        // the first round after which it stood still, so trailing idle rounds do not dilute the
        // ns per tick)
        let r = atomicAdd(&ctl[CTL_ROUND], 1u);
        if LATENCY && r < CTL_MARKS_LEN {
            atomicStore(&ctl[CTL_MARKS + r], atomicLoad(&ctl[CTL_CLOCK]));
        }
    }
    // init: empty mailboxes (explicitly: Metal/CUDA would not zero-fill workgroup memory)
    atomicStore(&mailbox[inv.lid], 0u);
    // barrier: no scheduler may hand out a task before every mailbox is initialised
    workgroupBarrier();
    let scheduler = (tm.id & 1u) == 0u;
    let has_worker = tm.id + 1u < tm.count;
    // polls within LOOP_BUDGET: a poll costs at most one back-edge of its own plus two tasks'
    // loops (a row of lanes runs the scheduler's and the worker's run_task one after the other),
    // and the after-loop drain one task more; at least one poll, so every dispatch can progress
    // (the host rejects tasks too long for the budget: QueueProblem::validate)
    let cost = task_steps(tm);
    let spare = LOOP_BUDGET - min(LOOP_BUDGET, cost + 2u);
    let polls = clamp(spare / (1u + 2u * cost), 1u, MAX_POLLS);
    var idle = 0u;
    for (var p = 0u; p < polls; p++) {
        // stop when everything is done, after IDLE_POLLS empty polls, or after SPILL_IDLE_POLLS
        // while spilled children wait past what the last child dispatch took (uniform: broadcast)
        var stop = false;
        if tm.lane == 0u {
            let done = atomicLoad(&ctl[CTL_DONE]);
            stop = done >= params.n_tasks;
            if idle >= SPILL_IDLE_POLLS && !stop {
                let hi = launched();
                stop = atomicLoad(&ctl[CTL_SPILL]) > hi && queue_quiet(done, hi);
            }
        }
        if team_first(u32(stop)) != 0u || idle >= IDLE_POLLS {
            break;
        }
        if scheduler {
            // --- scheduler role: dequeue, broadcast, hand out or run
            var got = NONE;
            if tm.lane == 0u {
                got = try_dequeue();
            }
            let t = team_first(got);
            if t == NONE {
                idle += 1u;
                continue;
            }
            idle = 0u;
            var handed = 0u;
            if tm.lane == 0u && has_worker {
                handed = u32(atomicCompareExchangeWeak(&mailbox[tm.id + 1u], 0u, t + 1u).exchanged);
            }
            if team_first(handed) == 0u {
                run_task(tm, t);
            }
        } else {
            // --- worker role: take from the mailbox, run
            var got = 0u;
            if tm.lane == 0u {
                got = atomicExchange(&mailbox[tm.id], 0u);
            }
            let m = team_first(got);
            if m == 0u {
                idle += 1u;
                continue;
            }
            idle = 0u;
            run_task(tm, m - 1u);
        }
    }
    // a worker closes its mailbox and runs what it held: a scheduler's hand-off either came
    // before (taken here) or fails on CLOSED (the scheduler runs the task), so none is lost
    if !scheduler {
        var got = 0u;
        if tm.lane == 0u {
            got = atomicExchange(&mailbox[tm.id], CLOSED);
        }
        let m = team_first(got);
        if m != 0u {
            run_task(tm, m - 1u);
        }
    }
}
