//! What a case's timing holds: how the times were taken, and the times of each repeat (whole
//! runs and per pass), with their medians. `timing.rs` measures them.

/// How times were measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeSource {
    /// GPU timestamp queries around each pass.
    Timestamps,
    /// Host wall clock around submit-and-wait (includes submission overhead).
    Host,
}

/// Timings of repeated runs of one case.
#[derive(Clone, Debug)]
pub struct Timing {
    /// How the times were taken.
    pub source: TimeSource,
    /// Labels of the recorded passes.
    pub pass_labels: Vec<String>,
    /// For each repeat, nanoseconds per pass (empty with host timing).
    pub pass_ns: Vec<Vec<f64>>,
    /// For each repeat, nanoseconds of the whole run.
    pub total_ns: Vec<f64>,
}

impl Timing {
    /// Median of the totals.
    pub fn median_ns(&self) -> f64 {
        median(&self.total_ns)
    }
    /// Minimum of the totals.
    pub fn min_ns(&self) -> f64 {
        self.total_ns.iter().copied().fold(f64::INFINITY, f64::min)
    }
    /// Median per pass.
    pub fn pass_median_ns(&self) -> Vec<f64> {
        (0..self.pass_labels.len())
            .map(|i| {
                median(
                    &self
                        .pass_ns
                        .iter()
                        .filter_map(|r| r.get(i).copied())
                        .collect::<Vec<_>>(),
                )
            })
            .collect()
    }
}

/// Median of a sample (NaN for an empty one).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        0.5 * (s[m - 1] + s[m])
    }
}
