//! `wgsimd replay DIR`: every compute dispatch of a wgpu API trace (the folder a device opened
//! with `wgpu::Trace::Directory(DIR)` writes) run on simulated lanes at the chosen subgroup
//! size, findings against the application's own shader sources (`DIR/dataN.wgsl`);
//! `--dump LABEL[:TYPE]` prints a buffer's contents at the end of the trace. Exit 0 clean, 1
//! findings, 2 usage error, a trace that cannot be read, a dispatch the simulator cannot run
//! (the findings before it are printed) or a `--dump` label no buffer of the trace has.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::backend::SimSettings;
use crate::check_cmd::{
    exit, finding_json, print_stripped, schedule_names, stripped_json, summary, usage, words_json,
    words_text, SimOpts,
};
use wgsimd_sim::check::ElemType;
use wgsimd_sim::replay::{replay, DispatchSize};

/// Arguments of `wgsimd replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The trace folder (holding trace.ron).
    pub dir: PathBuf,
    /// Also list the dispatches without findings.
    #[arg(long)]
    pub all: bool,
    /// Print `buffer LABEL: v0 v1 ...`, the contents at the end of the trace of the buffer the
    /// application labelled LABEL, as TYPE (u32, i32 or f32; default u32). Repeatable.
    #[arg(long, value_name = "LABEL[:TYPE]")]
    pub dump: Vec<String>,
    #[command(flatten)]
    pub opts: SimOpts,
}

fn size_text(s: &DispatchSize) -> String {
    match s {
        DispatchSize::Direct([x, y, z]) => format!("{x}x{y}x{z} workgroups"),
        DispatchSize::Indirect { buffer, offset } => {
            format!("indirect workgroups from `{buffer}` at byte {offset}")
        }
    }
}

/// Runs the command; `sim` carries the global `--subgroup-size` and `--shuffle-lanes`.
pub fn run(args: &ReplayArgs, sim: &SimSettings) -> anyhow::Result<ExitCode> {
    let config = match args.opts.config(sim) {
        Ok(c) => c,
        Err(e) => return Ok(usage("replay", e)),
    };
    let subgroup_size = config.subgroup_size;
    let schedules = schedule_names(&config);
    let mut dumps: Vec<(String, ElemType)> = Vec::new();
    for d in &args.dump {
        // a label may hold `:`: the type is what follows the last one, if it is a type
        let (label, ty) = match d.rsplit_once(':') {
            Some((l, t)) if t.parse::<ElemType>().is_ok() => {
                (l, t.parse().unwrap_or(ElemType::U32))
            }
            _ => (d.as_str(), ElemType::U32),
        };
        if label.is_empty() {
            return Ok(usage("replay", format!("--dump {d:?}: no buffer label")));
        }
        dumps.push((label.to_string(), ty));
    }
    let labels: Vec<String> = dumps.iter().map(|(l, _)| l.clone()).collect();
    let report = match replay(&args.dir, config, &labels) {
        Ok(r) => r,
        Err(e) => return Ok(usage("replay", e)),
    };
    let dumped: Vec<(&str, ElemType, &[u32])> = dumps
        .iter()
        .filter_map(|(label, ty)| {
            let (_, words) = report.dumps.iter().find(|(l, _)| l == label)?;
            Some((label.as_str(), *ty, words.as_slice()))
        })
        .collect();
    let missing: Vec<&str> = dumps
        .iter()
        .map(|(l, _)| l.as_str())
        .filter(|l| !dumped.iter().any(|(d, _, _)| d == l))
        .collect();
    let findings = report.findings().count();
    if args.opts.json {
        let dispatches: Vec<serde_json::Value> = report
            .dispatches
            .iter()
            .map(|d| {
                let size = match &d.size {
                    DispatchSize::Direct(c) => serde_json::json!(c),
                    DispatchSize::Indirect { buffer, offset } => {
                        serde_json::json!({"indirect": buffer, "offset": offset})
                    }
                };
                serde_json::json!({
                    "index": d.index,
                    "submission": d.submission,
                    "pass": d.pass,
                    "pipeline": d.pipeline,
                    "module": d.module,
                    "shader": d.file,
                    "entry": d.entry,
                    "workgroups": size,
                    "findings": d.findings.iter().map(finding_json).collect::<Vec<_>>(),
                    "filtered": d.notes.iter().map(finding_json).collect::<Vec<_>>(),
                    "repeats": d.repeats,
                })
            })
            .collect();
        let v = serde_json::json!({
            "trace": args.dir.display().to_string(),
            "subgroup_size": subgroup_size,
            "schedules": schedules,
            "clean": findings == 0 && report.stopped.is_none(),
            "dispatches": dispatches,
            "notes": report.notes,
            "stripped": report.stripped.iter().map(|(f, s)| stripped_json(f, s)).collect::<Vec<_>>(),
            "stopped": report.stopped,
            "dumps": dumped
                .iter()
                .map(|(l, ty, w)| (l.to_string(), words_json(*ty, w)))
                .collect::<serde_json::Map<_, _>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        for (file, s) in &report.stripped {
            print_stripped(file, std::slice::from_ref(s));
        }
        for n in &report.notes {
            eprintln!("note: {n}");
        }
        for (label, ty, words) in &dumped {
            println!("buffer {label}: {}", words_text(*ty, words));
        }
        for d in &report.dispatches {
            if d.findings.is_empty() && d.notes.is_empty() && !args.all {
                continue;
            }
            let module = d
                .module
                .as_deref()
                .map(|m| format!(" (module `{m}`)"))
                .unwrap_or_default();
            let repeats = if d.repeats > 0 {
                format!(", {} repeated from earlier dispatches", d.repeats)
            } else {
                String::new()
            };
            println!(
                "== dispatch {} (submission {}{}): pipeline `{}`, {}{module} entry {}, {}: {}{repeats}",
                d.index,
                d.submission,
                d.pass
                    .as_deref()
                    .map(|p| format!(", pass `{p}`"))
                    .unwrap_or_default(),
                d.pipeline,
                d.file,
                d.entry,
                size_text(&d.size),
                match (d.findings.len(), d.notes.len()) {
                    (0, 0) => "clean".to_string(),
                    (0, m) => format!("clean, {m} note(s)"),
                    (n, 0) => format!("{n} finding(s)"),
                    (n, m) => format!("{n} finding(s), {m} note(s)"),
                },
            );
            for f in &d.findings {
                println!("{f}");
            }
            for f in &d.notes {
                println!("note: {f}");
            }
        }
        eprintln!(
            "{} compute dispatch(es) replayed at subgroup size {subgroup_size}",
            report.dispatches.len()
        );
        let notes = report.dispatches.iter().map(|d| d.notes.len()).sum();
        summary(findings, notes, &schedules);
    }
    if let Some(why) = &report.stopped {
        eprintln!("wgsimd replay: stopped: {why}");
        return Ok(ExitCode::from(2));
    }
    if !missing.is_empty() {
        return Ok(usage(
            "replay",
            format!(
                "--dump: no buffer of the trace is labelled `{}`",
                missing.join("`, `")
            ),
        ));
    }
    Ok(exit(findings))
}
