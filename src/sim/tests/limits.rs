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
