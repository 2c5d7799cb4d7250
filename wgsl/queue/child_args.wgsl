// Child-launch arguments (the stand-in for CUDA dynamic parallelism): one invocation turns the
// spill list's new entries ctl[hi] .. ctl[spill] into the indirect dispatch of queue/child, which
// runs next in the same submission. At most 65535 workgroups of CHILD_BLOCK tasks per launch; the
// rest waits for the next launch.
//!include shared/queue

const CHILD_BLOCK: u32 = 8u;

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
}
