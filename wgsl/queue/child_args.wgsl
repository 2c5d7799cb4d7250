// Child-launch arguments (the stand-in for CUDA dynamic parallelism): one invocation turns the
// spill list's new entries ctl[hi] .. ctl[spill] into the indirect dispatch of queue/child, which
// runs next in the same submission. At most 65535 workgroups of CHILD_BLOCK tasks per launch; the
// rest waits for the next launch. CHILD_BLOCK comes from the flavour (queue/lib/team).
//!include queue/lib/ring

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<u32>;
// one result per task id: the wrapping u32 sum of its range of `input`
@group(0) @binding(2) var<storage, read_write> results: array<u32>;
// per task id: how many times it was executed (must end at exactly 1)
@group(0) @binding(3) var<storage, read_write> runs: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> ring: array<atomic<u32>>;
// ctl: 0 = tasks done, 1 = spill count (append index), 2 = child lo, 3 = child hi,
// 32 = the latency clock (a word of its own 128-byte line, away from the done counter),
// 33 = rounds of this submission so far (the host zeroes it), 48..64 = the clock after each round's persistent pass
@group(0) @binding(5) var<storage, read_write> ctl: array<atomic<u32>, CTL_WORDS>;
// spilled (child-launch) task ids, appended at ctl[1]; at most n_tasks ever
@group(0) @binding(6) var<storage, read_write> spill: array<u32>;
// per task: enqueue tick, start tick (written only when LATENCY)
@group(0) @binding(9) var<storage, read_write> ticks: array<u32>;

@group(0) @binding(7) var<storage, read_write> args: array<u32, 3>;

@compute @workgroup_size(1)
fn main() {
    let lo = atomicLoad(&ctl[CTL_HI]);
    let hi = min(atomicLoad(&ctl[CTL_SPILL]), lo + 65535u * CHILD_BLOCK);
    atomicStore(&ctl[CTL_LO], lo);
    atomicStore(&ctl[CTL_HI], hi);
    args[0] = (hi - lo + CHILD_BLOCK - 1u) / CHILD_BLOCK;
    args[1] = 1u;
    args[2] = 1u;
    // count the round (the bench checks that a timed run started from the restored state), and
    // with the latency clock mark where it stood after this round's persistent pass (the host
    // finds the last round that ticked, so trailing idle rounds do not dilute the ns per tick)
    let r = atomicAdd(&ctl[CTL_ROUND], 1u);
    if LATENCY && r < CTL_MARKS_LEN {
        atomicStore(&ctl[CTL_MARKS + r], atomicLoad(&ctl[CTL_CLOCK]));
    }
}
