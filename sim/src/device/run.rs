//! A submission's run: the pending writes, then the commands under every schedule explored,
//! their outputs compared; a plan's passes on simulated lanes with the checkers on.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use crate::checks;
use crate::error::{Error, Result};
use crate::events::{BufferMeta, Findings};
use crate::finding::{Finding, FindingKind, Party, Report};
use crate::plan::{BufferId, BufferInit, RunSpec, POISON_WORD};
use crate::schedule::Schedule;

use super::*;

impl Simulator {
    /// Runs the pending queue writes, then `enc`'s commands in order, as one run of the
    /// checkers; returns their findings.
    pub fn submit(&self, enc: SimEncoder) -> Result<Report> {
        let starting = self.starting.lock().unwrap_or_else(|e| e.into_inner());
        let pending = std::mem::take(&mut *self.pending.lock().unwrap());
        // the buffers of this submission, each once, in a table the interpreter indexes
        let mut table: Vec<SimBuffer> = Vec::new();
        let mut index: HashMap<u64, usize> = HashMap::new();
        let mut slot = |b: &SimBuffer, table: &mut Vec<SimBuffer>| -> usize {
            *index.entry(b.inner.id).or_insert_with(|| {
                table.push(b.clone());
                table.len() - 1
            })
        };
        for (b, _, _) in &pending {
            slot(b, &mut table);
        }
        // per command, the table index of each plan buffer (runs) or of src and dst (copies)
        let mut slots: Vec<Vec<usize>> = Vec::new();
        for c in &enc.commands {
            slots.push(match c {
                Command::Copy { src, dst, .. } => {
                    vec![slot(src, &mut table), slot(dst, &mut table)]
                }
                Command::Run { buffers, .. } => buffers
                    .iter()
                    .map(|(b, _, _)| slot(b, &mut table))
                    .collect(),
            });
        }
        let metas: Vec<BufferMeta> = table
            .iter()
            .map(|b| {
                let output = b.inner.output.load(Ordering::Relaxed);
                BufferMeta {
                    label: b.inner.label.clone(),
                    words: b.inner.len,
                    poison: output,
                    readback: output,
                }
            })
            .collect();
        // (before any buffer's words are taken: an error leaves them, and the queue writes
        // this submission took, in place)
        let parallel = match self.memory_plan(&enc.commands, &table, &slots, &metas) {
            Ok(p) => p,
            Err(e) => {
                let mut queued = self.pending.lock().unwrap();
                let later = std::mem::replace(&mut *queued, pending);
                queued.extend(later);
                return Err(e);
            }
        };
        // every buffer of the submission held for its whole run, locked in one order (by id),
        // so that submissions from other threads sharing a buffer (a queue write of one
        // recording is applied by whichever submission comes next) wait rather than find its
        // words taken, and no two wait on each other
        let mut by_id: Vec<usize> = (0..table.len()).collect();
        by_id.sort_by_key(|&i| table[i].inner.id);
        let mut guards: Vec<Option<std::sync::MutexGuard<'_, Vec<u32>>>> =
            (0..table.len()).map(|_| None).collect();
        for i in by_id {
            guards[i] = Some(table[i].inner.words.lock().unwrap());
        }
        drop(starting);
        let mut words: Vec<Vec<u32>> = guards
            .iter_mut()
            .flatten()
            .map(|g| std::mem::take(&mut **g))
            .collect();
        let run = Run {
            commands: &enc.commands,
            slots: &slots,
            pending: &pending,
            index: &index,
            metas: &metas,
            parallel,
        };
        // a plan's scratch and the buffers a plan binds as order-dependent are not compared
        let mut compared: Vec<bool> = table
            .iter()
            .map(|b| !b.inner.scratch.load(Ordering::Relaxed))
            .collect();
        for (c, s) in enc.commands.iter().zip(&slots) {
            if let Command::Run { plan, .. } = c {
                for (d, &b) in plan.buffers.iter().zip(s) {
                    compared[b] &= !d.order_dependent;
                }
            }
        }
        let result = self.explore(&run, &compared, &mut words);
        // the words go back whatever happened
        for ((b, g), w) in table.iter().zip(guards.iter_mut().flatten()).zip(words) {
            **g = w;
            b.inner.output.store(false, Ordering::Relaxed);
        }
        drop(guards);
        self.stats.lock().unwrap().runs += 1;
        let report = result?;
        if self.config.fail_on_step_limit {
            if let Some(f) = report
                .findings
                .iter()
                .find(|f| f.kind == FindingKind::StepLimit)
            {
                return Err(Error::Sim(f.to_string()));
            }
        }
        Ok(report)
    }

    /// The memory a submission of `commands` over `table` (the commands binding `slots`)
    /// needs, against [`SimConfig::memory_budget`]: its buffers, once more for the starting
    /// contents and once for each other schedule's results where several schedules run, and
    /// per run at once the checkers' records (the cross-workgroup race check's 28 bytes a word
    /// of a buffer a pass binds read-write, its table grown to a power of two, three times that
    /// for a buffer some pass binds as a type holding f16; the initialization check's byte a
    /// word of an output). Returns how many schedules may run
    /// at once; an `Error::TooLarge` where one run at a time is too many.
    fn memory_plan(
        &self,
        commands: &[Command],
        table: &[SimBuffer],
        slots: &[Vec<usize>],
        metas: &[BufferMeta],
    ) -> Result<usize> {
        let buffers: u64 = table.iter().map(|b| b.size()).sum();
        let mut written = vec![false; table.len()];
        // bound through a type holding f16 somewhere: its words may be touched as halves
        let mut halves = vec![false; table.len()];
        for (c, s) in commands.iter().zip(slots) {
            if let Command::Run { plan, .. } = c {
                for (i, &t) in s.iter().enumerate() {
                    written[t] |= plan.passes.iter().any(|p| p.binds_read_write(BufferId(i)));
                    halves[t] |= plan.passes.iter().any(|p| p.binds_f16(BufferId(i)));
                }
            }
        }
        let per_run: u64 = table
            .iter()
            .zip(&written)
            .zip(metas)
            .zip(&halves)
            .map(|(((b, &w), m), &h)| {
                let words = b.inner.len as u64;
                // (touched as halves too: a record per half word besides)
                let tables = if h { 3 } else { 1 };
                let race = if w {
                    words.next_power_of_two() * RACE_BYTES_PER_WORD * tables
                } else {
                    0
                };
                race + if m.poison { words } else { 0 }
            })
            .sum();
        let bound_words: u64 = table
            .iter()
            .zip(&written)
            .filter(|(_, w)| **w)
            .map(|(b, _)| b.inner.len as u64)
            .sum();
        let schedules = self.config.schedules.len().max(1) as u64;
        let copies = if schedules > 1 { schedules + 1 } else { 1 };
        let fixed = buffers.saturating_mul(copies);
        let budget = self.config.memory_budget;
        let need = fixed.saturating_add(per_run);
        if need > budget {
            return Err(Error::TooLarge(format!(
                "the run needs up to {need} bytes ({buffers} bytes of buffers, held {copies} \
                 time(s) under {schedules} schedule(s), and {per_run} bytes of checker records \
                 for the {bound_words} words its passes write); the memory budget is {budget} \
                 (SimConfig::memory_budget, --memory-budget; fewer schedules hold fewer copies)"
            )));
        }
        let parallel = match per_run {
            0 => usize::MAX,
            p => usize::try_from(1 + (budget - need) / p).unwrap_or(usize::MAX),
        };
        Ok(parallel)
    }

    /// Runs `run` under every schedule of the settings, each from the same contents: `words`
    /// ends as the first schedule left it; an output word (a buffer of `compared`) that another
    /// schedule computed differently is a `schedule-divergence` finding, naming the first such
    /// word, both schedules and the invocation that last wrote it under each (the two runs
    /// again, watching that word). A first run that stops (a step budget ran out) is not
    /// explored further.
    fn explore(&self, run: &Run, compared: &[bool], words: &mut [Vec<u32>]) -> Result<Report> {
        let schedules: &[Schedule] = if self.config.schedules.is_empty() {
            &[Schedule::Lockstep]
        } else {
            &self.config.schedules
        };
        let start: Option<Vec<Vec<u32>>> = (schedules.len() > 1).then(|| words.to_vec());
        let (first_run, others) = self.run_schedules(run, words, schedules, start.as_deref());
        let (mut report, stopped) = first_run?;
        let Some(start) = start.filter(|_| !stopped) else {
            return Ok(report);
        };
        // the first difference (schedule, buffer, word, its value there), and how many
        // schedules differ
        let mut first: Option<(Schedule, usize, usize, u32)> = None;
        let mut differ = 0;
        for (&other, result) in schedules[1..].iter().zip(others) {
            let Some(result) = result else { continue };
            let (more, stopped, w) = result?;
            merge_report(&mut report, more);
            if stopped {
                // a hang under this schedule (its step-limit finding says where): its
                // outputs are partial
                continue;
            }
            let diff = (0..words.len()).filter(|&b| compared[b]).find_map(|b| {
                let i = words[b].iter().zip(&w[b]).position(|(x, y)| x != y)?;
                Some((b, i, w[b][i]))
            });
            if let Some((b, i, v)) = diff {
                differ += 1;
                first.get_or_insert((other, b, i, v));
            }
        }
        let Some((other, b, i, v)) = first else {
            return Ok(report);
        };
        let writer = |schedule: Schedule| -> Result<Option<(Party, usize)>> {
            // (the halves of the word that differ: an f16's writer, not its neighbour's)
            let diff = words[b][i] ^ v;
            let mask = (diff & 0xffff != 0) as u8 | ((diff >> 16 != 0) as u8) << 1;
            let watch = checks::LastWriter::new(b, i, mask);
            let last = watch.last.clone();
            self.run_commands(run, &mut start.clone(), schedule, Some(Box::new(watch)))?;
            let party = last.borrow_mut().take();
            Ok(party)
        };
        let (ours, theirs) = (writer(schedules[0])?, writer(other)?);
        let pass = ours.as_ref().or(theirs.as_ref()).map(|(_, p)| *p);
        let (ours, theirs) = (ours.map(|(p, _)| p), theirs.map(|(p, _)| p));
        let label = &run.metas[b].label;
        let u = words[b][i];
        let by = |p: &Option<Party>| match p {
            Some(p) => match &p.loc {
                Some(l) => format!("written last at {l}"),
                None => "written last by a pass".to_string(),
            },
            None => "not written by any pass".to_string(),
        };
        report.findings.push(Finding {
            kind: FindingKind::ScheduleDivergence,
            message: format!(
                "word {i} of `{label}` is {u} ({u:#x}) under {} ({}) but {v} ({v:#x}) under \
                 {other} ({}); {differ} of {} other schedules differ: the result depends on \
                 how subgroups and workgroups interleave (a missing barrier, a race, or an \
                 order of arrival)",
                schedules[0],
                by(&ours),
                by(&theirs),
                schedules.len() - 1
            ),
            loc: ours
                .as_ref()
                .or(theirs.as_ref())
                .and_then(|p| p.loc.clone()),
            parties: ours.into_iter().chain(theirs).collect(),
            pass,
            invocations: None,
        });
        Ok(report)
    }

    /// Runs `run` under each of `schedules`: the first over `words`, each other over a copy of
    /// `start` (none without it), and returns their results in order (`None`: not run, the
    /// first one stopped). The runs share nothing, so they run on [`SimConfig::threads`]
    /// threads: this one runs the first, then takes the next schedule not taken, as each
    /// helper thread does.
    #[allow(clippy::type_complexity)]
    fn run_schedules(
        &self,
        run: &Run,
        words: &mut [Vec<u32>],
        schedules: &[Schedule],
        start: Option<&[Vec<u32>]>,
    ) -> (
        Result<(Report, bool)>,
        Vec<Option<Result<(Report, bool, Vec<Vec<u32>>)>>>,
    ) {
        type Other = Option<Result<(Report, bool, Vec<Vec<u32>>)>>;
        let rest = if start.is_some() {
            &schedules[1..]
        } else {
            &[]
        };
        let results: Vec<Mutex<Other>> = rest.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicU64::new(0);
        // set when the first run stopped: the others are not wanted
        let skip = AtomicBool::new(false);
        let work = || loop {
            let i = next.fetch_add(1, Ordering::Relaxed) as usize;
            let Some(start) = start.filter(|_| i < rest.len() && !skip.load(Ordering::Relaxed))
            else {
                break;
            };
            let mut w = start.to_vec();
            let r = self
                .run_commands(run, &mut w, rest[i], None)
                .map(|(f, stopped)| (f, stopped, w));
            *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        };
        let threads = match self.config.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            t => t,
        };
        // (as many runs at once as the memory budget holds)
        let helpers = threads
            .saturating_sub(1)
            .min(rest.len())
            .min(run.parallel.saturating_sub(1));
        let first = std::thread::scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(work);
            }
            let first = self.run_commands(run, words, schedules[0], None);
            if !matches!(first, Ok((_, false))) {
                skip.store(true, Ordering::Relaxed);
            } else {
                work();
            }
            first
        });
        let others = results
            .into_iter()
            .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect();
        (first, others)
    }

    /// Runs the pending queue writes, then the commands, under `schedule`, as one run of fresh
    /// checkers; returns their findings and notes and whether a step budget ran out (the run
    /// stopped).
    fn run_commands(
        &self,
        run: &Run,
        words: &mut [Vec<u32>],
        schedule: Schedule,
        extra: Option<Box<dyn crate::events::Checker>>,
    ) -> Result<(Report, bool)> {
        let Run {
            commands,
            slots,
            pending,
            index,
            metas,
            ..
        } = *run;
        for (b, at, bytes) in pending {
            let w = &mut words[index[&b.inner.id]];
            let first = (*at / 4) as usize;
            let data: Vec<u32> = bytemuck::pod_collect_to_vec(bytes);
            w[first..first + data.len()].copy_from_slice(&data);
        }
        let mut checkers = checks::all_with(self.config.loop_limit, self.config.checks);
        checkers.extend(extra);
        let mut findings = Findings::default();
        for c in checkers.iter_mut() {
            c.run_start(metas);
        }
        let mut pass_index = 0;
        // steps of the run so far, against `max_run_steps`
        let mut steps = 0u64;
        for (c, s) in commands.iter().zip(slots) {
            match c {
                Command::Copy {
                    src_at,
                    dst_at,
                    size,
                    ..
                } => {
                    let (src, dst) = (s[0], s[1]);
                    let (a, d, n) = (
                        (*src_at / 4) as usize,
                        (*dst_at / 4) as usize,
                        (*size / 4) as usize,
                    );
                    let data = words[src][a..a + n].to_vec();
                    words[dst][d..d + n].copy_from_slice(&data);
                    for ch in checkers.iter_mut() {
                        ch.host_write(dst, d, n);
                    }
                }
                Command::Run {
                    plan,
                    buffers,
                    grids,
                    grids_bound,
                    skip_prepare,
                } => {
                    // the plan's scratch is undefined again at every run
                    for (i, decl) in plan.buffers.iter().enumerate() {
                        if decl.init == BufferInit::Poison {
                            words[s[i]].fill(POISON_WORD);
                            let (all, label) =
                                (words[s[i]].len(), format!("the start of `{}`", plan.label));
                            for ch in checkers.iter_mut() {
                                ch.invalidate(s[i], 0, all, &label);
                            }
                        }
                    }
                    let stopped = self.run_plan_passes(
                        (
                            plan,
                            &RunSpec {
                                slot: 0,
                                skip_prepare: *skip_prepare,
                                grids: grids.as_deref(),
                                grids_bound: *grids_bound,
                            },
                        ),
                        buffers,
                        s,
                        words,
                        &mut checkers,
                        &mut findings,
                        (&mut pass_index, &mut steps),
                        schedule,
                    )?;
                    if stopped {
                        return Ok((findings.into_report(), true));
                    }
                }
            }
        }
        findings.set_pass(None);
        for c in checkers.iter_mut() {
            c.run_end(metas, &mut findings);
        }
        Ok((findings.into_report(), false))
    }
}
