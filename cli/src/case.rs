//! Benchmark cases: a recording of the public API on buffers of the case's own, what it computes
//! and how to check it.
//!
//! Each algorithm's module under `cases/` makes its cases; `wgsimd bench` times each case's
//! recording (`timing.rs`), runs it once more on poisoned outputs and verifies the result
//! against the CPU reference. A case that fails verification is reported as failed, never timed
//! silently.

use wgsimd::gpu::Timestamps;
use wgsimd::plan::{Plan, Workgroups};
use wgsimd::{Buffer, Context, EncoderRef};

use wgsimd_timing::Timing;

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

/// Records one timed run (with timestamps where given).
pub type Record = Box<dyn Fn(EncoderRef, Option<Timestamps>) -> wgsimd::Result<()>>;
/// Records what a run needs before it and is not timed (inputs a run consumes, restored).
pub type Setup = Box<dyn Fn(EncoderRef) -> wgsimd::Result<()>>;
/// Checks the outputs of the last run (reading them from the device); `Err` says what was wrong.
pub type Verify = Box<dyn Fn(&Context) -> Result<(), String>>;
/// Extra figures of a timed case from its outputs and its timings: (name, value) pairs that
/// `wgsimd bench` prints under the row and writes to its JSON (e.g. the work queue's latency
/// percentiles).
pub type Extra = Box<dyn Fn(&Context, &Timing) -> Vec<(String, f64)>>;

/// A case not built yet: `wgsimd bench` builds each just before it times it and drops it after,
/// so a job's cases do not all hold their buffers at once.
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
    /// Variant within it, e.g. "sum u32", "keys u32 onesweep", "f16 coop16".
    pub variant: String,
    /// Problem size (elements, or the largest matrix dimension for GEMM), for tables and plots.
    pub size: u64,
    /// Shape or size as a person reads it: "2^24", "4096x4096x4096".
    pub size_label: String,
    /// Units of work per run.
    pub work: Work,
    /// Labels of the recorded passes (two timestamps each).
    pub passes: Vec<String>,
    /// Untimed preparation before each run.
    pub setup: Option<Setup>,
    /// The timed recording.
    pub record: Record,
    /// Buffers the run writes whole: filled with [`wgsimd::plan::POISON_WORD`] before the verified run, so a
    /// word it no longer writes shows.
    pub outputs: Vec<Buffer>,
    /// Checks the verified run's outputs against the CPU reference.
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

/// The first mismatch of `got` against `want`, named `what`.
pub fn first_difference(what: &str, got: &[u32], want: &[u32]) -> Result<(), String> {
    if got.len() < want.len() {
        return Err(format!("{what}: {} words, want {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: word {i}: got {:#x}, want {:#x}",
            got[i], want[i]
        )),
    }
}

/// The bandwidth yardstick: a vec4 shader copy of `n` u32 (read + write = 8n bytes), verified.
pub fn copy_case(ctx: &Context, n: u64) -> wgsimd::Result<Case> {
    let caps = ctx.caps();
    let words = n.div_ceil(4) * 4;
    if words * 4 > caps.max_storage_binding {
        return Err(wgsimd::Error::TooLarge(format!(
            "copy of {n} words exceeds one binding"
        )));
    }
    use wgsimd::stages::util::copy;
    let k = copy::STAGE.load(caps.flavor())?;
    let mut plan = Plan::new("copy");
    let src_id = plan.arg("src", words * 4);
    let dst_id = plan.arg("dst", words * 4);
    // one full wave of 256-invocation workgroups on big GPUs; the kernel strides over the rest
    let groups = words.div_ceil(4 * 256).clamp(1, 4096) as u32;
    plan.pass(
        "copy",
        &k,
        copy::entry::main,
        &[],
        &[(copy::bind::src, src_id), (copy::bind::dst, dst_id)],
        Workgroups::Direct([groups, 1, 1]),
    )?;
    let data: Vec<u32> = (0..words as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let src = ctx.upload("copy src", &data)?;
    let dst = ctx.uninit("copy dst", words * 4)?;
    let prepared = std::rc::Rc::new(ctx.prepare(plan)?);
    let (s, d) = (src.clone(), dst.clone());
    let p = prepared.clone();
    Ok(Case {
        algorithm: "copy".into(),
        variant: "vec4 u32".into(),
        size: n,
        size_label: size_label(n),
        work: Work::Bytes(8.0 * words as f64),
        passes: vec!["copy".into()],
        setup: None,
        record: Box::new(move |enc, stamps| {
            p.record(enc, &[(src_id, (&s).into()), (dst_id, (&d).into())], stamps)
        }),
        outputs: vec![dst.clone()],
        verify: Box::new(move |ctx| {
            let got: Vec<u32> = ctx.read(&dst).map_err(|e| e.to_string())?;
            first_difference("copy", &got, &data)
        }),
        extra: None,
    })
}
