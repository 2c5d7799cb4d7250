//! Benchmark cases: a built plan plus what it computes and how to check it.
//!
//! Each algorithm module exposes `bench_cases(...) -> Result<Vec<Case>>` (the sort also
//! `bench_case_makers`, which builds each case only when called: [`CaseMaker`]); the `wgsimd
//! bench` binary times each case's plan on an executor, verifies the output of the timed run against
//! the CPU reference with `verify`, and reports throughput from `work`. A case that fails
//! verification is reported as failed, never timed silently.

use wgsimd::exec::{RunOutput, Timing};
use wgsimd::plan::Plan;

/// What a case's throughput is measured in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Work {
    /// Bytes read + written: reported as GB/s.
    Bytes(f64),
    /// Keys (or elements) processed: reported as G/s (Gkeys/s); `bytes` moved for the fraction
    /// of copy bandwidth.
    Keys {
        /// Number of keys.
        keys: f64,
        /// Bytes the algorithm must move at least (read + write).
        bytes: f64,
    },
    /// Floating-point operations: reported as TFLOP/s.
    Flops(f64),
    /// Tasks run (the work queue): reported as M tasks/s.
    Tasks(f64),
}

/// Checks a run's output; `Err` carries what was wrong.
pub type Verify = Box<dyn Fn(&RunOutput) -> Result<(), String> + Send + Sync>;

/// Extra figures of a timed run, from its output and its timings: (name, value) pairs that
/// `wgsimd bench` prints under the row and writes to its JSON (e.g. the work queue's latency
/// percentiles).
pub type Extra = Box<dyn Fn(&RunOutput, &Timing) -> Vec<(String, f64)> + Send + Sync>;

/// A case not built yet: `wgsimd bench` builds each just before it times it and drops it after,
/// so a job's cases do not all hold their inputs and plans at once (ten 2^28-key sort plans
/// would hold some 15 GiB of uploads).
pub type CaseMaker = Box<dyn FnOnce() -> wgsimd::Result<Case>>;

/// Cases already built, as makers.
pub fn ready(cases: Vec<Case>) -> Vec<CaseMaker> {
    cases
        .into_iter()
        .map(|c| Box::new(move || Ok(c)) as CaseMaker)
        .collect()
}

/// One benchmark case.
pub struct Case {
    /// Algorithm: "reduce", "scan", "sort", "gemm", "queue", "copy".
    pub algorithm: String,
    /// Variant within it, e.g. "sum u32", "keys u32 onesweep", "f16 coop".
    pub variant: String,
    /// Problem size (elements, or the largest matrix dimension for GEMM), for tables and plots.
    pub size: u64,
    /// Shape or size as a person reads it: "2^24", "4096x4096x4096".
    pub size_label: String,
    /// The plan to time.
    pub plan: Plan,
    /// Units of work per run.
    pub work: Work,
    /// Checks the output of a run against the CPU reference.
    pub verify: Verify,
    /// Extra figures beyond throughput (`None` for most cases).
    pub extra: Option<Extra>,
}

/// "2^k" for powers of two, the number otherwise.
pub fn size_label(n: u64) -> String {
    if n.is_power_of_two() && n >= 1024 {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// The bandwidth yardstick: a vec4 shader copy of `n` u32 (read + write = 8n bytes), verified.
pub fn copy_case(caps: &wgsimd::Caps, n: u64) -> wgsimd::Result<Case> {
    let words = n.div_ceil(4) * 4;
    if words * 4 > caps.max_storage_binding {
        return Err(wgsimd::Error::TooLarge(format!(
            "copy of {n} words exceeds one binding"
        )));
    }
    let k = wgsimd::kernel::load("util/copy", caps.flavor())?;
    let mut plan = Plan::new("copy");
    let data: Vec<u32> = (0..words as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let src = plan.upload("src", &data);
    let dst = plan.buffer("dst", words * 4, wgsimd::plan::BufferInit::Poison);
    // one full wave of 256-invocation workgroups on big GPUs; the kernel strides over the rest
    let groups = words.div_ceil(4 * 256).clamp(1, 4096) as u32;
    plan.pass(
        "copy",
        &k,
        "main",
        &[],
        &[("src", src), ("dst", dst)],
        wgsimd::plan::Workgroups::Direct([groups, 1, 1]),
    )?;
    plan.read_back(dst);
    Ok(Case {
        algorithm: "copy".into(),
        variant: "vec4 u32".into(),
        size: n,
        size_label: size_label(n),
        plan,
        work: Work::Bytes(8.0 * words as f64),
        verify: Box::new(move |out| {
            let got: Vec<u32> = out.get(dst);
            match got.iter().zip(&data).position(|(a, b)| a != b) {
                None if got.len() == data.len() => Ok(()),
                None => Err("short output".into()),
                Some(i) => Err(format!("word {i}: got {:#x}, want {:#x}", got[i], data[i])),
            }
        }),
        extra: None,
    })
}
