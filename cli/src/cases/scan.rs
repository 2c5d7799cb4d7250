use wgsimd::scan::plan;
use wgsimd::{Caps, Result};

/// Benchmark case at `n` elements: exclusive u32 scan, verified against `src/reference/scan.rs`.
pub fn bench_cases(caps: &Caps, n: u64, seed: u64) -> Result<Vec<crate::case::Case>> {
    use crate::case::{Case, Work};
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let data: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let want = wgsimd::reference::scan::scan_u32(&data, false);
    let mut decoder = plan(caps, &data, false)?;
    let plan = std::mem::take(&mut decoder.plan);
    Ok(vec![Case {
        algorithm: "scan".into(),
        variant: "exclusive u32".into(),
        size: n,
        size_label: crate::case::size_label(n),
        plan,
        work: Work::Bytes(8.0 * n as f64),
        verify: Box::new(move |out| {
            let got = decoder.decode(out);
            match got.iter().zip(&want).position(|(a, b)| a != b) {
                None if got.len() == want.len() => Ok(()),
                None => Err(format!("{} elements, want {}", got.len(), want.len())),
                Some(i) => Err(format!("element {i}: got {}, want {}", got[i], want[i])),
            }
        }),
        extra: None,
    }])
}
