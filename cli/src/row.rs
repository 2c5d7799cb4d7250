//! One line of the benchmark's table, as `wgsimd bench` prints it and its JSON report holds it
//! (read again by `wgsimd plot` and the comparison with yardsticks).

use serde::Serialize;

/// One line of the table.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Row {
    pub algorithm: String,
    pub variant: String,
    pub size: u64,
    pub size_label: String,
    #[serde(deserialize_with = "nan_if_null")]
    pub median_ms: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub min_ms: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub throughput: f64,
    pub unit: String,
    /// Bytes moved per second over the copy kernel's (bandwidth-bound cases).
    pub frac_of_copy: Option<f64>,
    pub verified: bool,
    pub error: Option<String>,
    pub time_source: String,
    pub passes: Vec<(String, f64)>,
    /// Matching yardstick and our figure over its figure.
    pub yardstick: Option<String>,
    pub ratio: Option<f64>,
    /// The matching yardstick's figure, in `unit` (absent from reports written before it
    /// was added: `wgsimd plot` then takes it from the ratio).
    #[serde(default)]
    pub yardstick_value: Option<f64>,
    /// The case's extra figures (`Case::extra`), e.g. latency percentiles.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub extra: Vec<(String, f64)>,
}

/// A figure that JSON holds as `null`: a failed case's NaN (serde_json writes NaN as `null`).
fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(<Option<f64> as serde::Deserialize>::deserialize(d)?.unwrap_or(f64::NAN))
}
