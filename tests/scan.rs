//! Prefix sums on the GPU against `src/reference/scan.rs`, both kernel flavours, exclusive and
//! inclusive, at issue 2's sizes plus tile−1/tile/tile+1 (tile = 4096), wrapping inputs, and a
//! forced multi-chunk plan. The output buffer is poisoned, so an unwritten element fails.

mod common;

use rand::Rng;
use wgsimd::reference::scan::scan_u32;
use wgsimd::scan::{self, scan};
use wgsimd::Executor;

fn first_difference(got: &[u32], want: &[u32]) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("length {} != {}", got.len(), want.len()));
    }
    got.iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .map(|i| format!("element {i}: got {:#x}, want {:#x}", got[i], want[i]))
}

fn check(exec: &dyn Executor, x: &[u32], tag: &str) {
    for inclusive in [false, true] {
        let got = scan(exec, x, inclusive).unwrap();
        if let Some(d) = first_difference(&got, &scan_u32(x, inclusive)) {
            panic!("{tag} inclusive={inclusive}: {d}");
        }
    }
}

#[test]
fn random_at_every_size() {
    let mut sizes = common::SIZES.to_vec();
    sizes.extend([4095, 4096, 4097, 3 * 4096 + 1, 7 * 4096]);
    for (flavor, g) in common::executors() {
        for &n in &sizes {
            let x = common::random_u32(n, n as u64 + 1);
            check(g, &x, &format!("{flavor} n={n}"));
        }
    }
}

#[test]
fn adversarial() {
    for (flavor, g) in common::executors() {
        check(g, &vec![u32::MAX; 100_003], &format!("{flavor} wrapping"));
        check(g, &vec![1; 4097], &format!("{flavor} ones"));
        check(g, &vec![0; 4096], &format!("{flavor} zeros"));
        let mut r = common::rng(1);
        let sparse: Vec<u32> = (0..65_537)
            .map(|_| {
                if r.random_ratio(1, 100) {
                    r.random()
                } else {
                    0
                }
            })
            .collect();
        check(g, &sparse, &format!("{flavor} sparse"));
    }
}

#[test]
fn chunked_plan_matches() {
    for (flavor, g) in common::executors() {
        let mut caps = g.caps().clone();
        caps.max_storage_binding = 64 << 10; // 4 tiles per chunk
        let x = common::random_u32(2_684_354, 3);
        for inclusive in [false, true] {
            let p = scan::plan(&caps, &x, inclusive).unwrap();
            let got = p.decode(&g.run(&p.plan).unwrap());
            if let Some(d) = first_difference(&got, &scan_u32(&x, inclusive)) {
                panic!("{flavor} chunked inclusive={inclusive}: {d}");
            }
        }
    }
}

#[test]
fn the_check_catches_a_perturbed_result() {
    let Some(g) = common::gpu() else { return };
    let x = common::random_u32(5000, 4);
    let mut got = scan(g, &x, false).unwrap();
    assert!(first_difference(&got, &scan_u32(&x, false)).is_none());
    got[4999] ^= 1;
    assert!(first_difference(&got, &scan_u32(&x, false)).is_some());
    got.pop();
    assert!(first_difference(&got, &scan_u32(&x, false)).is_some());
}

/// The one-workgroup pass over the tile sums (`scan/scan_tile_sums`) walks blocks of 1024 sums
/// with a carry: 12 293 sums (13 blocks, the last partial), on both GPU flavours and on the
/// simulator, whatever block size the kernel uses.
#[test]
fn tile_sums_carry_across_blocks() {
    use wgsimd::kernel;
    use wgsimd::plan::{Plan, Workgroups};
    let n = 3 * 256 * 16 + 5;
    let x: Vec<u32> = common::random_u32(n, 9).iter().map(|v| v >> 8).collect();
    let want = scan_u32(&x, false);
    let sim = wgsimd::sim::SimExecutor::new(Default::default()).unwrap();
    for (name, exec) in common::executors_and(&sim) {
        let k = kernel::load("scan/scan_tile_sums", exec.caps().flavor()).unwrap();
        let mut plan = Plan::new("tile sums");
        let sums = plan.upload("sums", &x);
        plan.read_back(sums);
        plan.pass(
            "scan",
            &k,
            "main",
            &[],
            &[sums],
            Workgroups::Direct([1, 1, 1]),
        );
        let out = exec.run(&plan).unwrap();
        assert!(out.findings.is_empty(), "{name}: {:?}", out.findings);
        let got: Vec<u32> = out.get(sums);
        if let Some(d) = first_difference(&got, &want) {
            panic!("{name}: {d}");
        }
    }
}
