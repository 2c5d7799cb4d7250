mod common;
use wgsimd::{reduce, scan};
#[test]
fn smoke() {
    let Some(g) = common::gpu() else { return };
    eprintln!("{:?}", wgsimd::Executor::caps(g));
    let x = common::random_u32(100_000, 1);
    let s = reduce::reduce(g, &x, reduce::ReduceOp::Sum).unwrap();
    assert_eq!(
        s,
        reduce::Scalar::U64(wgsimd::reference::reduce::sum_u64(&x))
    );
    let y = scan::scan(g, &x, false).unwrap();
    assert_eq!(y, wgsimd::reference::scan::scan_u32(&x, false));
}
