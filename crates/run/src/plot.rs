//! SVG charts with plotters (SVG backend only): the per-run plots of
//! `schedsim plot` (Gantt chart, queue length, utilization, waits) and the
//! line charts with error bars that `cargo xtask sweep --merge` draws.
//!
//! Every chart is rendered into a string and written in one go, so the same
//! data gives byte-identical files. Long time series are reduced to at most
//! [`BUCKETS`] points (see [`queue_length_series`] and
//! [`utilization_series`]) to keep files small.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use plotters::prelude::*;
use schedsim_metrics::CompletedJob;

use crate::figure::{
    Axis, AxisScale, AxisUnit, CAPTION_SIZE, FIGURE_WIDTH, LegendEntry, Marker, PALETTE,
    REFERENCE_GREY, SeriesLook, TEXT_SIZE, Ticked, draw_legend, legend_layout, text_width,
};
use crate::run_dir::{RunDir, RunJob};
use crate::simulate::{create_folder, write_atomically};

/// Time series are reduced to at most this many buckets.
pub const BUCKETS: usize = 2000;

/// Why a chart could not be drawn or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlotError {
    /// plotters failed to lay out or render the chart.
    #[error("cannot draw {path}: {message}")]
    Draw {
        /// The chart file.
        path: PathBuf,
        /// plotters' message.
        message: String,
    },
    /// The chart file could not be written.
    #[error("cannot write {path}")]
    Write {
        /// The chart file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// Nothing to draw.
    #[error("cannot draw {path}: {reason}")]
    Empty {
        /// The chart file.
        path: PathBuf,
        /// Why there is nothing to draw.
        reason: String,
    },
}

/// How a series picks its look (colour, marker, dash).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SeriesStyle {
    /// The look of the series' position in the chart.
    #[default]
    Position,
    /// The look of this style index ([`SeriesLook::of`]): give each policy
    /// of a sweep its index so it looks the same in every figure.
    Index(usize),
    /// A grey dashed reference line (offered load, a bound).
    Reference,
}

/// One curve of a line chart.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (x, y) points, drawn in order.
    pub points: Vec<(f64, f64)>,
    /// Optional error bars: (x, low, high) per point.
    pub errors: Vec<(f64, f64, f64)>,
    /// Its look.
    pub style: SeriesStyle,
}

impl Series {
    /// A curve without error bars, styled by its position.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.into(),
            points,
            errors: Vec::new(),
            style: SeriesStyle::Position,
        }
    }

    /// A grey dashed reference curve.
    pub fn reference(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            style: SeriesStyle::Reference,
            ..Self::new(name, points)
        }
    }

    /// The same curve with the look of style index `index`.
    #[must_use]
    pub fn with_style_index(mut self, index: usize) -> Self {
        self.style = SeriesStyle::Index(index);
        self
    }

    /// The same curve with error bars (x, low, high).
    #[must_use]
    pub fn with_errors(mut self, errors: Vec<(f64, f64, f64)>) -> Self {
        self.errors = errors;
        self
    }
}

/// A line chart: title, axes, curves.
///
/// ```
/// use schedsim_run::{AxisScale, AxisUnit, LineChart, Series, line_chart};
///
/// let chart = LineChart::new(
///     "mean wait",
///     "offered load",
///     "mean wait",
///     vec![Series::new("easy", vec![(0.5, 60.0), (0.7, 300.0), (0.9, 20_000.0)])],
/// )
/// .with_markers()
/// .with_y(AxisScale::Auto, AxisUnit::Seconds);
/// let file = std::env::temp_dir().join(format!("schedsim-chart-{}.svg", std::process::id()));
/// line_chart(&chart, &file)?;
/// // 60 s to 20,000 s span more than a decade: a log axis.
/// assert!(std::fs::read_to_string(&file)?.contains("mean wait (log)"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LineChart {
    /// The caption.
    pub title: String,
    /// X axis label (without unit: the chart adds it).
    pub x_label: String,
    /// Y axis label (without unit: the chart adds it).
    pub y_label: String,
    /// The curves.
    pub series: Vec<Series>,
    /// Draw the line y = 0 (differential charts).
    pub zero_line: bool,
    /// Draw markers on the points.
    pub markers: bool,
    /// X axis scale.
    pub x_scale: AxisScale,
    /// X axis values.
    pub x_unit: AxisUnit,
    /// Y axis scale.
    pub y_scale: AxisScale,
    /// Y axis values.
    pub y_unit: AxisUnit,
}

impl LineChart {
    /// A chart with linear axes of plain numbers, no markers, no zero line.
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
        series: Vec<Series>,
    ) -> Self {
        Self {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            series,
            zero_line: false,
            markers: false,
            x_scale: AxisScale::Linear,
            x_unit: AxisUnit::Number,
            y_scale: AxisScale::Linear,
            y_unit: AxisUnit::Number,
        }
    }

    /// Markers on the points.
    #[must_use]
    pub fn with_markers(mut self) -> Self {
        self.markers = true;
        self
    }

    /// The line y = 0.
    #[must_use]
    pub fn with_zero_line(mut self) -> Self {
        self.zero_line = true;
        self
    }

    /// The x axis's scale and unit.
    #[must_use]
    pub fn with_x(mut self, scale: AxisScale, unit: AxisUnit) -> Self {
        (self.x_scale, self.x_unit) = (scale, unit);
        self
    }

    /// The y axis's scale and unit.
    #[must_use]
    pub fn with_y(mut self, scale: AxisScale, unit: AxisUnit) -> Self {
        (self.y_scale, self.y_unit) = (scale, unit);
        self
    }
}

/// Height of a line chart's plot (the legend below adds its rows).
const PLOT_HEIGHT: u32 = 440;

fn draw_error(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> PlotError + '_ {
    move |e| PlotError::Draw {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn write_svg(path: &Path, svg: &str) -> Result<(), PlotError> {
    let write = |source| PlotError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_folder(parent).map_err(write)?;
    }
    // A temporary name and a rename: a reader never sees half a figure.
    write_atomically(path, svg.as_bytes()).map_err(write)
}

fn look_of(series: &Series, position: usize) -> SeriesLook {
    match series.style {
        SeriesStyle::Position => SeriesLook::of(position),
        SeriesStyle::Index(index) => SeriesLook::of(index),
        SeriesStyle::Reference => SeriesLook::reference(),
    }
}

/// Draws `chart` into the SVG file `path`: the chart's curves with their
/// looks ([`SeriesStyle`]), axes resolved from their scales and units, and
/// the legend in rows below the plot, outside the data.
///
/// # Errors
/// A chart without points, a layout failure, or an unwritable file.
pub fn line_chart(chart: &LineChart, path: &Path) -> Result<(), PlotError> {
    write_svg(path, &render_line_chart(chart, path)?)
}

/// [`line_chart`]'s SVG text, not written (`path` names the chart in
/// errors).
fn render_line_chart(chart: &LineChart, path: &Path) -> Result<String, PlotError> {
    if chart.series.iter().all(|s| s.points.is_empty()) {
        return Err(PlotError::Empty {
            path: path.to_path_buf(),
            reason: "no points".to_owned(),
        });
    }
    let xs: Vec<f64> = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let ys: Vec<f64> = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .collect();
    let error_ys: Vec<f64> = chart
        .series
        .iter()
        .flat_map(|s| s.errors.iter().flat_map(|e| [e.1, e.2]))
        .collect();
    let x_axis = Axis::new(&chart.x_label, chart.x_scale, chart.x_unit, &xs, &[], false);
    let y_axis = Axis::new(
        &chart.y_label,
        chart.y_scale,
        chart.y_unit,
        &ys,
        &error_ys,
        chart.zero_line,
    );
    let hidden = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|p| x_axis.map(p.0).is_none() || y_axis.map(p.1).is_none())
        .count();
    let title = if hidden > 0 {
        format!("{} ({hidden} points <= 0 not on the log axis)", chart.title)
    } else {
        chart.title.clone()
    };
    let entries: Vec<LegendEntry<'_>> = chart
        .series
        .iter()
        .enumerate()
        .map(|(position, s)| LegendEntry {
            name: &s.name,
            look: look_of(s, position),
            markers: chart.markers && s.style != SeriesStyle::Reference,
        })
        .collect();
    let width = FIGURE_WIDTH;
    let (legend_at, legend_height) = legend_layout(&entries, width as i32);
    let height = PLOT_HEIGHT + legend_height as u32;
    let mut svg = String::new();
    {
        let fail = draw_error(path);
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let (plot_area, legend_area) = root.split_vertically(PLOT_HEIGHT);
        let (x0, x1) = x_axis.range;
        let mut plot = ChartBuilder::on(&plot_area)
            .caption(&title, ("sans-serif", CAPTION_SIZE))
            .margin(10)
            .margin_right(24)
            .x_label_area_size(62)
            .y_label_area_size(y_label_area(&y_axis))
            .build_cartesian_2d(x_axis.coord(), y_axis.coord())
            .map_err(|e| fail(&e))?;
        let x_ticks = |v: &f64| x_axis.label_of(*v);
        let y_ticks = |v: &f64| y_axis.label_of(*v);
        plot.configure_mesh()
            .x_desc(&x_axis.label)
            .y_desc(&y_axis.label)
            .x_label_formatter(&x_ticks)
            .y_label_formatter(&y_ticks)
            .label_style(("sans-serif", TEXT_SIZE))
            .axis_desc_style(("sans-serif", TEXT_SIZE))
            .bold_line_style(BLACK.mix(0.08))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| fail(&e))?;
        if chart.zero_line {
            plot.draw_series(LineSeries::new(
                [(x0, 0.0), (x1, 0.0)],
                REFERENCE_GREY.stroke_width(1),
            ))
            .map_err(|e| fail(&e))?;
        }
        for (position, series) in chart.series.iter().enumerate() {
            let look = look_of(series, position);
            let points: Vec<(f64, f64)> = series
                .points
                .iter()
                .filter_map(|&(x, y)| Some((x_axis.map(x)?, y_axis.map(y)?)))
                .collect();
            let width = if series.style == SeriesStyle::Reference {
                1
            } else {
                2
            };
            let style = look.color.stroke_width(width);
            if look.dash == (0, 0) {
                plot.draw_series(LineSeries::new(points.iter().copied(), style))
                    .map_err(|e| fail(&e))?;
            } else {
                plot.draw_series(DashedLineSeries::new(
                    points.iter().copied(),
                    look.dash.0,
                    look.dash.1,
                    style,
                ))
                .map_err(|e| fail(&e))?;
            }
            if chart.markers && series.style != SeriesStyle::Reference {
                draw_markers(&mut plot, look, &points).map_err(|e| fail(&e))?;
            }
            if !series.errors.is_empty() {
                // Whiskers with caps; plotters' ErrorBar would also mark
                // the middle of the interval, which on a log axis is not
                // the mean.
                let bars: Vec<(f64, f64, f64)> = series
                    .errors
                    .iter()
                    .filter_map(|&(x, low, high)| {
                        Some((
                            x_axis.map(x)?,
                            y_axis.map_clamped(low),
                            y_axis.map_clamped(high),
                        ))
                    })
                    .collect();
                let thin = look.color.stroke_width(1);
                plot.draw_series(
                    bars.iter()
                        .map(|&(x, low, high)| PathElement::new([(x, low), (x, high)], thin)),
                )
                .map_err(|e| fail(&e))?;
                plot.draw_series(bars.iter().flat_map(|&(x, low, high)| {
                    [low, high].map(|y| {
                        EmptyElement::at((x, y)) + PathElement::new([(-5, 0), (5, 0)], thin)
                    })
                }))
                .map_err(|e| fail(&e))?;
            }
        }
        draw_legend(&legend_area, &entries, &legend_at).map_err(|e| fail(&e))?;
        root.present().map_err(|e| fail(&e))?;
    }
    Ok(svg)
}

/// Room left of the plot for the widest tick label and the axis
/// description.
fn y_label_area(axis: &Axis) -> u32 {
    let widest = axis
        .ticks
        .iter()
        .map(|t| text_width(&t.1))
        .max()
        .unwrap_or(0);
    (widest + 48).max(70) as u32
}

/// Draws `look`'s marker on each point (drawing coordinates).
fn draw_markers<DB: DrawingBackend>(
    plot: &mut ChartContext<'_, DB, Cartesian2d<Ticked, Ticked>>,
    look: SeriesLook,
    points: &[(f64, f64)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let filled = look.color.filled();
    let outline = look.color.stroke_width(2);
    let r = 5;
    let at = points.iter().copied();
    match look.marker {
        Marker::Circle => {
            plot.draw_series(at.map(|p| Circle::new(p, r, filled)))?;
        }
        Marker::OpenCircle => {
            plot.draw_series(at.map(|p| Circle::new(p, r, outline)))?;
        }
        Marker::Square => {
            plot.draw_series(at.map(|p| {
                EmptyElement::at(p) + Rectangle::new([(-r + 1, -r + 1), (r - 1, r - 1)], filled)
            }))?;
        }
        Marker::Triangle => {
            plot.draw_series(at.map(|p| TriangleMarker::new(p, r + 1, filled)))?;
        }
        Marker::Diamond => {
            plot.draw_series(at.map(|p| {
                EmptyElement::at(p)
                    + Polygon::new(
                        vec![(0, -r - 1), (r + 1, 0), (0, r + 1), (-r - 1, 0)],
                        filled,
                    )
            }))?;
        }
        Marker::Cross => {
            plot.draw_series(at.map(|p| Cross::new(p, r, outline)))?;
        }
        #[allow(unreachable_patterns)]
        _ => {
            plot.draw_series(at.map(|p| Circle::new(p, r, filled)))?;
        }
    }
    Ok(())
}

/// The number of jobs submitted but not started over time, as (time, max
/// queue length in the bucket) with at most [`BUCKETS`] buckets over
/// [first submit, last start]; the maximum keeps the peaks visible.
/// Queue length at t counts after all submissions and starts of instant t
/// (the metrics crate's convention).
pub fn queue_length_series(jobs: &[CompletedJob]) -> Vec<(f64, f64)> {
    let mut changes: Vec<(i64, i64)> = jobs
        .iter()
        .flat_map(|j| [(j.submit, 1), (j.start, -1)])
        .collect();
    changes.sort_unstable();
    let steps = collapse(&changes);
    bucket_max(&steps)
}

/// Processors busy over time divided by `procs`, as (time, mean
/// utilization over the bucket) with at most [`BUCKETS`] buckets over
/// [first submit, last finish] (exact time averages within each bucket).
pub fn utilization_series(jobs: &[CompletedJob], procs: u32) -> Vec<(f64, f64)> {
    let mut changes: Vec<(i64, i64)> = jobs
        .iter()
        .filter(|j| j.finish > j.start)
        .flat_map(|j| {
            [
                (j.start, i64::from(j.procs)),
                (j.finish, -i64::from(j.procs)),
            ]
        })
        .collect();
    let Some(from) = jobs.iter().map(|j| j.submit).min() else {
        return Vec::new();
    };
    let to = jobs.iter().map(|j| j.finish).max().unwrap_or(from);
    changes.push((from, 0));
    changes.sort_unstable();
    let steps = collapse(&changes);
    let n = f64::from(procs.max(1));
    bucket_mean(&steps, from, to)
        .into_iter()
        .map(|(t, busy)| (t, busy / n))
        .collect()
}

/// Applies the changes of each instant together: (time, level after it).
fn collapse(changes: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut steps: Vec<(i64, i64)> = Vec::new();
    let mut level = 0;
    for &(time, delta) in changes {
        // Saturating: a level beyond 2^63 processors is a drawing's
        // ceiling, not a reason to fail.
        level = i64::saturating_add(level, delta);
        match steps.last_mut() {
            Some(last) if last.0 == time => last.1 = level,
            _ => steps.push((time, level)),
        }
    }
    steps
}

/// The width of the buckets that cut [from, to] into at most [`BUCKETS`]
/// (at least 1 s). In `i128`, as the bucket arithmetic that uses it: any
/// two `i64` times, however far apart, give at most [`BUCKETS`] buckets and
/// no overflow.
fn bucket_width(from: i64, to: i64) -> i128 {
    let span = (i128::from(to) - i128::from(from)).max(0);
    let buckets = BUCKETS as i128;
    ((span + buckets - 1) / buckets).max(1)
}

fn bucket_max(steps: &[(i64, i64)]) -> Vec<(f64, f64)> {
    let (Some(first), Some(last)) = (steps.first(), steps.last()) else {
        return Vec::new();
    };
    let width = bucket_width(first.0, last.0);
    let origin = i128::from(first.0);
    let at = |bucket: i128| (origin + bucket * width) as f64;
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut current: Option<(i128, i64)> = None;
    let mut level_before = 0;
    for &(time, level) in steps {
        let bucket = (i128::from(time) - origin) / width;
        match &mut current {
            Some((b, max)) if *b == bucket => *max = (*max).max(level),
            _ => {
                if let Some((b, max)) = current {
                    out.push((at(b), max as f64));
                    // Buckets without a change hold the level.
                    if bucket > b + 1 {
                        out.push((at(b + 1), level_before as f64));
                    }
                }
                // The level carried into the bucket counts if it lasted a
                // while inside it.
                let carried = if i128::from(time) > origin + bucket * width {
                    level_before
                } else {
                    level
                };
                current = Some((bucket, level.max(carried)));
            }
        }
        level_before = level;
    }
    if let Some((b, max)) = current {
        out.push((at(b), max as f64));
    }
    out
}

fn bucket_mean(steps: &[(i64, i64)], from: i64, to: i64) -> Vec<(f64, f64)> {
    if to <= from {
        return Vec::new();
    }
    let width = bucket_width(from, to);
    let (from, to) = (i128::from(from), i128::from(to));
    // At most BUCKETS (bucket_width): never in proportion to the span.
    let buckets = (to - from + width - 1) / width;
    let mut area = vec![0f64; usize::try_from(buckets).unwrap_or(BUCKETS).min(BUCKETS)];
    for (index, &(time, level)) in steps.iter().enumerate() {
        let end = steps.get(index + 1).map_or(to, |s| i128::from(s.0)).min(to);
        let mut t = i128::from(time).max(from);
        while t < end {
            let bucket = (t - from) / width;
            let bucket_end = (from + (bucket + 1) * width).min(end);
            if let Some(slot) = usize::try_from(bucket).ok().and_then(|b| area.get_mut(b)) {
                *slot += level as f64 * (bucket_end - t) as f64;
            }
            t = bucket_end;
        }
    }
    area.iter()
        .enumerate()
        .map(|(b, a)| {
            let start = from + b as i128 * width;
            let length = (from + (b as i128 + 1) * width).min(to) - start;
            (start as f64, a / length as f64)
        })
        .collect()
}

/// Whether each job (arrival order) started before some job that arrived
/// earlier: the jobs a backfilling policy moved ahead.
pub fn started_out_of_order(jobs: &[RunJob]) -> Vec<bool> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| (jobs[i].job.submit, i));
    let mut latest_start = i64::MIN;
    let mut out = vec![false; jobs.len()];
    for i in order {
        out[i] = jobs[i].job.start < latest_start;
        latest_start = latest_start.max(jobs[i].job.start);
    }
    out
}

/// How Gantt rectangles are coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum GanttColor {
    /// Jobs started ahead of an earlier arrival (backfilled) vs in order.
    #[default]
    Order,
    /// Runtime class: short (< 10 min), medium (< 3 h), long.
    Runtime,
}

/// Draws the schedule of `run` between `from` and `to` (seconds) as a Gantt
/// chart: processors on the y axis, one rectangle per job and allocated
/// processor interval.
///
/// # Errors
/// An empty window, a layout failure, or an unwritable file.
pub fn gantt(
    run: &RunDir,
    from: i64,
    to: i64,
    color: GanttColor,
    path: &Path,
) -> Result<usize, PlotError> {
    if to <= from {
        return Err(PlotError::Empty {
            path: path.to_path_buf(),
            reason: format!("the window [{from}, {to}] is empty"),
        });
    }
    let procs = run
        .procs()
        .or_else(|| {
            run.jobs
                .iter()
                .flat_map(|j| j.allocation.iter().map(|a| a.1.saturating_add(1)))
                .max()
        })
        .unwrap_or(1);
    let out_of_order = started_out_of_order(&run.jobs);
    let shown: Vec<usize> = (0..run.jobs.len())
        .filter(|&i| {
            let j = &run.jobs[i].job;
            j.start < to && j.finish > from && j.finish > j.start
        })
        .collect();
    let palette = [PALETTE[0], PALETTE[4], PALETTE[2]];
    let (labels, class_of): ([&str; 3], Box<dyn Fn(usize) -> usize>) = match color {
        GanttColor::Order => (
            [
                "started in arrival order",
                "started ahead of an earlier job",
                "",
            ],
            Box::new(|i| usize::from(out_of_order[i])),
        ),
        GanttColor::Runtime => (
            ["runtime < 10 min", "10 min - 3 h", ">= 3 h"],
            Box::new(|i| {
                let runtime = run.jobs[i].job.runtime();
                if runtime < 600 {
                    0
                } else if runtime < 3 * 3600 {
                    1
                } else {
                    2
                }
            }),
        ),
    };
    // The x axis counts from the window's start, in the unit its length
    // suits; the caption says where the window is.
    let x_axis = Axis::new(
        &format!("time after {from} s"),
        AxisScale::Linear,
        AxisUnit::Seconds,
        &[0.0, span(from, to)],
        &[],
        false,
    );
    let entries: Vec<LegendEntry<'_>> = labels
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(class, label)| LegendEntry {
            name: label,
            look: SeriesLook {
                color: palette[class],
                ..SeriesLook::of(0)
            },
            markers: false,
        })
        .collect();
    let width = FIGURE_WIDTH;
    let (legend_at, legend_height) = legend_layout(&entries, width as i32);
    let mut svg = String::new();
    {
        let fail = draw_error(path);
        let root = SVGBackend::with_string(&mut svg, (width, PLOT_HEIGHT + legend_height as u32))
            .into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let (plot_area, legend_area) = root.split_vertically(PLOT_HEIGHT);
        let x = |t: i64| x_axis.map_clamped(span(from, t));
        let mut plot = ChartBuilder::on(&plot_area)
            .caption(
                format!("{}: {} jobs in [{from}, {to}] s", run.policy(), shown.len()),
                ("sans-serif", CAPTION_SIZE),
            )
            .margin(10)
            .margin_right(24)
            .x_label_area_size(62)
            .y_label_area_size(80)
            .build_cartesian_2d(x_axis.coord(), 0f64..f64::from(procs))
            .map_err(|e| fail(&e))?;
        let x_ticks = |v: &f64| x_axis.label_of(*v);
        plot.configure_mesh()
            .x_desc(&x_axis.label)
            .y_desc("processor")
            .x_label_formatter(&x_ticks)
            .y_label_formatter(&|v: &f64| format!("{v}"))
            .label_style(("sans-serif", TEXT_SIZE))
            .axis_desc_style(("sans-serif", TEXT_SIZE))
            .bold_line_style(BLACK.mix(0.08))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| fail(&e))?;
        for (class, _) in labels.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
            let fill = palette[class];
            let rectangles = |style: ShapeStyle| {
                shown
                    .iter()
                    .filter(|&&i| class_of(i) == class)
                    .flat_map(move |&i| {
                        let j = &run.jobs[i];
                        j.spans().flat_map(move |(start, end)| {
                            let (x0, x1) = (x(start.max(from)), x(end.min(to)));
                            j.allocation.iter().map(move |&(a, b)| {
                                Rectangle::new(
                                    [(x0, f64::from(a)), (x1, f64::from(b) + 1.0)],
                                    style,
                                )
                            })
                        })
                    })
            };
            plot.draw_series(rectangles(fill.filled()))
                .map_err(|e| fail(&e))?;
            // Outlines separate neighbouring jobs of one class.
            plot.draw_series(rectangles(WHITE.stroke_width(1)))
                .map_err(|e| fail(&e))?;
        }
        draw_legend(&legend_area, &entries, &legend_at).map_err(|e| fail(&e))?;
        root.present().map_err(|e| fail(&e))?;
    }
    write_svg(path, &svg)?;
    Ok(shown.len())
}

/// `to - from` in seconds, without overflow for any two `i64` times.
fn span(from: i64, to: i64) -> f64 {
    (i128::from(to) - i128::from(from)) as f64
}

/// The empirical distribution of waits: (wait + 1 s, fraction of jobs that
/// waited at most that), at most [`BUCKETS`] points.
pub fn wait_cdf(jobs: &[CompletedJob]) -> Vec<(f64, f64)> {
    // In i128: no two i64 times overflow it.
    let mut waits: Vec<i128> = jobs
        .iter()
        .map(|j| i128::from(j.start) - i128::from(j.submit))
        .collect();
    waits.sort_unstable();
    let n = waits.len();
    let step = n.div_ceil(BUCKETS).max(1);
    let mut points: Vec<(f64, f64)> = Vec::new();
    for (rank, &w) in waits.iter().enumerate() {
        let last_of_value = waits.get(rank + 1) != Some(&w);
        if last_of_value && (rank % step == 0 || rank + 1 == n || points.is_empty()) {
            points.push(((w + 1) as f64, (rank + 1) as f64 / n as f64));
        }
    }
    points
}

/// Draws the per-run curves of `run` into `dir`: queue_length.svg,
/// utilization.svg and waits.svg. Returns the files written.
///
/// All three charts are drawn before anything is written, and each file is
/// written to a temporary name and renamed: a chart that cannot be drawn
/// leaves no file and no new folder. If writing fails part way, the files
/// this call wrote (and `dir`, if this call made it and it is left empty)
/// are removed.
///
/// # Errors
/// A run without jobs, a layout failure, or an unwritable file.
pub fn run_curves(run: &RunDir, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let jobs = run.completed();
    let policy = run.policy().to_owned();
    let procs = run.procs().unwrap_or(1);
    let charts = [
        (
            "queue_length.svg",
            LineChart::new(
                format!("{policy}: jobs waiting (max per bucket)"),
                "time",
                "queue length (jobs)",
                vec![Series::new(&policy, queue_length_series(&jobs))],
            )
            .with_x(AxisScale::Linear, AxisUnit::Seconds),
        ),
        (
            "utilization.svg",
            LineChart::new(
                format!("{policy}: utilization (bucket means)"),
                "time",
                "busy processors / machine",
                vec![Series::new(&policy, utilization_series(&jobs, procs))],
            )
            .with_x(AxisScale::Linear, AxisUnit::Seconds),
        ),
        (
            "waits.svg",
            LineChart::new(
                format!("{policy}: wait time distribution"),
                "wait + 1 s",
                "fraction of jobs",
                vec![Series::new(&policy, wait_cdf(&jobs))],
            )
            .with_x(AxisScale::Log, AxisUnit::Seconds),
        ),
    ];
    let mut drawn = Vec::with_capacity(charts.len());
    for (name, chart) in &charts {
        let path = dir.join(name);
        let svg = render_line_chart(chart, &path)?;
        drawn.push((path, svg));
    }
    let made_dir = !dir.exists();
    let mut written = Vec::with_capacity(drawn.len());
    for (path, svg) in drawn {
        if let Err(error) = write_svg(&path, &svg) {
            for done in &written {
                let _ = fs::remove_file(done);
            }
            if made_dir {
                // Only if empty: never a folder with someone else's files.
                let _ = fs::remove_dir(dir);
            }
            return Err(error);
        }
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(submit: i64, start: i64, finish: i64, procs: u32) -> CompletedJob {
        CompletedJob::new(submit, start, finish, procs)
    }

    #[test]
    fn queue_length_steps() {
        // A waits 0..10, B waits 5..10, C starts on arrival at 10: queue 1 at
        // 0, 2 at 5, 0 at 10. Span 10 < BUCKETS: one-second buckets.
        let jobs = [job(0, 10, 20, 1), job(5, 10, 20, 1), job(10, 10, 11, 1)];
        // Buckets 1..4 hold level 1, 6..9 level 2.
        assert_eq!(
            queue_length_series(&jobs),
            [(0.0, 1.0), (1.0, 1.0), (5.0, 2.0), (6.0, 2.0), (10.0, 0.0)]
        );
    }

    #[test]
    fn utilization_is_time_averaged_per_bucket() {
        // 4 processors; 2 busy on [0, 10), 4 busy on [10, 20): one-second
        // buckets of 0.5 then 1.0.
        let jobs = [job(0, 0, 20, 2), job(0, 10, 20, 2)];
        let series = utilization_series(&jobs, 4);
        assert_eq!(series.len(), 20);
        assert_eq!(series[0], (0.0, 0.5));
        assert_eq!(series[9], (9.0, 0.5));
        assert_eq!(series[10], (10.0, 1.0));
        // 4000 s: buckets of 2 s; 2 busy on [0, 3), idle after: bucket 0 is
        // 0.5, bucket 1 averages (2 * 1 + 0 * 1) / 2 / 4 = 0.25.
        let series = utilization_series(&[job(0, 0, 3, 2), job(3999, 4000, 4000, 1)], 4);
        assert_eq!(
            (series[0], series[1], series[2]),
            ((0.0, 0.5), (2.0, 0.25), (4.0, 0.0))
        );
    }

    #[test]
    fn series_are_bounded_over_any_span() {
        // A span of 2^64 - 1 s (i64::MIN to i64::MAX): bucket width
        // ceil((2^64 - 1) / 2000), at most BUCKETS points, no overflow
        // (debug builds check it) and no allocation in proportion to the
        // span.
        let jobs = [
            job(i64::MIN, i64::MIN, i64::MAX, 1),
            job(i64::MIN, i64::MAX, i64::MAX, 1),
        ];
        let queue = queue_length_series(&jobs);
        // Queue 1 from MIN (job 2 waits) to MAX: the first and the last
        // bucket, and the level held between them.
        assert!(
            !queue.is_empty() && queue.len() <= BUCKETS,
            "{}",
            queue.len()
        );
        let utilization = utilization_series(&jobs, 1);
        assert_eq!(utilization.len(), BUCKETS);
        // Job 1 holds the one processor over the whole span: every bucket 1.
        assert!(utilization.iter().all(|&(_, u)| u == 1.0));
        // Waits of 0 and 2^64 - 1 s: two points, the second at 2^64.
        let waits = wait_cdf(&jobs);
        assert_eq!(waits, [(1.0, 0.5), (18_446_744_073_709_551_616.0, 1.0)]);
    }

    #[test]
    fn a_file_where_the_folder_goes_is_named() {
        let dir = std::env::temp_dir().join(format!("schedsim-plot-file-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("afile");
        fs::write(&file, "").unwrap();
        let err = write_svg(&file.join("waits.svg"), "<svg/>").unwrap_err();
        let cause = std::error::Error::source(&err).unwrap().to_string();
        assert_eq!(cause, format!("{} is not a folder", file.display()));
        // Deeper: the file is a parent of the folder.
        let err = write_svg(&file.join("plots/waits.svg"), "<svg/>").unwrap_err();
        let cause = std::error::Error::source(&err).unwrap().to_string();
        assert_eq!(cause, format!("{} is not a folder", file.display()));
        assert_eq!(fs::read_to_string(&file).unwrap(), "");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn at_most_buckets_buckets() {
        // 3999 s: a width of floor(3999 / 2000) = 1 s would make 3999
        // buckets; ceil gives 2 s and 2000.
        let series = utilization_series(&[job(0, 0, 3999, 1)], 1);
        assert_eq!(series.len(), BUCKETS);
        assert_eq!((series[0].0, series[1].0), (0.0, 2.0));
        // The last bucket is [3998, 3999), 1 s long: still busy 1.
        assert_eq!(series[BUCKETS - 1], (3998.0, 1.0));
    }

    #[test]
    fn curves_are_all_drawn_or_none_written() {
        // One job of no duration at 0: the queue chart has a point, the
        // utilization chart none (an empty span). Before, queue_length.svg
        // was written and then the utilization chart failed.
        let dir = std::env::temp_dir().join(format!("schedsim-curves-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let run = RunDir {
            dir: dir.clone(),
            summary: serde_json::json!({"policy": "fcfs", "machine": {"procs": 1}}),
            jobs: vec![RunJob {
                number: 1,
                job: job(0, 0, 0, 1),
                estimate: 1,
                allocation: vec![(0, 0)],
                segments: Vec::new(),
            }],
            rejected: Vec::new(),
        };
        let plots = dir.join("plots");
        let error = run_curves(&run, &plots).unwrap_err().to_string();
        assert!(error.contains("utilization.svg: no points"), "{error}");
        assert!(!plots.exists());
        // A drawable run writes all three.
        let mut run = run;
        run.jobs[0].job = job(0, 5, 10, 1);
        assert_eq!(run_curves(&run, &plots).unwrap().len(), 3);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn out_of_order_starts() {
        let row = |submit, start| RunJob {
            number: 0,
            job: job(submit, start, start + 1, 1),
            estimate: 1,
            allocation: vec![(0, 0)],
            segments: Vec::new(),
        };
        // The second job starts at 5, before the first (at 10): backfilled.
        // The third starts at 10, not before anything earlier.
        let jobs = [row(0, 10), row(1, 5), row(2, 10)];
        assert_eq!(started_out_of_order(&jobs), [false, true, false]);
    }

    #[test]
    fn wait_cdf_by_hand() {
        // Waits 0, 0, 5, 9: 2 of 4 wait at most 0 s, 3 at most 5, 4 at most 9.
        let jobs = [
            job(0, 0, 1, 1),
            job(0, 0, 1, 1),
            job(0, 5, 6, 1),
            job(0, 9, 10, 1),
        ];
        assert_eq!(wait_cdf(&jobs), [(1.0, 0.5), (6.0, 0.75), (10.0, 1.0)]);
    }
}
