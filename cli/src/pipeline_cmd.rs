//! `wgsimd pipeline FILE.json`: several passes over shared, named buffers, run in order as one
//! simulator run (state kept between passes), findings reported per pass. Exit 0 clean, 1
//! findings, 2 usage, input, parse or validation error.
//!
//! The file (paths in it relative to its folder):
//!
//! ```json
//! {
//!   "buffers": {
//!     "keys":    { "type": "u32", "init": "random:1000" },
//!     "hist":    { "type": "u32", "init": "zeros:256" },
//!     "offsets": { "type": "u32", "init": "uninit:256" },
//!     "weights": { "type": "f32", "init": "file:weights.npy" },
//!     "params":  { "type": "u32", "init": [1000, 0, 0, 0] }
//!   },
//!   "passes": [
//!     { "name": "histogram", "shader": "hist.wgsl", "entry": "count", "workgroups": [4],
//!       "overrides": { "BINS": 256 },
//!       "bind": { "0": "keys", "1": "hist", "1:0": "params" } },
//!     { "shader": "scan.wgsl", "entry": "scan", "workgroups": { "indirect": "params", "offset": 4 },
//!       "bind": { "0": "hist", "1": { "buffer": "offsets", "offset": 0, "size": 1024 } } }
//!   ],
//!   "dump": ["offsets"]
//! }
//! ```
//!
//! `init` is what `--bind` takes after `TYPE:` (`zeros:N`, `random:N`, `iota:N`, `uninit:N`,
//! `[v,...]`, `file:PATH` for a `.npy` or raw file) or a JSON array of numbers. An `uninit`
//! buffer is an output: a word of it no pass wrote by the end is `unwritten-output`. `bind`
//! keys are `I` (group 0) or `G:I`; `workgroups` is `[X]`, `[X, Y]`, `[X, Y, Z]` or an indirect
//! dispatch's buffer and byte offset; `overrides` take numbers or booleans; `immediates` names
//! the buffer whose first bytes are the pass's immediate data (a `var<immediate>`, at most 256
//! bytes). `seed` (a number) on a buffer changes its random contents. A texture is a buffer
//! with `format` (a texel format) and `size` (`[W]`, `[W, H]` or `[W, H, D]`) in place of
//! `type`, its `init` channel words in the format's channel type (`zeros`, `random`, `iota`,
//! `uninit` need no count; a `.npy` file is shaped `[D,] H, W, C`), bound to texture
//! variables. Unknown keys are errors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Deserialize;

use crate::backend::SimSettings;
use crate::check_cmd::{
    exit, finding_json, parse_override_value, print_stripped, resolve_file, resolve_texture_file,
    schedule_names, stripped_json, summary, usage, words_json, words_text, SimOpts,
};
use wgsimd_sim::check::{parse_slot, parse_texture_init, ElemType, InitSpec};
use wgsimd_sim::pipeline::{self, BindingSpec, BufferSpec, Grid, PassSpec, PipelineRequest};
use wgsimd_sim::texture::{TexelFormat, TextureDesc};

/// Arguments of `wgsimd pipeline`.
#[derive(clap::Args, Debug)]
pub struct PipelineArgs {
    /// The pipeline file (JSON).
    pub file: PathBuf,
    /// Print `buffer NAME: v0 v1 ...` after the run for these buffers too (the file's `dump`
    /// list is printed as well). Repeatable.
    #[arg(long)]
    pub dump: Vec<String>,
    #[command(flatten)]
    pub opts: SimOpts,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    buffers: BTreeMap<String, BufferFile>,
    passes: Vec<PassFile>,
    #[serde(default)]
    dump: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BufferFile {
    /// A buffer's element type (absent for a texture, whose format gives it).
    #[serde(rename = "type")]
    ty: Option<String>,
    /// A texture's texel format.
    format: Option<String>,
    /// A texture's size: `[W]`, `[W, H]` or `[W, H, D]`.
    size: Option<Vec<u32>>,
    /// A string or an array of numbers (read by [`init_spec`], which says what is wrong).
    init: serde_json::Value,
    seed: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PassFile {
    name: Option<String>,
    shader: PathBuf,
    entry: String,
    /// An array of counts or an indirect dispatch (read by [`grid`]).
    workgroups: serde_json::Value,
    #[serde(default)]
    overrides: BTreeMap<String, serde_json::Value>,
    /// Buffer names or ranges (read by [`bound_buffer`]).
    #[serde(default)]
    bind: BTreeMap<String, serde_json::Value>,
    /// The buffer whose first bytes are the pass's immediate data (`var<immediate>`).
    immediates: Option<String>,
}

/// A texture's shape from its `format` and `size`.
fn texture_desc(format: &str, size: &[u32]) -> Result<TextureDesc, String> {
    let format = TexelFormat::parse(format)?;
    let text: Vec<String> = size.iter().map(u32::to_string).collect();
    if !(1..=3).contains(&size.len()) {
        return Err("`size` is not [W], [W, H] or [W, H, D]".into());
    }
    TextureDesc::parse(format, &text.join("x"))
}

/// A buffer's `init`: `--bind`'s INIT text or an array of numbers of type `ty`; for a texture
/// of `words` channel words, also `zeros`, `random`, `iota` or `uninit` without a count.
fn init_spec(v: &serde_json::Value, ty: ElemType, words: Option<u64>) -> Result<InitSpec, String> {
    match v {
        serde_json::Value::String(t) => match words {
            Some(words) => parse_texture_init(ty, t, words),
            None => InitSpec::parse(ty, t),
        },
        serde_json::Value::Array(a) => {
            let words: Option<Vec<u32>> = a
                .iter()
                .map(|n| n.as_number().and_then(|n| ty.parse_value(&n.to_string())))
                .collect();
            let words = words.ok_or_else(|| format!("a value is not a {}", ty.name()))?;
            if words.is_empty() {
                return Err("no values".into());
            }
            Ok(InitSpec::Values(words))
        }
        _ => Err(
            "`init` is neither a string (zeros:N, random:N, iota:N, uninit:N, [v,...], \
                  file:PATH) nor an array of numbers"
                .into(),
        ),
    }
}

/// A pass's `workgroups`: `[X]`, `[X, Y]`, `[X, Y, Z]` or `{"indirect": BUFFER, "offset": N}`.
fn grid(v: &serde_json::Value) -> Result<Grid, String> {
    let expected = "`workgroups` is not [X], [X, Y] or [X, Y, Z] of unsigned 32-bit counts, nor \
                    {\"indirect\": BUFFER, \"offset\": BYTES}";
    match v {
        serde_json::Value::Array(a) if (1..=3).contains(&a.len()) => {
            let mut c = [1; 3];
            for (c, n) in c.iter_mut().zip(a) {
                *c = n
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or(expected)?;
            }
            Ok(Grid::Direct(c))
        }
        serde_json::Value::Array(_) => Err("`workgroups` needs 1 to 3 counts".into()),
        serde_json::Value::Object(o) => {
            if let Some(k) = o
                .keys()
                .find(|k| !matches!(k.as_str(), "indirect" | "offset"))
            {
                return Err(format!(
                    "`workgroups`: unknown field `{k}` (indirect, offset)"
                ));
            }
            let buffer = o.get("indirect").and_then(|b| b.as_str()).ok_or(expected)?;
            let offset = match o.get("offset") {
                None => 0,
                Some(n) => n.as_u64().ok_or(expected)?,
            };
            Ok(Grid::Indirect {
                buffer: buffer.to_string(),
                offset,
            })
        }
        _ => Err(expected.into()),
    }
}

/// A binding's buffer: its name, or `{"buffer": NAME, "offset": BYTES, "size": BYTES}`.
fn bound_buffer(v: &serde_json::Value) -> Result<(String, u64, Option<u64>), String> {
    let expected = "not a buffer name nor {\"buffer\": NAME, \"offset\": BYTES, \"size\": BYTES}";
    match v {
        serde_json::Value::String(name) => Ok((name.clone(), 0, None)),
        serde_json::Value::Object(o) => {
            if let Some(k) = o
                .keys()
                .find(|k| !matches!(k.as_str(), "buffer" | "offset" | "size"))
            {
                return Err(format!("unknown field `{k}` (buffer, offset, size)"));
            }
            let name = o.get("buffer").and_then(|b| b.as_str()).ok_or(expected)?;
            let number = |key: &str| -> Result<Option<u64>, String> {
                match o.get(key) {
                    None | Some(serde_json::Value::Null) => Ok(None),
                    Some(n) => n
                        .as_u64()
                        .map(Some)
                        .ok_or_else(|| format!("`{key}` is not an unsigned number of bytes")),
                }
            };
            Ok((
                name.to_string(),
                number("offset")?.unwrap_or(0),
                number("size")?,
            ))
        }
        _ => Err(expected.into()),
    }
}

/// A seed from the buffer's name, so one buffer's random contents do not change when others
/// are added (FNV-1a).
fn name_seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Reads the file into a request and its `dump` list; every error is a message for exit 2.
fn load(
    path: &Path,
    config: wgsimd::sim::SimConfig,
) -> Result<(PipelineRequest, Vec<String>), String> {
    let shown = path.display();
    // read no further than 64 MiB: a device or a pipe has no length to check beforehand
    const MAX: u64 = 64 << 20;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, MAX + 1), &mut bytes))
        .map_err(|e| format!("{shown}: {e}"))?;
    if bytes.len() as u64 > MAX {
        return Err(format!(
            "{shown}: more than {MAX} bytes is too large for a pipeline file"
        ));
    }
    let text = String::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8 text"))?;
    let spec: FileSpec = serde_json::from_str(&text).map_err(|e| format!("{shown}: {e}"))?;
    let base = path.parent().unwrap_or(Path::new(""));
    let max_bytes = config.caps().map_err(|e| e.to_string())?.max_buffer;
    let mut buffers = Vec::new();
    for (name, b) in &spec.buffers {
        let what = format!("buffer `{name}`");
        let (ty, texture, init) = match (&b.ty, &b.format, &b.size) {
            (None, Some(format), Some(size)) => {
                let what = format!("texture `{name}`");
                let desc = texture_desc(format, size).map_err(|e| format!("{what}: {e}"))?;
                let ty = ElemType::of_texels(desc.format);
                let init = init_spec(&b.init, ty, Some(desc.words()))
                    .map_err(|e| format!("{what}: {e}"))?;
                let init = resolve_texture_file(init, &desc, base, max_bytes, &what)?;
                (ty, Some(desc), init)
            }
            (Some(ty), None, None) => {
                let ty: ElemType = ty.parse().map_err(|e| format!("{what}: {e}"))?;
                let init = init_spec(&b.init, ty, None).map_err(|e| format!("{what}: {e}"))?;
                (ty, None, resolve_file(init, ty, base, max_bytes, &what)?)
            }
            _ => {
                return Err(format!(
                    "{what}: give `type` (a buffer) or `format` and `size` (a texture)"
                ))
            }
        };
        buffers.push(BufferSpec {
            name: name.clone(),
            ty,
            init,
            seed: b.seed.unwrap_or_else(|| name_seed(name)),
            texture,
        });
    }
    let mut passes = Vec::new();
    let mut sources: BTreeMap<PathBuf, String> = BTreeMap::new();
    for (i, p) in spec.passes.iter().enumerate() {
        let label = p.name.clone().unwrap_or_else(|| p.entry.clone());
        let what = format!("pass {i} (`{label}`)");
        let shader = base.join(&p.shader);
        let source = match sources.get(&shader) {
            Some(s) => s.clone(),
            None => {
                let s = wgsimd::source::read(&shader).map_err(|e| format!("{what}: {e}"))?;
                sources.insert(shader.clone(), s.clone());
                s
            }
        };
        let workgroups = grid(&p.workgroups).map_err(|e| format!("{what}: {e}"))?;
        let mut overrides = Vec::new();
        for (name, v) in &p.overrides {
            let value = match v {
                serde_json::Value::Bool(b) => Some(*b as u8 as f64),
                serde_json::Value::Number(n) => parse_override_value(&n.to_string()),
                _ => None,
            }
            .ok_or_else(|| format!("{what}: override `{name}` is not a number or boolean"))?;
            overrides.push((name.clone(), value));
        }
        let mut bindings = Vec::new();
        for (slot, b) in &p.bind {
            let (group, binding) = parse_slot(slot)
                .ok_or_else(|| format!("{what}: binding {slot:?} is not I or G:I"))?;
            let (buffer, offset, size) =
                bound_buffer(b).map_err(|e| format!("{what}: binding {slot:?}: {e}"))?;
            bindings.push(BindingSpec {
                group,
                binding,
                buffer,
                offset,
                size,
            });
        }
        passes.push(PassSpec {
            label,
            file: shader.display().to_string(),
            source,
            entry: p.entry.clone(),
            workgroups,
            overrides,
            bindings,
            immediates: p.immediates.clone(),
        });
    }
    if passes.is_empty() {
        return Err(format!("{shown}: no passes"));
    }
    Ok((
        PipelineRequest {
            buffers,
            passes,
            config,
        },
        spec.dump,
    ))
}

/// Runs the command; `sim` carries the global `--subgroup-size` and `--shuffle-lanes`.
pub fn run(args: &PipelineArgs, sim: &SimSettings) -> anyhow::Result<ExitCode> {
    let usage = |msg: String| Ok(usage("pipeline", msg));
    let config = match args.opts.config(sim) {
        Ok(c) => c,
        Err(e) => return usage(e),
    };
    let subgroup_size = config.subgroup_size;
    let schedules = schedule_names(&config);
    let (req, mut dumps) = match load(&args.file, config) {
        Ok(r) => r,
        Err(e) => return usage(e),
    };
    for d in &args.dump {
        if !dumps.contains(d) {
            dumps.push(d.clone());
        }
    }
    for d in &dumps {
        if !req.buffers.iter().any(|b| b.name == *d) {
            return usage(format!("dump: no buffer `{d}`"));
        }
    }
    let report = match pipeline::run(&req) {
        Ok(r) => r,
        Err(e) => return usage(e.to_string()),
    };
    let contents = |name: &str| {
        req.buffers
            .iter()
            .position(|b| b.name == name)
            .and_then(|i| report.buffers.get(i))
    };
    let of_pass = |i: Option<usize>| report.findings.iter().filter(move |f| f.pass == i);
    let notes_of = |i: Option<usize>| report.notes.iter().filter(move |f| f.pass == i);
    if args.opts.json {
        let passes: Vec<serde_json::Value> = req
            .passes
            .iter()
            .enumerate()
            .map(|(i, p)| {
                serde_json::json!({
                    "index": i,
                    "name": p.label,
                    "shader": p.file,
                    "entry": p.entry,
                    "findings": of_pass(Some(i)).map(finding_json).collect::<Vec<_>>(),
                    "filtered": notes_of(Some(i)).map(finding_json).collect::<Vec<_>>(),
                })
            })
            .collect();
        let dumped: serde_json::Map<String, serde_json::Value> = dumps
            .iter()
            .filter_map(|d| contents(d).map(|(ty, w)| (d.clone(), words_json(*ty, w))))
            .collect();
        let v = serde_json::json!({
            "file": args.file.display().to_string(),
            "subgroup_size": subgroup_size,
            "schedules": schedules,
            "clean": report.findings.is_empty(),
            "passes": passes,
            "findings": of_pass(None).map(finding_json).collect::<Vec<_>>(),
            "dumps": dumped,
            "stripped": report.stripped.iter().map(|(f, s)| stripped_json(f, s)).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        for (file, s) in &report.stripped {
            print_stripped(file, std::slice::from_ref(s));
        }
        for d in &dumps {
            if let Some((ty, words)) = contents(d) {
                println!("buffer {d}: {}", words_text(*ty, words));
            }
        }
        for (i, p) in req.passes.iter().enumerate() {
            let n = of_pass(Some(i)).count();
            let mut state = if n == 0 {
                "clean".to_string()
            } else {
                format!("{n} finding(s)")
            };
            let m = notes_of(Some(i)).count();
            if m > 0 {
                state.push_str(&format!(", {m} note(s)"));
            }
            println!(
                "== pass {i} `{}` ({}, entry {}): {state}",
                p.label, p.file, p.entry
            );
            for f in of_pass(Some(i)) {
                println!("{f}");
            }
            for f in notes_of(Some(i)) {
                println!("note: {f}");
            }
        }
        let whole = of_pass(None).count();
        if whole > 0 {
            println!("== the whole run: {whole} finding(s)");
            for f in of_pass(None) {
                println!("{f}");
            }
        }
        summary(report.findings.len(), report.notes.len(), &schedules);
    }
    Ok(exit(report.findings.len()))
}
