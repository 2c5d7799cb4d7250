//! A dispatch past what the simulator runs is an error, never a clean verdict from a grid whose
//! workgroup total wrapped in 32 bits.

use super::request;
use crate::check::check;
use crate::error::Error;

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
        f.message
            .contains("the run ran out of its budget of 10000 steps"),
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

/// A kernel that declares `decl` and touches it, writing `out[0]`.
fn touching(decl: &str, touch: &str) -> String {
    format!(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
{decl}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {{
    {touch}
}}"
    )
}

/// WGSL's memory limits hold before any table is built: 256 MiB of private memory (an
/// out-of-memory kill at 22 GB before), a function's 16 KiB of locals, 2 GiB of workgroup
/// memory, each an `Error::TooLarge` naming the variable or function, within a second. At
/// the limits (8 KiB private and local, the profile's workgroup memory) the kernels run.
#[test]
fn memory_past_wgsl_limits_is_refused_before_tables() {
    let t = std::time::Instant::now();
    for (src, needle) in [
        (
            touching(
                "var<private> big: array<u32, 67108864>;",
                "big[i] = i; out[i] = big[i ^ 1u];",
            ),
            "private variables (`big`)",
        ),
        (
            touching(
                "",
                "var big: array<u32, 4096>; big[i] = i; out[i] = big[i ^ 1u];",
            ),
            "function `main`: 16384 bytes of local variables",
        ),
        (
            touching(
                "var<workgroup> big: array<u32, 268435456>;",
                "big[i] = i; workgroupBarrier(); out[i] = big[i ^ 1u];",
            ),
            "bytes of workgroup memory (`big`)",
        ),
    ] {
        match check(&request(&src, 32, None, [1, 1, 1], &["0=u32:zeros:64"])) {
            Err(Error::TooLarge(m)) => assert!(m.contains(needle), "{m}"),
            Err(e) => panic!("{needle}: {e}"),
            Ok(r) => panic!("{needle}: ran, {:?}", r.findings),
        }
    }
    assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
    // 8192 bytes of private memory, 8192 of locals, 48 KiB of workgroup memory (h100's)
    for src in [
        touching(
            "var<private> big: array<u32, 2048>;",
            "big[i] = i ^ 1u; out[i] = big[i];",
        ),
        touching(
            "",
            "var big: array<u32, 2048>; big[i] = i ^ 1u; out[i] = big[i];",
        ),
        touching(
            "var<workgroup> big: array<u32, 12288>;",
            "big[i] = i; workgroupBarrier(); out[i] = big[i ^ 1u];",
        ),
    ] {
        let r = check(&request(&src, 32, None, [1, 1, 1], &["0=u32:zeros:64"])).unwrap();
        assert!(r.findings.is_empty(), "{src}: {:?}", r.findings);
        let (_, out) = r.binding(0, 0).unwrap();
        assert!(
            out.iter().enumerate().all(|(i, &v)| v == i as u32 ^ 1),
            "{out:?}"
        );
    }
}

/// The memory budget bounds a run: 256 KiB of read-write buffer under the default four
/// schedules is held five times with 1.75 MiB of race records, past a 1 MiB budget (and past
/// it under one schedule too); a 4 MiB binding is refused before it is made; with a 4 MiB
/// budget the run under one schedule goes ahead, and a 16 MiB read-only input needs no race
/// records.
#[test]
fn a_run_past_the_memory_budget_is_an_error() {
    const COPY: &str = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    out[g.x] = g.x;
}";
    let mut req = request(COPY, 32, None, [1, 1, 1], &["0=u32:zeros:65536"]);
    req.config.memory_budget = 1 << 20;
    for schedules in [4, 1] {
        req.config.schedules.truncate(schedules);
        match check(&req) {
            Err(Error::TooLarge(m)) => {
                assert!(m.contains("the memory budget is 1048576"), "{m}");
                assert!(!m.contains("  "), "{m}");
            }
            other => panic!("{schedules}: {:?}", other.map(|r| r.findings)),
        }
    }
    let mut big = request(COPY, 32, None, [1, 1, 1], &["0=u32:zeros:1048576"]);
    big.config.memory_budget = 1 << 20;
    match check(&big) {
        Err(Error::TooLarge(m)) => assert!(m.contains("binding 0"), "{m}"),
        other => panic!("{:?}", other.map(|r| r.findings)),
    }
    req.config.memory_budget = 4 << 20;
    let r = check(&req).unwrap();
    let (_, out) = r.binding(0, 0).unwrap();
    assert_eq!(&out[..64], &(0..64).collect::<Vec<u32>>()[..]);
    // a 16 MiB read-only input keeps no race records: within a 24 MiB budget
    const SUM: &str = "@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    out[g.x] = inp[g.x * 65536u] + 1u;
}";
    let mut req = request(
        SUM,
        32,
        None,
        [1, 1, 1],
        &["0=u32:zeros:4194304", "1=u32:zeros:64"],
    );
    req.config.memory_budget = 24 << 20;
    req.config.schedules.truncate(1);
    let r = check(&req).unwrap();
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(r.binding(0, 1).unwrap().1, vec![1; 64]);
}

/// 30,000 nested negations and a 20,000-term sum overflowed the parser's stack (an abort);
/// 300 nested brackets too. Each is an `Error::Shader` at its line and column now. A sum of
/// 4,000 terms, within the bounds, parses on the parser's own large stack (this test's thread
/// has 2 MiB) and runs.
#[test]
fn hostile_expressions_are_errors_not_stack_overflows() {
    let kernel = |expr: &str| {
        format!(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {{
    let one = out[1];
    out[0] = {expr};
}}"
        )
    };
    for (expr, needle) in [
        (
            format!("{}one", "- ".repeat(30_000)),
            "operators in one statement",
        ),
        (
            vec!["one"; 20_000].join(" + "),
            "operators in one statement",
        ),
        (
            format!("{}one{}", "(".repeat(300), ")".repeat(300)),
            "nested more than 255 deep",
        ),
    ] {
        match check(&request(
            &kernel(&expr),
            32,
            None,
            [1, 1, 1],
            &["0=u32:[0,1]"],
        )) {
            Err(Error::Shader { message, .. }) => {
                assert!(message.contains(needle), "{message}");
                assert!(message.contains("test.wgsl:5:"), "{message}");
            }
            Err(e) => panic!("{needle}: {e}"),
            Ok(r) => panic!("{needle}: ran, {:?}", r.findings),
        }
    }
    let sum = vec!["one"; 4_000].join(" + ");
    let r = check(&request(
        &kernel(&sum),
        32,
        None,
        [1, 1, 1],
        &["0=u32:[0,1]"],
    ))
    .unwrap();
    assert_eq!(r.binding(0, 0).unwrap().1, vec![4000, 1]);
}

/// A function of 20,000 statements (12.6 s to parse: naga's typifier is quadratic in a
/// function's expressions) is an error at once; one of 10,000 parses and runs.
#[test]
fn a_function_past_the_statement_bound_is_an_error() {
    let kernel = |n: usize| {
        format!(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {{
    var x = out[0];
{}    out[0] = x;
}}",
            "    x = x + 1u;\n".repeat(n)
        )
    };
    let t = std::time::Instant::now();
    match check(&request(
        &kernel(20_000),
        32,
        None,
        [1, 1, 1],
        &["0=u32:[0]"],
    )) {
        Err(Error::Shader { message, .. }) => {
            assert!(
                message.contains("more than 16384 statements in one function"),
                "{message}"
            )
        }
        Err(e) => panic!("{e}"),
        Ok(r) => panic!("ran, {:?}", r.findings),
    }
    assert!(t.elapsed().as_millis() < 500, "{:?}", t.elapsed());
    let mut req = request(&kernel(10_000), 32, None, [1, 1, 1], &["0=u32:[0]"]);
    req.config.schedules.truncate(1);
    let r = check(&req).unwrap();
    assert_eq!(r.binding(0, 0).unwrap().1, vec![10_000]);
}
