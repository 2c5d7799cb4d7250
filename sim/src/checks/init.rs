//! Initialization: host-uninit storage (`BufferInit::Poison`) read before written, host-uninit
//! read-back words that nothing wrote, and — for kernels ported from Metal or CUDA, where
//! workgroup memory starts undefined ([`CheckOptions::uninit_workgroup`]) — workgroup memory
//! read before anything in the workgroup wrote it (WGSL zero-fills it, so by default that is
//! fine). A buffer a plan invalidates (`Plan::invalidate`) is host-uninit again from that pass
//! on. Padding words of the types a buffer is bound as (between struct members, past an array
//! element within its stride) are never unwritten output. A read whose value only a `select`
//! arm consumes is judged when the select runs ([`Discards`]).
//!
//! Storage is tracked per half word (an f16 is one, `crate::halves`): a half never written is
//! unwritten even where the other half of its word was written, and a read of a whole word
//! needs both.
//!
//! Invocations counted: the lanes of a read that read an unwritten word (one per lane, however
//! many of its words were unwritten). `unwritten-output` is about a buffer and has no count.

use super::discard::Discards;
use super::ir::data_words;
use super::CheckOptions;
use crate::events::{
    part_mask, part_name, AccessKind, BufferMeta, Checker, Ctx, ExprEvent, ExprRef, Findings,
    MemAccess, PassStart, Space,
};
use crate::finding::FindingKind;

/// Reports `uninitialized-read`, `unwritten-output` and (if asked for) `discarded-read`.
pub struct Init {
    /// Per buffer, per word: the halves written ([`part_mask`] bits; 3 the whole word), for
    /// poison buffers (and invalidated ones).
    storage: Vec<Option<Vec<u8>>>,
    /// Per buffer, per word: the halves that are padding of the types a pass bound it as
    /// (poison buffers only).
    padding: Vec<Option<Vec<u8>>>,
    labels: Vec<String>,
    words: Vec<usize>,
    /// Per buffer: the pass that last invalidated it.
    invalidated_by: Vec<Option<String>>,
    /// Per resident workgroup, written bits of its workgroup memory (tracked only with
    /// `uninit_workgroup`).
    wg: Vec<Vec<u8>>,
    uninit_workgroup: bool,
    discards: Discards,
}

impl Init {
    /// A checker with `options` (`uninit_workgroup`, `discarded_read`).
    pub fn new(options: CheckOptions) -> Init {
        Init {
            storage: Vec::new(),
            padding: Vec::new(),
            labels: Vec::new(),
            words: Vec::new(),
            invalidated_by: Vec::new(),
            wg: Vec::new(),
            uninit_workgroup: options.uninit_workgroup,
            discards: Discards::new(options.discarded_read),
        }
    }

    /// Marks the padding words of the storage bindings of a pass over poison buffers.
    fn mark_padding(&mut self, pass: &PassStart) {
        let module = pass.prog.module();
        for ((_, g), bound) in module.global_variables.iter().zip(pass.bound) {
            let Some(b) = bound else { continue };
            if b.uniform
                || b.texture.is_some()
                || !matches!(self.storage.get(b.buffer), Some(Some(_)))
            {
                continue;
            }
            let words = self.words[b.buffer];
            if let Some(ty) = b.halves {
                // the halves no data leaf of the range covers
                let (module, layouts) = (pass.prog.module(), &pass.prog.layouts);
                let mut data = vec![0u8; words.saturating_sub(b.base)];
                let mut end = 0;
                for i in 0..b.len as u64 {
                    let p = crate::halves::place(module, layouts, ty, i);
                    let (w, part) = p.word_part();
                    if let Some(d) = data.get_mut(w as usize).filter(|_| p.data) {
                        *d |= part_mask(part);
                    }
                    end = end.max(p.end().div_ceil(4) as usize);
                }
                let pad = self.padding[b.buffer].get_or_insert_with(|| vec![0; words]);
                for (w, d) in data.iter().enumerate().take(end) {
                    pad[b.base + w] |= 3 & !d;
                }
                continue;
            }
            let data = data_words(pass.prog, g.ty);
            if !data.has_padding() {
                continue;
            }
            let pad = self.padding[b.buffer].get_or_insert_with(|| vec![0; words]);
            for w in 0..b.len.min(words.saturating_sub(b.base)) {
                if !data.is_data(w) {
                    pad[b.base + w] = 3;
                }
            }
        }
    }
}

impl Default for Init {
    fn default() -> Self {
        Init::new(CheckOptions::default())
    }
}

impl Checker for Init {
    fn run_start(&mut self, buffers: &[BufferMeta]) {
        self.storage = buffers
            .iter()
            .map(|b| b.poison.then(|| vec![0; b.words]))
            .collect();
        self.padding = vec![None; buffers.len()];
        self.labels = buffers.iter().map(|b| b.label.clone()).collect();
        self.words = buffers.iter().map(|b| b.words).collect();
        self.invalidated_by = vec![None; buffers.len()];
    }

    fn invalidate(&mut self, buffer: usize, first: usize, words: usize, pass: &str) {
        if let (Some(w), Some(&all)) = (self.storage.get_mut(buffer), self.words.get(buffer)) {
            // (a buffer the checker did not track was written in full: the words past the
            // invalidated ones keep that)
            let w = w.get_or_insert_with(|| vec![3; all]);
            let end = first.saturating_add(words).min(w.len());
            w[first.min(end)..end].fill(0);
            self.invalidated_by[buffer] = Some(pass.to_string());
        }
    }

    fn host_write(&mut self, buffer: usize, first: usize, words: usize) {
        if let Some(Some(w)) = self.storage.get_mut(buffer) {
            let end = (first + words).min(w.len());
            w[first.min(end)..end].fill(3);
        }
    }

    fn pass_start(&mut self, _ctx: &Ctx, pass: &PassStart) -> Vec<ExprRef> {
        self.mark_padding(pass);
        self.discards.pass_start(pass.prog)
    }

    fn expression(&mut self, ctx: &Ctx, e: &ExprEvent, out: &mut Findings) {
        self.discards.select(ctx, e, out);
    }

    fn workgroup_start(&mut self, ctx: &Ctx) {
        if self.uninit_workgroup {
            if self.wg.len() <= ctx.resident {
                self.wg.resize(ctx.resident + 1, Vec::new());
            }
            let wg = &mut self.wg[ctx.resident];
            wg.clear();
            wg.resize(ctx.wg_words as usize, 0);
        }
    }

    fn workgroup_end(&mut self, ctx: &Ctx, out: &mut Findings) {
        self.discards.flush(ctx, out);
    }

    fn access(&mut self, ctx: &Ctx, a: &MemAccess, out: &mut Findings) {
        let label = self.labels.get(a.buffer).map(String::as_str).unwrap_or("?");
        let written: &mut Vec<u8> = match a.space {
            Space::Workgroup if self.uninit_workgroup => match self.wg.get_mut(ctx.resident) {
                Some(w) => w,
                None => return,
            },
            Space::Workgroup => return,
            _ => match self.storage.get_mut(a.buffer) {
                Some(Some(w)) => w,
                _ => return,
            },
        };
        // the last lane found reading an unwritten word (a lane's words come together)
        let mut counted = None;
        for (i, &(slot, addr)) in a.words.iter().enumerate() {
            let Some(w) = written.get_mut(addr as usize) else {
                continue;
            };
            let (part, mask) = (a.part(i), part_mask(a.part(i)));
            if a.kind != AccessKind::Store && *w & mask != mask && counted != Some(slot) {
                counted = Some(slot);
                let kind = FindingKind::UninitializedRead;
                let what = || {
                    if a.space == Space::Workgroup {
                        format!(
                            "workgroup memory word {addr} read before this workgroup wrote it \
                             (WGSL zero-fills it; Metal and CUDA do not)"
                        )
                    } else {
                        let at = part_name(addr, part);
                        match self.invalidated_by.get(a.buffer).and_then(Option::as_ref) {
                            Some(pass) => format!(
                                "{at} of buffer {} `{label}` read after pass `{pass}` invalidated it and before any pass wrote it again",
                                a.buffer
                            ),
                            None => format!(
                                "{at} of host-uninitialized buffer {} `{label}` read before any pass wrote it",
                                a.buffer
                            ),
                        }
                    }
                };
                let deferred = self
                    .discards
                    .defer(ctx, a.expr, slot as usize, kind, a.span, what);
                if !deferred && !out.seen(kind, ctx.kernel, a.span, 1) {
                    out.report(
                        kind,
                        ctx.kernel,
                        a.span,
                        1,
                        what(),
                        vec![ctx.party(slot as usize, Some(a.span))],
                    );
                }
            }
            if a.kind != AccessKind::Load {
                *w |= mask;
            }
        }
    }

    fn run_end(&mut self, buffers: &[BufferMeta], out: &mut Findings) {
        for (i, b) in buffers.iter().enumerate() {
            let Some(Some(w)) = self.storage.get(i) else {
                continue;
            };
            if !b.readback {
                continue;
            }
            let pad = self.padding.get(i).and_then(Option::as_ref);
            // (a word counts where any byte of it that is not padding was never written)
            let missing: Vec<usize> = (0..w.len())
                .filter(|&j| (w[j] | pad.map_or(0, |p| p[j])) != 3)
                .collect();
            let partial = missing.iter().filter(|&&j| w[j] != 0).count();
            if let (Some(&first), Some(&last)) = (missing.first(), missing.last()) {
                let since = match self.invalidated_by.get(i).and_then(Option::as_ref) {
                    Some(pass) => format!(" since pass `{pass}` invalidated it"),
                    None => String::new(),
                };
                out.report_global(
                    FindingKind::UnwrittenOutput,
                    format!(
                        "buffer {i} `{}`: {} of its {} words never written{since} (words {first}..={last}; 32-bit words{})",
                        b.label,
                        missing.len(),
                        w.len(),
                        match partial {
                            0 => String::new(),
                            n => format!(", {n} of them written in one f16 half only"),
                        }
                    ),
                );
            }
        }
    }
}
