// Child launch: runs the spilled tasks ctl[lo] .. ctl[hi], CHILD_BLOCK per workgroup, one task per
// team at a time (queue/lib/team). Unconditional work (no polling), so a launch with entries
// always makes progress; children of these tasks go to the ring or, when it is full, to the spill
// list past `hi` for the next launch.
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
