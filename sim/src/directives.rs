//! The WGSL that browsers accept and naga 30 does not, blanked before naga parses a module.
//!
//! Shaders written for WebGPU start with directives that naga 30's WGSL front end refuses:
//! `enable subgroups;` (naga offers the subgroup builtins without it and rejects the directive
//! as "not yet supported"), extension names it does not know (`enable subgroups_f16;`,
//! `requires subgroup_id;`), and language extensions it has not implemented
//! (`requires unrestricted_pointer_parameters;`). It also refuses `@diagnostic(...)` attributes
//! on statements. [`strip_unsupported`] removes exactly what naga refuses, and nothing else:
//!
//! - Each name of an `enable` or `requires` directive is tried alone (`enable NAME;` parsed by
//!   naga); the names naga refuses are dropped, and the directive keeps the others
//!   (`enable f16, subgroups;` becomes `enable f16;`) or goes entirely.
//! - A `diagnostic(...)` directive naga refuses goes entirely.
//! - A `@diagnostic(...)` attribute naga refuses where it stands (on a statement) goes.
//!
//! One more thing naga 30 refuses is not a directive: an abstract-int literal as a subgroup or
//! quad operation's lane, id, mask or delta (`subgroupShuffleXor(x, 1)`, `quadBroadcast(v, 2)`),
//! which WGSL converts and naga types as i32 and rejects at validation. [`lane_argument`] reads
//! such a literal as its u32 (`1u`), taking the space before it where there is one, so the rest
//! of the line keeps its columns.
//!
//! naga 30 also lacks the builtin `subgroupElect()`: [`elect_call`] reads each call as
//! `(subgroupExclusiveAdd(1u) == 0u)`, which is true in exactly the lowest active lane.
//!
//! Removed text is replaced by spaces of the same length, line breaks kept, so every line and
//! column after it is where the author wrote it: naga's messages and the simulator's findings
//! point at the author's file. Each removal is reported as a [`Stripped`] note. Names naga
//! refuses but the module then relies on (a type only that extension provides) fail later, at
//! their use, with naga's message. Diagnostics only tune what the uniformity analysis reports,
//! and naga offers the subgroup builtins unconditionally, so removing them changes neither
//! what the module computes nor what the simulator checks.

use std::fmt;

/// One piece of source text removed before parsing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stripped {
    /// 1-based line where it starts.
    pub line: u32,
    /// 1-based column where it starts.
    pub col: u32,
    /// What was removed, e.g. `subgroups` (a name of a directive) or the whole directive.
    pub text: String,
    /// Why: naga's message.
    pub reason: String,
    /// What the text was read as instead, where it was not simply removed (a literal given its
    /// suffix, [`lane_argument`]).
    pub read_as: Option<String>,
}

impl fmt::Display for Stripped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.read_as {
            None => write!(
                f,
                "{}:{}: removed `{}` before parsing ({})",
                self.line, self.col, self.text, self.reason
            ),
            Some(r) => write!(
                f,
                "{}:{}: read `{}` as `{r}` ({})",
                self.line, self.col, self.text, self.reason
            ),
        }
    }
}

/// `source` with what naga 30 refuses blanked (see the module docs), and a note for each
/// removal. Text naga accepts comes back unchanged.
pub fn strip_unsupported(source: &str) -> (String, Vec<Stripped>) {
    let mut out = source.as_bytes().to_vec();
    let mut notes = Vec::new();
    for d in global_directives(source) {
        match d.keyword {
            "enable" | "requires" => {
                let mut kept = Vec::new();
                for &(at, name) in &d.names {
                    match refusal(&format!("{} {name};\n", d.keyword)) {
                        Some(reason) => notes.push(note(source, at, name, reason)),
                        None => kept.push(name),
                    }
                }
                if kept.len() < d.names.len() {
                    let keep = if kept.is_empty() {
                        String::new()
                    } else {
                        // (no space after the commas: never longer than the names it replaces)
                        format!("{} {};", d.keyword, kept.join(","))
                    };
                    replace(&mut out, d.start, d.end, &keep);
                }
            }
            _ => {
                let text = &source[d.start..d.end];
                if let Some(reason) = refusal(&format!("{text}\n")) {
                    notes.push(note(source, d.start, text, reason));
                    replace(&mut out, d.start, d.end, "");
                }
            }
        }
    }
    // (`replace` leaves only ASCII in what it touched)
    let mut text = String::from_utf8(out).unwrap_or_else(|_| source.to_string());
    if text.contains("@diagnostic") {
        strip_diagnostic_attributes(&mut text, &mut notes);
    }
    (text, notes)
}

/// naga's first message for `text`, if it refuses it.
fn refusal(text: &str) -> Option<String> {
    naga::front::wgsl::parse_str(text)
        .err()
        .map(|e| e.message().to_string())
}

fn note(source: &str, at: usize, text: &str, reason: String) -> Stripped {
    let (line, col) = line_col(source, at);
    Stripped {
        line,
        col,
        text: text.split_whitespace().collect::<Vec<_>>().join(" "),
        reason,
        read_as: None,
    }
}

/// `source` with the literal naga's validation `error` points at read as a u32, where the error
/// is a subgroup or quad operation's refused operand and the literal an unsuffixed integer
/// argument (see the module docs), and the note saying so; `None` for any other error.
pub fn lane_argument(
    source: &str,
    error: &naga::WithSpan<naga::valid::ValidationError>,
) -> Option<(String, Stripped)> {
    if !error
        .emit_to_string(source)
        .contains("Subgroup operation is invalid")
    {
        return None;
    }
    let b = source.as_bytes();
    let r = error.spans().find_map(|(span, _)| {
        let r = span.to_range()?;
        let lit = source.get(r.clone())?;
        let digits = lit
            .strip_prefix("0x")
            .or_else(|| lit.strip_prefix("0X"))
            .map_or(
                !lit.is_empty() && lit.bytes().all(|c| c.is_ascii_digit()),
                |h| !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit()),
            );
        // an argument after the first: a comma before it, past whitespace
        let before = source[..r.start].trim_end();
        (digits && before.ends_with(',') && !b.get(r.end).is_some_and(|&c| is_ident_start(c)))
            .then_some(r)
    })?;
    let lit = &source[r.clone()];
    // `, 1` becomes `,1u`, the same length; without a space before it the line grows by one
    let start = if matches!(b[r.start - 1], b' ' | b'\t') {
        r.start - 1
    } else {
        r.start
    };
    let out = format!("{}{lit}u{}", &source[..start], &source[r.end..]);
    let mut n = note(
        source,
        r.start,
        lit,
        "naga 30 types an abstract-int subgroup argument as i32 and refuses it".into(),
    );
    n.read_as = Some(format!("{lit}u"));
    Some((out, n))
}

/// `source` with every call `subgroupElect()` read as `(subgroupExclusiveAdd(1u) == 0u)` (true
/// exactly in the lowest active lane, as WGSL defines the election), where naga's parse error
/// `message` says it does not know the builtin (naga 30 has none), and a note for the first;
/// `None` otherwise. The rest of each such line moves right by the longer text.
pub fn elect_call(source: &str, message: &str) -> Option<(String, Stripped)> {
    const NAME: &str = "subgroupElect";
    const AS: &str = "(subgroupExclusiveAdd(1u) == 0u)";
    if !message.contains(NAME) {
        return None;
    }
    let b = source.as_bytes();
    let (mut out, mut last, mut first) = (String::new(), 0, None);
    let mut from = 0;
    while let Some(i) = source[from..].find(NAME).map(|i| i + from) {
        from = i + NAME.len();
        if i > 0 && (is_ident_start(b[i - 1]) || b[i - 1].is_ascii_digit()) {
            continue;
        }
        let open = skip_trivia(b, from);
        if b.get(open) != Some(&b'(') {
            continue;
        }
        let close = skip_trivia(b, open + 1);
        if b.get(close) != Some(&b')') {
            continue;
        }
        out.push_str(&source[last..i]);
        out.push_str(AS);
        last = close + 1;
        from = last;
        first.get_or_insert(i);
    }
    let at = first?;
    out.push_str(&source[last..]);
    let mut n = note(
        source,
        at,
        "subgroupElect()",
        "naga 30 has no subgroupElect".into(),
    );
    n.read_as = Some(AS.into());
    Some((out, n))
}

/// 1-based line and column (in characters) of byte `at`.
fn line_col(source: &str, at: usize) -> (u32, u32) {
    let before = &source[..at.min(source.len())];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() as u32 + 1;
    (line, col)
}

/// Puts `keep` at `start` and spaces over the rest of `start..end`, line breaks kept.
fn replace(out: &mut [u8], start: usize, end: usize, keep: &str) {
    for (i, b) in out[start..end].iter_mut().enumerate() {
        *b = match keep.as_bytes().get(i) {
            Some(&k) => k,
            None if *b == b'\n' || *b == b'\r' => *b,
            None => b' ',
        };
    }
    // every byte of the range is now ASCII, so a character of a comment inside it that was
    // partly overwritten leaves no stray UTF-8 continuation byte
}

/// A global directive: `enable a, b;`, `requires a;` or `diagnostic(s, r);`.
struct Directive<'a> {
    keyword: &'a str,
    /// Byte range of the whole directive, `;` included.
    start: usize,
    end: usize,
    /// The names of `enable` and `requires`, with their byte offsets.
    names: Vec<(usize, &'a str)>,
}

/// The directives at the start of `source`, before its first declaration (where WGSL allows
/// them). Scanning stops at anything else, or at a directive that does not end in `;`.
fn global_directives(source: &str) -> Vec<Directive<'_>> {
    let b = source.as_bytes();
    let mut out = Vec::new();
    let mut i = skip_trivia(b, 0);
    loop {
        let word_end = ident_end(b, i);
        let keyword = &source[i..word_end];
        if !matches!(keyword, "enable" | "requires" | "diagnostic") {
            break;
        }
        let start = i;
        let mut names = Vec::new();
        let mut j = word_end;
        let mut depth = 0usize;
        let end = loop {
            j = skip_trivia(b, j);
            match b.get(j) {
                None => return out,
                Some(b';') if depth == 0 => break j + 1,
                Some(b'(') => depth += 1,
                Some(b')') => depth = depth.saturating_sub(1),
                Some(c) if is_ident_start(*c) => {
                    let e = ident_end(b, j);
                    if keyword != "diagnostic" {
                        names.push((j, &source[j..e]));
                    }
                    j = e;
                    continue;
                }
                Some(_) => {}
            }
            j += 1;
        };
        if keyword != "diagnostic" && names.is_empty() {
            break;
        }
        out.push(Directive {
            keyword,
            start,
            end,
            names,
        });
        i = skip_trivia(b, end);
    }
    out
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn ident_end(b: &[u8], mut i: usize) -> usize {
    if !b.get(i).is_some_and(|&c| is_ident_start(c)) {
        return i;
    }
    while b
        .get(i)
        .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
    {
        i += 1;
    }
    i
}

/// Past whitespace, `//` comments and (nested) `/* */` comments from `i`.
pub(crate) fn skip_trivia(b: &[u8], mut i: usize) -> usize {
    loop {
        while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            i += 1;
        }
        if b[i.min(b.len())..].starts_with(b"//") {
            while b.get(i).is_some_and(|&c| c != b'\n') {
                i += 1;
            }
        } else if b[i.min(b.len())..].starts_with(b"/*") {
            let mut depth = 0usize;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else {
            return i;
        }
    }
}

/// Blanks each `@diagnostic(...)` attribute naga refuses where it stands, one refusal at a time
/// (naga reports every such attribute of one site together).
fn strip_diagnostic_attributes(text: &mut String, notes: &mut Vec<Stripped>) {
    let most = text.matches("@diagnostic").count();
    for _ in 0..most {
        let Err(e) = naga::front::wgsl::parse_str(text) else {
            return;
        };
        if !e.message().contains("@diagnostic") {
            return;
        }
        let spans: Vec<std::ops::Range<usize>> = e
            .labels()
            .filter_map(|(span, _)| span.to_range())
            .filter(|r| {
                r.end <= text.len()
                    && text.is_char_boundary(r.start)
                    && text.is_char_boundary(r.end)
                    && text[r.clone()].starts_with("@diagnostic")
            })
            .collect();
        if spans.is_empty() {
            return;
        }
        let mut bytes = std::mem::take(text).into_bytes();
        for r in spans {
            let src = String::from_utf8_lossy(&bytes).into_owned();
            notes.push(note(
                &src,
                r.start,
                &src[r.clone()],
                e.message().to_string(),
            ));
            replace(&mut bytes, r.start, r.end, "");
        }
        *text = String::from_utf8(bytes).unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parses(text: &str) -> bool {
        naga::front::wgsl::parse_str(text).is_ok()
    }

    const BODY: &str = "@compute @workgroup_size(1)\nfn main() {\n    let x = 1u;\n}\n";

    /// `subgroupElect()`, unknown to naga 30, is read as the exclusive count of active lanes
    /// being zero, in every call (spaces inside the parentheses too); an identifier that only
    /// starts with the name, or the name in a comment, is left alone.
    #[test]
    fn elect_is_read_as_a_builtin_naga_has() {
        let src = "@compute @workgroup_size(4)\nfn main() {\n    // subgroupElect\n    \
                   let subgroupElected = 1u;\n    let a = subgroupElect();\n    \
                   let b = select(0u, 1u, subgroupElect( ));\n}\n";
        let Err(e) = naga::front::wgsl::parse_str(src) else {
            panic!("naga 30 has subgroupElect now: the rewrite can go");
        };
        let (out, note) = elect_call(src, e.message()).expect("rewritten");
        assert!(parses(&out), "{out}");
        assert_eq!(out.matches("(subgroupExclusiveAdd(1u) == 0u)").count(), 2);
        assert!(out.contains("// subgroupElect\n") && out.contains("let subgroupElected"));
        assert_eq!((note.line, note.col), (5, 13));
        assert!(elect_call(BODY, "unknown identifier `x`").is_none());
    }

    /// `enable subgroups;` is refused by naga; blanked, the module parses, and the body's lines
    /// and columns are unchanged.
    #[test]
    fn enable_subgroups_is_blanked_in_place() {
        let src = format!("enable subgroups;\n{BODY}");
        assert!(!parses(&src));
        let (out, notes) = strip_unsupported(&src);
        assert!(parses(&out), "{out}");
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        assert_eq!(out.lines().next().unwrap().trim(), "");
        assert_eq!(&out[out.find("@compute").unwrap()..], BODY);
        assert_eq!(notes.len(), 1);
        assert_eq!((notes[0].line, notes[0].col), (1, 8));
        assert_eq!(notes[0].text, "subgroups");
        assert!(notes[0].reason.contains("not yet supported"), "{notes:?}");
    }

    /// A directive mixing accepted and refused names keeps the accepted ones; each kind of
    /// directive naga refuses (an unknown enable, an unimplemented or unknown language
    /// extension) goes, across lines and comments, and accepted directives stay as written.
    #[test]
    fn keeps_what_naga_accepts() {
        let src = format!(
            "// header\nenable f16, /* dawn */ subgroups,\n  subgroups_f16;\n\
             requires unrestricted_pointer_parameters, pointer_composite_access;\n\
             requires subgroup_id;\ndiagnostic(off, derivative_uniformity);\n{BODY}"
        );
        assert!(!parses(&src));
        let (out, notes) = strip_unsupported(&src);
        assert!(parses(&out), "{out}");
        assert_eq!(out.len(), src.len());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "// header");
        assert_eq!(lines[1].trim_end(), "enable f16;");
        assert_eq!(lines[1].len(), "enable f16, /* dawn */ subgroups,".len());
        assert_eq!(lines[2].trim(), "");
        assert_eq!(lines[3].trim_end(), "requires pointer_composite_access;");
        assert_eq!(lines[4].trim(), "");
        assert_eq!(lines[5], "diagnostic(off, derivative_uniformity);");
        let removed: Vec<&str> = notes.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(
            removed,
            [
                "subgroups",
                "subgroups_f16",
                "unrestricted_pointer_parameters",
                "subgroup_id"
            ]
        );
        assert_eq!((notes[1].line, notes[1].col), (3, 3));
    }

    /// Source naga accepts comes back byte for byte, with no note; a directive after the first
    /// declaration is not touched (naga's own error stands).
    #[test]
    fn accepted_source_is_unchanged() {
        for src in [
            BODY.to_string(),
            format!("enable f16;\n{BODY}"),
            format!("{BODY}enable subgroups;\n"),
            String::new(),
            "enable".to_string(),
            "enable subgroups".to_string(),
            "enable /* unterminated".to_string(),
        ] {
            let (out, notes) = strip_unsupported(&src);
            assert_eq!(out, src);
            assert!(notes.is_empty(), "{notes:?}");
        }
    }

    /// A `@diagnostic` attribute on a statement, which naga refuses, is blanked; one on a
    /// function, which naga accepts, stays.
    #[test]
    fn statement_diagnostic_attributes() {
        let src = "@diagnostic(off, derivative_uniformity)\n@compute @workgroup_size(1)\nfn main() {\n    @diagnostic(off, derivative_uniformity) if true {}\n}\n";
        assert!(!parses(src));
        let (out, notes) = strip_unsupported(src);
        assert!(parses(&out), "{out}");
        assert!(out.starts_with("@diagnostic(off, derivative_uniformity)\n"));
        assert_eq!(out.lines().nth(3).unwrap().trim(), "if true {}");
        assert_eq!(out.len(), src.len());
        assert_eq!(notes.len(), 1);
        assert_eq!((notes[0].line, notes[0].col), (4, 5));
    }

    /// Abstract-int lane, id, mask and delta arguments, which naga 30 refuses at validation,
    /// are read as u32: the module loads, each literal has a note, a literal after a space keeps
    /// the rest of its line in place; a negative argument and other errors are left to naga.
    #[test]
    fn abstract_int_lane_arguments_load() {
        let src = "@group(0) @binding(0) var<storage, read_write> o: array<u32>;\n\
                   @compute @workgroup_size(32)\n\
                   fn main(@builtin(local_invocation_index) lid: u32) {\n\
                   \x20   let a = subgroupShuffleXor(lid, 1) + subgroupBroadcast(lid, 0x3);\n\
                   \x20   let c = quadBroadcast(lid, 2) + subgroupShuffleDown(lid,4);\n\
                   \x20   o[lid] = a + c;\n\
                   }\n";
        let raw = naga::front::wgsl::parse_str(src).unwrap();
        let refused = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&raw);
        assert!(refused.is_err(), "naga 30 refuses them");
        let k = crate::kernel::Kernel::from_source(
            "lanes",
            crate::kernel::Flavor::Subgroup,
            src.into(),
        )
        .unwrap();
        let read: Vec<(u32, u32, &str, &str)> = k
            .stripped
            .iter()
            .map(|n| {
                (
                    n.line,
                    n.col,
                    n.text.as_str(),
                    n.read_as.as_deref().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(read.len(), 4, "{read:?}");
        assert!(read.contains(&(4, 37, "1", "1u")), "{read:?}");
        assert!(read.contains(&(4, 65, "0x3", "0x3u")), "{read:?}");
        let line = k.source.lines().nth(3).unwrap();
        let orig = src.lines().nth(3).unwrap();
        assert_eq!(line.len(), orig.len());
        assert!(line.contains("subgroupShuffleXor(lid,1u)"), "{line}");
        assert_eq!(
            line.find("subgroupBroadcast"),
            orig.find("subgroupBroadcast")
        );
        let negative = src.replace("lid, 1)", "lid, -1)");
        assert!(crate::kernel::Kernel::from_source(
            "neg",
            crate::kernel::Flavor::Subgroup,
            negative
        )
        .is_err());
    }
}
