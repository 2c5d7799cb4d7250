//! The differential conformance suite: seeded, generated WGSL programs run on the GPU (lavapipe
//! in CI) and on the simulator at the GPU's subgroup size, every output word compared (bit for
//! bit where the operations are correctly rounded, within stated ulps where they are not).
//! Every disagreement found is kept under `tests/conformance/regressions/` and run on both
//! again each time. `docs/conformance.md` describes what is generated and how it
//! is compared.
//!
//! Environment:
//! - `WGSIMD_CONFORMANCE_PROGRAMS=N`: programs in the generated test (default 3000);
//!   `WGSIMD_CONFORMANCE_SEED=S`: its base seed (default fixed). A long hunt is
//!   `WGSIMD_CONFORMANCE_PROGRAMS=100000 WGSIMD_CONFORMANCE_SEED=$RANDOM cargo test --test
//!   conformance`.
//!   `WGSIMD_CONFORMANCE_BATCH=N`: programs per module (default 4); `WGSIMD_CONFORMANCE_SHRINK=N`:
//!   tries the shrinker gets per mismatching program (default 300); `WGSIMD_CONFORMANCE_OUT`:
//!   where found regressions are written; `WGSIMD_CONFORMANCE_TIMES=1`: each module's time in
//!   naga, the simulator and on the GPU; `WGSIMD_CONFORMANCE_FIRST=N`: skip the modules before
//!   program N; `WGSIMD_CONFORMANCE_DUMP=DIR`: write each module there before it runs.
//! - `WGSIMD_CONFORMANCE_REASSOCIATING=1`: generate and compare as for a GPU that reassociates
//!   and contracts float expressions (`Features::fixed_order`), on any GPU.
//! - `WGSIMD_CONFORMANCE_FILE=PATH`: the regression test runs only that file and prints every
//!   word of its first invocation from both executors.
//! - `WGSIMD_REQUIRE_GPU=1`: a missing GPU fails the differential tests instead of skipping them.
//! - `GALLIVM_PERF`: left unset, the test sets it to `nopt` (lavapipe compiles 12% faster
//!   without LLVM's optimisation passes); any value, even empty, is kept.

#[allow(dead_code)]
#[path = "../behaviour/harness.rs"]
mod harness;

mod exec;
mod generate;
mod shrink;
mod suite;
mod targets;

fn main() -> std::process::ExitCode {
    // lavapipe spends nearly all of the test's time in LLVM; without its IR optimisation
    // passes it compiles a generated module in 12% less CPU time (Mesa 22.3). Set before the
    // GPU opens, and before any thread starts.
    if std::env::var_os("GALLIVM_PERF").is_none() {
        // SAFETY: no other thread exists yet
        unsafe { std::env::set_var("GALLIVM_PERF", "nopt") };
    }
    harness::main(suite::tests(), targets::Targets::new())
}
