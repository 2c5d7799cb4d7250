// Child launch: runs the spilled tasks ctl[lo] .. ctl[hi], CHILD_BLOCK per workgroup, one task per
// subgroup at a time. Unconditional work (no polling), so a launch with entries always makes
// progress; children of these tasks go to the ring or, when it is full, to the spill list past
// `hi` for the next launch.
//!include shared/queue

const CHILD_BLOCK: u32 = 8u;

@compute @workgroup_size(64)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>) {
    let lo = atomicLoad(&ctl[CTL_LO]);
    let hi = atomicLoad(&ctl[CTL_HI]);
    let first = lo + wid.x * CHILD_BLOCK;
    // uniform per subgroup: k, first and hi are the same on every lane
    for (var k = inv.sg_id; k < CHILD_BLOCK; k += inv.n_sg) {
        let i = first + k;
        if i < hi {
            run_task(inv, spill[i]);
        }
    }
}
