//! The frontier of [`crate::frontier`] as a picture: mean NDCG@k against the mean
//! fairness cap, the best reached and its bound, the input ranking and the default recipe
//! marked. Drawn once as SVG by plotters; the PNG is that SVG rasterised by resvg, so that
//! the two never differ and the bitmap needs no font back end of plotters' own.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use ppg_host::error::{Error, Result};
use ppg_host::frontier::{Frontier, Row};

/// Writes `prefix.svg` and `prefix.png`.
pub fn draw(prefix: &Path, title: &str, frontier: &Frontier) -> Result<()> {
    let with = |ext: &str| -> PathBuf {
        let mut p = prefix.as_os_str().to_owned();
        p.push(ext);
        PathBuf::from(p)
    };
    let (svg_path, png_path) = (with(".svg"), with(".png"));
    let mut svg = String::new();
    svg_text(&mut svg, title, frontier)
        .map_err(|e| Error::Failed(format!("cannot draw {}: {e}", svg_path.display())))?;
    let png = rasterise(&svg)
        .map_err(|e| Error::Failed(format!("cannot draw {}: {e}", png_path.display())))?;
    ppg_host::output::write_atomic(&svg_path, &svg)?;
    std::fs::write(&png_path, png)
        .map_err(|e| Error::Failed(format!("cannot write {}: {e}", png_path.display())))?;
    Ok(())
}

const REACHED: RGBColor = RGBColor(31, 119, 180);
const BOUND: RGBColor = RGBColor(127, 127, 127);
const INPUT: RGBColor = RGBColor(214, 39, 40);
const RECIPE: RGBColor = RGBColor(44, 160, 44);

type Drawn = std::result::Result<(), Box<dyn std::error::Error>>;

fn svg_text(out: &mut String, title: &str, f: &Frontier) -> Drawn {
    let rows: Vec<_> = f.rows.iter().filter(|r| r.level.is_some()).collect();
    let xs = rows
        .iter()
        .map(|r| r.fairness)
        .chain([f.input.0, f.recipe.0]);
    let ys = rows
        .iter()
        .flat_map(|r| [r.ndcg, r.bound])
        .chain([f.input.1, f.recipe.1]);
    let span = |it: &mut dyn Iterator<Item = f64>| {
        let (lo, hi) = it
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        let pad = ((hi - lo) * 0.08).max(1e-3);
        (lo - pad, hi + pad)
    };
    let (x0, x1) = span(&mut xs.into_iter());
    let (y0, y1) = span(&mut ys.into_iter());
    {
        let root = SVGBackend::with_string(out, (640, 440)).into_drawing_area();
        root.fill(&WHITE)?;
        let sessions = match f.sessions {
            1 => "one session".to_owned(),
            s => format!("{s} sessions"),
        };
        let caption = format!(
            "{title}: what fairness costs ({} queries, {sessions})",
            f.queries
        );
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 17))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        let name = f.metric.name().to_uppercase();
        chart
            .configure_mesh()
            .x_desc(format!(
                "{name} allowed (mean over queries; lower is fairer)"
            ))
            .y_desc(format!("mean NDCG@{}", f.k))
            .x_label_formatter(&|x| format!("{x:.3}"))
            .y_label_formatter(&|y| format!("{y:.3}"))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let line = |pick: fn(&Row) -> f64| -> Vec<(f64, f64)> {
            rows.iter().map(|r| (r.fairness, pick(r))).collect()
        };
        chart
            .draw_series(LineSeries::new(line(|r| r.bound), BOUND.stroke_width(2)))?
            .label("bound (Lagrangian)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BOUND.stroke_width(2)));
        chart
            .draw_series(LineSeries::new(line(|r| r.ndcg), REACHED.stroke_width(2)))?
            .label("best reached")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], REACHED.stroke_width(2)));
        chart.draw_series(
            line(|r| r.ndcg)
                .into_iter()
                .map(|p| Circle::new(p, 3, REACHED.filled())),
        )?;
        for (point, colour, name) in [
            (f.input, INPUT, "input ranking"),
            (f.recipe, RECIPE, "default recipe"),
        ] {
            chart
                .draw_series([TriangleMarker::new(point, 7, colour.filled())])?
                .label(name)
                .legend(move |(x, y)| TriangleMarker::new((x + 10, y), 6, colour.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::MiddleRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
    }
    Ok(())
}

/// The SVG as PNG at twice its size, text in the system's sans-serif font.
fn rasterise(svg: &str) -> std::result::Result<Vec<u8>, Box<dyn std::error::Error>> {
    let mut options = resvg::usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_system_fonts();
    // plotters asks for "sans-serif", which fontdb maps to Arial: where Arial is missing
    // (most Linux systems), the first sans face installed, else any face, so that the
    // axes keep their labels.
    let named = |f: &resvg::usvg::fontdb::FaceInfo| f.families.first().map(|n| n.0.clone());
    let query = resvg::usvg::fontdb::Query {
        families: &[resvg::usvg::fontdb::Family::SansSerif],
        ..Default::default()
    };
    if fonts.query(&query).is_none() {
        let faces = || fonts.faces();
        let family = faces()
            .find(|f| named(f).is_some_and(|n| n.contains("Sans") && !n.contains("Mono")))
            .or_else(|| faces().next())
            .and_then(named);
        if let Some(family) = family {
            fonts.set_sans_serif_family(family);
        }
    }
    let tree = resvg::usvg::Tree::from_str(svg, &options)?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(2.0)
        .ok_or("empty picture")?;
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(size.width(), size.height()).ok_or("empty picture")?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(2.0, 2.0),
        &mut pixmap.as_mut(),
    );
    Ok(pixmap.encode_png()?)
}
