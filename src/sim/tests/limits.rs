//! A dispatch past what the simulator runs is an error, never a clean verdict from a grid whose
//! workgroup total wrapped in 32 bits.

use super::request;
use crate::error::Error;
use crate::sim::check::check;

const WRITES_BY_WORKGROUP: &str = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) w: vec3<u32>) {
    out[w.x] = 1u;
}";

/// 2^32 workgroups (a total of 0 in 32 bits) and 65535³ (196,607 in 32 bits) are refused; a
/// grid of 8 runs, and its writes past the 4-word buffer are found.
#[test]
fn a_grid_past_the_limit_is_an_error_not_a_clean_run() {
    for grid in [
        [4096, 4096, 256],
        [65535, 65535, 65535],
        [1 << 13, 1 << 13, 1],
    ] {
        match check(&request(
            WRITES_BY_WORKGROUP,
            32,
            None,
            grid,
            &["0=u32:zeros:4"],
        )) {
            Err(Error::Sim(m)) => assert!(m.contains("workgroups"), "{grid:?}: {m}"),
            Err(e) => panic!("{grid:?}: {e}"),
            Ok(r) => panic!("{grid:?}: ran, {} finding(s)", r.findings.len()),
        }
    }
    let r = check(&request(
        WRITES_BY_WORKGROUP,
        32,
        None,
        [8, 1, 1],
        &["0=u32:zeros:4"],
    ))
    .unwrap();
    assert!(
        r.findings.iter().any(|f| f.kind.name() == "out-of-bounds"),
        "{:?}",
        r.findings
    );
}

/// Each of 64 workgroups runs 1000 loop iterations (a few thousand steps, far inside the
/// per-thread budget); a run budget of 10,000 steps stops the run there with a `step-limit`
/// finding naming the run's budget, an error with `fail_on_step_limit`; a budget of 10^6 lets
/// it finish, every word right.
#[test]
fn a_run_past_its_step_budget_stops_with_a_finding() {
    const SPINS: &str = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) w: vec3<u32>) {
    var s = 0u;
    for (var i = 0u; i < 1000u; i++) {
        s += i;
    }
    out[w.x] = s;
}";
    let mut req = request(SPINS, 32, None, [64, 1, 1], &["0=u32:zeros:64"]);
    req.config.max_run_steps = 10_000;
    let r = check(&req).unwrap();
    let f = r
        .findings
        .iter()
        .find(|f| f.kind.name() == "step-limit")
        .unwrap_or_else(|| panic!("no step-limit finding: {:?}", r.findings));
    assert!(
        f.message.contains("the run ran out of its budget of 10000 steps"),
        "{}",
        f.message
    );
    req.config.fail_on_step_limit = true;
    match check(&req) {
        Err(Error::Sim(m)) => assert!(m.contains("budget of 10000 steps"), "{m}"),
        other => panic!("{:?}", other.map(|r| r.findings)),
    }
    req.config.fail_on_step_limit = false;
    req.config.max_run_steps = 1_000_000;
    let r = check(&req).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let (_, out) = r.binding(0, 0).unwrap();
    assert!(out.iter().all(|&v| v == 499_500), "{out:?}");
}
