//! Where the author turned WGSL's `subgroup_uniformity` diagnostic down: the filter in force at
//! a subgroup operation decides whether running it with lanes missing is a finding or a note.
//!
//! WGSL's diagnostic filters nest: a `diagnostic(SEVERITY, subgroup_uniformity);` directive
//! covers the module, an `@diagnostic(SEVERITY, subgroup_uniformity)` attribute covers the
//! function or statement it stands on (an `if` with its `else` branches), and the innermost
//! filter around a place wins. The directive comes from naga's module
//! ([`naga::Module::diagnostic_filter_leaf`]); the attributes are read from the author's text,
//! because naga 30 refuses them on statements (the text before blanking: [`crate::directives`]
//! keeps every byte offset, so a span of the parsed module is a position in it).

use std::ops::Range;

use naga::diagnostic_filter::{FilterableTriggeringRule, Severity};

use crate::directives::skip_trivia;

/// The rule's name.
const RULE: &str = "subgroup_uniformity";

/// One filter on the rule: its severity and where it is written (byte offset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Filter {
    pub severity: Severity,
    pub at: usize,
    /// A directive (else an attribute).
    pub directive: bool,
}

impl Filter {
    /// The filter as written, e.g. `@diagnostic(off, subgroup_uniformity)`.
    pub fn text(&self) -> String {
        let s = match self.severity {
            Severity::Off => "off",
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        let at = if self.directive { "" } else { "@" };
        format!("{at}diagnostic({s}, {RULE})")
    }
}

/// The filters on `subgroup_uniformity` of one module.
#[derive(Clone, Debug, Default)]
pub(crate) struct SubgroupFilters {
    module: Option<Filter>,
    /// Attributes, each with the text it covers.
    ranges: Vec<(Range<usize>, Filter)>,
}

impl SubgroupFilters {
    /// The filters of `module`, parsed from `text` (the source before blanking).
    pub fn new(text: &str, module: &naga::Module) -> SubgroupFilters {
        let mut next = module.diagnostic_filter_leaf;
        let mut directive = None;
        while let Some(h) = next {
            let node = &module.diagnostic_filters[h];
            if matches!(&node.inner.triggering_rule,
                FilterableTriggeringRule::Unknown(name) if &**name == RULE)
            {
                let at = module
                    .diagnostic_filters
                    .get_span(h)
                    .to_range()
                    .map_or(0, |r| r.start);
                directive = Some(Filter {
                    severity: node.inner.new_severity,
                    at,
                    directive: true,
                });
                break;
            }
            next = node.parent;
        }
        SubgroupFilters {
            module: directive,
            ranges: attributes(text),
        }
    }

    /// The filter in force at byte `pos`, if any: the innermost attribute around it, else the
    /// directive.
    pub fn at(&self, pos: usize) -> Option<Filter> {
        self.ranges
            .iter()
            .filter(|(r, _)| r.contains(&pos))
            .max_by_key(|(r, _)| r.start)
            .map(|&(_, f)| f)
            .or(self.module)
    }
}

/// The `@diagnostic(SEVERITY, subgroup_uniformity)` attributes of `text` (comments skipped),
/// each with the text it covers: from the attribute to the end of the first `{ ... }` after it,
/// and of each `else` block that follows.
fn attributes(text: &str) -> Vec<(Range<usize>, Filter)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let next = skip_trivia(b, i);
        if next != i {
            i = next;
            continue;
        }
        if b[i] != b'@' {
            i += 1;
            continue;
        }
        let at = i;
        i += 1;
        let Some((severity, after)) = attribute(text, i) else {
            continue;
        };
        i = after;
        if let Some(end) = extent(b, after) {
            out.push((
                at..end,
                Filter {
                    severity,
                    at,
                    directive: false,
                },
            ));
        }
    }
    out
}

/// After an `@` at `i - 1`: `diagnostic(SEVERITY, subgroup_uniformity[,])`, its severity and
/// the offset after it.
fn attribute(text: &str, i: usize) -> Option<(Severity, usize)> {
    let b = text.as_bytes();
    let (word, i) = ident(text, skip_trivia(b, i))?;
    if word != "diagnostic" {
        return None;
    }
    let i = punct(b, i, b'(')?;
    let (severity, i) = ident(text, skip_trivia(b, i))?;
    let severity = match severity {
        "off" => Severity::Off,
        "info" => Severity::Info,
        "warning" => Severity::Warning,
        "error" => Severity::Error,
        _ => return None,
    };
    let i = punct(b, i, b',')?;
    let (rule, i) = ident(text, skip_trivia(b, i))?;
    if rule != RULE {
        return None;
    }
    let i = punct(b, i, b',').unwrap_or(i);
    let i = punct(b, i, b')')?;
    Some((severity, i))
}

/// The end of what an attribute ending at `i` covers: past the first `{ ... }` (outside
/// parentheses), and past each `else ... { ... }` after it. `None` where the text ends first.
fn extent(b: &[u8], mut i: usize) -> Option<usize> {
    let mut end = block_after(b, i)?;
    loop {
        i = skip_trivia(b, end);
        if b[i.min(b.len())..].starts_with(b"else")
            && !b
                .get(i + 4)
                .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
        {
            end = block_after(b, i + 4)?;
        } else {
            return Some(end);
        }
    }
}

/// Past the first `{ ... }` at or after `i` outside parentheses (comments skipped).
fn block_after(b: &[u8], mut i: usize) -> Option<usize> {
    let mut parens = 0usize;
    let mut braces = 0usize;
    while i < b.len() {
        let next = skip_trivia(b, i);
        if next != i {
            i = next;
            continue;
        }
        match b[i] {
            b'(' => parens += 1,
            b')' => parens = parens.saturating_sub(1),
            b'{' if parens == 0 || braces > 0 => braces += 1,
            b'}' if braces > 0 => {
                braces -= 1;
                if braces == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// `c` after trivia from `i`: the offset after it.
fn punct(b: &[u8], i: usize, c: u8) -> Option<usize> {
    let i = skip_trivia(b, i);
    (b.get(i) == Some(&c)).then_some(i + 1)
}

/// The identifier at `i` and the offset after it.
fn ident(text: &str, i: usize) -> Option<(&str, usize)> {
    let b = text.as_bytes();
    if !b
        .get(i)
        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
    {
        return None;
    }
    let mut e = i;
    while b
        .get(e)
        .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
    {
        e += 1;
    }
    Some((&text[i..e], e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filters(src: &str) -> SubgroupFilters {
        let module = naga::front::wgsl::parse_str(src).unwrap();
        SubgroupFilters::new(src, &module)
    }

    fn severity_at(f: &SubgroupFilters, src: &str, needle: &str) -> Option<Severity> {
        f.at(src.find(needle).unwrap()).map(|f| f.severity)
    }

    #[test]
    fn directive_covers_the_module() {
        let src = "diagnostic(off, subgroup_uniformity);\n@compute @workgroup_size(1)\nfn main() {\n    let a = 1u;\n}\n";
        let f = filters(src);
        assert_eq!(severity_at(&f, src, "let a"), Some(Severity::Off));
        assert_eq!(
            f.at(0).unwrap().text(),
            "diagnostic(off, subgroup_uniformity)"
        );
    }

    #[test]
    fn attributes_nest_and_cover_else_branches() {
        let src = "@diagnostic(warning, subgroup_uniformity)\n@compute @workgroup_size(1)\nfn main(@builtin(local_invocation_index) i: u32) {\n    let a = 1u;\n    if i > 2u {\n        let b = 2u;\n    } else /* { */ {\n        let c = 3u;\n    }\n    let d = 4u;\n}\nfn other() {\n    let e = 5u;\n}\n";
        // (naga parses the function's attribute; a statement's, which naga refuses, is read
        // from the text the same way)
        let stmt = src.replace(
            "    if i > 2u",
            "    @diagnostic(off, subgroup_uniformity) if i > 2u",
        );
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let f = SubgroupFilters::new(&stmt, &module);
        assert_eq!(severity_at(&f, &stmt, "let a"), Some(Severity::Warning));
        assert_eq!(severity_at(&f, &stmt, "let b"), Some(Severity::Off));
        assert_eq!(severity_at(&f, &stmt, "let c"), Some(Severity::Off));
        assert_eq!(severity_at(&f, &stmt, "let d"), Some(Severity::Warning));
        assert_eq!(severity_at(&f, &stmt, "let e"), None);
        // another rule, or one in a comment, is no filter on this one
        let other = "// @diagnostic(off, subgroup_uniformity)\n@diagnostic(off, derivative_uniformity)\nfn f() {\n    let a = 1u;\n}\n";
        assert_eq!(severity_at(&filters(other), other, "let a"), None);
    }
}
