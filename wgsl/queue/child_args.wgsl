// Child-launch arguments (the stand-in for CUDA dynamic parallelism): one invocation turns the
// spill list's new entries ctl[hi] .. ctl[spill] into the indirect dispatch of queue/child, which
// runs next in the same submission. At most 65535 workgroups of CHILD_BLOCK tasks per launch; the
// rest waits for the next launch. CHILD_BLOCK comes from the flavour (shared/queue_team).
//!include shared/queue

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
