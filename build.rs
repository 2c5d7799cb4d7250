//! Embeds every file under `wgsl/` into the library (see `src/kernel.rs`), so kernels are
//! composed from the same text on every platform and no list of files is kept by hand; and
//! generates the stage descriptors of `src/stages.rs` from the same tree, so host code names
//! stages, entry points, overrides, constants and resource variables through items a misspelling
//! fails to compile against.
//!
//! The declarations are read from the text (comments removed, `//!include` lines followed into
//! the helpers of both flavours): `override NAME` and `const NAME` at module scope, the variable
//! of every `@binding` declaration, and the function after `@compute`. A unit test in
//! `src/stages.rs` holds each descriptor to what naga reflects from the composed module.

use std::collections::{BTreeMap, BTreeSet};
use std::{env, fs, path::Path};

fn collect(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read wgsl dir")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            collect(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "wgsl") {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push(rel);
        }
    }
}

/// What one file declares (its own text, includes not followed).
#[derive(Default, Clone)]
struct Decls {
    overrides: BTreeSet<String>,
    constants: BTreeSet<String>,
    resources: BTreeSet<String>,
    entries: BTreeSet<String>,
    includes: Vec<String>,
}

impl Decls {
    fn merge(&mut self, o: &Decls) {
        self.overrides.extend(o.overrides.iter().cloned());
        self.constants.extend(o.constants.iter().cloned());
        self.resources.extend(o.resources.iter().cloned());
        self.entries.extend(o.entries.iter().cloned());
    }
}

/// The text without comments, as tokens: identifiers (and numbers) and single characters.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c.is_alphanumeric() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(b[s..i].iter().collect());
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

fn declarations(text: &str) -> Decls {
    let mut d = Decls::default();
    for line in text.lines() {
        if let Some(t) = line.trim().strip_prefix("//!include ") {
            d.includes.push(t.trim().to_string());
        }
    }
    let t = tokens(text);
    let (mut depth, mut binding, mut compute) = (0i32, false, false);
    let mut i = 0;
    while i < t.len() {
        match t[i].as_str() {
            "{" => depth += 1,
            "}" => depth -= 1,
            "@" if depth == 0 => match t.get(i + 1).map(String::as_str) {
                Some("binding") => binding = true,
                Some("compute") => compute = true,
                _ => {}
            },
            ";" if depth == 0 => binding = false,
            "override" | "const" if depth == 0 => {
                if let Some(name) = t.get(i + 1) {
                    let set = if t[i] == "override" {
                        &mut d.overrides
                    } else {
                        &mut d.constants
                    };
                    set.insert(name.clone());
                }
            }
            "var" if depth == 0 && binding => {
                let mut j = i + 1;
                if t.get(j).map(String::as_str) == Some("<") {
                    while j < t.len() && t[j] != ">" {
                        j += 1;
                    }
                    j += 1;
                }
                if let Some(name) = t.get(j) {
                    d.resources.insert(name.clone());
                }
                binding = false;
            }
            "fn" if depth == 0 && compute => {
                if let Some(name) = t.get(i + 1) {
                    d.entries.insert(name.clone());
                }
                compute = false;
            }
            _ => {}
        }
        i += 1;
    }
    d
}

/// What `file` declares with every include followed, in both flavours.
fn reach(
    file: &str,
    files: &BTreeMap<String, Decls>,
    seen: &mut BTreeSet<String>,
    out: &mut Decls,
) {
    if !seen.insert(file.to_string()) {
        return;
    }
    let Some(d) = files.get(file) else { return };
    out.merge(d);
    for inc in &d.includes {
        for f in [
            format!("{inc}.wgsl"),
            format!("{inc}.subgroup.wgsl"),
            format!("{inc}.emulated.wgsl"),
        ] {
            reach(&f, files, seen, out);
        }
    }
}

const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

fn ident(name: &str) -> String {
    if RUST_KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// One `pub const NAME: TYPE = TYPE::new("NAME");` line per name, at `indent`.
fn consts(s: &mut String, indent: &str, ty: &str, names: &BTreeSet<String>) {
    for n in names {
        s.push_str(&format!(
            "{indent}pub const {}: {ty} = {ty}::new({n:?});\n",
            ident(n)
        ));
    }
}

/// The descriptor module of a stage (`stage`) or of a helper's own declarations.
fn stage_module(path: &str, d: &Decls, stage: bool) -> String {
    let stem = path.rsplit('/').next().unwrap();
    let mut s = format!("/// `wgsl/{path}.wgsl`");
    s.push_str(if stage {
        ", with every helper it includes.\n"
    } else {
        ": a helper's own declarations.\n"
    });
    s.push_str(&format!("pub mod {} {{\n", ident(stem)));
    s.push_str("    #![allow(non_upper_case_globals, missing_docs)]\n");
    s.push_str("    use crate::stages::*;\n");
    let own = if stage { "STAGE" } else { "HELPER" };
    for name in d.overrides.iter().chain(&d.constants) {
        assert!(
            name != own,
            "wgsl/{path}.wgsl: `{own}` is the descriptor's name"
        );
    }
    if stage {
        s.push_str(&format!(
            "    /// The stage.\n    pub const STAGE: Stage = Stage::new({path:?});\n"
        ));
    } else {
        s.push_str(&format!(
            "    /// The helper.\n    pub const HELPER: Helper = Helper::new({path:?});\n"
        ));
    }
    consts(&mut s, "    ", "Override", &d.overrides);
    consts(&mut s, "    ", "Constant", &d.constants);
    if stage {
        s.push_str("    /// Resource variables, by WGSL name.\n    pub mod bind {\n");
        s.push_str("        use crate::stages::Resource;\n");
        consts(&mut s, "        ", "Resource", &d.resources);
        s.push_str("    }\n    /// Entry points, by WGSL name.\n    pub mod entry {\n");
        s.push_str("        use crate::stages::Entry;\n");
        consts(&mut s, "        ", "Entry", &d.entries);
        s.push_str("    }\n");
    }
    s.push_str("}\n");
    s
}

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("wgsl");
    println!("cargo:rerun-if-changed=wgsl");
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    let mut src = String::from("/// Every WGSL file under `wgsl/`, by path relative to it.\npub static WGSL_FILES: &[(&str, &str)] = &[\n");
    let mut decls = BTreeMap::new();
    for f in &files {
        println!("cargo:rerun-if-changed=wgsl/{f}");
        let abs = root.join(f);
        src.push_str(&format!(
            "    ({f:?}, include_str!({:?})),\n",
            abs.to_string_lossy()
        ));
        let text = fs::read_to_string(&abs).expect("read wgsl file");
        decls.insert(f.clone(), declarations(&text));
    }
    src.push_str("];\n");
    let out = Path::new(&env::var("OUT_DIR").unwrap()).to_path_buf();
    fs::write(out.join("wgsl_files.rs"), src).unwrap();

    // Descriptors: a module per algorithm folder, in it one per stage file, and one per helper
    // (under `shared/` or the folder's `lib/`): the helper itself and the overrides and
    // constants it declares, the names generic host code sets on every stage that includes it.
    let mut by_folder: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for f in &files {
        let path = f.trim_end_matches(".wgsl");
        let parts: Vec<&str> = path.split('/').collect();
        let (folder, stage) = match parts.as_slice() {
            ["shared", name] | [_, "lib", name] if name.contains('.') => continue,
            ["shared", _] => ("shared", false),
            [alg, "lib", _] => (*alg, false),
            [alg, _] => (*alg, true),
            _ => continue,
        };
        let entry = by_folder.entry(folder.to_string()).or_default();
        if stage {
            let mut d = Decls::default();
            reach(f, &decls, &mut BTreeSet::new(), &mut d);
            entry.0.push(stage_module(path, &d, true));
        } else {
            entry.1.push(stage_module(path, &decls[f], false));
        }
    }
    let mut descs = String::new();
    for (folder, (stages, helpers)) in by_folder {
        descs.push_str(&format!(
            "/// Stages under `wgsl/{folder}/`.\npub mod {} {{\n",
            ident(&folder)
        ));
        for m in stages {
            descs.push_str(&m);
        }
        if folder == "shared" {
            helpers.iter().for_each(|m| descs.push_str(m));
        } else if !helpers.is_empty() {
            descs.push_str(&format!(
                "/// Helpers under `wgsl/{folder}/lib/`.\npub mod lib {{\n"
            ));
            helpers.iter().for_each(|m| descs.push_str(m));
            descs.push_str("}\n");
        }
        descs.push_str("}\n");
    }
    fs::write(out.join("stages.rs"), descs).unwrap();
}
