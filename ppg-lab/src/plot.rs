//! The session sweep as SVG, like the paper's Figures 2 and 3: fairness and NDCG@10
//! against the number of sessions, one line per method.

use std::path::Path;

use plotters::prelude::*;

use ppg_host::error::{Error, Result};

/// One line: a method's values at each session count (`None`: no value, e.g. FOE on EEL).
pub struct Line {
    pub name: String,
    /// Index into the palette, so that a method has one colour in every panel.
    pub colour: usize,
    pub points: Vec<(usize, Option<f64>)>,
}

/// One panel: a title, its y-axis name and its lines.
pub struct Panel {
    pub title: String,
    pub y: String,
    pub lines: Vec<Line>,
}

const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(0, 0, 0),
    RGBColor(188, 189, 34),
];

/// Draws `panels` side by side into an SVG file at `path` under `title`. The x axis is
/// the number of sessions on a log2 scale.
pub fn sweep(path: &Path, title: &str, panels: &[Panel]) -> Result<()> {
    draw(path, title, panels)
        .map_err(|e| Error::Failed(format!("cannot draw {}: {e}", path.display())))
}

fn draw(
    path: &Path,
    title: &str,
    panels: &[Panel],
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let width = 360 * panels.len().max(1) as u32;
    let root = SVGBackend::new(path, (width, 400)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 18))?;
    let (plots, legend) = root.split_vertically(340);
    let areas = plots.split_evenly((1, panels.len().max(1)));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        let values: Vec<f64> = panel
            .lines
            .iter()
            .flat_map(|l| l.points.iter().filter_map(|p| p.1))
            .collect();
        let (lo, hi) = values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        let (lo, hi) = if lo.is_finite() {
            let pad = ((hi - lo) * 0.08).max(1e-3);
            (lo - pad, hi + pad)
        } else {
            (0.0, 1.0)
        };
        let x_max = panel
            .lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.0))
            .max()
            .unwrap_or(1)
            .max(2) as f64;
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, ("sans-serif", 15))
            .margin(8)
            .x_label_area_size(35)
            .y_label_area_size(50)
            .build_cartesian_2d(-0.2..x_max.log2() + 0.2, lo..hi)?;
        chart
            .configure_mesh()
            .x_labels(8)
            .x_label_formatter(&|x| {
                let s = 2f64.powf(*x);
                if (s - s.round()).abs() < 1e-6 {
                    format!("{}", s.round())
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| format!("{y:.3}"))
            .light_line_style(WHITE.mix(0.0))
            .x_desc("sessions")
            .y_desc(panel.y.as_str())
            .draw()?;
        for line in &panel.lines {
            let colour = COLOURS[line.colour % COLOURS.len()];
            let points: Vec<(f64, f64)> = line
                .points
                .iter()
                .filter_map(|&(s, v)| v.map(|v| ((s as f64).log2(), v)))
                .collect();
            if points.is_empty() {
                continue;
            }
            chart.draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))?;
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
        }
    }
    // One legend for all panels, below them, as in the paper's figures.
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for line in panels.iter().flat_map(|p| &p.lines) {
        if !seen.iter().any(|(n, _)| *n == line.name) {
            seen.push((&line.name, line.colour));
        }
    }
    let step = 120;
    let start = (width as i32 - step * seen.len() as i32) / 2;
    for (k, (name, colour)) in seen.iter().enumerate() {
        let colour = COLOURS[colour % COLOURS.len()];
        let x = start + step * k as i32;
        legend.draw(&PathElement::new(
            vec![(x, 20), (x + 24, 20)],
            colour.stroke_width(3),
        ))?;
        legend.draw(&Text::new(
            name.to_string(),
            (x + 30, 13),
            ("sans-serif", 14).into_font(),
        ))?;
    }
    root.present()?;
    Ok(())
}
