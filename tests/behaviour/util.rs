//! Recording helpers shared by the algorithm tests.

use wgsimd::{Buffer, Encoder};

use crate::targets::Target;

/// Submits `enc` on `t` and fails the test on any simulator finding.
pub fn submit(t: &Target, enc: Encoder) {
    let report = t.ctx.submit(enc).expect("submit");
    if let Some(first) = report.findings.first() {
        panic!(
            "{} simulator finding(s); the first: {first}",
            report.findings.len()
        );
    }
}

/// The words of `buf` after the work submitted before.
pub fn words(t: &Target, buf: &Buffer) -> Vec<u32> {
    t.ctx.read::<u32>(buf).expect("read back")
}

/// `what` must be refused with a typed input error (invalid input, an unsupported dtype, too
/// large), never a panic; returns the message.
pub fn refused<T: std::fmt::Debug>(what: &str, r: wgsimd::Result<T>) -> String {
    match r {
        Err(
            e @ (wgsimd::Error::InvalidInput(_)
            | wgsimd::Error::TooLarge(_)
            | wgsimd::Error::UnsupportedDtype { .. }
            | wgsimd::Error::MissingFeature { .. }
            | wgsimd::Error::Limit { .. }
            | wgsimd::Error::BufferUsage { .. }
            | wgsimd::Error::Layout { .. }),
        ) => e.to_string(),
        Err(e) => panic!("{what}: expected a typed input error, got {e:?}"),
        Ok(v) => panic!("{what}: accepted ({v:?})"),
    }
}
