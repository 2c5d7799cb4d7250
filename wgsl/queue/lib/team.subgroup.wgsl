// include-only
// The work queue's unit of execution, subgroup flavour: a *team* is one subgroup. The scheduler
// role dequeues with lane 0 and hands the task to the team with subgroupBroadcastFirst; a task's
// words are summed by all lanes and combined with subgroupAdd. Call every function here in control
// flow uniform per subgroup. The emulated flavour (team.emulated.wgsl) gives the same
// functions with one-invocation teams and no subgroup operations.

//!include shared/inv

// lane: rank in the team (0 = leader); size: lanes; id: team index in the workgroup; count: teams
struct Team {
    lane: u32,
    size: u32,
    id: u32,
    count: u32,
}

// spilled tasks per child-launch workgroup: a few per subgroup of a 64-invocation workgroup
const CHILD_BLOCK: u32 = 8u;
// most of them one team runs (a subgroup may span the whole workgroup; the host reads it)
const CHILD_TEAM_TASKS: u32 = CHILD_BLOCK;

fn team_of(inv: Inv) -> Team {
    return Team(inv.lane, inv.sg_size, inv.sg_id, inv.n_sg);
}

// The leader's value, on every lane.
fn team_first(x: u32) -> u32 {
    return subgroupBroadcastFirst(x);
}

// Wrapping sum over the team.
fn team_add(x: u32) -> u32 {
    return subgroupAdd(x);
}
