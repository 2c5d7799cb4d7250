//! Where a span of a kernel's text is in the files a person edits ([`Kernel::location`]): for a
//! kernel composed from a [`Library`](crate::kernel::Library), through the markers composition
//! leaves, the library's file and line; for any other, the line of its own text.

use naga::Span;

use crate::finding::SourceLoc;
use crate::kernel::Kernel;

impl Kernel {
    /// Where `span` (of [`Kernel::source`]) is: `wgsl/FILE:LINE:COL` for a stage of wgsimd's
    /// tree, the kernel's name and its line for a kernel of one's own; `None` for a span naga
    /// left undefined.
    pub fn location(&self, span: Span) -> Option<SourceLoc> {
        loc(self, span)
    }
}

/// A naga span as a source location. For kernels composed from a
/// [`Library`](crate::kernel::Library) (wgsimd's `wgsl/`) the location is mapped back through
/// the `// ---- begin FILE` / `// ---- end FILE` markers that composition leaves, to the file and
/// line a person edits (e.g. `wgsl/shared/wg_ops.subgroup.wgsl:40:5`); otherwise it is the line
/// in the kernel's own text.
pub(crate) fn loc(kernel: &Kernel, span: Span) -> Option<SourceLoc> {
    if !span.is_defined() || span.to_range()?.end > kernel.source.len() {
        return None;
    }
    let l = span.location(&kernel.source);
    let (file, line) = original_line(kernel, l.line_number)
        .unwrap_or_else(|| (kernel.name.clone(), l.line_number));
    Some(SourceLoc {
        file,
        line,
        col: l.line_position,
    })
}

/// Maps line `target` (1-based) of a composed kernel to `(wgsl/FILE, line)`.
fn original_line(kernel: &Kernel, target: u32) -> Option<(String, u32)> {
    let library = kernel.library()?;
    let top = format!("{}.wgsl", kernel.name);
    let text = library.file(&top)?;
    // stack of (file, its lines, cursor)
    let mut stack: Vec<(String, Vec<&str>, usize)> = vec![(top, text.lines().collect(), 0)];
    for (i, line) in kernel.source.lines().enumerate() {
        let here = i as u32 + 1;
        if let Some(f) = line.strip_prefix("// ---- begin ") {
            let (_, lines, cur) = stack.last_mut()?;
            while *cur < lines.len() && !lines[*cur].trim().starts_with("//!include ") {
                *cur += 1;
            }
            *cur += 1;
            let body = library.file(f)?;
            stack.push((f.to_string(), body.lines().collect(), 0));
            continue;
        }
        if line.starts_with("// ---- end ") {
            stack.pop();
            if stack.is_empty() {
                return None;
            }
            continue;
        }
        let (file, lines, cur) = stack.last_mut()?;
        while *cur < lines.len() && lines[*cur] != line {
            *cur += 1;
        }
        if *cur >= lines.len() {
            return None;
        }
        *cur += 1;
        if here == target {
            return Some((format!("{}{file}", library.root()), *cur as u32));
        }
    }
    None
}
