//! The tests: generated programs and the kept regressions on the GPU and the simulator,
//! proof that a wrong simulator word is reported, and the generator's own checks.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use wgsimd::finding::FindingKind;
use wgsimd::sim::SimConfig;
use wgsimd::{Caps, Context};

use crate::exec::{self, Cmp, Mismatch, Reordered, Shape};
use crate::generate::{self, Features, Program};
use crate::harness::{On, Test};
use crate::shrink;
use crate::targets::Target;

/// Programs in the generated test unless `WGSIMD_CONFORMANCE_PROGRAMS` says otherwise: about
/// 40 ms of CPU each, nearly all lavapipe compiling them one pipeline at a time (3000 took
/// 117 s of test time in a debug build on 2 cores otherwise nearly idle, 141 s at a load
/// average of 6.5 from other builds; 2026-11-27, Mesa's shader cache off).
const DEFAULT_PROGRAMS: u64 = 3000;
/// Its base seed unless `WGSIMD_CONFORMANCE_SEED` says otherwise.
const DEFAULT_SEED: u64 = 0xC0F0_2026;
/// Programs per module (one pipeline each). lavapipe's LLVM compile, nearly all of the time,
/// grows faster than the module: 240 programs took 10 s in modules of 1 to 6, 16 s in modules
/// of 12 and 25 s in modules of 25 (2 loaded cores, 2026-11-27, Mesa's shader cache off).
const PER_MODULE: u64 = 4;
/// The generated test's trials (run in parallel by the harness).
const CHUNKS: u64 = 4;

pub fn tests() -> Vec<Test> {
    vec![
        Test::new("conformance::generated::0", On::Gpu, |t| generated(t, 0)),
        Test::new("conformance::generated::1", On::Gpu, |t| generated(t, 1)),
        Test::new("conformance::generated::2", On::Gpu, |t| generated(t, 2)),
        Test::new("conformance::generated::3", On::Gpu, |t| generated(t, 3)),
        Test::new("conformance::regressions", On::Gpu, regressions),
        Test::new(
            "conformance::a_wrong_simulator_word_is_reported",
            On::Gpu,
            wrong_word_reported,
        ),
        Test::new(
            "conformance::generator_is_deterministic",
            On::Once,
            generator_is_deterministic,
        ),
        Test::new(
            "conformance::generated_programs_are_well_defined",
            On::Once,
            well_defined_on_simulator,
        ),
        Test::new("conformance::comparisons", On::Once, comparisons),
        Test::new("conformance::shrinker", On::Once, shrinker),
    ]
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

/// The GPU and a simulator of it: the same subgroup size, f16 where it has it.
pub struct Pair {
    pub gpu: Context,
    pub sim: Context,
    pub feat: Features,
}

impl Pair {
    pub fn new(gpu: &Context) -> Pair {
        let caps = gpu.caps().clone();
        let subgroups = caps.subgroups && caps.subgroup_min == caps.subgroup_max;
        Pair {
            gpu: gpu.clone(),
            sim: simulator(&caps, subgroups),
            feat: Features {
                f16: caps.f16,
                subgroups,
                // WGSL allows 2.5 ulp for f32 `x / y`: lavapipe (a CPU adapter) rounds
                // correctly, the H200 does not (1 ulp apart in most generated programs)
                exact_div: caps.is_cpu(),
                // lavapipe evaluates as written, the H200 reassociates and contracts
                // (`WGSIMD_CONFORMANCE_REASSOCIATING`: as if lavapipe did too)
                fixed_order: caps.is_cpu()
                    && std::env::var_os("WGSIMD_CONFORMANCE_REASSOCIATING").is_none(),
            },
        }
    }

    /// The words on which `sim` and `gpu` disagree (see [`Features::fixed_order`]).
    pub fn compare(
        &self,
        shape: &Shape,
        sim: &exec::Outcome,
        gpu: &exec::Outcome,
    ) -> Vec<Mismatch> {
        exec::compare(shape, sim, gpu, self.feat.fixed_order)
    }

    /// Runs `text` on both and compares; `Err` when it does not run on one of them or the
    /// simulator reports a finding (the program is not well defined). With `md` (the module
    /// `text` is), a program the simulator sees make NaN or an infinity (`non-finite`) is left
    /// out: its outputs, and the storage atomics it updates, are not compared.
    pub fn check(
        &self,
        name: &str,
        text: &str,
        shape: &Shape,
        md: Option<&generate::Module>,
    ) -> Result<Checked, String> {
        let t0 = std::time::Instant::now();
        let k = exec::kernel(name, text)?;
        let t1 = std::time::Instant::now();
        let sim = exec::run(&self.sim, &k, shape).map_err(|e| format!("simulator: {e}"))?;
        let t2 = std::time::Instant::now();
        let excluded = left_out(&sim, md)?;
        let gpu = exec::run(&self.gpu, &k, shape).map_err(|e| format!("GPU: {e}"))?;
        if std::env::var_os("WGSIMD_CONFORMANCE_TIMES").is_some() {
            eprintln!(
                "{name}: {} lines, naga {:.2} s, simulator {:.2} s, GPU {:.2} s",
                text.lines().count(),
                (t1 - t0).as_secs_f64(),
                (t2 - t1).as_secs_f64(),
                t2.elapsed().as_secs_f64()
            );
        }
        let bad = compared(self.compare(shape, &sim, &gpu), md, &excluded);
        let reordered = if self.feat.fixed_order {
            Reordered::default()
        } else {
            Reordered::of(shape, &sim, &gpu)
        };
        Ok(Checked {
            bad,
            excluded,
            reordered,
        })
    }
}

/// The programs of `md` the simulator saw make NaN or an infinity (`non-finite`), to be left
/// out of the comparison; `Err` for any other finding, or a `non-finite` one outside a
/// program of `md` (or with no `md`): the module is not well defined.
fn left_out(sim: &exec::Outcome, md: Option<&generate::Module>) -> Result<BTreeSet<usize>, String> {
    let mut excluded = BTreeSet::new();
    for f in &sim.findings {
        if let (FindingKind::NonFinite, Some(md), Some(loc)) = (f.kind, md, &f.loc) {
            if let Some(p) = md.program_at(loc.line) {
                excluded.insert(p);
                continue;
            }
        }
        return Err(format!(
            "the simulator reported {} finding(s): {f}",
            sim.findings.len()
        ));
    }
    Ok(excluded)
}

/// `bad` less the words of the `excluded` programs of `md` (their outputs and the storage
/// atomics they update).
fn compared(
    mut bad: Vec<Mismatch>,
    md: Option<&generate::Module>,
    excluded: &BTreeSet<usize>,
) -> Vec<Mismatch> {
    if let Some(md) = md {
        bad.retain(|b| {
            !excluded.iter().any(|&p| match b.invocation {
                Some(_) => md.ranges[p].contains(&b.word),
                None => md.sats[p].contains(&(b.word as u32)),
            })
        });
    }
    bad
}

/// What [`Pair::check`] found.
pub struct Checked {
    /// The words that differ.
    pub bad: Vec<Mismatch>,
    /// The programs left out (they made NaN or an infinity).
    pub excluded: BTreeSet<usize>,
    /// The exact float words a reassociating GPU moved within the bound (left-out programs'
    /// included).
    pub reordered: Reordered,
}

/// A simulator of a device of `caps` (subgroups of its one size, if `subgroups`).
fn simulator(caps: &Caps, subgroups: bool) -> Context {
    let mut config = SimConfig::for_profile(if subgroups {
        caps.clone()
    } else {
        caps.clone().without_subgroups()
    });
    if subgroups {
        config.subgroup_size = caps.subgroup_min;
    }
    config.fail_on_step_limit = true;
    config.checks.non_finite = true;
    Context::simulator(config).expect("simulator")
}

/// Program `i` of the generated test with base seed `base`.
pub fn nth_program(base: u64, i: u64, feat: Features) -> Program {
    generate::program(generate::mix(base, i), &format!("p{i}"), feat)
}

/// The seed of module `m`'s inputs.
fn input_seed(base: u64, m: u64) -> u64 {
    generate::mix(base, !m)
}

fn generated(t: &Target, chunk: u64) {
    let pair = Pair::new(&t.ctx);
    let total = env_u64("WGSIMD_CONFORMANCE_PROGRAMS").unwrap_or(DEFAULT_PROGRAMS);
    let base = env_u64("WGSIMD_CONFORMANCE_SEED").unwrap_or(DEFAULT_SEED);
    let per = env_u64("WGSIMD_CONFORMANCE_BATCH")
        .unwrap_or(PER_MODULE)
        .max(1);
    let skip = env_u64("WGSIMD_CONFORMANCE_FIRST").unwrap_or(0);
    let modules = total.div_ceil(per);
    let mut failures = Vec::new();
    let (mut ran, mut left_out) = (0, 0);
    let mut reordered = Reordered::default();
    let t0 = std::time::Instant::now();
    let mut m = chunk;
    while m < modules {
        let first = m * per;
        let count = per.min(total - first);
        if first + count <= skip {
            m += CHUNKS;
            continue;
        }
        let tg = std::time::Instant::now();
        let progs: Vec<Program> = (first..first + count)
            .map(|i| nth_program(base, i, pair.feat))
            .collect();
        let module = generate::module(&progs, pair.feat, input_seed(base, m));
        if std::env::var_os("WGSIMD_CONFORMANCE_TIMES").is_some() {
            eprintln!(
                "module{m}: generated in {:.2} s",
                tg.elapsed().as_secs_f64()
            );
        }
        if let Some(dir) = std::env::var_os("WGSIMD_CONFORMANCE_DUMP") {
            // the module as a regression file, before it runs (a driver crash takes the process)
            let path = PathBuf::from(dir).join(format!("module-{base:x}-{first}.wgsl"));
            let text = regression_text("a generated module", "agreement", &module);
            std::fs::write(&path, text).expect("dump");
        }
        ran += count;
        match pair.check(
            &format!("module{m}.wgsl"),
            &module.text,
            &module.shape,
            Some(&module),
        ) {
            Ok(c) => {
                left_out += c.excluded.len();
                reordered.add(c.reordered);
                if !c.bad.is_empty() {
                    failures.push(investigate(&pair, base, first, &progs, &module, &c.bad));
                }
            }
            Err(e) => failures.push(format!(
                "seed {base:#x} module {m} (programs {first}..{}): {e}\n{}",
                first + count,
                module.text
            )),
        }
        m += CHUNKS;
        if failures.len() >= 3 {
            break;
        }
    }
    eprintln!(
        "conformance: chunk {chunk}: {ran} programs (seed {base:#x}), {left_out} left out for \
         making NaN or an infinity, {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    if !pair.feat.fixed_order {
        eprintln!(
            "conformance: chunk {chunk}: {} exact float word(s) differed within the bound of a \
             reassociating GPU (at most {} ulps, {:e} apart)",
            reordered.words, reordered.ulps, reordered.abs
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Where regression files go: `WGSIMD_CONFORMANCE_OUT`, else `tests/conformance/regressions`.
fn regressions_dir() -> PathBuf {
    std::env::var_os("WGSIMD_CONFORMANCE_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/regressions")
        })
}

/// The program each mismatch of `module` falls in, shrunk alone where the mismatch persists
/// alone, written as a regression file; the report.
fn investigate(
    pair: &Pair,
    base: u64,
    first: u64,
    progs: &[Program],
    module: &generate::Module,
    bad: &[Mismatch],
) -> String {
    let mut report = format!(
        "seed {base:#x}, programs {first}..{}: {} word(s) differ between the simulator and the GPU",
        first + progs.len() as u64,
        bad.len()
    );
    let mut hit = BTreeSet::new();
    for b in bad {
        match module.ranges.iter().position(|r| r.contains(&b.word)) {
            Some(p) if b.invocation.is_some() => {
                hit.insert(p);
            }
            _ => {
                let _ = write!(report, "\n  {b}");
            }
        }
    }
    let seed = module.shape.seed;
    for &p in hit.iter().take(3) {
        let prog = &progs[p];
        let index = first + p as u64;
        let words: Vec<String> = bad
            .iter()
            .filter(|b| module.ranges[p].contains(&b.word))
            .take(4)
            .map(|b| {
                let mut b = b.clone();
                b.word -= module.ranges[p].start;
                format!("{b}")
            })
            .collect();
        let _ = write!(
            report,
            "\n\nprogram {index} (`{}`, seed {base:#x}):\n  {}",
            prog.name,
            words.join("\n  ")
        );
        let alone = |q: &Program| -> Result<Vec<Mismatch>, String> {
            let md = generate::module(std::slice::from_ref(q), pair.feat, seed);
            pair.check("alone.wgsl", &md.text, &md.shape, Some(&md))
                .map(|c| c.bad)
        };
        let fails = |q: &Program| matches!(alone(q), Ok(b) if !b.is_empty());
        let tries = env_u64("WGSIMD_CONFORMANCE_SHRINK").unwrap_or(300) as usize;
        let (kept, note) = if fails(prog) {
            let small = shrink::shrink(prog, tries, fails);
            let note = format!("shrunk from {} to {} statements", prog.size(), small.size());
            (small, note)
        } else {
            (prog.clone(), "the mismatch needs the programs before it in its module; this is the program alone, which agrees".to_string())
        };
        let md = generate::module(std::slice::from_ref(&kept), pair.feat, seed);
        let now: Vec<String> = alone(&kept)
            .map(|b| b.iter().take(4).map(|b| b.to_string()).collect())
            .unwrap_or_else(|e| vec![e]);
        let name = format!("found-{base:x}-{index}");
        let text = regression_text(
            &format!("found by the generator: seed {base:#x}, program {index}; {note}"),
            &format!(
                "the simulator and the GPU agree on every word. When found: {}",
                now.join("; ")
            ),
            &md,
        );
        let dir = regressions_dir();
        let path = dir.join(format!("{name}.wgsl"));
        let written = std::fs::create_dir_all(&dir)
            .and_then(|_| std::fs::write(&path, &text))
            .map(|_| format!("written to {}", path.display()))
            .unwrap_or_else(|e| format!("not written ({e})"));
        let _ = write!(report, "\n{note}; {written}:\n{text}");
    }
    report
}

/// A regression file: header comments (what it is, what is expected, the run's shape and
/// comparisons), then the module.
pub fn regression_text(what: &str, expect: &str, md: &generate::Module) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "// conformance regression: {what}");
    let _ = writeln!(s, "// expect: {expect}");
    let sh = &md.shape;
    let _ = writeln!(
        s,
        "// @shape wg={} groups={} atomics={} seed={:#x}",
        sh.wg, sh.groups, sh.atomics, sh.seed
    );
    let _ = writeln!(s, "// @out {}", out_tokens(&sh.out));
    s.push_str(&md.text);
    s
}

/// `cmps` as tokens, runs written `TOKEN*N`.
fn out_tokens(cmps: &[Cmp]) -> String {
    let mut toks: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cmps.len() {
        let mut j = i;
        while j < cmps.len() && cmps[j] == cmps[i] {
            j += 1;
        }
        toks.push(if j - i > 1 {
            format!("{}*{}", cmps[i], j - i)
        } else {
            cmps[i].to_string()
        });
        i = j;
    }
    toks.join(" ")
}

/// The shape a regression file's header gives.
pub fn parse_shape(text: &str) -> Result<Shape, String> {
    let mut shape = Shape {
        wg: 0,
        groups: 0,
        out: Vec::new(),
        atomics: 0,
        seed: 0,
    };
    let mut seen = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("// @shape ") {
            seen = true;
            for kv in rest.split_whitespace() {
                let (k, v) = kv
                    .split_once('=')
                    .ok_or(format!("bad @shape item `{kv}`"))?;
                let n = env_parse(v).ok_or(format!("bad number `{v}`"))?;
                match k {
                    "wg" => shape.wg = n as u32,
                    "groups" => shape.groups = n as u32,
                    "atomics" => shape.atomics = n as u32,
                    "seed" => shape.seed = n,
                    _ => return Err(format!("unknown @shape key `{k}`")),
                }
            }
        } else if let Some(rest) = line.strip_prefix("// @out") {
            for tok in rest.split_whitespace() {
                let (t, n) = match tok.split_once('*') {
                    Some((t, n)) => (t, n.parse::<usize>().map_err(|_| format!("bad `{tok}`"))?),
                    None => (tok, 1),
                };
                let c: Cmp = t.parse()?;
                shape.out.extend(std::iter::repeat_n(c, n));
            }
        }
    }
    if !seen || shape.wg == 0 || shape.groups == 0 {
        return Err("no `// @shape wg=N groups=N ...` line".into());
    }
    Ok(shape)
}

fn env_parse(v: &str) -> Option<u64> {
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// The regression files, sorted.
fn regression_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/regressions");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn regressions(t: &Target) {
    let pair = Pair::new(&t.ctx);
    let only = std::env::var_os("WGSIMD_CONFORMANCE_FILE").map(PathBuf::from);
    let files = match &only {
        Some(p) => vec![p.clone()],
        None => regression_files(),
    };
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).expect("regression file");
        if (text.contains("enable f16") && !pair.feat.f16)
            || (text.contains("subgroup_size") && !pair.feat.subgroups)
        {
            eprintln!("conformance: {name} skipped: it needs f16 or subgroups this GPU lacks");
            continue;
        }
        if text.contains("// @needs exact-div") && !pair.feat.exact_div {
            eprintln!(
                "conformance: {name} skipped: its expectation holds where `/` rounds correctly, \
                 which WGSL does not require (2.5 ulp) and this GPU does not do"
            );
            continue;
        }
        if let Some(why) = wrong_on(&text, &pair.gpu.caps().name) {
            eprintln!("conformance: {name} skipped: this GPU is known to differ: {why}");
            continue;
        }
        let shape = match parse_shape(&text) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        ran += 1;
        if only.is_some() {
            dump(&pair, &name, &text, &shape);
        }
        match pair.check(&name, &text, &shape, None).map(|c| c.bad) {
            Ok(bad) if bad.is_empty() => {}
            Ok(bad) => {
                let lines: Vec<String> = bad.iter().take(8).map(|b| format!("  {b}")).collect();
                failures.push(format!(
                    "{name}: {} word(s) differ\n{}",
                    bad.len(),
                    lines.join("\n")
                ));
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        only.is_some() || ran > 0 || files.is_empty(),
        "no regression file ran"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The reason a regression file gives for a GPU known to compute it wrongly: its line
/// `// @wrong-on NAME: REASON`, where the adapter's name contains NAME (elsewhere the file is
/// an agreement like any other).
fn wrong_on<'a>(text: &'a str, adapter: &str) -> Option<&'a str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("// @wrong-on "))
        .filter_map(|l| l.split_once(": "))
        .find(|(gpu, _)| !gpu.trim().is_empty() && adapter.contains(gpu.trim()))
        .map(|(_, why)| why)
}

/// Prints every word of invocation 0 from both executors.
fn dump(pair: &Pair, name: &str, text: &str, shape: &Shape) {
    let k = match exec::kernel(name, text) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("{e}");
            return;
        }
    };
    let sim = exec::run(&pair.sim, &k, shape);
    let gpu = exec::run(&pair.gpu, &k, shape);
    let (Ok(sim), Ok(gpu)) = (sim, gpu) else {
        eprintln!("{name}: a run failed");
        return;
    };
    for f in &sim.findings {
        eprintln!("finding: {f}");
    }
    for (w, c) in shape.out.iter().enumerate() {
        let (s, g) = (sim.out[w], gpu.out[w]);
        let c = c.on(pair.feat.fixed_order);
        let mark = if c.agrees(s, g) { " " } else { "!" };
        eprintln!(
            "{mark} word {w:3} [{c}]: sim {s:#010x} {:>14e} gpu {g:#010x} {:>14e}",
            f32::from_bits(s),
            f32::from_bits(g)
        );
    }
    for (i, (s, g)) in sim.atomics.iter().zip(&gpu.atomics).enumerate() {
        eprintln!("atomic {i}: sim {s:#x} gpu {g:#x}");
    }
    let bad = pair.compare(shape, &sim, &gpu);
    eprintln!("{} word(s) differ over all invocations:", bad.len());
    for b in bad.iter().take(40) {
        eprintln!("  {b}");
    }
}

/// A deliberately wrong simulator word, of each kind of comparison, is reported at its
/// invocation, word and program; so is a wrong storage atomic.
fn wrong_word_reported(t: &Target) {
    let pair = Pair::new(&t.ctx);
    // a GPU that evaluates as written checks the reassociating comparisons too
    if pair.feat.fixed_order {
        let mut relaxed = Pair::new(&t.ctx);
        relaxed.feat.fixed_order = false;
        wrong_word_reported_by(&relaxed);
    }
    wrong_word_reported_by(&pair);
}

fn wrong_word_reported_by(pair: &Pair) {
    // twenty programs; those the simulator sees make NaN or an infinity are left out, as in
    // the generated test
    let progs: Vec<Program> = (0..20).map(|i| nth_program(7, i, pair.feat)).collect();
    let md = generate::module(&progs, pair.feat, 7);
    let k = exec::kernel("flip.wgsl", &md.text).unwrap();
    let sim = exec::run(&pair.sim, &k, &md.shape).unwrap();
    let excluded = left_out(&sim, Some(&md)).unwrap();
    assert!(excluded.len() < 10, "{} programs left out", excluded.len());
    let kept = |w: usize| !excluded.iter().any(|&p| md.ranges[p].contains(&w));
    let gpu = exec::run(&pair.gpu, &k, &md.shape).unwrap();
    let report = |wrong: &exec::Outcome| {
        compared(pair.compare(&md.shape, wrong, &gpu), Some(&md), &excluded)
    };
    let clean = report(&sim);
    assert!(clean.is_empty(), "the unaltered runs differ: {clean:?}");
    let per = md.shape.out.len();
    let inv = 37;
    let mut kinds_seen = BTreeSet::new();
    for (w, &cmp) in md.shape.out.iter().enumerate() {
        if !kept(w) {
            continue;
        }
        let kind = cmp.to_string().chars().take(2).collect::<String>();
        let v = sim.out[inv * per + w];
        let normal = f32::from_bits(v).is_normal();
        let bit = match cmp {
            Cmp::Bits => 1,
            // one ulp of an f16; 2^13 of an f32 (beyond the reassociation bound: an exponent)
            Cmp::F32 | Cmp::F16 if normal && pair.feat.fixed_order => 1 << 13,
            _ if normal && v & 0x4000_0000 == 0 && cmp != Cmp::Bits => 1 << 30,
            _ => continue,
        };
        if !kinds_seen.insert(kind) {
            continue;
        }
        let mut wrong = sim.clone();
        wrong.out[inv * per + w] ^= bit;
        let bad = report(&wrong);
        assert_eq!(bad.len(), 1, "{cmp} word {w}: {bad:?}");
        assert_eq!(bad[0].invocation, Some(inv as u32));
        assert_eq!(bad[0].word, w);
        let p = md.ranges.iter().position(|r| r.contains(&w)).unwrap();
        assert!(md.ranges[p].contains(&bad[0].word), "program {p}");
    }
    assert!(
        kinds_seen.len() >= 3,
        "too few kinds of comparison seen: {kinds_seen:?}"
    );
    // the smallest difference an exact f32 comparison must see: one ulp (where the GPU
    // evaluates as written)
    let one_ulp = md
        .shape
        .out
        .iter()
        .enumerate()
        .find(|&(w, &c)| c == Cmp::F32 && kept(w) && f32::from_bits(sim.out[w]).is_normal())
        .map(|(w, _)| w)
        .expect("an f32 word");
    let mut wrong = sim.clone();
    wrong.out[one_ulp] ^= 1;
    assert_eq!(report(&wrong).len(), usize::from(pair.feat.fixed_order));
    // a storage atomic no left-out program updates
    let a = (0..md.shape.atomics)
        .find(|a| !excluded.iter().any(|&p| md.sats[p].contains(a)))
        .expect("a storage atomic compared") as usize;
    let mut wrong = sim.clone();
    wrong.atomics[a] ^= 1;
    let bad = report(&wrong);
    assert!(bad.len() == 1 && bad[0].invocation.is_none(), "{bad:?}");
    // a word of a left-out program is not compared
    if let Some(&p) = excluded.iter().find(|&&p| !md.ranges[p].is_empty()) {
        let mut wrong = sim.clone();
        wrong.out[inv * per + md.ranges[p].start] ^= 1;
        assert!(report(&wrong).is_empty());
    }
}

/// The lavapipe-like features the checks without a GPU generate for.
fn sim_features() -> Features {
    Features {
        f16: true,
        subgroups: true,
        exact_div: true,
        fixed_order: true,
    }
}

fn generator_is_deterministic(_: &Target) {
    let f = sim_features();
    for i in 0..50 {
        let a = nth_program(99, i, f).text();
        let b = nth_program(99, i, f).text();
        assert_eq!(a, b);
    }
    assert_ne!(nth_program(99, 0, f).text(), nth_program(99, 1, f).text());
}

/// Generated modules are valid WGSL and run on the simulator without a finding (no race,
/// no out-of-bounds access, no subgroup operation in divergent control flow ...) but
/// `non-finite`.
fn well_defined_on_simulator(_: &Target) {
    let f = sim_features();
    let sim = simulator(&Caps::lavapipe(), true);
    let n = env_u64("WGSIMD_CONFORMANCE_WELL_DEFINED").unwrap_or(300);
    let mut i = 0;
    while i < n {
        let count = 50.min(n - i);
        let progs: Vec<Program> = (i..i + count).map(|j| nth_program(5, j, f)).collect();
        let md = generate::module(&progs, f, i);
        if let Err(e) = well_defined(&sim, &md) {
            // name the first program that fails alone
            for p in &progs {
                let alone = generate::module(std::slice::from_ref(p), f, i);
                if let Err(e) = well_defined(&sim, &alone) {
                    panic!("{e}\n{}", alone.text);
                }
            }
            panic!("programs {i}..{}: {e}", i + count);
        }
        i += count;
    }
}

fn well_defined(sim: &Context, md: &generate::Module) -> Result<(), String> {
    let k = exec::kernel("well_defined.wgsl", &md.text)?;
    let r = exec::run(sim, &k, &md.shape).map_err(|e| e.to_string())?;
    // a program that makes NaN or an infinity is left out of comparisons, not ill defined
    match r.findings.iter().find(|f| f.kind != FindingKind::NonFinite) {
        None => Ok(()),
        Some(f) => Err(format!("{} finding(s), the first: {f}", r.findings.len())),
    }
}

fn comparisons(_: &Target) {
    let f = |x: f32| x.to_bits();
    assert!(Cmp::Bits.agrees(5, 5) && !Cmp::Bits.agrees(5, 4));
    assert!(Cmp::F32.agrees(f(1.5), f(1.5)));
    assert!(!Cmp::F32.agrees(f(1.5), f(1.5) + 1), "one ulp");
    assert!(Cmp::F32.agrees(f(0.0), f(-0.0)), "the sign of a zero");
    assert!(Cmp::F32.agrees(f(f32::NAN), 0xffc0_0000), "NaN payloads");
    assert!(Cmp::F32.agrees(f(1e-40), f(0.0)), "a flushed denormal");
    assert!(
        !Cmp::F32.agrees(f(f32::MIN_POSITIVE), f(0.0)),
        "the smallest normal"
    );
    assert!(Cmp::F16.agrees(f(3e-5), f(0.0)), "an f16 denormal");
    assert!(
        !Cmp::F16.agrees(f(1.0), f(1.0 + 1.0 / 1024.0)),
        "one f16 ulp"
    );
    let near = Cmp::F32Near { ulps: 4, abs: 0.0 };
    assert!(near.agrees(f(1.0), f(1.0) + 4) && !near.agrees(f(1.0), f(1.0) + 5));
    assert!(near.agrees(f(1.0), f(1.0) - 4) && near.agrees(f(-1.0), f(-1.0) + 3));
    assert!(!near.agrees(f(1.0), f(f32::NAN)) && near.agrees(f(f32::NAN), f(f32::NAN)));
    assert!(!near.agrees(f(f32::INFINITY), f(f32::MAX)));
    let abs = Cmp::F32Near { ulps: 0, abs: 1e-3 };
    assert!(abs.agrees(f(0.0), f(9e-4)) && !abs.agrees(f(0.0), f(2e-3)));
    let h = Cmp::F16Near { ulps: 2, abs: 0.0 };
    assert!(h.agrees(f(1.0), f(1.0 + 2.0 / 1024.0)) && !h.agrees(f(1.0), f(1.0 + 3.0 / 1024.0)));
    // on a reassociating GPU: a few ulps, or a few ulps of an operand where the result
    // cancels, but no more; integers and WGSL's bounds as they are
    let (r32, r16) = (Cmp::F32.reassociated(), Cmp::F16.reassociated());
    assert!(r32.agrees(f(1e6), f(1e6) + 16) && !r32.agrees(f(1e6), f(1e6) + 17));
    assert!(r32.agrees(f(0.0), f(1e-3)) && !r32.agrees(f(0.0), f(3e-3)));
    assert!(r16.agrees(f(1.0), f(1.0 + 4.0 / 1024.0)) && !r16.agrees(f(100.0), f(101.0)));
    assert_eq!(Cmp::Bits.reassociated(), Cmp::Bits);
    assert_eq!(near.reassociated(), near);
    // a regression file's known-wrong GPU
    let text = "// @shape wg=1\n// @wrong-on NVIDIA: a miscompiled min\nfn f() {}";
    assert_eq!(wrong_on(text, "NVIDIA H200"), Some("a miscompiled min"));
    assert_eq!(wrong_on(text, "llvmpipe (LLVM 15.0.6, 256 bits)"), None);
    assert_eq!(wrong_on("// @wrong-on : no name", "NVIDIA H200"), None);
    for c in [Cmp::Bits, Cmp::F32, Cmp::F16, near, abs, h] {
        assert_eq!(c.to_string().parse::<Cmp>().unwrap(), c);
    }
    // the header round trip
    let md = generate::module(&[nth_program(3, 1, sim_features())], sim_features(), 42);
    let text = regression_text("a test", "nothing", &md);
    assert_eq!(parse_shape(&text).unwrap(), md.shape);
}

/// The shrinker keeps what the failure needs and cuts the rest.
fn shrinker(_: &Target) {
    let f = sim_features();
    let p = (0..200)
        .map(|i| nth_program(11, i, f))
        .find(|p| p.size() > 12 && p.text().contains("dot("))
        .expect("a program with a dot product");
    let needs = |q: &Program| {
        q.text().contains("dot(")
            && exec::kernel("s.wgsl", &{
                generate::module(std::slice::from_ref(q), f, 0).text
            })
            .is_ok()
    };
    let small = shrink::shrink(&p, 1000, needs);
    assert!(needs(&small));
    assert!(
        small.size() < p.size() && small.size() <= 4,
        "{} of {} statements left:\n{}",
        small.size(),
        p.size(),
        small.text()
    );
}
