mod common;
use wgsimd::sort::{self, SortOptions, SortPolicy, Strategy};
use wgsimd::Executor;
#[test]
fn probe() {
    let Some(g) = common::gpu() else { return };
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4097);
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
        let p = sort::plan(g.caps(), &x, None, &o, &SortPolicy::default()).unwrap();
        let (_, t) = g.time(&p.plan, 1, 3).unwrap();
        eprintln!(
            "{n} {s}: total {:.3} ms ({:?})",
            t.median_ns() / 1e6,
            t.source
        );
        for (l, ns) in t.pass_labels.iter().zip(t.pass_median_ns()) {
            eprintln!("   {l:20} {:.3} ms", ns / 1e6);
        }
    }
}
