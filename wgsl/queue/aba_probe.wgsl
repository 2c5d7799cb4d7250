// ABA probe: a fixed interleaving, enforced by barriers, in which invocation 0 reads head, the ring
// goes once round (invocation 1), and invocation 0 then finishes its dequeue with the stale head.
// The versioned head CAS must reject it; the task must stay for a fresh reader. Deterministic on a
// GPU and on the simulator. probe[] layout: see src/queue/mod.rs (`aba_probe`).
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

@group(0) @binding(8) var<storage, read_write> probe: array<u32>;

// the probe pushes no child
fn spilled(at: u32) {}

@compute @workgroup_size(2)
fn main(@builtin(local_invocation_index) lid: u32) {
    var stale = 0u;
    // phase 0: one task in the ring
    if lid == 0u {
        probe[0] = u32(try_enqueue(100u));
        stale = atomicLoad(&ring[0]);
        probe[1] = stale;
    }
    // barrier (storage): the enqueue and the head read happen before the others run
    storageBarrier();
    // phase 1: the others take task 100, push the ring round once, enqueue task 200 in slot 0
    if lid == 1u {
        probe[2] = try_dequeue();
        var ok = 1u;
        for (var t = 1u; t < params.cap; t++) {
            ok &= u32(try_enqueue(t));
            ok &= u32(try_dequeue() == t);
        }
        ok &= u32(try_enqueue(200u));
        probe[3] = ok;
        probe[4] = atomicLoad(&ring[0]);
    }
    // barrier (storage): the round trip is complete and visible
    storageBarrier();
    // phase 2: the stale reader finishes its dequeue
    if lid == 0u {
        probe[5] = dequeue_from(stale);
    }
    // barrier (storage): the stale attempt (and its abort) is complete
    storageBarrier();
    // phase 3: a fresh reader gets task 200, then the ring is empty
    if lid == 1u {
        probe[6] = try_dequeue();
        probe[7] = try_dequeue();
    }
}
