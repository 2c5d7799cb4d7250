//! `wgsimd check FILE.wgsl --entry NAME --workgroups X[,Y,Z] --bind [G:]I=TYPE:INIT ...
//! [--texture [G:]I=FORMAT:SIZE:INIT ...] [--override NAME=VALUE ...] [--dump [G:]I ...]` with the simulator options of [`SimOpts`]
//! (and the global `--subgroup-size N`, `--shuffle-lanes SEED`, `--schedules N|LIST`): runs one
//! entry point on the simulator, under every schedule explored, and prints every finding with
//! its kind name. Exit 0 clean, 1 findings, 2 usage,
//! input, parse or validation error (naga's rendered message).
//!
//! Also what `wgsimd pipeline` and `wgsimd replay` share: the simulator options, `.npy` and raw
//! file contents for buffers, override values, and the text and JSON forms of findings.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::backend::SimSettings;
use wgsimd::directives::Stripped;
use wgsimd::finding::{Finding, Party, SourceLoc};
use wgsimd::sim::SimConfig;
use wgsimd_sim::check::{
    check, parse_slot, parse_typed_init, slot_name, BindSpec, CheckRequest, ElemType, InitSpec,
    MAX_ELEMENTS,
};
use wgsimd_sim::texture::{TextureDesc, TextureDim};

/// Arguments of `wgsimd check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The WGSL file.
    pub file: PathBuf,
    /// Entry point.
    #[arg(long)]
    pub entry: String,
    /// Workgroup counts: X or X,Y or X,Y,Z.
    #[arg(long)]
    pub workgroups: String,
    /// A binding: `[G:]I=TYPE:INIT` (`@group(G) @binding(I)`, group 0 without `G:`), TYPE
    /// u32|i32|f32|f16 (f16 two bytes an element, as `array<f16>` holds them), INIT zeros:N |
    /// random:N | iota:N | uninit:N | [v,v,...] | file:PATH (a .npy file of that dtype, or raw
    /// little-endian 4-byte words). Repeatable.
    #[arg(long = "bind")]
    pub binds: Vec<String>,
    /// A texture: `[G:]I=FORMAT:SIZE:INIT`, FORMAT a texel format (rgba8unorm, r32float, ...),
    /// SIZE W | WxH | WxHxD (1D, 2D, 3D), INIT as a binding's in the channels' type (f32 for
    /// float, unorm and snorm formats, u32, i32), zeros | random | iota | uninit without a count,
    /// or a .npy file shaped `[D,] H, W, C`. Repeatable.
    #[arg(long = "texture")]
    pub textures: Vec<String>,
    /// A pipeline-overridable constant: NAME=VALUE (by name or @id; VALUE a number, true or
    /// false). Repeatable.
    #[arg(long = "override")]
    pub overrides: Vec<String>,
    /// The immediate data of a `var<immediate>` (what wgpu's `set_immediates` gives):
    /// `TYPE:INIT` as a binding's, its first bytes read, at most 256.
    #[arg(long)]
    pub immediates: Option<String>,
    /// Print `binding [G:]I: v0 v1 ...` after the run. Repeatable.
    #[arg(long)]
    pub dump: Vec<String>,
    #[command(flatten)]
    pub opts: SimOpts,
}

/// The simulator options of `check`, `pipeline` and `replay`.
#[derive(clap::Args, Debug)]
pub struct SimOpts {
    /// Machine-readable output (one JSON object on stdout).
    #[arg(long)]
    pub json: bool,
    /// Step budget per workgroup (statements and loop back-edges; per thread of subgroups under
    /// the interleaving schedules).
    #[arg(long)]
    pub max_steps: Option<u64>,
    /// Step budget of a whole run (every workgroup of every pass, under one schedule; default
    /// 1000000000): running out stops the run with a `step-limit` finding.
    #[arg(long)]
    pub max_run_steps: Option<u64>,
    /// Memory budget of a run, in bytes or with a suffix K, M, G (binary: 1K = 1024; default
    /// 4G): buffers, the copies the schedules keep, the checkers' records and the
    /// interpreter's memories. A run that needs more is an error before it starts.
    #[arg(long)]
    pub memory_budget: Option<String>,
    /// Workgroup order (the order workgroups start in, under every schedule): in-order
    /// (default), shuffled:SEED, or unfair:I[,J...] (those linear workgroup indices start only
    /// after all others), to expose forward-progress assumptions. How subgroups and resident
    /// workgroups interleave is the global `--schedules`.
    #[arg(long)]
    pub schedule: Option<String>,
    /// Also report `discarded-read`: an out-of-bounds or uninitialized read whose value a
    /// `select` throws away in that lane (harmless in WGSL, a fault in a CUDA or Metal port).
    #[arg(long)]
    pub discarded_read: bool,
    /// Report reads of workgroup memory no invocation wrote (WGSL zero-fills it; Metal and CUDA
    /// leave it undefined, so a port must not rely on it).
    #[arg(long)]
    pub uninit_workgroup: bool,
    /// Report `non-finite`: a float operation that gave NaN or an infinity from finite
    /// operands (WGSL lets implementations assume none occur, and optimisers do).
    #[arg(long)]
    pub non_finite: bool,
}

impl SimOpts {
    /// The simulator settings: the global ones plus these. `loop-limit` is always reported (a
    /// kernel checked on its own may run in lavapipe's CI).
    pub fn config(&self, sim: &SimSettings) -> Result<SimConfig, String> {
        let mut config = sim.config().map_err(|e| e.to_string())?;
        config.loop_limit = true;
        config.checks.discarded_read = self.discarded_read;
        config.checks.uninit_workgroup = self.uninit_workgroup;
        config.checks.non_finite = self.non_finite;
        if let Some(m) = self.max_steps {
            config.max_steps = m;
        }
        if let Some(m) = self.max_run_steps {
            config.max_run_steps = m;
        }
        if let Some(m) = &self.memory_budget {
            config.memory_budget = parse_bytes(m).ok_or_else(|| {
                format!("--memory-budget {m:?}: expected a number of bytes, with K, M or G")
            })?;
        }
        if let Some(s) = &self.schedule {
            config.scheduler = s.parse().map_err(|e: wgsimd::Error| e.to_string())?;
        }
        Ok(config)
    }
}

/// `N`, `NK`, `NM` or `NG` (also `KiB`, `MiB`, `GiB`; binary multiples) as bytes.
pub fn parse_bytes(s: &str) -> Option<u64> {
    let t = s.trim();
    let t = t.strip_suffix("iB").unwrap_or(t);
    let (digits, shift) = match t.char_indices().last()? {
        (i, 'K' | 'k') => (&t[..i], 10),
        (i, 'M' | 'm') => (&t[..i], 20),
        (i, 'G' | 'g') => (&t[..i], 30),
        _ => (t, 0),
    };
    let n: u64 = digits.trim().parse().ok()?;
    n.checked_mul(1u64 << shift)
}

/// Prints `wgsimd CMD: msg` and gives exit status 2.
pub fn usage(cmd: &str, msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("wgsimd {cmd}: {msg}");
    ExitCode::from(2)
}

/// `X`, `X,Y` or `X,Y,Z` unsigned integers.
pub fn parse_workgroups(s: &str) -> Option<[u32; 3]> {
    let v: Option<Vec<u32>> = s.split(',').map(|x| x.trim().parse().ok()).collect();
    let v = v?;
    if v.is_empty() || v.len() > 3 {
        return None;
    }
    let mut out = [1; 3];
    out[..v.len()].copy_from_slice(&v);
    Some(out)
}

/// An override value: a number, `true` (1) or `false` (0), as WebGPU's pipeline constants.
pub fn parse_override_value(s: &str) -> Option<f64> {
    match s.trim() {
        "true" => Some(1.0),
        "false" => Some(0.0),
        t => t.parse::<f64>().ok().filter(|v| v.is_finite()),
    }
}

/// `NAME=VALUE`.
pub fn parse_override(s: &str) -> Result<(String, f64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("--override {s:?}: expected NAME=VALUE"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("--override {s:?}: no name"));
    }
    let value = parse_override_value(value).ok_or_else(|| {
        format!("--override {s:?}: the value is not a finite number, true or false")
    })?;
    Ok((name.to_string(), value))
}

/// Resolves `file:PATH` contents ending in `.npy` (relative paths from `base`): the array's
/// elements in C order, its dtype that of `ty`; the file's size is checked against
/// `max_bytes` before it is read. Raw files are left to the library, which reads them when
/// the buffer is made (paths made relative to `base` here).
pub fn resolve_file(
    init: InitSpec,
    ty: ElemType,
    base: &Path,
    max_bytes: u64,
    what: &str,
) -> Result<InitSpec, String> {
    Ok(resolve_shaped(init, ty, base, max_bytes, what)?.0)
}

/// [`resolve_file`], with a `.npy` file's shape.
fn resolve_shaped(
    init: InitSpec,
    ty: ElemType,
    base: &Path,
    max_bytes: u64,
    what: &str,
) -> Result<(InitSpec, Option<Vec<u64>>), String> {
    let InitSpec::File(path) = init else {
        return Ok((init, None));
    };
    let path = base.join(path);
    let is_npy = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    if !is_npy {
        return Ok((InitSpec::File(path), None));
    }
    let shown = path.display();
    let max_bytes = max_bytes.min(MAX_ELEMENTS * 4);
    let len = std::fs::metadata(&path)
        .map_err(|e| format!("{what}: {shown}: {e}"))?
        .len();
    // a header is at most 1 MiB (the .npy reader checks it); the data must fit the device
    if len > max_bytes.saturating_add(1 << 20) {
        return Err(format!(
            "{what}: {shown} holds {len} bytes; the simulated device's largest buffer is \
             {max_bytes} bytes"
        ));
    }
    let (shape, words) = read_npy(&path, ty, max_bytes, what)?;
    Ok((InitSpec::Values(words), Some(shape)))
}

/// The shape and elements (in C order) of the `.npy` file `path`, its dtype that of `ty` and
/// its data at most `max_bytes` (checked from the header before the data is read).
fn read_npy(
    path: &Path,
    ty: ElemType,
    max_bytes: u64,
    what: &str,
) -> Result<(Vec<u64>, Vec<u32>), String> {
    let shown = path.display();
    let npy = crate::npy::read_limited(path, max_bytes).map_err(|e| format!("{what}: {e:#}"))?;
    let words: Vec<u32> = match (&npy.data, ty) {
        (crate::npy::Array::U32(v), ElemType::U32) => v.clone(),
        (crate::npy::Array::I32(v), ElemType::I32) => v.iter().map(|&x| x as u32).collect(),
        (crate::npy::Array::F32(v), ElemType::F32) => v.iter().map(|x| x.to_bits()).collect(),
        (crate::npy::Array::F16(v), ElemType::F16) => v.iter().map(|&x| x as u32).collect(),
        (data, _) => {
            return Err(format!(
                "{what}: {shown} holds {}, not {} ({})",
                data.dtype(),
                ty.name(),
                match ty {
                    ElemType::U32 => "uint32",
                    ElemType::I32 => "int32",
                    ElemType::F32 => "float32",
                    ElemType::F16 => "float16",
                }
            ))
        }
    };
    if words.is_empty() {
        return Err(format!("{what}: {shown} holds no elements"));
    }
    if let Some(why) = ty.odd(words.len() as u64) {
        return Err(format!("{what}: {shown}: {why}"));
    }
    if ty.size_of(words.len() as u64).is_none_or(|b| b > max_bytes) {
        return Err(format!(
            "{what}: {shown} holds {} elements; the simulated device's largest buffer is \
             {max_bytes} bytes",
            words.len()
        ));
    }
    Ok((npy.shape, words))
}

/// [`resolve_file`] for a texture of `desc`: a `.npy` file's shape must be the texture's,
/// `[D,] H, W, C` (`[H, W, C]` for 2D, `[W, C]` for 1D; `C` may be left out of a one-channel
/// format's), its dtype the type of the format's channels.
pub fn resolve_texture_file(
    init: InitSpec,
    desc: &TextureDesc,
    base: &Path,
    max_bytes: u64,
    what: &str,
) -> Result<InitSpec, String> {
    let ty = ElemType::of_texels(desc.format);
    let shown = match &init {
        InitSpec::File(path) => base.join(path).display().to_string(),
        _ => String::new(),
    };
    let (init, shape) = resolve_shaped(init, ty, base, max_bytes, what)?;
    let Some(shape) = shape else {
        return Ok(init);
    };
    let [w, h, d] = desc.size.map(u64::from);
    let c = desc.format.channels() as u64;
    let mut want = match desc.dim {
        TextureDim::D1 => vec![w, c],
        TextureDim::D2 => vec![h, w, c],
        TextureDim::D3 => vec![d, h, w, c],
    };
    if shape != want && !(c == 1 && shape == want[..want.len() - 1]) {
        if c == 1 {
            want.pop();
        }
        return Err(format!(
            "{what}: {shown} has shape {shape:?}; a {} {} texture of {} is {want:?}",
            desc.format,
            desc.dim.name(),
            desc.size_text()
        ));
    }
    Ok(init)
}

/// Runs the command; `sim` carries the global `--subgroup-size` and `--shuffle-lanes`.
pub fn run(args: &CheckArgs, sim: &SimSettings) -> anyhow::Result<ExitCode> {
    let usage = |msg: String| Ok(usage("check", msg));
    let source = match wgsimd::source::read(&args.file) {
        Ok(s) => s,
        Err(e) => return usage(e.to_string()),
    };
    let Some(workgroups) = parse_workgroups(&args.workgroups) else {
        return usage(format!(
            "--workgroups {:?}: expected X[,Y,Z] of unsigned integers",
            args.workgroups
        ));
    };
    let config = match args.opts.config(sim) {
        Ok(c) => c,
        Err(e) => return usage(e),
    };
    let max_bytes = match config.caps() {
        Ok(c) => c.max_buffer,
        Err(e) => return usage(e.to_string()),
    };
    let mut binds = Vec::new();
    for b in &args.binds {
        let mut spec = match b.parse::<BindSpec>() {
            Ok(s) => s,
            Err(e) => return usage(e.to_string()),
        };
        let what = format!("--bind {b:?}");
        spec.init = match resolve_file(spec.init, spec.ty, Path::new(""), max_bytes, &what) {
            Ok(i) => i,
            Err(e) => return usage(e),
        };
        binds.push(spec);
    }
    for t in &args.textures {
        let mut spec = match BindSpec::parse_texture(t) {
            Ok(s) => s,
            Err(e) => return usage(e.to_string()),
        };
        let what = format!("--texture {t:?}");
        let desc = spec.texture.expect("a texture spec");
        spec.init = match resolve_texture_file(spec.init, &desc, Path::new(""), max_bytes, &what) {
            Ok(i) => i,
            Err(e) => return usage(e),
        };
        binds.push(spec);
    }
    let immediates = match args.immediates.as_deref().map(|s| {
        let what = format!("--immediates {s:?}");
        let (ty, init) = parse_typed_init(s)
            .map_err(|why| format!("{what}: {why} (expected TYPE:INIT, TYPE u32|i32|f32|f16)"))?;
        let max = wgsimd_sim::MAX_IMMEDIATE_BYTES;
        Ok::<_, String>((ty, resolve_file(init, ty, Path::new(""), max, &what)?))
    }) {
        None => None,
        Some(Ok(i)) => Some(i),
        Some(Err(e)) => return usage(e),
    };
    let mut overrides = Vec::new();
    for o in &args.overrides {
        match parse_override(o) {
            Ok(kv) => overrides.push(kv),
            Err(e) => return usage(e),
        }
    }
    let mut dumps = Vec::new();
    for d in &args.dump {
        let Some(slot) = parse_slot(d) else {
            return usage(format!("--dump {d:?}: expected I or G:I"));
        };
        if !binds.iter().any(|b| (b.group, b.binding) == slot) {
            return usage(format!(
                "--dump {d}: no --bind {d}=... or --texture {d}=..."
            ));
        }
        dumps.push(slot);
    }
    let req = CheckRequest {
        name: args.file.display().to_string(),
        source,
        entry: args.entry.clone(),
        workgroups,
        binds,
        overrides,
        immediates,
        config,
    };
    let report = match check(&req) {
        Ok(r) => r,
        Err(e) => return usage(e.to_string()),
    };
    let dumped = dumps.iter().filter_map(|&(g, i)| {
        report
            .binding(g, i)
            .map(|(ty, words)| (slot_name(g, i), *ty, words))
    });
    let schedules = schedule_names(&req.config);
    let note = one_subgroup_note(
        report.invocations,
        req.config.subgroup_size,
        schedules.len(),
    );
    if args.opts.json {
        let dumps: serde_json::Map<String, serde_json::Value> = dumped
            .map(|(name, ty, words)| (name, words_json(ty, words)))
            .collect();
        let v = serde_json::json!({
            "file": req.name,
            "entry": req.entry,
            "subgroup_size": req.config.subgroup_size,
            "schedules": schedules,
            "clean": report.findings.is_empty(),
            "notes": note.iter().collect::<Vec<_>>(),
            "findings": report.findings.iter().map(finding_json).collect::<Vec<_>>(),
            "filtered": report.notes.iter().map(finding_json).collect::<Vec<_>>(),
            "dumps": dumps,
            "stripped": report.stripped.iter().map(|s| stripped_json(&req.name, s)).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print_stripped(&req.name, &report.stripped);
        for (name, ty, words) in dumped {
            println!("binding {name}: {}", words_text(ty, words));
        }
        for f in &report.findings {
            println!("{f}");
        }
        for f in &report.notes {
            println!("note: {f}");
        }
        if let Some(n) = &note {
            eprintln!("note: {n}");
        }
        summary(report.findings.len(), report.notes.len(), &schedules);
    }
    Ok(exit(report.findings.len()))
}

/// What the schedules cannot show where a workgroup of `invocations` fits in one subgroup of
/// `subgroup_size` lanes: the simulator steps a subgroup's lanes together under every schedule,
/// so no schedule reorders two invocations of such a workgroup (a missing barrier between
/// atomics stays hidden), though WGSL lets a device run them as several subgroups.
pub fn one_subgroup_note(invocations: u32, subgroup_size: u32, schedules: usize) -> Option<String> {
    (invocations > 1 && invocations <= subgroup_size && schedules > 1).then(|| {
        format!(
            "the workgroup's {invocations} invocations are one subgroup of {subgroup_size} \
             lanes, which every schedule runs in lockstep: an ordering bug between them (a \
             missing barrier) cannot show; `--subgroup-size 4` runs them as {} subgroups",
            invocations.div_ceil(4)
        )
    })
}

/// 0 without findings, else 1.
pub fn exit(findings: usize) -> ExitCode {
    if findings == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `no findings` or `N finding(s)` on stderr, with the notes where there are any and the
/// schedules run.
pub fn summary(findings: usize, notes: usize, schedules: &[String]) {
    let under = schedules.join(", ");
    let found = if findings == 0 {
        "no findings".to_string()
    } else {
        format!("{findings} finding(s)")
    };
    let noted = if notes == 0 {
        String::new()
    } else {
        format!(", {notes} note(s) (turned down by the kernel's diagnostic filters)")
    };
    eprintln!("{found}{noted} (schedules: {under})");
}

/// The elements of the words as text, space-separated (two f16 a word, low half first).
pub fn words_text(ty: ElemType, words: &[u32]) -> String {
    let vals: Vec<String> = ty
        .elements_of(words)
        .iter()
        .map(|&w| ty.format(w))
        .collect();
    vals.join(" ")
}

/// The elements of the words as a JSON array of numbers (non-finite floats as strings).
pub fn words_json(ty: ElemType, words: &[u32]) -> serde_json::Value {
    ty.elements_of(words)
        .iter()
        .map(|&w| match (ty, ty.float(w)) {
            (_, Some(v)) => serde_json::Number::from_f64(v as f64)
                .map(serde_json::Value::Number)
                .unwrap_or_else(|| ty.format(w).into()),
            (ElemType::I32, None) => (w as i32).into(),
            _ => w.into(),
        })
        .collect::<Vec<_>>()
        .into()
}

/// A note on stderr for each removal from `file` before parsing.
pub fn print_stripped(file: &str, stripped: &[Stripped]) {
    for s in stripped {
        eprintln!("note: {file}:{s}");
    }
}

/// A removal as JSON.
pub fn stripped_json(file: &str, s: &Stripped) -> serde_json::Value {
    serde_json::json!({
        "file": file,
        "line": s.line,
        "col": s.col,
        "text": s.text,
        "reason": s.reason,
    })
}

/// The schedules `config` runs under, by name (lockstep where it names none).
pub fn schedule_names(config: &SimConfig) -> Vec<String> {
    if config.schedules.is_empty() {
        return vec![wgsimd::sim::Schedule::Lockstep.to_string()];
    }
    config.schedules.iter().map(|s| s.to_string()).collect()
}

fn loc_json(l: &Option<SourceLoc>) -> serde_json::Value {
    match l {
        Some(l) => serde_json::json!({"file": l.file, "line": l.line, "col": l.col}),
        None => serde_json::Value::Null,
    }
}

fn party_json(p: &Party) -> serde_json::Value {
    serde_json::json!({
        "workgroup": p.workgroup,
        "local_index": p.local_index,
        "subgroup": p.subgroup,
        "lane": p.lane,
        "loc": loc_json(&p.loc),
    })
}

/// A finding as JSON (`invocations`: how many it happened in, `null` for one about a buffer).
pub fn finding_json(f: &Finding) -> serde_json::Value {
    serde_json::json!({
        "kind": f.kind.name(),
        "message": f.message,
        "loc": loc_json(&f.loc),
        "parties": f.parties.iter().map(party_json).collect::<Vec<_>>(),
        "invocations": f.invocations,
    })
}
