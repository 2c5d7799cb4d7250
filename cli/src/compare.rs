//! Yardsticks: the `RESULT` lines that ../shared/h100/remote.sh's CUDA programs print
//! (cub_bench: `RESULT cub | SortKeys u32 | 2^24 | 35700.0 Mkeys/s | median ... | ...`;
//! cuda_anchors: `RESULT matmul | torch.matmul fp16 | 4096^3 | 700.00 TFLOP/s | ...`; the lab's
//! decode products, lab/yardsticks/torch_decode.py: `RESULT torch | decode f16 (torch.matmul) |
//! 16x14336x4096 | 57.8 TFLOP/s | ...`), matched to bench rows of the same size and kind so every
//! row can carry "ours / theirs". A GEMM shape MxNxK matches the row of that label only.

use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;

use crate::row::Row;

/// One yardstick figure, in the bench's units (Mkeys/s converted to Gkeys/s).
#[derive(Clone, Debug, Serialize)]
pub struct Yardstick {
    /// Program or section ("cub", "matmul").
    pub source: String,
    /// What was measured.
    pub what: String,
    /// Numeric size: elements (2^k), matrix size (N^3 → N), u32 words (MiB copies), the
    /// largest dimension of a GEMM shape.
    pub size: u64,
    /// A GEMM shape `MxNxK`, as the bench labels its rows.
    pub shape: Option<String>,
    /// Figure.
    pub value: f64,
    /// Unit (GB/s, Gkeys/s, TFLOP/s).
    pub unit: String,
}

fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(e) = s.strip_prefix("2^") {
        return e.parse::<u32>().ok().map(|e| 1u64 << e);
    }
    if let Some(n) = s.strip_suffix("^3") {
        return n.parse().ok();
    }
    if let Some(m) = s.strip_suffix("MiB") {
        return m.trim().parse::<u64>().ok().map(|m| (m << 20) / 4);
    }
    // rows x columns (torch's batched top-k): the elements
    if let Some((r, c)) = s.split_once('x') {
        if !c.contains('x') {
            return Some(r.trim().parse::<u64>().ok()? * c.trim().parse::<u64>().ok()?);
        }
    }
    s.parse().ok()
}

/// Parses one `RESULT` line.
pub fn parse_line(line: &str) -> Option<Yardstick> {
    let rest = line.trim().strip_prefix("RESULT")?;
    let f: Vec<&str> = rest.split('|').map(str::trim).collect();
    if f.len() < 4 {
        return None;
    }
    // a GEMM shape MxNxK: its label, and its largest dimension as the size
    let dims: Vec<u64> = f[2]
        .split('x')
        .filter_map(|d| d.trim().parse().ok())
        .collect();
    let shape = (dims.len() == 3 && f[2].matches('x').count() == 2).then(|| f[2].to_string());
    let size = match &shape {
        Some(_) => dims.iter().copied().max()?,
        None => parse_size(f[2])?,
    };
    let mut vu = f[3].split_whitespace();
    let mut value: f64 = vu.next()?.parse().ok()?;
    let mut unit = vu.next()?.to_string();
    // (items, CUB's primitives' unit: samples, elements, as the bench counts keys)
    if unit == "Mkeys/s" || unit == "Mitems/s" {
        value /= 1e3;
        unit = "Gkeys/s".into();
    }
    Some(Yardstick {
        source: f[0].to_string(),
        what: f[1].to_string(),
        size,
        shape,
        value,
        unit,
    })
}

/// Reads every `RESULT` line of `paths`.
pub fn load(paths: &[PathBuf]) -> anyhow::Result<Vec<Yardstick>> {
    let mut out = Vec::new();
    for p in paths {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?;
        out.extend(text.lines().filter_map(parse_line));
    }
    Ok(out)
}

/// The yardstick a row compares with: (row algorithm, row variant prefix, yardstick `what`); the
/// sizes must match too.
const MATCHES: &[(&str, &str, &str)] = &[
    // (the memcpy figure is for 1024 MiB, 2^28 words: a copy of another size has no match)
    ("copy", "", "cudaMemcpy D2D"),
    ("reduce", "sum u32", "DeviceReduce::Sum u32 (wrapping)"),
    ("reduce", "sum u32", "DeviceReduce::Sum u32"),
    ("reduce", "sum f32", "DeviceReduce::Sum f32"),
    ("scan", "exclusive u32", "DeviceScan::ExclusiveSum u32"),
    (
        "scan",
        "inclusive u32 max (operator)",
        "DeviceScan::InclusiveScan u32 max",
    ),
    (
        "reduce",
        "max u32 (operator)",
        "DeviceReduce::Reduce u32 max",
    ),
    ("sort", "keys u32 bits 0..16", "SortKeys u32 bits 0..16"),
    ("sort", "keys u32", "SortKeys u32"),
    ("sort", "pairs u32", "SortPairs u32/u32"),
    ("sort", "keys u64", "SortKeys u64"),
    ("sort", "pairs u64", "SortPairs u64/u32"),
    (
        "segmented sort",
        "pairs u32 segments of 1024 ",
        "SegmentedSort::SortPairs u32/u32 segments of 1024",
    ),
    (
        "segmented sort",
        "pairs u32 segments of 65536",
        "SegmentedSort::SortPairs u32/u32 segments of 65536",
    ),
    (
        "segmented sort",
        "pairs u32 random segments 1..8191",
        "SegmentedSort::SortPairs u32/u32 random segments 1..8191",
    ),
    (
        "select",
        "u32 predicate (50%)",
        "DeviceSelect::If u32 (50% selected)",
    ),
    (
        "partition",
        "u32 predicate (50%)",
        "DevicePartition::If u32 (50%)",
    ),
    (
        "run-length encode",
        "u32 (runs of 8)",
        "DeviceRunLengthEncode::Encode u32 (runs of 8)",
    ),
    (
        "unique",
        "u32 (runs of 8)",
        "DeviceSelect::Unique u32 (runs of 8)",
    ),
    (
        "reduce-by-key",
        "u32 sum (runs of 8)",
        "DeviceReduce::ReduceByKey u32 sum (runs of 8)",
    ),
    ("topk", "f32 k=16", "topk f32 k=16"),
    ("topk", "rows f32 k=50", "topk rows 64x128256 k=50"),
    ("topk", "f32 k=1024", "topk f32 k=1024"),
    ("topk", "rows 1x128256 f32 k=50", "topk rows 1x128256 k=50"),
    (
        "topk",
        "rows 256x32000 f32 k=40",
        "topk rows 256x32000 k=40",
    ),
    (
        "topk",
        "rows 4096x1024 f32 k=16",
        "topk rows 4096x1024 k=16",
    ),
    (
        "histogram",
        "u8 256 bins",
        "DeviceHistogram::HistogramEven u8 256 bins",
    ),
    (
        "histogram",
        "f32 1024 bins",
        "DeviceHistogram::HistogramEven f32 1024 bins",
    ),
    ("gemm", "f32", "torch.matmul fp32 (TF32 off)"),
    ("gemm", "f16", "torch.matmul fp16"),
    // (decode-sized shapes, lab/yardsticks/torch_decode.py)
    ("gemm", "f16", "decode f16 (torch.matmul)"),
    ("gemm", "int4", "decode int4 (tinygemm)"),
];

/// Sets `yardstick`, `yardstick_value` and `ratio` on every row that has a match.
pub fn annotate(rows: &mut [Row], ys: &[Yardstick]) {
    for r in rows.iter_mut() {
        if r.variant.starts_with("cpu") || !r.verified {
            continue;
        }
        let found = MATCHES.iter().find_map(|&(alg, prefix, what)| {
            if r.algorithm != alg || !r.variant.starts_with(prefix) {
                return None;
            }
            // cuBLAS figures are for square N^3 (a size alone); other GEMM rows match a shape
            let square = r.size_label == format!("{0}x{0}x{0}", r.size);
            let same_size = |y: &Yardstick| match &y.shape {
                Some(shape) => *shape == r.size_label,
                None => y.size == r.size && (alg != "gemm" || square),
            };
            ys.iter()
                .find(|y| y.what == what && y.unit == r.unit && same_size(y))
        });
        if let Some(y) = found {
            r.ratio = Some(r.throughput / y.value);
            r.yardstick_value = Some(y.value);
            r.yardstick = Some(format!(
                "{} {} = {:.1} {}",
                y.source, y.what, y.value, y.unit
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_formats() {
        let y = parse_line(
            "RESULT cub | SortKeys u32 | 2^24 | 35700.0 Mkeys/s | median 0.47 ms | verify=OK",
        )
        .unwrap();
        assert_eq!((y.size, y.unit.as_str()), (1 << 24, "Gkeys/s"));
        assert!((y.value - 35.7).abs() < 1e-9);
        let y = parse_line("RESULT matmul   | torch.matmul fp16 | 4096^3       |     700.00 TFLOP/s  | median 0.2 ms | x").unwrap();
        assert_eq!(
            (y.size, y.what.as_str(), y.value),
            (4096, "torch.matmul fp16", 700.0)
        );
        let y = parse_line(
            "RESULT cub | cudaMemcpy D2D | 1024 MiB | 2960.0 GB/s | median 0.7 ms | read+write",
        )
        .unwrap();
        assert_eq!(y.size, 1 << 28);
        assert!(parse_line("allow_tf32 = False").is_none());
    }

    /// A verified row of the bench with this throughput, no yardstick yet.
    fn row(algorithm: &str, variant: &str, size: u64, throughput: f64, unit: &str) -> Row {
        Row {
            algorithm: algorithm.into(),
            variant: variant.into(),
            size,
            size_label: String::new(),
            median_ms: 1.0,
            min_ms: 1.0,
            throughput,
            unit: unit.into(),
            frac_of_copy: None,
            verified: true,
            error: None,
            time_source: String::new(),
            passes: vec![],
            yardstick: None,
            ratio: None,
            yardstick_value: None,
            extra: vec![],
        }
    }

    /// The memcpy figure (1024 MiB) is the yardstick of the 2^28-word copy only.
    #[test]
    fn the_copy_compares_at_its_own_size() {
        let y = parse_line(
            "RESULT cub | cudaMemcpy D2D | 1024 MiB | 2960.0 GB/s | median 0.7 ms | read+write",
        )
        .unwrap();
        let row = |size: u64| row("copy", "u32 vec4", size, 2900.0, "GB/s");
        let mut rows = vec![row(1 << 20), row(1 << 28)];
        annotate(&mut rows, &[y]);
        assert!(rows[0].ratio.is_none() && rows[0].yardstick_value.is_none());
        assert!((rows[1].ratio.unwrap() - 2900.0 / 2960.0).abs() < 1e-9);
        assert_eq!(rows[1].yardstick_value, Some(2960.0));
    }

    /// A decode-sized GEMM compares with the yardstick of its own shape, never with another of
    /// the same largest dimension, nor with cuBLAS's square figure.
    #[test]
    fn a_gemm_shape_compares_with_its_own_shape() {
        let ys: Vec<Yardstick> = [
            "RESULT torch | decode int4 (tinygemm) | 1x14336x4096 | 6.2256 TFLOP/s | median 0.01886 ms | x",
            "RESULT torch | decode int4 (tinygemm) | 1x4096x14336 | 6.4778 TFLOP/s | median 0.01813 ms | x",
            "RESULT matmul | torch.matmul fp16 | 4096^3 | 700.00 TFLOP/s | median 0.2 ms | x",
        ]
        .iter()
        .map(|l| parse_line(l).unwrap())
        .collect();
        assert_eq!(ys[0].size, 14336);
        assert_eq!(ys[0].shape.as_deref(), Some("1x14336x4096"));
        let gemm = |variant: &str, label: &str, size: u64| Row {
            size_label: label.into(),
            ..row("gemm", variant, size, 7.0, "TFLOP/s")
        };
        let mut rows = vec![
            gemm("int4 gemv", "1x4096x14336", 14336),
            gemm("int4 gemv", "2x4096x14336", 14336),
            gemm("f16 gemv", "1x4096x4096", 4096),
        ];
        annotate(&mut rows, &ys);
        assert!((rows[0].ratio.unwrap() - 7.0 / 6.4778).abs() < 1e-9);
        assert!(rows[1].ratio.is_none());
        assert!(rows[2].ratio.is_none());
    }

    /// A sort over 16 key bits compares with CUB's 16-bit sort, not with its full one.
    #[test]
    fn a_bit_range_compares_with_its_own_yardstick() {
        let ys: Vec<Yardstick> = [
            "RESULT cub | SortKeys u32 | 2^24 | 35000.0 Mkeys/s | median 0.47 ms | verify=OK",
            "RESULT cub | SortKeys u32 bits 0..16 | 2^24 | 63000.0 Mkeys/s | median 0.27 ms",
        ]
        .iter()
        .map(|l| parse_line(l).unwrap())
        .collect();
        let row = |variant: &str| row("sort", variant, 1 << 24, 31.5, "Gkeys/s");
        let mut rows = vec![
            row("keys u32 onesweep"),
            row("keys u32 bits 0..16 onesweep"),
        ];
        annotate(&mut rows, &ys);
        assert!((rows[0].ratio.unwrap() - 31.5 / 35.0).abs() < 1e-9);
        assert!((rows[1].ratio.unwrap() - 31.5 / 63.0).abs() < 1e-9);
    }
}
