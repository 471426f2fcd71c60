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

use crate::run_dir::{RunDir, RunJob};

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

/// One curve of a line chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (x, y) points, drawn in order.
    pub points: Vec<(f64, f64)>,
    /// Optional error bars: (x, low, high) per point.
    pub errors: Vec<(f64, f64, f64)>,
}

impl Series {
    /// A curve without error bars.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.into(),
            points,
            errors: Vec::new(),
        }
    }
}

/// A line chart: title, axis labels, curves.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    /// The caption.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// The curves.
    pub series: Vec<Series>,
    /// Draw the line y = 0 (differential charts).
    pub zero_line: bool,
    /// Draw markers on the points.
    pub markers: bool,
}

const SIZE: (u32, u32) = (900, 560);

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
        fs::create_dir_all(parent).map_err(write)?;
    }
    fs::write(path, svg).map_err(write)
}

/// Axis numbers: short and without float noise (2.5M, 40k, 0.95).
fn tick(value: &f64) -> String {
    let v = *value;
    let trim = |text: String| {
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            text
        }
    };
    if v.abs() >= 1e6 {
        format!("{}M", trim(format!("{:.2}", v / 1e6)))
    } else if v.abs() >= 1e4 {
        format!("{}k", trim(format!("{:.1}", v / 1e3)))
    } else {
        trim(format!("{v:.3}"))
    }
}

/// A range around `values` with 5% room, never empty.
fn padded(values: impl Iterator<Item = f64>, include_zero: bool) -> (f64, f64) {
    let (mut low, mut high) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        });
    if !low.is_finite() {
        (low, high) = (0.0, 1.0);
    }
    if include_zero {
        low = low.min(0.0);
        high = high.max(0.0);
    }
    let room = ((high - low) * 0.05).max(1e-9);
    (low - room, high + room)
}

/// Draws `chart` into the SVG file `path`.
///
/// # Errors
/// A chart without points, a layout failure, or an unwritable file.
pub fn line_chart(chart: &LineChart, path: &Path) -> Result<(), PlotError> {
    if chart.series.iter().all(|s| s.points.is_empty()) {
        return Err(PlotError::Empty {
            path: path.to_path_buf(),
            reason: "no points".to_owned(),
        });
    }
    let all = || chart.series.iter().flat_map(|s| s.points.iter());
    let (x0, x1) = padded(all().map(|p| p.0), false);
    let errors = chart
        .series
        .iter()
        .flat_map(|s| s.errors.iter().flat_map(|e| [e.1, e.2]));
    let (y0, y1) = padded(all().map(|p| p.1).chain(errors), chart.zero_line);
    let mut svg = String::new();
    {
        let fail = draw_error(path);
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let mut plot = ChartBuilder::on(&root)
            .caption(&chart.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(75)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| fail(&e))?;
        plot.configure_mesh()
            .x_desc(&chart.x_label)
            .y_desc(&chart.y_label)
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| fail(&e))?;
        if chart.zero_line {
            plot.draw_series(LineSeries::new([(x0, 0.0), (x1, 0.0)], BLACK.mix(0.6)))
                .map_err(|e| fail(&e))?;
        }
        for (index, series) in chart.series.iter().enumerate() {
            let color = Palette99::pick(index).to_rgba();
            plot.draw_series(LineSeries::new(
                series.points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(|e| fail(&e))?
            .label(&series.name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
            if chart.markers {
                plot.draw_series(
                    series
                        .points
                        .iter()
                        .map(|&p| Circle::new(p, 3, color.filled())),
                )
                .map_err(|e| fail(&e))?;
            }
            if !series.errors.is_empty() {
                plot.draw_series(series.errors.iter().zip(&series.points).map(
                    |(&(x, low, high), &(_, mean))| {
                        ErrorBar::new_vertical(x, low, mean, high, color.stroke_width(1), 8)
                    },
                ))
                .map_err(|e| fail(&e))?;
            }
        }
        plot.configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.5))
            .draw()
            .map_err(|e| fail(&e))?;
        root.present().map_err(|e| fail(&e))?;
    }
    write_svg(path, &svg)
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
        level += delta;
        match steps.last_mut() {
            Some(last) if last.0 == time => last.1 = level,
            _ => steps.push((time, level)),
        }
    }
    steps
}

fn bucket_width(from: i64, to: i64) -> i64 {
    ((to - from) / BUCKETS as i64).max(1)
}

fn bucket_max(steps: &[(i64, i64)]) -> Vec<(f64, f64)> {
    let (Some(first), Some(last)) = (steps.first(), steps.last()) else {
        return Vec::new();
    };
    let width = bucket_width(first.0, last.0);
    let at = |bucket: i64| (first.0 + bucket * width) as f64;
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut current: Option<(i64, i64)> = None;
    let mut level_before = 0;
    for &(time, level) in steps {
        let bucket = (time - first.0) / width;
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
                let carried = if time > first.0 + bucket * width {
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
    let buckets = ((to - from) + width - 1) / width;
    let mut area = vec![0f64; buckets as usize];
    for (index, &(time, level)) in steps.iter().enumerate() {
        let end = steps.get(index + 1).map_or(to, |s| s.0).min(to);
        let mut t = time.max(from);
        while t < end {
            let bucket = (t - from) / width;
            let bucket_end = (from + (bucket + 1) * width).min(end);
            area[bucket as usize] += level as f64 * (bucket_end - t) as f64;
            t = bucket_end;
        }
    }
    area.iter()
        .enumerate()
        .map(|(b, a)| {
            let start = from + b as i64 * width;
            let length = (from + (b as i64 + 1) * width).min(to) - start;
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
                .flat_map(|j| j.allocation.iter().map(|a| a.1 + 1))
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
    let palette = [
        RGBColor(70, 120, 190),
        RGBColor(235, 140, 40),
        RGBColor(90, 170, 90),
    ];
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
    let mut svg = String::new();
    {
        let fail = draw_error(path);
        let root = SVGBackend::with_string(&mut svg, (1200, 700)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(&e))?;
        let mut plot = ChartBuilder::on(&root)
            .caption(
                format!("{}: {} jobs in [{from}, {to}] s", run.policy(), shown.len()),
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(from as f64..to as f64, 0f64..f64::from(procs))
            .map_err(|e| fail(&e))?;
        plot.configure_mesh()
            .x_desc("time (s)")
            .y_desc("processor")
            .x_label_formatter(&tick)
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| fail(&e))?;
        for (class, label) in labels.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
            let fill = palette[class];
            let rects = shown
                .iter()
                .filter(|&&i| class_of(i) == class)
                .flat_map(|&i| {
                    let j = &run.jobs[i];
                    j.spans().flat_map(move |(start, end)| {
                        let (x0, x1) = (start.max(from) as f64, end.min(to) as f64);
                        j.allocation.iter().map(move |&(a, b)| {
                            Rectangle::new(
                                [(x0, f64::from(a)), (x1, f64::from(b) + 1.0)],
                                fill.filled(),
                            )
                        })
                    })
                });
            plot.draw_series(rects)
                .map_err(|e| fail(&e))?
                .label(*label)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], fill.filled()));
            // Outlines separate neighbouring jobs of one class.
            let outlines = shown
                .iter()
                .filter(|&&i| class_of(i) == class)
                .flat_map(|&i| {
                    let j = &run.jobs[i];
                    j.spans().flat_map(move |(start, end)| {
                        let (x0, x1) = (start.max(from) as f64, end.min(to) as f64);
                        j.allocation.iter().map(move |&(a, b)| {
                            Rectangle::new(
                                [(x0, f64::from(a)), (x1, f64::from(b) + 1.0)],
                                WHITE.stroke_width(1),
                            )
                        })
                    })
                });
            plot.draw_series(outlines).map_err(|e| fail(&e))?;
        }
        plot.configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.5))
            .draw()
            .map_err(|e| fail(&e))?;
        root.present().map_err(|e| fail(&e))?;
    }
    write_svg(path, &svg)?;
    Ok(shown.len())
}

/// The empirical distribution of waits: (wait + 1 s, fraction of jobs that
/// waited at most that), at most [`BUCKETS`] points.
pub fn wait_cdf(jobs: &[CompletedJob]) -> Vec<(f64, f64)> {
    let mut waits: Vec<i64> = jobs.iter().map(|j| j.start - j.submit).collect();
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
/// # Errors
/// A run without jobs, a layout failure, or an unwritable file.
pub fn run_curves(run: &RunDir, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let jobs = run.completed();
    let policy = run.policy().to_owned();
    let procs = run.procs().unwrap_or(1);
    let mut written = Vec::new();
    let queue = dir.join("queue_length.svg");
    line_chart(
        &LineChart {
            title: format!("{policy}: jobs waiting (maximum per {} buckets)", BUCKETS),
            x_label: "time (s)".to_owned(),
            y_label: "queue length (jobs)".to_owned(),
            series: vec![Series::new(&policy, queue_length_series(&jobs))],
            zero_line: false,
            markers: false,
        },
        &queue,
    )?;
    written.push(queue);
    let utilization = dir.join("utilization.svg");
    line_chart(
        &LineChart {
            title: format!("{policy}: utilization over time (bucket means)"),
            x_label: "time (s)".to_owned(),
            y_label: "busy processors / machine".to_owned(),
            series: vec![Series::new(&policy, utilization_series(&jobs, procs))],
            zero_line: false,
            markers: false,
        },
        &utilization,
    )?;
    written.push(utilization);
    let waits = dir.join("waits.svg");
    let cdf: Vec<(f64, f64)> = wait_cdf(&jobs)
        .into_iter()
        .map(|(x, y)| (x.log10(), y))
        .collect();
    line_chart(
        &LineChart {
            title: format!("{policy}: wait time distribution"),
            x_label: "log10(wait + 1 s)".to_owned(),
            y_label: "fraction of jobs".to_owned(),
            series: vec![Series::new(&policy, cdf)],
            zero_line: false,
            markers: false,
        },
        &waits,
    )?;
    written.push(waits);
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
    fn ticks_are_short() {
        assert_eq!(tick(&2_500_000.0), "2.5M");
        assert_eq!(tick(&40_000.0), "40k");
        assert_eq!(tick(&0.95), "0.95");
        assert_eq!(tick(&-500.0), "-500");
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
