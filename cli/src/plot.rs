//! `--plot FILE.svg|png`: throughput against size, one line per (algorithm, unit, variant),
//! one panel per unit so GB/s, Gkeys/s and TFLOP/s never share an axis.

use std::path::Path;

use plotters::prelude::*;

use crate::bench::Row;

fn register_font() {
    // plotters draws text through ab_glyph with a font we ship, so plotting needs no system
    // fonts (and no fontconfig) on any platform.
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            epaint_default_fonts::UBUNTU_LIGHT,
        );
    });
}

/// The line a row belongs to. GEMM rows of non-square shapes (M×N×K with M ≠ N) get their M in
/// the name, so skinny shapes do not join the square sweep's line.
fn series_name(r: &&Row) -> String {
    let dims: Vec<&str> = r.size_label.split('x').collect();
    match dims.as_slice() {
        [m, n, _] if r.algorithm == "gemm" && m != n => {
            format!("{} {} M={m}", r.algorithm, r.variant)
        }
        _ => format!("{} {}", r.algorithm, r.variant),
    }
}

/// The most panels (units) one image holds: 32, an image of 1000 × 13,440 pixels.
pub const MAX_PANELS: usize = 32;

/// The largest throughput drawn: past it a figure is no measurement (and the axis, 15% above
/// the largest, would overflow to infinity).
const MAX_THROUGHPUT: f64 = 1e30;

/// Whether a row is drawn: verified, of a positive size, with a finite throughput in
/// `0..=MAX_THROUGHPUT` (a failed case's throughput is NaN, `null` in its report).
fn plotted(r: &Row) -> bool {
    r.verified && r.size > 0 && (0.0..=MAX_THROUGHPUT).contains(&r.throughput)
}

/// Writes the plot; the format follows the extension. Rows that cannot be drawn are left
/// out; more than [`MAX_PANELS`] units is an error.
pub fn write(path: &Path, rows: &[Row], title: &str) -> anyhow::Result<()> {
    register_font();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_lowercase();
    let rows: Vec<Row> = rows.iter().filter(|r| plotted(r)).cloned().collect();
    let rows = &rows[..];
    let mut units: Vec<String> = rows.iter().map(|r| r.unit.clone()).collect();
    units.sort();
    units.dedup();
    anyhow::ensure!(
        units.len() <= MAX_PANELS,
        "--plot: {} units, a panel each; at most {MAX_PANELS} are drawn",
        units.len()
    );
    let size = (1000, 420 * units.len().max(1) as u32);
    match ext.as_str() {
        "svg" => draw(
            SVGBackend::new(path, size).into_drawing_area(),
            rows,
            &units,
            title,
        ),
        "png" => draw(
            BitMapBackend::new(path, size).into_drawing_area(),
            rows,
            &units,
            title,
        ),
        _ => anyhow::bail!(
            "--plot: unknown image type {:?} (use .svg or .png)",
            path.display()
        ),
    }
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    rows: &[Row],
    units: &[String],
    title: &str,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("plot: {e:?}");
    root.fill(&WHITE).map_err(err)?;
    let panels = root.split_evenly((units.len().max(1), 1));
    for (panel, unit) in panels.iter().zip(units) {
        let pts: Vec<&Row> = rows.iter().filter(|r| &r.unit == unit).collect();
        let xs = |r: &Row| (r.size as f64).log2();
        let (x0, x1) = pts
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), r| {
                (a.min(xs(r)), b.max(xs(r)))
            });
        let y1 = pts.iter().map(|r| r.throughput).fold(0.0, f64::max) * 1.15 + 1e-9;
        let (x0, x1) = if x0 < x1 {
            (x0 - 0.5, x1 + 0.5)
        } else {
            (x0 - 1.0, x0 + 1.0)
        };
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{title}: {unit}"), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, 0.0..y1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("size (log2 elements, or log2 N for GEMM)")
            .y_desc(unit.as_str())
            .x_labels(((x1 - x0).ceil() as usize + 1).min(24))
            .x_label_formatter(&|x| {
                if (x - x.round()).abs() < 1e-6 {
                    format!("2^{x:.0}")
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(err)?;
        let mut series: Vec<String> = pts.iter().map(series_name).collect();
        series.sort();
        series.dedup();
        for (i, name) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let mut line: Vec<(f64, f64)> = pts
                .iter()
                .filter(|r| &series_name(r) == name)
                .map(|r| (xs(r), r.throughput))
                .collect();
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart
                .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))
                .map_err(err)?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
            chart
                .draw_series(line.into_iter().map(|p| Circle::new(p, 3, color.filled())))
                .map_err(err)?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(())
}
