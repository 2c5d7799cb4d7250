// include-only
// The work queue's unit of execution without subgroup operations: a *team* is one invocation, so
// every invocation of a workgroup is its own scheduler or worker (QUEUE_WG teams per workgroup),
// dequeues, hands out through the workgroup-memory mailboxes and runs whole tasks on its own. The
// broadcast and the sum are identities; no function here needs another invocation. Same functions
// as team.subgroup.wgsl.

//!include shared/inv

// lane: rank in the team (always 0); size: 1; id: the invocation; count: QUEUE_WG
struct Team {
    lane: u32,
    size: u32,
    id: u32,
    count: u32,
}

// spilled tasks per child-launch workgroup: one per invocation
const CHILD_BLOCK: u32 = 64u;
// most of them one team runs (the host reads it)
const CHILD_TEAM_TASKS: u32 = CHILD_BLOCK / QUEUE_WG;

fn team_of(inv: Inv) -> Team {
    return Team(0u, 1u, inv.lid, QUEUE_WG);
}

fn team_first(x: u32) -> u32 {
    return x;
}

fn team_add(x: u32) -> u32 {
    return x;
}
