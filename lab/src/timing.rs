//! Timing a recording the way `wgsimd bench` does: `wgsimd_timing` (its docs give the rules),
//! with two helpers of the sweeps: a timing's passes in one line, and timing followed by the
//! verified run on a poisoned output.

use wgsimd::{Buffer, Context};
pub use wgsimd_timing::{median, poison, run_once, time, Job, TimeSource, Timing};

/// The median of each pass (the numbered ones of a kind summed: "scatter 0", "scatter 1" as
/// "scatter"), as `label 0.123 ms, ...`.
pub fn passes_text(t: &Timing) -> String {
    if t.pass_ns.is_empty() {
        return match t.source {
            TimeSource::Host => "no per-pass times: host clock",
            TimeSource::Timestamps => "no per-pass times: timed whole",
        }
        .into();
    }
    let mut agg: Vec<(String, f64)> = Vec::new();
    for (l, ns) in t.pass_labels.iter().zip(t.pass_median_ns()) {
        let k = l
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .trim()
            .to_string();
        match agg.iter_mut().find(|(a, _)| *a == k) {
            Some(x) => x.1 += ns,
            None => agg.push((k, ns)),
        }
    }
    agg.iter()
        .map(|(l, ns)| format!("{l} {:.3} ms", ns / 1e6))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Times `job` (three warm-up runs at least), then fills `out` with poison and runs once more;
/// an error (`what` names the run) where either fails or the simulator reports a finding.
pub fn time_then_verified_run(
    ctx: &Context,
    job: &Job,
    out: &Buffer,
    repeats: usize,
    what: &str,
) -> Result<Timing, String> {
    let (t, report) = wgsimd_timing::time_verified(ctx, job, std::slice::from_ref(out), 3, repeats)
        .map_err(|e| format!("timed or verified run: {e}"))?;
    report.clean(what).map_err(|e| format!("simulator: {e}"))?;
    Ok(t)
}
