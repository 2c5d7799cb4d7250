// Child launch: runs the spilled tasks ctl[lo] .. ctl[hi], CHILD_BLOCK per workgroup, one task per
// team at a time (shared/queue_team). Unconditional work (no polling), so a launch with entries
// always makes progress; children of these tasks go to the ring or, when it is full, to the spill
// list past `hi` for the next launch.
//!include shared/queue

@compute @workgroup_size(QUEUE_WG)
fn main(inv: Inv, @builtin(workgroup_id) wid: vec3<u32>) {
    let tm = team_of(inv);
    let lo = atomicLoad(&ctl[CTL_LO]);
    let hi = atomicLoad(&ctl[CTL_HI]);
    let first = lo + wid.x * CHILD_BLOCK;
    // uniform per team: k, first and hi are the same on every lane
    for (var k = tm.id; k < CHILD_BLOCK; k += tm.count) {
        let i = first + k;
        if i < hi {
            run_task(tm, spill[i]);
        }
    }
}
