// The persistent kernel of the work queue: a few workgroups that live until the work is done or
// they give up, with subgroup-specialised roles (the CUDA microkernel of issue 7, ported):
// - scheduler subgroups (even subgroup id) dequeue with lane 0, hand the task to the whole
//   subgroup with subgroupBroadcastFirst, then pass it to their paired worker subgroup (id + 1)
//   through a workgroup-memory mailbox, or run it themselves when the mailbox is still taken;
// - worker subgroups (odd subgroup id) take tasks from their mailbox and run them.
// A lone subgroup (num_subgroups == 1) is a scheduler with no worker: it runs everything itself.
// Every subgroup operation sits in control flow uniform per subgroup (conditions are broadcast
// values); no role waits at a barrier or on another invocation: polling is bounded (MAX_POLLS in
// all, IDLE_POLLS in a row without work), after which the workgroup simply exits. The host then
// re-dispatches while tasks remain (docs/queue.md, forward progress).
//!include shared/queue

const WG_SIZE: u32 = 64u;
// polls per subgroup before giving up; a poll is one dequeue attempt (scheduler) or one look at
// the mailbox (worker)
const MAX_POLLS: u32 = 4096u;
const IDLE_POLLS: u32 = 64u;

// mailbox[s]: 0 = empty, else task + 1, for worker subgroup s (workgroup size / 4 = most subgroups)
var<workgroup> mailbox: array<atomic<u32>, 16>;

@compute @workgroup_size(WG_SIZE)
fn main(inv: Inv) {
    // init: empty mailboxes (explicitly: Metal/CUDA would not zero-fill workgroup memory)
    if inv.lid < 16u {
        atomicStore(&mailbox[inv.lid], 0u);
    }
    // barrier: no scheduler may hand out a task before every mailbox is initialised
    workgroupBarrier();
    let scheduler = (inv.sg_id & 1u) == 0u;
    let has_worker = inv.sg_id + 1u < inv.n_sg;
    var idle = 0u;
    for (var p = 0u; p < MAX_POLLS; p++) {
        // stop when everything is done or after IDLE_POLLS empty polls (uniform: broadcast)
        var done_all = false;
        if inv.lane == 0u {
            done_all = atomicLoad(&ctl[CTL_DONE]) >= params.n_tasks;
        }
        if subgroupBroadcastFirst(u32(done_all)) != 0u || idle >= IDLE_POLLS {
            break;
        }
        if scheduler {
            // --- scheduler role: dequeue, broadcast, hand out or run
            var got = NONE;
            if inv.lane == 0u {
                got = try_dequeue();
            }
            let t = subgroupBroadcastFirst(got);
            if t == NONE {
                idle += 1u;
                continue;
            }
            idle = 0u;
            var handed = 0u;
            if inv.lane == 0u && has_worker {
                handed = u32(atomicCompareExchangeWeak(&mailbox[inv.sg_id + 1u], 0u, t + 1u).exchanged);
            }
            if subgroupBroadcastFirst(handed) == 0u {
                run_task(inv, t);
            }
        } else {
            // --- worker role: take from the mailbox, run
            var got = 0u;
            if inv.lane == 0u {
                got = atomicExchange(&mailbox[inv.sg_id], 0u);
            }
            let m = subgroupBroadcastFirst(got);
            if m == 0u {
                idle += 1u;
                continue;
            }
            idle = 0u;
            run_task(inv, m - 1u);
        }
    }
    // barrier (outside both roles, reached by every invocation): schedulers have stopped handing
    // out, so each mailbox is final; a worker runs what is left in its own before the workgroup
    // exits, and no handed-out task is lost
    workgroupBarrier();
    if !scheduler {
        var got = 0u;
        if inv.lane == 0u {
            got = atomicExchange(&mailbox[inv.sg_id], 0u);
        }
        let m = subgroupBroadcastFirst(got);
        if m != 0u {
            run_task(inv, m - 1u);
        }
    }
}
