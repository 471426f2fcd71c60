//! The convergence plot: best and mean fitness of the parents per
//! generation, as SVG drawn into a string (same history, same bytes).

use evolution_strategy::GenerationStats;
use plotters::prelude::*;

/// The SVG of the best and mean parent fitness per generation, with a
/// dashed line at `reference` (EASY's objective, say) if given.
///
/// # Errors
/// plotters' message when the chart cannot be laid out (no generations, or
/// values that are not finite).
pub fn convergence_svg(
    history: &[GenerationStats],
    reference: Option<(&str, f64)>,
    title: &str,
) -> Result<String, String> {
    if history.is_empty() {
        return Err("no generations to draw".to_owned());
    }
    let best: Vec<(i64, f64)> = history
        .iter()
        .map(|g| (i64::from(g.generation), g.best))
        .collect();
    let mean: Vec<(i64, f64)> = history
        .iter()
        .map(|g| (i64::from(g.generation), g.mean))
        .collect();
    let values = best
        .iter()
        .chain(&mean)
        .map(|p| p.1)
        .chain(reference.map(|r| r.1));
    let (low, high) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !(low.is_finite() && high.is_finite()) {
        return Err("fitness values are not finite".to_owned());
    }
    let pad = ((high - low) * 0.05).max(high.abs() * 1e-6).max(1e-9);
    let last = i64::from(history[history.len() - 1].generation).max(1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
        let fail = |e: &dyn std::fmt::Display| e.to_string();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(90)
            .build_cartesian_2d(0..last, (low - pad)..(high + pad))
            .map_err(|e| fail(&e))?;
        chart
            .configure_mesh()
            .x_desc("generation")
            .y_desc("objective (lower is better)")
            .x_labels(usize::try_from(last + 1).unwrap_or(11).min(11))
            .y_label_formatter(&|y| format!("{y:.3e}"))
            .draw()
            .map_err(|e| fail(&e))?;
        let blue = RGBColor(31, 119, 180);
        let orange = RGBColor(255, 127, 14);
        chart
            .draw_series(LineSeries::new(best, blue.stroke_width(2)))
            .map_err(|e| fail(&e))?
            .label("best parent")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], blue));
        chart
            .draw_series(LineSeries::new(mean, orange.stroke_width(2)))
            .map_err(|e| fail(&e))?
            .label("mean of the parents")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], orange));
        if let Some((name, value)) = reference {
            let grey = RGBColor(90, 90, 90);
            chart
                .draw_series(DashedLineSeries::new(
                    [(0, value), (last, value)],
                    6,
                    4,
                    grey.stroke_width(1),
                ))
                .map_err(|e| fail(&e))?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], grey));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| fail(&e))?;
        root.present().map_err(|e| fail(&e))?;
    }
    Ok(svg)
}
