//! `--plot FILE.svg|png`: throughput against size, one line per (algorithm, unit, variant),
//! one panel per unit so GB/s, Gkeys/s and TFLOP/s never share an axis. Where rows were
//! compared with yardsticks (`--compare`), each yardstick is a dashed line beside the rows it
//! was compared with, and a last panel draws ours / yardstick at each size against a line at 1.

use std::path::Path;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use crate::row::Row;

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
fn series_name(r: &Row) -> String {
    let dims: Vec<&str> = r.size_label.split('x').collect();
    match dims.as_slice() {
        [m, n, _] if r.algorithm == "gemm" && m != n => {
            format!("{} {} M={m}", r.algorithm, r.variant)
        }
        _ => format!("{} {}", r.algorithm, r.variant),
    }
}

/// The most panels (units) one image holds: 32, an image of 1420 × 13,440 pixels (13,860 with
/// the ratios' panel).
pub const MAX_PANELS: usize = 32;

/// The largest throughput drawn: past it a figure is no measurement (and the axis, 15% above
/// the largest, would overflow to infinity). Yardstick figures and ratios are held to it too.
const MAX_THROUGHPUT: f64 = 1e30;

/// Pixels: a panel's height, its chart's width, and the width of the legend beside the chart.
const PANEL_H: u32 = 420;
const CHART_W: u32 = 1000;
const LEGEND_W: u32 = 420;

/// The longest legend label, in characters (longer ones end in "…").
const MAX_LABEL: usize = 60;

/// Whether a row is drawn: verified, of a positive size, with a finite throughput in
/// `0..=MAX_THROUGHPUT` (a failed case's throughput is NaN, `null` in its report).
fn plotted(r: &Row) -> bool {
    r.verified && r.size > 0 && (0.0..=MAX_THROUGHPUT).contains(&r.throughput)
}

/// A drawn row with the yardstick it was compared with.
struct Compared<'a> {
    row: &'a Row,
    /// The yardstick's name: its program and what it measured ("cub SortKeys u32").
    name: String,
    /// Its figure, in the row's unit.
    value: f64,
    /// Ours / its figure.
    ratio: f64,
}

/// The row's yardstick, if it has one that can be drawn: a positive, finite figure (a report
/// without `yardstick_value` gives it through the ratio) whose ratio is finite too. A
/// yardstick of 0 or NaN is left out.
fn yardstick_of(r: &Row) -> Option<Compared<'_>> {
    let label = r.yardstick.as_deref()?;
    let name = label
        .split(" = ")
        .next()
        .unwrap_or(label)
        .trim()
        .to_string();
    let value = match r.yardstick_value {
        Some(v) => v,
        None => r.throughput / r.ratio.filter(|q| q.is_finite() && *q > 0.0)?,
    };
    let ratio = r.throughput / value;
    let bounded = |x: f64| (0.0..=MAX_THROUGHPUT).contains(&x);
    (value > 0.0 && bounded(value) && bounded(ratio)).then_some(Compared {
        row: r,
        name,
        value,
        ratio,
    })
}

/// Writes the plot; the format follows the extension. Rows that cannot be drawn are left
/// out, and so are yardsticks that cannot; more than [`MAX_PANELS`] units is an error.
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
    let panels = units.len() + usize::from(rows.iter().any(|r| yardstick_of(r).is_some()));
    let size = (CHART_W + LEGEND_W, PANEL_H * panels.max(1) as u32);
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

/// One line of a legend.
struct Entry {
    label: String,
    color: RGBAColor,
    dashed: bool,
}

/// `s`, at most [`MAX_LABEL`] characters.
fn short(s: &str) -> String {
    if s.chars().count() <= MAX_LABEL {
        return s.to_string();
    }
    let mut t: String = s.chars().take(MAX_LABEL - 1).collect();
    t.push('…');
    t
}

/// Log2 of a row's size, the x axis.
fn xs(r: &Row) -> f64 {
    (r.size as f64).log2()
}

/// The x axis over these sizes (log2): half a step beyond either end, or ±1 around one size.
fn x_range(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    if x0 < x1 {
        (x0 - 0.5, x1 + 0.5)
    } else {
        (x0 - 1.0, x0 + 1.0)
    }
}

/// The x axis's labels: 2^k at the whole powers.
fn power_label(x: &f64) -> String {
    if (x - x.round()).abs() < 1e-6 {
        format!("2^{x:.0}")
    } else {
        String::new()
    }
}

/// Draws `entries` down `area`, as many as fit; the rest are counted in a last line.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    const TOP: i32 = 48;
    const STEP: i32 = 18;
    let fit = ((PANEL_H as i32 - TOP - 12) / STEP) as usize;
    let shown = if entries.len() > fit {
        fit - 1
    } else {
        entries.len()
    };
    let font = ("sans-serif", 13).into_font();
    for (i, e) in entries.iter().take(shown).enumerate() {
        let y = TOP + STEP * i as i32;
        let style = e.color.stroke_width(2);
        if e.dashed {
            area.draw(&DashedPathElement::new(vec![(4, y), (34, y)], 6, 4, style))?;
        } else {
            area.draw(&PathElement::new(vec![(4, y), (34, y)], style))?;
        }
        area.draw(&Text::new(short(&e.label), (40, y - 7), font.clone()))?;
    }
    if shown < entries.len() {
        let y = TOP + STEP * shown as i32;
        let more = format!("and {} more", entries.len() - shown);
        area.draw(&Text::new(more, (40, y - 7), font))?;
    }
    Ok(())
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    rows: &[Row],
    units: &[String],
    title: &str,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("plot: {e:?}");
    root.fill(&WHITE).map_err(err)?;
    let compared: Vec<Compared> = rows.iter().filter_map(yardstick_of).collect();
    // a colour per (unit, series) over the whole image, so a series' ratio line has its colour
    let mut series: Vec<(&str, String)> = rows
        .iter()
        .map(|r| (r.unit.as_str(), series_name(r)))
        .collect();
    series.sort();
    series.dedup();
    let index = |r: &Row| {
        series
            .binary_search(&(r.unit.as_str(), series_name(r)))
            .unwrap_or(0)
    };
    let color = |i: usize| Palette99::pick(i).to_rgba();
    let n = units.len() + usize::from(!compared.is_empty());
    let panels = root.split_evenly((n.max(1), 1));
    for (panel, unit) in panels.iter().zip(units) {
        let pts: Vec<&Row> = rows.iter().filter(|r| &r.unit == unit).collect();
        let theirs: Vec<&Compared> = compared.iter().filter(|c| &c.row.unit == unit).collect();
        let (x0, x1) = x_range(pts.iter().map(|r| xs(r)));
        let top = pts
            .iter()
            .map(|r| r.throughput)
            .chain(theirs.iter().map(|c| c.value))
            .fold(0.0, f64::max);
        let (area, legend_area) = panel.split_horizontally(CHART_W);
        let mut chart = ChartBuilder::on(&area)
            .caption(format!("{title}: {unit}"), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, 0.0..top * 1.15 + 1e-9)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("size (log2 elements, or log2 N for GEMM)")
            .y_desc(unit.as_str())
            .x_labels(((x1 - x0).ceil() as usize + 1).min(24))
            .x_label_formatter(&power_label)
            .draw()
            .map_err(err)?;
        let mut entries = Vec::new();
        let mut names: Vec<(usize, String)> =
            pts.iter().map(|r| (index(r), series_name(r))).collect();
        names.sort();
        names.dedup();
        for (i, name) in names {
            let color = color(i);
            let mut line: Vec<(f64, f64)> = pts
                .iter()
                .filter(|r| series_name(r) == name)
                .map(|r| (xs(r), r.throughput))
                .collect();
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart
                .draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))
                .map_err(err)?;
            chart
                .draw_series(line.into_iter().map(|p| Circle::new(p, 3, color.filled())))
                .map_err(err)?;
            entries.push(Entry {
                label: name,
                color,
                dashed: false,
            });
        }
        // each yardstick once, in the colour of the first series compared with it
        let mut yardsticks: Vec<(usize, &str)> = theirs
            .iter()
            .map(|c| (index(c.row), c.name.as_str()))
            .collect();
        yardsticks.sort();
        let mut seen: Vec<&str> = Vec::new();
        yardsticks.retain(|&(_, name)| {
            let new = !seen.contains(&name);
            seen.push(name);
            new
        });
        for (i, name) in yardsticks {
            let color = color(i);
            let mut line: Vec<(f64, f64)> = theirs
                .iter()
                .filter(|c| c.name == name)
                .map(|c| (xs(c.row), c.value))
                .collect();
            line.sort_by(|a, b| a.0.total_cmp(&b.0));
            line.dedup_by(|a, b| a.0 == b.0);
            let style = color.mix(0.75).stroke_width(2);
            chart
                .draw_series(DashedLineSeries::new(line.clone(), 6, 4, style))
                .map_err(err)?;
            chart
                .draw_series(line.into_iter().map(|p| Circle::new(p, 3, style)))
                .map_err(err)?;
            entries.push(Entry {
                label: name.to_string(),
                color: color.mix(0.75),
                dashed: true,
            });
        }
        legend(&legend_area, &entries).map_err(err)?;
    }
    if let Some(panel) = panels.get(units.len()).filter(|_| !compared.is_empty()) {
        ratios(panel, &compared, title, &|c| color(index(c.row))).map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

/// The caption of the ratios' panel.
const RATIO_CAPTION: &str = "ours / yardstick at the same size (above 1: wgsimd leads)";

/// The last panel: ours / yardstick per compared series and size, and the line at 1.
fn ratios<DB: DrawingBackend>(
    panel: &DrawingArea<DB, Shift>,
    compared: &[Compared],
    title: &str,
    color: &dyn Fn(&Compared) -> RGBAColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x0, x1) = x_range(compared.iter().map(|c| xs(c.row)));
    let top = compared.iter().map(|c| c.ratio).fold(1.0, f64::max);
    let (area, legend_area) = panel.split_horizontally(CHART_W);
    let mut chart = ChartBuilder::on(&area)
        .caption(format!("{title}: {RATIO_CAPTION}"), ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, 0.0..top * 1.15)?;
    chart
        .configure_mesh()
        .x_desc("size (log2 elements, or log2 N for GEMM)")
        .y_desc("ours / yardstick")
        .x_labels(((x1 - x0).ceil() as usize + 1).min(24))
        .x_label_formatter(&power_label)
        .draw()?;
    chart.draw_series(LineSeries::new(
        [(x0, 1.0), (x1, 1.0)],
        BLACK.stroke_width(1),
    ))?;
    let mut entries = vec![Entry {
        label: "1: as fast as the yardstick".into(),
        color: BLACK.to_rgba(),
        dashed: false,
    }];
    let mut names: Vec<(&str, String)> = compared
        .iter()
        .map(|c| (c.row.unit.as_str(), series_name(c.row)))
        .collect();
    names.sort();
    names.dedup();
    for (unit, name) in names {
        let mine: Vec<&Compared> = compared
            .iter()
            .filter(|c| c.row.unit == unit && series_name(c.row) == name)
            .collect();
        let Some(first) = mine.first() else {
            continue;
        };
        let color = color(first);
        let mut line: Vec<(f64, f64)> = mine.iter().map(|c| (xs(c.row), c.ratio)).collect();
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart.draw_series(LineSeries::new(line.clone(), color.stroke_width(2)))?;
        chart.draw_series(line.into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
        entries.push(Entry {
            label: name,
            color,
            dashed: false,
        });
    }
    legend(&legend_area, &entries)
}
