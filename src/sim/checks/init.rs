//! Initialization: workgroup memory read before anything in the workgroup wrote it (WGSL
//! zero-fills it; Metal and CUDA do not), host-uninit storage (`BufferInit::Poison`) read
//! before written, and host-uninit read-back words that nothing wrote. A buffer a plan
//! invalidates (`Plan::invalidate`) is host-uninit again from that pass on.

use crate::finding::FindingKind;
use crate::sim::events::{AccessKind, BufferMeta, Checker, Ctx, Findings, MemAccess, Space};

/// Reports `uninitialized-read` and `unwritten-output`.
#[derive(Default)]
pub struct Init {
    /// Per buffer: written bits for poison buffers (and invalidated ones).
    storage: Vec<Option<Vec<bool>>>,
    labels: Vec<String>,
    words: Vec<usize>,
    /// Per buffer: the pass that last invalidated it.
    invalidated_by: Vec<Option<String>>,
    wg: Vec<bool>,
}

impl Checker for Init {
    fn run_start(&mut self, buffers: &[BufferMeta]) {
        self.storage = buffers
            .iter()
            .map(|b| b.poison.then(|| vec![false; b.words]))
            .collect();
        self.labels = buffers.iter().map(|b| b.label.clone()).collect();
        self.words = buffers.iter().map(|b| b.words).collect();
        self.invalidated_by = vec![None; buffers.len()];
    }

    fn invalidate(&mut self, buffer: usize, pass: &str) {
        if let (Some(w), Some(&words)) = (self.storage.get_mut(buffer), self.words.get(buffer)) {
            *w = Some(vec![false; words]);
            self.invalidated_by[buffer] = Some(pass.to_string());
        }
    }

    fn host_write(&mut self, buffer: usize, first: usize, words: usize) {
        if let Some(Some(w)) = self.storage.get_mut(buffer) {
            let end = (first + words).min(w.len());
            w[first.min(end)..end].fill(true);
        }
    }

    fn workgroup_start(&mut self, ctx: &Ctx) {
        self.wg.clear();
        self.wg.resize(ctx.wg_words as usize, false);
    }

    fn access(&mut self, ctx: &Ctx, a: &MemAccess, out: &mut Findings) {
        let label = self.labels.get(a.buffer).map(String::as_str).unwrap_or("?");
        let written: &mut Vec<bool> = match a.space {
            Space::Workgroup => &mut self.wg,
            _ => match self.storage.get_mut(a.buffer) {
                Some(Some(w)) => w,
                _ => return,
            },
        };
        for &(slot, addr) in a.words {
            let Some(w) = written.get_mut(addr as usize) else {
                continue;
            };
            if a.kind != AccessKind::Store && !*w {
                let kind = FindingKind::UninitializedRead;
                if !out.seen(kind, ctx.kernel, a.span) {
                    let what = if a.space == Space::Workgroup {
                        format!("workgroup memory word {addr} read before this workgroup wrote it (WGSL zero-fills it; Metal/CUDA do not)")
                    } else {
                        match self.invalidated_by.get(a.buffer).and_then(Option::as_ref) {
                            Some(pass) => format!(
                                "word {addr} of buffer {} `{label}` read after pass `{pass}` invalidated it and before any pass wrote it again",
                                a.buffer
                            ),
                            None => format!(
                                "word {addr} of host-uninitialized buffer {} `{label}` read before any pass wrote it",
                                a.buffer
                            ),
                        }
                    };
                    out.report(
                        kind,
                        ctx.kernel,
                        a.span,
                        what,
                        vec![ctx.party(slot as usize, Some(a.span))],
                    );
                }
            }
            if a.kind != AccessKind::Load {
                *w = true;
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
            let missing: Vec<usize> = (0..w.len()).filter(|&j| !w[j]).collect();
            if let (Some(&first), Some(&last)) = (missing.first(), missing.last()) {
                let since = match self.invalidated_by.get(i).and_then(Option::as_ref) {
                    Some(pass) => format!(" since pass `{pass}` invalidated it"),
                    None => String::new(),
                };
                out.report_global(
                    FindingKind::UnwrittenOutput,
                    format!(
                        "buffer {i} `{}`: {} of its {} words never written{since} (words {first}..={last}; 32-bit words)",
                        b.label,
                        missing.len(),
                        w.len()
                    ),
                );
            }
        }
    }
}
