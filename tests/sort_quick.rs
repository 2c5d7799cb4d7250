mod common;
use wgsimd::kernel::{self, Flavor};
use wgsimd::sort::{self, SortOptions, Strategy};
#[test]
fn kernels_validate() {
    for name in [
        "sort/histogram",
        "sort/scatter",
        "sort/buckets",
        "sort/onesweep_histogram",
        "sort/onesweep_scan",
        "sort/onesweep",
    ] {
        for f in [Flavor::Subgroup, Flavor::Emulated] {
            if let Err(e) = kernel::load(name, f) {
                panic!("{name} {f:?}: {e}");
            }
        }
    }
}
#[test]
fn quick() {
    let Some(g) = common::gpu() else { return };
    for n in [1usize, 2, 33, 4097, 100_000] {
        let x = common::random_u32(n, 3);
        for s in [
            Strategy::ReduceThenScan,
            Strategy::OneSweep,
            Strategy::Hybrid,
        ] {
            let o = SortOptions {
                strategy: Some(s),
                ..Default::default()
            };
            let t = std::time::Instant::now();
            let y = sort::sort_keys(g, &x, &o).unwrap();
            eprintln!("{n} {s} {:?}", t.elapsed());
            let mut r = x.clone();
            r.sort();
            assert_eq!(y, r, "{n} {s}");
        }
    }
}
