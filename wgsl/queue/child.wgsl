// Child launch (the stand-in for CUDA dynamic parallelism): runs the spilled tasks from
// launched() to ctl[CTL_END + parity], the entries appended before this round's persistent pass
// ended, CHILD_BLOCK per workgroup, one task per team at a time (queue/lib/team). The persistent
// pass wrote this dispatch's indirect arguments (its `spilled`): blocks enough for those entries,
// at most MAX_CHILD_WORKGROUPS, so a workgroup strides over blocks when there are more.
// Unconditional work (no polling), so a launch with entries always makes progress; children of
// these tasks go to the ring or, when it is full, to the spill list past the end, where the next
// round's persistent pass counts them for its child dispatch.
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

// a child's own spill waits for the next round, whose persistent pass counts it when it starts
fn spilled(at: u32) {}

@compute @workgroup_size(QUEUE_WG)
fn main(
    inv: Inv,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let tm = team_of(inv);
    // both words stand still during this pass: the next round's persistent pass is the next to
    // write either
    let lo = launched();
    let hi = atomicLoad(&ctl[CTL_END + params.parity]);
    // uniform per team: first, k and hi are the same on every lane
    for (var first = lo + wid.x * CHILD_BLOCK; first < hi; first += groups.x * CHILD_BLOCK) {
        for (var k = tm.id; k < CHILD_BLOCK; k += tm.count) {
            let i = first + k;
            if i < hi {
                run_task(tm, spill[i]);
            }
        }
    }
}
