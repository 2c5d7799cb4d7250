//! A plan's passes on simulated lanes: the bindings of each pass, the interpreter run over its
//! workgroups with the checkers on; the prepare passes' grids; a self-contained plan run once.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::events::{Bound, Findings};
use crate::finding::{FindingKind, Report};
use crate::interp::{Budget, Hooks, Interp, Turns};
use crate::layout;
use crate::mask::MAX_LANES;
use crate::plan::{BufferId, BufferInit, Plan, RunSpec, Workgroups, POISON_WORD};
use crate::schedule::Schedule;

use super::*;

/// Where `var`, a `var<immediate>` the pass's entry point reads, finds its bytes: the first of
/// `pass.immediates`, as many as its type holds (at most `MAX_IMMEDIATE_BYTES`, checked when
/// the kernel is made). An error where the pass gives none or too few.
fn immediates_bound(
    pass: &crate::plan::Pass,
    prog: &crate::program::Program,
    var: &naga::GlobalVariable,
    at: &[(SimBuffer, usize, usize)],
    slot: &[usize],
) -> Result<Bound> {
    let module = prog.module();
    let name = var.name.as_deref().unwrap_or("?");
    let need = module.types[var.ty].inner.size(module.to_ctx()) as u64;
    let Some(buffer) = pass.immediates else {
        return Err(Error::InvalidInput(format!(
            "pass {}: the entry point reads immediate data `{name}` ({need} bytes) and the \
             pass gives none",
            pass.label
        )));
    };
    let (_, base, len) = at[buffer.0];
    if (len as u64) * 4 < need {
        return Err(Error::InvalidInput(format!(
            "pass {}: immediate data `{name}` is {need} bytes; the pass gives {}",
            pass.label,
            len * 4
        )));
    }
    // (naga 30 refuses f16 in immediate data; were it allowed, it would be laid out as WGSL says)
    let halves = prog.layouts.get(var.ty).has_f16.then_some(var.ty);
    let len = match halves {
        Some(ty) => crate::halves::leaves(module, &prog.layouts, ty, need) as usize,
        None => need.div_ceil(4) as usize,
    };
    Ok(Bound {
        buffer: slot[buffer.0],
        base,
        len,
        halves,
        split: false,
        uniform: true,
        read_only: true,
        texture: None,
    })
}

/// Marks the bindings whose range (`ranges`: global, buffer, first word, words) overlaps
/// another binding's range of the same buffer, either of them a halves binding, as split: they
/// report whole words as halves, as the halves binding does its f16 (`crate::halves`).
fn split_overlaps(bound: &mut [Option<Bound>], ranges: &[(usize, usize, usize, usize)]) {
    let halves = |g: usize| bound[g].is_some_and(|b| b.halves.is_some());
    let mut split = Vec::new();
    for (i, &(g, buf, first, words)) in ranges.iter().enumerate() {
        for &(h, other, start, len) in &ranges[i + 1..] {
            let overlap = buf == other && first < start + len && start < first + words;
            if overlap && (halves(g) || halves(h)) {
                split.extend([g, h]);
            }
        }
    }
    for g in split {
        if let Some(b) = &mut bound[g] {
            b.split = true;
        }
    }
}

impl Simulator {
    /// Runs `plan`'s passes over the table (`slot[i]`: plan buffer i's table index; `at`: where
    /// each starts and how long it is, in words). Returns whether a workgroup ran out of steps.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_plan_passes(
        &self,
        (plan, run): (&Plan, &RunSpec),
        at: &[(SimBuffer, usize, usize)],
        slot: &[usize],
        words: &mut [Vec<u32>],
        checkers: &mut [Box<dyn crate::events::Checker>],
        findings: &mut Findings,
        (pass_index, steps): (&mut usize, &mut u64),
        schedule: Schedule,
    ) -> Result<bool> {
        // where the host skipped the prepare passes and gave grids of its own, what the
        // prepare passes would have asked for: each host grid is checked against it
        let oracle = if run.skip_prepare && run.grids.is_some() {
            self.prepare_run(plan, &|b| {
                let (_, base, len) = at[b];
                words[slot[b]][base..base + len].to_vec()
            })?
            .0
        } else {
            HashMap::new()
        };
        for (i, pass) in plan.passes.iter().enumerate() {
            if !run.runs(pass) {
                continue;
            }
            let pi = *pass_index;
            *pass_index += 1;
            // an invalidation: poison the buffer as the GPU's fill would, without running the
            // fill, and let the checkers forget what was written to it
            if let Some(target) = pass.invalidates {
                let (_, base, len) = at[target.0];
                // the fill's words (util/words.wgsl): all of the buffer, or the count a
                // prepare pass left in its params times the words an element (`PER`)
                let per = pass
                    .overrides
                    .iter()
                    .find(|(name, _)| name == "PER")
                    .map_or(1, |&(_, v)| v as usize);
                let count = pass
                    .bindings
                    .iter()
                    .find(|b| b.name == "params")
                    .map(|b| {
                        let (_, pbase, _) = at[b.buffer.0];
                        let n = words[slot[b.buffer.0]][pbase + (b.offset / 4) as usize];
                        (n as usize).saturating_mul(per)
                    })
                    .unwrap_or(len)
                    .min(len);
                words[slot[target.0]][base..base + count].fill(POISON_WORD);
                for c in checkers.iter_mut() {
                    c.invalidate(slot[target.0], base, count, &pass.label);
                }
                continue;
            }
            let spec = pass.kernel.specialize(&pass.entry, &pass.overrides)?;
            let prog = self.program(spec, &pass.entry)?;
            let counts = match pass.workgroups {
                Workgroups::Direct(c) => c,
                Workgroups::Indirect { buffer, offset } => {
                    let args = match oracle.get(&(buffer.0, offset)) {
                        Some(&a) => a,
                        None => {
                            let (_, base, _) = at[buffer.0];
                            let w = base + (offset / 4) as usize;
                            let b = &words[slot[buffer.0]];
                            [b[w], b[w + 1], b[w + 2]]
                        }
                    };
                    // a grid the host computed must be the one the prepare pass computes, or
                    // hold as many workgroups at least where it is a bound; it is what a GPU
                    // dispatches
                    let size = |g: [u32; 3]| g.iter().map(|&c| c as u64).product::<u64>();
                    match run.grid(i) {
                        Some(host)
                            if (run.grids_bound && size(host) < size(args))
                                || (!run.grids_bound && host != args) =>
                        {
                            return Err(Error::Plan(format!(
                                "pass {}: the host's grid {host:?} does not match the \
                                 arguments {args:?} its prepare pass computes",
                                pass.label
                            )));
                        }
                        Some(host) => host,
                        None => args,
                    }
                }
            };
            if counts.contains(&0) {
                continue;
            }
            if counts.iter().any(|&c| c > self.caps.max_workgroups_per_dim) {
                return Err(Error::Plan(format!(
                    "pass {}: workgroup count {counts:?} exceeds {} per dimension",
                    pass.label, self.caps.max_workgroups_per_dim
                )));
            }
            // (in 64 bits: 4096 x 4096 x 256 is 0 in 32)
            let total = counts.iter().map(|&c| c as u64).product::<u64>();
            if total > MAX_DISPATCH_WORKGROUPS {
                return Err(Error::Sim(format!(
                    "pass {}: {}x{}x{} = {total} workgroups; the simulator runs at most \
                     {MAX_DISPATCH_WORKGROUPS} in a dispatch",
                    pass.label, counts[0], counts[1], counts[2]
                )));
            }
            if prog.wg_bytes > self.caps.max_workgroup_storage as u64 {
                return Err(Error::TooLarge(format!(
                    "pass {}: {} bytes of workgroup memory (limit {})",
                    pass.label, prog.wg_bytes, self.caps.max_workgroup_storage
                )));
            }
            // (an override may make any size: the product is taken in u64)
            let n = prog.wg_size.iter().map(|&d| d as u64).product::<u64>();
            let lanes = usize::try_from(n).unwrap_or(usize::MAX);
            if lanes == 0 || lanes > MAX_LANES {
                return Err(Error::Sim(format!(
                    "pass {}: {n} invocations per workgroup (simulator limit {MAX_LANES})",
                    pass.label
                )));
            }
            if n > self.caps.max_workgroup_invocations as u64 {
                return Err(Error::TooLarge(format!(
                    "pass {}: {n} invocations per workgroup (limit {})",
                    pass.label, self.caps.max_workgroup_invocations
                )));
            }
            let n = lanes;
            // the interpreter's memories: registers, locals and private memory per invocation
            // and workgroup memory, for each resident workgroup and the image they start from
            let per_lane: u64 = prog
                .funcs
                .iter()
                .map(|f| f.reg_words as u64 + f.local_words as u64)
                .sum::<u64>()
                + prog.private_words as u64;
            let resident = if schedule.interleaves() {
                self.config.residency.max(1) as u64 + 1
            } else {
                1
            };
            let interp = (per_lane * n as u64 + prog.wg_words as u64) * 4 * resident;
            if interp > self.config.memory_budget {
                return Err(Error::TooLarge(format!(
                    "pass {}: the registers and memories of {resident} workgroup(s) of {n} \
                     invocations take {interp} bytes; the memory budget is {}",
                    pass.label, self.config.memory_budget
                )));
            }
            findings.set_pass(Some(pi));
            let module = &prog.spec.module;
            let used = prog.spec.info.get_entry_point(prog.entry_index);
            let mut bound = vec![None; prog.globals.len()];
            // (global, buffer, first word, words) of each buffer binding
            let mut ranges: Vec<(usize, usize, usize, usize)> = Vec::new();
            for ((gi, g), (h, var)) in prog
                .globals
                .iter()
                .enumerate()
                .zip(module.global_variables.iter())
            {
                if g.space == naga::AddressSpace::Immediate {
                    if !used[h].is_empty() {
                        bound[gi] = Some(immediates_bound(pass, &prog, var, at, slot)?);
                    }
                    continue;
                }
                let Some(gb) = g.binding else { continue };
                let Some(b) = pass.bindings.iter().find(|b| (b.group, b.binding) == gb) else {
                    continue;
                };
                let (buffer, base, len) = &at[b.buffer.0];
                let (base, len) = (*base, *len);
                // a texture: all of its texels (the plan checked the variable takes it)
                if let Some(desc) = plan.buffers[b.buffer.0].texture {
                    let writes = matches!(module.types[var.ty].inner,
                        naga::TypeInner::Image { class, .. } if crate::texture::class_writes(class));
                    bound[gi] = Some(Bound {
                        buffer: slot[b.buffer.0],
                        base,
                        len: len.min(desc.words() as usize),
                        halves: None,
                        split: false,
                        uniform: false,
                        read_only: !writes,
                        texture: Some(desc),
                    });
                    continue;
                }
                let first = (b.offset / 4) as usize;
                let avail = len.saturating_sub(first);
                let mut bytes = b.size.map_or(avail as u64 * 4, |s| s.min(avail as u64 * 4));
                // a caller's buffer: whole elements of the variable's array, or the filler
                // (BufferInit::Arg), here an empty range
                let filler = plan.buffers[b.buffer.0].init == BufferInit::Arg && {
                    let shape = layout::binding_shape(module, var.ty);
                    bytes = crate::plan::arg_binding_bytes(avail as u64 * 4, b.size, shape);
                    bytes == 0
                };
                // (a uniform binding may end inside a word: only storage bindings are whole
                // words; that word's halves below the end are in range)
                let words_bound = bytes.div_ceil(4) as usize;
                // WebGPU's minimum binding size: the type's (a runtime-sized array counting
                // one element), for a variable the entry point uses
                let need = module.types[var.ty].inner.try_size(module.to_ctx());
                if let Some(need) = need
                    .map(u64::from)
                    .filter(|&n| bytes < n && !filler && !used[h].is_empty())
                {
                    let runtime = if layout::runtime_sized(module, var.ty) {
                        " (its fixed part and one element of its runtime-sized array)"
                    } else {
                        ""
                    };
                    findings.report_declaration(
                        FindingKind::BindingTooSmall,
                        &pass.kernel,
                        module.global_variables.get_span(h),
                        format!(
                            "`{}` (@group({}) @binding({})) is bound to {bytes} bytes of `{}` \
                             from byte {}, less than the {need} bytes of its type{runtime}: \
                             WebGPU refuses the binding",
                            var.name.as_deref().unwrap_or("?"),
                            gb.0,
                            gb.1,
                            buffer.label(),
                            b.offset
                        ),
                    );
                }
                // a type holding f16: its leaves in the range (`crate::halves`)
                let halves = prog.layouts.get(var.ty).has_f16.then_some(var.ty);
                let leaves = match halves {
                    Some(ty) => crate::halves::leaves(module, &prog.layouts, ty, bytes) as usize,
                    None => (bytes / 4) as usize,
                };
                ranges.push((gi, slot[b.buffer.0], base + first, words_bound));
                bound[gi] = Some(Bound {
                    buffer: slot[b.buffer.0],
                    base: base + first,
                    len: leaves,
                    halves,
                    split: false,
                    uniform: g.space == naga::AddressSpace::Uniform,
                    read_only: matches!(g.space, naga::AddressSpace::Storage { access }
                        if !access.contains(naga::StorageAccess::STORE)),
                    texture: None,
                });
            }
            split_overlaps(&mut bound, &ranges);
            let hooks = Hooks {
                checkers: &mut *checkers,
                findings: &mut *findings,
            };
            let mut it = Interp::new(
                &prog,
                &pass.kernel,
                pi,
                self.config.subgroup_size,
                self.lanes(n),
                bound,
                words,
                counts,
                Budget {
                    thread: self.config.max_steps,
                    run: self.config.max_run_steps,
                    run_left: self.config.max_run_steps.saturating_sub(*steps),
                },
                self.config.seed ^ (pi as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                hooks,
            )?;
            let [x, y, z] = counts;
            let turns = Turns {
                schedule,
                residency: self.config.residency as usize,
                spin_limit: self.config.spin_limit,
                threaded: self.config.threaded_workgroups.map(|t| t as usize),
                seed: schedule.seed() ^ (pi as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407),
            };
            // (at most MAX_DISPATCH_WORKGROUPS: checked above)
            let (done, goes_on) = it.run_dispatch(&self.order(x * y * z), &turns)?;
            let stopped = !goes_on;
            {
                let mut st = self.stats.lock().unwrap();
                st.workgroups += done;
                st.statements += it.statements;
                st.lane_ops += it.lane_ops;
            }
            *steps += it.statements;
            if stopped {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// What `plan`'s prepare passes compute from the words `initial` gives for each buffer they
    /// bind (by index; one copy of a slotted buffer), found by running those passes alone on a
    /// simulator of this one's device: the dispatch arguments, by (plan buffer, byte offset),
    /// and the words each bound buffer holds after them. The oracle that holds the grids and
    /// blocks a host computes for a count (`record.rs`) to the kernels' own arithmetic. Empty
    /// without prepare passes.
    #[allow(clippy::type_complexity)]
    pub fn prepare_run(
        &self,
        plan: &Plan,
        initial: &dyn Fn(usize) -> Vec<u32>,
    ) -> Result<(HashMap<(usize, u64), [u32; 3]>, HashMap<usize, Vec<u32>>)> {
        let mut mini = Plan::new(format!("{} prepare", plan.label));
        let mut map: HashMap<usize, BufferId> = HashMap::new();
        for pass in plan.passes.iter().filter(|p| p.is_prepare()) {
            let mut copy = pass.clone();
            for b in &mut copy.bindings {
                let id = *map.entry(b.buffer.0).or_insert_with(|| {
                    let region = initial(b.buffer.0);
                    let bytes = bytemuck::cast_slice::<u32, u8>(&region).to_vec();
                    let label = plan.buffers[b.buffer.0].label.clone();
                    let id = mini.buffer(label, bytes.len() as u64, BufferInit::Bytes(bytes));
                    mini.read_back(id);
                    id
                });
                b.buffer = id;
            }
            mini.passes.push(copy);
        }
        if mini.passes.is_empty() {
            return Ok((HashMap::new(), HashMap::new()));
        }
        let mut config = SimConfig::for_profile(self.caps.clone());
        config.fail_on_step_limit = true;
        // the arguments depend on the count alone, under any schedule
        config.schedules = vec![Schedule::Lockstep];
        let (read, report) = Simulator::new(config)?.run_plan(&mini)?;
        if let Some(f) = report.findings.first() {
            return Err(Error::Sim(format!("{}: {f}", mini.label)));
        }
        let mut args = HashMap::new();
        for p in &plan.passes {
            if let Workgroups::Indirect { buffer, offset } = p.workgroups {
                let Some(w) = map.get(&buffer.0).and_then(|id| read.get(id)) else {
                    continue;
                };
                let first = (offset / 4) as usize;
                if let Some(&[x, y, z]) = w.get(first..first + 3) {
                    args.insert((buffer.0, offset), [x, y, z]);
                }
            }
        }
        let words = map
            .iter()
            .filter_map(|(&b, id)| read.get(id).map(|w| (b, w.clone())))
            .collect();
        Ok((args, words))
    }

    /// Runs a self-contained plan (no `Arg` buffers) once and returns the contents of its
    /// buffers marked read-back, by buffer, with the findings and notes: the engine of
    /// `wgsimd check`.
    /// `Poison` buffers marked read-back are outputs (their unwritten words are findings).
    pub fn run_plan(&self, plan: &Plan) -> Result<(ReadBack, Report)> {
        let mut own = plan.clone();
        let mut args = Vec::new();
        let mut outputs = Vec::new();
        for (i, b) in plan.buffers.iter().enumerate() {
            if b.readback && b.init == BufferInit::Poison {
                let out = self.uninit(&b.label, b.size);
                own.buffers[i].init = BufferInit::Arg;
                args.push((BufferId(i), out));
            } else if b.readback {
                outputs.push(i);
            }
        }
        let prepared = self.prepare(own)?;
        let slices: Vec<(BufferId, SimSlice)> = args
            .iter()
            .map(|(id, b)| (*id, SimSlice::whole(b)))
            .collect();
        let mut enc = SimEncoder::new();
        enc.record(&prepared, &slices, &RunSpec::default())?;
        let report = self.submit(enc)?;
        let mut read = HashMap::new();
        for (id, b) in &args {
            read.insert(*id, b.read::<u32>());
        }
        for i in outputs {
            if let Some(b) = prepared.buffer(BufferId(i)) {
                read.insert(BufferId(i), b.read::<u32>());
            }
        }
        Ok((read, report))
    }
}
