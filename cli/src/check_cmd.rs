//! `wgsimd check FILE.wgsl --entry NAME --workgroups X[,Y,Z] --bind I=TYPE:INIT ... [--dump I]
//! [--json] [--max-steps N] [--schedule in-order|shuffled:SEED|unfair:I,...]` (with the global `--subgroup-size N` and `--shuffle-lanes SEED`):
//! runs one entry point on the simulator and prints every finding with its kind name.
//! Exit 0 clean, 1 findings, 2 usage, parse or validation error (naga's rendered message).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::backend::SimSettings;
use wgsimd::finding::{Finding, Party, SourceLoc};
use wgsimd::sim::check::{check, BindSpec, CheckRequest};

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
    /// A binding of group 0: I=TYPE:INIT, TYPE u32|i32|f32, INIT zeros:N | random:N | iota:N |
    /// uninit:N | [v,v,...]. Repeatable.
    #[arg(long = "bind")]
    pub binds: Vec<String>,
    /// Print `binding I: v0 v1 ...` after the run. Repeatable.
    #[arg(long)]
    pub dump: Vec<u32>,
    /// Machine-readable output (one JSON object on stdout).
    #[arg(long)]
    pub json: bool,
    /// Step budget per workgroup (statements run in lockstep).
    #[arg(long)]
    pub max_steps: Option<u64>,
    /// Workgroup order: in-order (default), shuffled:SEED, or unfair:I[,J...] (those linear
    /// workgroup indices run only after all others), to expose forward-progress assumptions.
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
}

fn usage(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("wgsimd check: {msg}");
    ExitCode::from(2)
}

fn parse_workgroups(s: &str) -> Option<[u32; 3]> {
    let v: Option<Vec<u32>> = s.split(',').map(|x| x.trim().parse().ok()).collect();
    let v = v?;
    if v.is_empty() || v.len() > 3 {
        return None;
    }
    let mut out = [1; 3];
    out[..v.len()].copy_from_slice(&v);
    Some(out)
}

/// Runs the command; `sim` carries the global `--subgroup-size` and `--shuffle-lanes`.
pub fn run(args: &CheckArgs, sim: &SimSettings) -> anyhow::Result<ExitCode> {
    let source = match std::fs::read_to_string(&args.file) {
        Ok(s) => s,
        Err(e) => return Ok(usage(format!("{}: {e}", args.file.display()))),
    };
    let Some(workgroups) = parse_workgroups(&args.workgroups) else {
        return Ok(usage(format!(
            "--workgroups {:?}: expected X[,Y,Z] of unsigned integers",
            args.workgroups
        )));
    };
    let mut binds = Vec::new();
    for b in &args.binds {
        match b.parse::<BindSpec>() {
            Ok(s) => binds.push(s),
            Err(e) => return Ok(usage(e)),
        }
    }
    for d in &args.dump {
        if !binds.iter().any(|b| b.binding == *d) {
            return Ok(usage(format!("--dump {d}: no --bind {d}=...")));
        }
    }
    let mut config = match sim.config() {
        Ok(c) => c,
        Err(e) => return Ok(usage(e)),
    };
    // a kernel checked on its own may run in lavapipe's CI: report its loop limit too
    config.loop_limit = true;
    config.checks.discarded_read = args.discarded_read;
    config.checks.uninit_workgroup = args.uninit_workgroup;
    if let Some(m) = args.max_steps {
        config.max_steps = m;
    }
    if let Some(s) = &args.schedule {
        match s.parse() {
            Ok(sched) => config.scheduler = sched,
            Err(e) => return Ok(usage(e)),
        }
    }
    let req = CheckRequest {
        name: args.file.display().to_string(),
        source,
        entry: args.entry.clone(),
        workgroups,
        binds,
        config,
    };
    let report = match check(&req) {
        Ok(r) => r,
        Err(e) => return Ok(usage(e)),
    };
    if args.json {
        let dumps: serde_json::Map<String, serde_json::Value> = args
            .dump
            .iter()
            .filter_map(|d| report.buffers.get(d).map(|b| (d, b)))
            .map(|(d, (ty, words))| {
                let vals: Vec<serde_json::Value> = words
                    .iter()
                    .map(|&w| match ty {
                        wgsimd::sim::check::ElemType::U32 => w.into(),
                        wgsimd::sim::check::ElemType::I32 => (w as i32).into(),
                        wgsimd::sim::check::ElemType::F32 => {
                            serde_json::Number::from_f64(f32::from_bits(w) as f64)
                                .map(serde_json::Value::Number)
                                .unwrap_or_else(|| ty.format(w).into())
                        }
                    })
                    .collect();
                (d.to_string(), vals.into())
            })
            .collect();
        let v = serde_json::json!({
            "file": req.name,
            "entry": req.entry,
            "subgroup_size": req.config.subgroup_size,
            "clean": report.findings.is_empty(),
            "findings": report.findings.iter().map(finding_json).collect::<Vec<_>>(),
            "dumps": dumps,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        for d in &args.dump {
            if let Some((ty, words)) = report.buffers.get(d) {
                let vals: Vec<String> = words.iter().map(|&w| ty.format(w)).collect();
                println!("binding {d}: {}", vals.join(" "));
            }
        }
        for f in &report.findings {
            println!("{f}");
        }
        if report.findings.is_empty() {
            eprintln!("no findings");
        } else {
            eprintln!("{} finding(s)", report.findings.len());
        }
    }
    Ok(if report.findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
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

fn finding_json(f: &Finding) -> serde_json::Value {
    serde_json::json!({
        "kind": f.kind.name(),
        "message": f.message,
        "loc": loc_json(&f.loc),
        "parties": f.parties.iter().map(party_json).collect::<Vec<_>>(),
    })
}
