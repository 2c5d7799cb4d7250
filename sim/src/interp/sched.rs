//! Threads of a workgroup, barriers, and the workgroups resident in a dispatch, interleaved as
//! a [`Schedule`] says (`sim::schedule` has the model; `thread.rs` runs one thread).
//!
//! Rules:
//! - At a **barrier** a thread waits. When no thread of the workgroup can run, the waiting ones
//!   are released: the checkers hear one barrier event with every lane that reached it; threads
//!   at the same statement with the same stack are merged and cut anew as the schedule says
//!   (round-robin keeps its threads). Threads at different barriers (a divergent barrier: a
//!   finding) are released a group at a time, the smallest first.
//! - **Resident workgroups** each keep their thread stacks and memories (registers, locals,
//!   workgroup and private memory); the running one's memories are the interpreter's, swapped
//!   on a switch.
//! - A workgroup suspended after its ticket runs again when every other resident one has
//!   finished or spins; spinning ones are then reported to the checkers (`stalled`).

use super::frames::{part, same_stacks, Gang, SpinAcc, Stop, Wait};
use super::*;
use crate::rng::SplitMix;
use crate::schedule::{Schedule, MAX_THREADS, QUANTUM};

/// How a dispatch is interleaved.
#[derive(Clone, Copy, Debug)]
pub struct Turns {
    /// The schedule.
    pub schedule: Schedule,
    /// Workgroups resident at once (one under lockstep).
    pub residency: usize,
    /// Iterations without progress after which a loop spins.
    pub spin_limit: u32,
    /// Seed of the schedule's choices in this dispatch.
    pub seed: u64,
    /// Workgroups of the dispatch whose subgroups run as independent threads (`None`: all;
    /// the others keep theirs in lockstep): `threaded` picks them.
    pub threaded: Option<usize>,
}

/// By position in `order` (the admission order), whether a workgroup's subgroups run as
/// independent threads under `turns`: all under an interleaving schedule without a bound;
/// with a bound of `t`, the first `t / 2` admitted (resident together at the start, they take
/// the first tickets, the suspended one's among them), the last admitted and the one of the
/// highest linear index (a partial tile), then others drawn with the schedule's seed, `t` in
/// all. Which workgroups misbehave when their subgroups drift apart is rarely a matter of
/// which tile they hold; where it is, the seeded schedules of `--schedules N` draw others.
pub fn threaded(order: &[u32], turns: &Turns) -> Vec<bool> {
    let w = order.len();
    if !turns.schedule.interleaves() {
        return vec![false; w];
    }
    let t = match turns.threaded {
        Some(t) if t < w => t,
        _ => return vec![true; w],
    };
    let mut pick = vec![false; w];
    let mut left = t;
    let mut take = |i: usize, pick: &mut Vec<bool>| {
        if left > 0 && !pick[i] {
            pick[i] = true;
            left -= 1;
        }
    };
    for i in 0..t / 2 {
        take(i, &mut pick);
    }
    if w > 0 {
        take(w - 1, &mut pick);
        let top = (0..w).max_by_key(|&i| order[i]).unwrap_or(0);
        take(top, &mut pick);
    }
    let mut rng = SplitMix::new(turns.seed ^ 0x7EAD_ED00);
    let mut rest: Vec<usize> = (0..w).filter(|&i| !pick[i]).collect();
    rng.shuffle(&mut rest);
    for i in rest {
        take(i, &mut pick);
    }
    pick
}

/// A workgroup's memories while another runs.
#[derive(Default)]
struct WgMem {
    regs: Vec<Vec<u32>>,
    locals: Vec<Vec<u32>>,
    wg_mem: Vec<u32>,
    private: Vec<u32>,
}

/// A resident workgroup.
struct Resident<'a> {
    id: [u32; 3],
    gangs: Vec<Gang<'a>>,
    /// Its memories while it does not run.
    mem: WgMem,
    live: Mask,
    suspended: bool,
    /// The next thread in turn.
    cursor: usize,
    /// The thread running ahead (run-ahead).
    ahead: Option<usize>,
    /// Its subgroups run as independent threads (else in lockstep, one thread).
    threaded: bool,
}

impl Resident<'_> {
    fn finished(&self) -> bool {
        self.gangs.iter().all(Gang::done)
    }

    /// No thread can progress: each finished, waits, or spins (and one spins).
    fn stalled(&self, limit: u32) -> bool {
        let mut spins = false;
        for g in &self.gangs {
            if g.spinning(limit).is_some() {
                spins = true;
            } else if g.runnable() {
                return false;
            }
        }
        spins
    }
}

/// Subgroup runs `[a, b)` that cut `nsg` subgroups into `threads` near-equal pieces.
fn even_cuts(nsg: usize, threads: usize) -> Vec<(usize, usize)> {
    let t = threads.clamp(1, nsg.max(1));
    (0..t).map(|i| (i * nsg / t, (i + 1) * nsg / t)).collect()
}

impl<'a, 'h> Interp<'a, 'h> {
    // ---- threads of a workgroup ----------------------------------------------------------

    /// Runs thread `gi` of the running workgroup `r` for at most `quantum` steps; a thread
    /// that stops at a barrier or ends may release the others.
    fn run_thread(
        &mut self,
        r: &mut Resident<'a>,
        gi: usize,
        quantum: u64,
        turns: &Turns,
        rng: &mut SplitMix,
    ) -> Stop {
        let mut g = std::mem::take(&mut r.gangs[gi]);
        self.lo = g.lo;
        self.hi = g.hi;
        self.exiting = g.exiting;
        self.steps = g.steps;
        self.spin = g.spin;
        let stop = self.run_gang(&mut g, quantum);
        g.exiting = std::mem::take(&mut self.exiting);
        g.steps = self.steps;
        g.spin = std::mem::take(&mut self.spin);
        r.gangs[gi] = g;
        if matches!(stop, Stop::Barrier | Stop::Done) {
            self.release(r, turns, rng);
        }
        stop
    }

    /// Releases the threads of `r` that wait at a barrier once none can run (module docs).
    fn release(&mut self, r: &mut Resident<'a>, turns: &Turns, rng: &mut SplitMix) {
        if r.gangs.iter().any(Gang::runnable) {
            return;
        }
        let waits: Vec<(usize, Wait)> = r
            .gangs
            .iter()
            .enumerate()
            .filter_map(|(i, g)| g.wait.map(|w| (i, w)))
            .collect();
        let Some(&(_, first)) = waits.first() else {
            return;
        };
        let together = waits.iter().all(|(_, w)| w.key == first.key);
        // at different barriers (divergence), the one with the fewest lanes goes first
        let key = if together {
            first.key
        } else {
            let lanes = |k: (usize, u8)| -> u32 {
                waits
                    .iter()
                    .filter(|(_, w)| w.key == k)
                    .map(|(_, w)| w.active.count())
                    .sum()
            };
            waits
                .iter()
                .map(|(_, w)| w.key)
                .min_by_key(|&k| (lanes(k), k))
                .unwrap_or(first.key)
        };
        let group: Vec<usize> = waits
            .iter()
            .filter(|(_, w)| w.key == key)
            .map(|&(i, _)| i)
            .collect();
        let mut active = Mask::EMPTY;
        let mut at = first;
        for &i in &group {
            if let Some(w) = r.gangs[i].wait.take() {
                active = active.or(&w.active);
                at = w;
            }
        }
        self.barrier_event(at.flags, at.span, &active);
        // round-robin cuts the same threads at every barrier: they go on as they are
        if !together || !r.threaded || r.gangs.len() == 1 || turns.schedule == Schedule::RoundRobin
        {
            return;
        }
        // every thread that has not finished is here: merge them and cut anew
        let here: Vec<&Gang<'a>> = group.iter().map(|&i| &r.gangs[i]).collect();
        if !same_stacks(&here) {
            return;
        }
        let mut whole = here[0].clone();
        whole.spin = SpinAcc {
            on: whole.spin.on,
            ..SpinAcc::default()
        };
        for g in &here[1..] {
            whole.lo = whole.lo.min(g.lo);
            whole.hi = whole.hi.max(g.hi);
            for (a, b) in whole.frames.iter_mut().zip(&g.frames) {
                a.absorb(b);
            }
            whole.exiting = whole.exiting.or(&g.exiting);
            whole.steps = whole.steps.max(g.steps);
        }
        let (gangs, ahead) = self.cut(&whole, turns.schedule, rng);
        r.gangs = gangs;
        r.ahead = ahead;
        r.cursor = 0;
    }

    /// The threads `whole` (every lane of the workgroup) runs as under `schedule`, and the one
    /// running ahead.
    fn cut(
        &self,
        whole: &Gang<'a>,
        schedule: Schedule,
        rng: &mut SplitMix,
    ) -> (Vec<Gang<'a>>, Option<usize>) {
        let (n, s) = (self.n, self.s);
        let nsg = n.div_ceil(s);
        let mut ahead = None;
        let runs: Vec<(usize, usize)> = match schedule {
            Schedule::Lockstep => vec![(0, nsg)],
            Schedule::RoundRobin => even_cuts(nsg, MAX_THREADS),
            Schedule::Random(_) if nsg >= 2 => {
                let threads = 2 + rng.below(nsg.min(MAX_THREADS) - 1);
                let mut cuts: Vec<usize> = (1..nsg).collect();
                rng.shuffle(&mut cuts);
                cuts.truncate(threads - 1);
                cuts.sort_unstable();
                let mut runs = Vec::new();
                let mut a = 0;
                for c in cuts.into_iter().chain([nsg]) {
                    runs.push((a, c));
                    a = c;
                }
                runs
            }
            Schedule::Random(_) => vec![(0, nsg)],
            Schedule::RunAhead(_) => {
                let a = rng.below(nsg);
                let side = (MAX_THREADS - 1) / 2;
                let before = even_cuts(a, side);
                let after = even_cuts(nsg - a - 1, side);
                let mut runs: Vec<(usize, usize)> =
                    before.into_iter().filter(|(x, y)| x < y).collect();
                ahead = Some(runs.len());
                runs.push((a, a + 1));
                runs.extend(
                    after
                        .into_iter()
                        .map(|(x, y)| (x + a + 1, y + a + 1))
                        .filter(|(x, y)| x < y),
                );
                runs
            }
        };
        let gangs = runs
            .into_iter()
            .map(|(a, b)| part(whole, a * s, (b * s).min(n)))
            .collect();
        (gangs, ahead)
    }

    /// One turn of the running workgroup `r` (what a turn is depends on the schedule).
    fn turn(&mut self, r: &mut Resident<'a>, turns: &Turns, rng: &mut SplitMix) {
        let limit = self.spin_limit;
        match turns.schedule {
            Schedule::Lockstep => {
                while self.run_thread(r, 0, u64::MAX, turns, rng) == Stop::Barrier {}
            }
            Schedule::RoundRobin => {
                // a workgroup whose subgroups stay in lockstep gets the steps its threads would
                // have had together, so every workgroup's turn is as long
                let q = if r.threaded {
                    QUANTUM
                } else {
                    QUANTUM * MAX_THREADS as u64
                };
                for _ in 0..r.gangs.len() {
                    let gi = r.cursor % r.gangs.len();
                    r.cursor = gi + 1;
                    if !r.gangs[gi].runnable() {
                        continue;
                    }
                    let stop = self.run_thread(r, gi, q, turns, rng);
                    if matches!(stop, Stop::Ticket | Stop::Halted) {
                        return;
                    }
                }
            }
            Schedule::Random(_) => {
                let can = r.gangs.iter().filter(|g| g.runnable()).count();
                if can > 0 {
                    let pick = rng.below(can);
                    let gi = (0..r.gangs.len())
                        .filter(|&i| r.gangs[i].runnable())
                        .nth(pick)
                        .unwrap_or(0);
                    let q = 1 + rng.below(2 * QUANTUM as usize) as u64;
                    self.run_thread(r, gi, q, turns, rng);
                }
            }
            Schedule::RunAhead(_) => loop {
                // the thread ahead while it can, then the others in turn, until the workgroup
                // finished or only spins and waits; spinning threads then poll once each
                let k = r.gangs.len();
                let fresh = |g: &Gang| g.runnable() && g.spinning(limit).is_none();
                let gi = match r.ahead.filter(|&a| a < k && fresh(&r.gangs[a])) {
                    Some(a) => Some(a),
                    None => (0..k)
                        .map(|j| (r.cursor + j) % k)
                        .find(|&j| fresh(&r.gangs[j])),
                };
                let Some(gi) = gi else {
                    for gi in 0..k {
                        if r.gangs.len() == k && r.gangs[gi].runnable() {
                            let stop = self.run_thread(r, gi, QUANTUM, turns, rng);
                            if matches!(stop, Stop::Ticket | Stop::Halted) {
                                return;
                            }
                        }
                    }
                    return;
                };
                let q = if r.ahead == Some(gi) {
                    u64::MAX
                } else {
                    r.cursor = gi + 1;
                    QUANTUM
                };
                let stop = self.run_thread(r, gi, q, turns, rng);
                if matches!(stop, Stop::Ticket | Stop::Halted) || r.finished() {
                    return;
                }
            },
        }
    }

    // ---- resident workgroups -------------------------------------------------------------

    fn swap_mem(&mut self, m: &mut WgMem) {
        std::mem::swap(&mut self.regs, &mut m.regs);
        std::mem::swap(&mut self.locals, &mut m.locals);
        std::mem::swap(&mut self.wg_mem, &mut m.wg_mem);
        std::mem::swap(&mut self.private, &mut m.private);
    }

    /// Puts the running workgroup's memories away.
    fn park(&mut self, slots: &mut [Option<Resident<'a>>], running: &mut Option<usize>) {
        if let Some(c) = running.take() {
            if let Some(r) = slots[c].as_mut() {
                self.swap_mem(&mut r.mem);
                r.live = self.live;
            }
        }
    }

    /// Makes resident `s` the running workgroup.
    fn switch(
        &mut self,
        slots: &mut [Option<Resident<'a>>],
        running: &mut Option<usize>,
        s: usize,
    ) {
        if *running == Some(s) {
            return;
        }
        self.park(slots, running);
        if let Some(r) = slots[s].as_mut() {
            self.swap_mem(&mut r.mem);
            self.live = r.live;
            self.wg_id = r.id;
            self.resident = s;
            *running = Some(s);
        }
    }

    /// Tells the checkers about every spinning thread of the `runnable` residents while
    /// `victim` (slot, ticket span, ticket lane) is suspended.
    fn report_stalls(
        &mut self,
        slots: &[Option<Resident<'a>>],
        runnable: &[usize],
        victim: (usize, Span, usize),
    ) {
        let (v, ticket, ticket_slot) = victim;
        let Some(suspended) = slots[v].as_ref().map(|r| r.id) else {
            return;
        };
        for &s in runnable {
            let Some(r) = slots[s].as_ref() else { continue };
            for g in &r.gangs {
                let Some((span, iterations)) = g.spinning(self.spin_limit) else {
                    continue;
                };
                let ev = StallEvent {
                    span,
                    slot: g.some_lane(),
                    lanes: g.active_lanes(),
                    iterations,
                    suspended,
                    ticket,
                    ticket_slot,
                };
                let ctx = Ctx {
                    kernel: self.kernel,
                    pass: self.pass,
                    workgroup: r.id,
                    grid: self.num_wg,
                    lid_of_slot: &self.lid_of_slot,
                    subgroup_size: self.s as u32,
                    lanes: self.n as u32,
                    wg_words: self.prog.wg_words,
                    resident: s,
                };
                for c in self.hooks.checkers.iter_mut() {
                    c.stalled(&ctx, &ev, self.hooks.findings);
                }
            }
        }
    }

    /// Runs the workgroups of `order` (linear indices) of the dispatch as `turns` says.
    /// Returns how many finished and whether the run goes on (false: a step budget ran out).
    pub fn run_dispatch(&mut self, order: &[u32], turns: &Turns) -> Result<(u64, bool)> {
        let schedule = turns.schedule;
        let k = if schedule.interleaves() {
            turns.residency.max(1)
        } else {
            1
        };
        let threaded = threaded(order, turns);
        let mut rng = SplitMix::new(turns.seed);
        let victim_ticket: Option<u32> = match schedule {
            Schedule::RoundRobin => Some(0),
            Schedule::Random(_) => Some(rng.below(4) as u32),
            _ => None,
        };
        self.track_spin = schedule.interleaves();
        self.spin_limit = turns.spin_limit.max(1);
        self.watch_tickets = victim_ticket.is_some() && k > 1;
        self.ticket = None;
        // the memories: this one's, then copies of it as set up (constants live in registers)
        let init = (k > 1).then(|| WgMem {
            regs: self.regs.clone(),
            locals: self.locals.clone(),
            wg_mem: self.wg_mem.clone(),
            private: self.private.clone(),
        });
        let mut pool = vec![WgMem::default()];
        self.swap_mem(&mut pool[0]);
        let mut slots: Vec<Option<Resident<'a>>> = (0..k).map(|_| None).collect();
        let mut running: Option<usize> = None;
        let (mut next, mut tickets, mut cursor, mut done) = (0usize, 0u32, 0usize, 0u64);
        let mut victim: Option<(usize, Span, usize)> = None;
        let mut runnable: Vec<usize> = Vec::with_capacity(k);
        let [x, y, _] = self.num_wg;
        let (x, y) = (x.max(1), y.max(1));
        while !self.halted {
            for s in 0..k {
                if slots[s].is_some() || next >= order.len() {
                    continue;
                }
                let lin = order[next];
                next += 1;
                self.park(&mut slots, &mut running);
                let mut mem = match (pool.pop(), &init) {
                    (Some(m), _) => m,
                    (None, Some(i)) => WgMem {
                        regs: i.regs.clone(),
                        locals: i.locals.clone(),
                        wg_mem: i.wg_mem.clone(),
                        private: i.private.clone(),
                    },
                    (None, None) => return Err(Error::Sim("workgroup memories".into())),
                };
                self.swap_mem(&mut mem);
                running = Some(s);
                self.resident = s;
                self.start_workgroup([lin % x, lin / x % y, lin / (x * y)])?;
                let mut whole = Gang {
                    lo: 0,
                    hi: self.n,
                    ..Gang::default()
                };
                let body = &self.prog.function(self.prog.entry_fn).body;
                self.push_block(&mut whole, self.prog.entry_fn, body, self.live);
                let split = threaded[next - 1];
                let (gangs, ahead) = if split {
                    self.cut(&whole, schedule, &mut rng)
                } else {
                    (vec![whole], None)
                };
                slots[s] = Some(Resident {
                    id: self.wg_id,
                    gangs,
                    mem,
                    live: self.live,
                    suspended: false,
                    cursor: 0,
                    ahead,
                    threaded: split,
                });
            }
            if slots.iter().all(Option::is_none) {
                break;
            }
            runnable.clear();
            runnable.extend((0..k).filter(|&s| slots[s].as_ref().is_some_and(|r| !r.suspended)));
            if let Some(v) = victim {
                // the suspended workgroup runs again once no other can progress
                let limit = self.spin_limit;
                let stuck = runnable
                    .iter()
                    .all(|&s| slots[s].as_ref().is_some_and(|r| r.stalled(limit)));
                if stuck {
                    self.report_stalls(&slots, &runnable, v);
                    if let Some(r) = slots[v.0].as_mut() {
                        r.suspended = false;
                    }
                    victim = None;
                    continue;
                }
            }
            let Some(&first) = runnable.first() else {
                break;
            };
            let limit = self.spin_limit;
            let s = match schedule {
                Schedule::Lockstep => first,
                Schedule::Random(_) => runnable[rng.below(runnable.len())],
                Schedule::RoundRobin | Schedule::RunAhead(_) => {
                    let keep = schedule != Schedule::RoundRobin
                        && running.is_some_and(|c| {
                            runnable.contains(&c)
                                && slots[c].as_ref().is_some_and(|r| !r.stalled(limit))
                        });
                    match running.filter(|_| keep) {
                        Some(c) => c,
                        None => {
                            let order = (0..k).map(|j| (cursor + j) % k);
                            let pick = order
                                .clone()
                                .filter(|t| runnable.contains(t))
                                .find(|&t| slots[t].as_ref().is_some_and(|r| !r.stalled(limit)))
                                .or_else(|| order.clone().find(|t| runnable.contains(t)))
                                .unwrap_or(first);
                            cursor = pick + 1;
                            pick
                        }
                    }
                }
            };
            self.switch(&mut slots, &mut running, s);
            let Some(r) = slots[s].as_mut() else { break };
            self.turn(r, turns, &mut rng);
            if self.halted {
                self.end_workgroup();
                break;
            }
            if let Some((span, lane)) = self.ticket.take() {
                if victim.is_none() && Some(tickets) == victim_ticket {
                    r.suspended = true;
                    victim = Some((s, span, lane));
                    self.watch_tickets = false;
                }
                tickets += 1;
            }
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            if r.finished() {
                self.end_workgroup();
                let mut m = WgMem::default();
                self.swap_mem(&mut m);
                pool.push(m);
                slots[s] = None;
                running = None;
                done += 1;
            }
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        Ok((done, !self.halted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns(schedule: Schedule, threaded: Option<usize>) -> Turns {
        Turns {
            schedule,
            residency: 4,
            spin_limit: 32,
            seed: 7,
            threaded,
        }
    }

    /// The bound picks exactly that many: the first half admitted, the last admitted and the
    /// highest linear index among them; no bound, or a dispatch within it, threads all;
    /// lockstep none.
    #[test]
    fn threaded_workgroups_are_bounded_and_include_the_first_and_last() {
        let order: Vec<u32> = (0..100).rev().collect();
        let t = threaded(&order, &turns(Schedule::RoundRobin, Some(8)));
        assert_eq!(t.iter().filter(|&&x| x).count(), 8);
        assert!(t[..4].iter().all(|&x| x), "{t:?}");
        // the last admitted is also the highest linear index here (0 is admitted last)
        assert!(t[99] && t[0]);
        let shuffled: Vec<u32> = (0..100).map(|i| (i * 37) % 100).collect();
        let t = threaded(&shuffled, &turns(Schedule::Random(3), Some(6)));
        assert_eq!(t.iter().filter(|&&x| x).count(), 6);
        let top = shuffled.iter().position(|&l| l == 99).unwrap();
        assert!(t[..3].iter().all(|&x| x) && t[99] && t[top], "{t:?}");
        // another seed draws others beyond the fixed ones
        let seeded = |seed| Turns {
            seed,
            ..turns(Schedule::Random(seed), Some(20))
        };
        let (other, again) = (threaded(&order, &seeded(4)), threaded(&order, &seeded(5)));
        assert_ne!(other, again);
        assert!(threaded(&order[..8], &turns(Schedule::RoundRobin, Some(8)))
            .iter()
            .all(|&x| x));
        assert!(threaded(&order, &turns(Schedule::RunAhead(1), None))
            .iter()
            .all(|&x| x));
        assert!(!threaded(&order, &turns(Schedule::Lockstep, None))
            .iter()
            .any(|&x| x));
    }
}
