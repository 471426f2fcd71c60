//! The figure style shared by every chart: a colour-blind-safe palette with
//! a marker and a dash pattern per series (readable in greyscale), axes
//! that pick log scales and time units, and a legend below the data.
//!
//! Sizes are chosen for print: figures are [`FIGURE_WIDTH`] pixels wide and
//! every text is at least 8 pt when the figure is scaled to a 3.5-inch
//! (252 pt) journal column, i.e. at least 640 × 8 / 252 ≈ 20.3 px.

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Width of line charts in pixels (SVG user units).
pub const FIGURE_WIDTH: u32 = 640;

/// plotters writes `font-size = size / 1.24` into SVG: 26 gives 20.97 px,
/// 8.26 pt at a 3.5-inch column.
pub(crate) const TEXT_SIZE: f64 = 26.0;
/// Caption size (22.6 px in the SVG).
pub(crate) const CAPTION_SIZE: f64 = 28.0;

/// Okabe and Ito's colour-blind-safe palette (Color Universal Design),
/// ordered so that the first colours are the most distinct on white; the
/// yellow (#F0E442) is left out: too pale for lines on white.
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x00, 0x00), // black
];

/// The grey of reference lines (offered load, y = 0).
pub(crate) const REFERENCE_GREY: RGBColor = RGBColor(0x70, 0x70, 0x70);

/// A point marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Marker {
    /// A filled circle.
    Circle,
    /// A filled square.
    Square,
    /// A filled triangle pointing up.
    Triangle,
    /// A filled diamond.
    Diamond,
    /// An open circle.
    OpenCircle,
    /// A cross (x).
    Cross,
}

const MARKERS: [Marker; 6] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::OpenCircle,
    Marker::Cross,
];

/// Dash patterns as (dash, gap) in pixels; (0, 0) is a solid line.
const DASHES: [(u32, u32); 4] = [(0, 0), (12, 6), (4, 4), (20, 6)];

/// How one series looks: colour, marker and dash pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesLook {
    /// The line and marker colour.
    pub color: RGBColor,
    /// The marker drawn on points (charts with markers).
    pub marker: Marker,
    /// (dash, gap) in pixels; (0, 0) is solid.
    pub dash: (u32, u32),
}

impl SeriesLook {
    /// The look of style index `index`. Colours cycle every 7, markers every
    /// 6 and dashes every 4, so the first 84 indices all differ in at least
    /// one of them, and neighbours differ in all three.
    pub fn of(index: usize) -> Self {
        Self {
            color: PALETTE[index % PALETTE.len()],
            marker: MARKERS[index % MARKERS.len()],
            dash: DASHES[index % DASHES.len()],
        }
    }

    /// The look of reference lines: grey, dashed, no marker emphasis.
    pub(crate) fn reference() -> Self {
        Self {
            color: REFERENCE_GREY,
            marker: Marker::Cross,
            dash: (6, 4),
        }
    }
}

/// How an axis maps values to positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AxisScale {
    /// Linear.
    #[default]
    Linear,
    /// Logarithmic (base 10); points at or below zero are left out and
    /// counted in the caption.
    Log,
    /// Logarithmic when every value is positive and the largest is at least
    /// [`AUTO_LOG_RATIO`] times the smallest (one saturated point would
    /// otherwise flatten the rest), else linear.
    Auto,
}

/// [`AxisScale::Auto`] turns logarithmic at this max / min ratio (a decade:
/// on KTH the mean response at load 0.95 is 25 times the one at 0.5, and a
/// linear axis leaves the other nine loads on one flat line).
pub const AUTO_LOG_RATIO: f64 = 10.0;

/// What an axis's values are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum AxisUnit {
    /// Plain numbers.
    #[default]
    Number,
    /// Seconds, shown in seconds, minutes, hours or days, whichever suits
    /// the range.
    Seconds,
}

/// One axis after the scale and unit are resolved: maps data values to
/// drawing coordinates and gives the ticks and their labels.
#[derive(Debug, Clone)]
pub(crate) struct Axis {
    log: bool,
    /// Seconds per displayed unit (1 for numbers).
    divisor: f64,
    /// Drawing range (after division and log).
    pub(crate) range: (f64, f64),
    /// (drawing position, label).
    pub(crate) ticks: Vec<(f64, String)>,
    /// The axis description with its unit or scale.
    pub(crate) label: String,
}

const DURATION_UNITS: [(f64, &str); 4] =
    [(1.0, "s"), (60.0, "min"), (3600.0, "h"), (86400.0, "days")];

impl Axis {
    /// Resolves an axis for the points' `values` (data units) and the
    /// `extents` the range must also hold where it can (error bars: a log
    /// axis cuts them at its bottom), padding linear ranges by 5% (and to 0
    /// when `include_zero`). The scale is chosen on the points alone.
    pub(crate) fn new(
        label: &str,
        scale: AxisScale,
        unit: AxisUnit,
        values: &[f64],
        extents: &[f64],
        include_zero: bool,
    ) -> Self {
        let points = || values.iter().copied().filter(|v| v.is_finite());
        let finite = || points().chain(extents.iter().copied().filter(|v| v.is_finite()));
        let positive = || finite().filter(|&v| v > 0.0);
        let (min, max) = bounds(finite());
        let log = match scale {
            AxisScale::Linear => false,
            AxisScale::Log => positive().next().is_some(),
            AxisScale::Auto => {
                let (lo, hi) = bounds(points());
                lo > 0.0 && lo.is_finite() && hi >= lo * AUTO_LOG_RATIO
            }
        };
        if log {
            // Error bars may reach far below the smallest point (a wide
            // interval around a small mean): the range stops a decade
            // below the points.
            let (lowest_point, _) = bounds(points().filter(|&v| v > 0.0));
            let (lo, hi) = bounds(positive());
            let lo = if lowest_point.is_finite() {
                lo.max(lowest_point / 10.0)
            } else {
                lo
            };
            let (a, b) = (lo.log10(), hi.log10());
            let room = ((b - a) * 0.05).max(0.05);
            let range = (a - room, b + room);
            let (ticks, label) = match unit {
                AxisUnit::Number => (log_number_ticks(range), format!("{label} (log)")),
                AxisUnit::Seconds => (log_duration_ticks(range), format!("{label} (log)")),
            };
            return Self {
                log,
                divisor: 1.0,
                range,
                ticks,
                label,
            };
        }
        let (divisor, label) = match unit {
            AxisUnit::Number => (1.0, label.to_owned()),
            AxisUnit::Seconds => {
                let largest = min.abs().max(max.abs());
                let (divisor, name) = DURATION_UNITS
                    .iter()
                    .rev()
                    .find(|(seconds, _)| largest >= 2.0 * seconds)
                    .copied()
                    .unwrap_or(DURATION_UNITS[0]);
                (divisor, format!("{label} ({name})"))
            }
        };
        let (mut low, mut high) = if min.is_finite() {
            (min / divisor, max / divisor)
        } else {
            (0.0, 1.0)
        };
        if include_zero {
            low = low.min(0.0);
            high = high.max(0.0);
        }
        let room = ((high - low) * 0.05).max(1e-9);
        let range = (low - room, high + room);
        Self {
            log,
            divisor,
            range,
            ticks: linear_ticks(range),
            label,
        }
    }

    /// The drawing coordinate of a data value; `None` for values a log axis
    /// cannot show.
    pub(crate) fn map(&self, value: f64) -> Option<f64> {
        if self.log {
            (value > 0.0).then(|| value.log10())
        } else {
            Some(value / self.divisor)
        }
    }

    /// Like [`map`](Self::map), but values a log axis cannot show go to the
    /// bottom of the axis (error bars reaching zero).
    pub(crate) fn map_clamped(&self, value: f64) -> f64 {
        self.map(value)
            .map_or(self.range.0, |v| v.clamp(self.range.0, self.range.1))
    }

    /// The label of a tick position.
    pub(crate) fn label_of(&self, position: f64) -> String {
        self.ticks
            .iter()
            .min_by(|a, b| (a.0 - position).abs().total_cmp(&(b.0 - position).abs()))
            .map(|t| t.1.clone())
            .unwrap_or_default()
    }

    /// The drawing coordinate system of this axis: its range, with grid
    /// lines and labels exactly at its ticks.
    pub(crate) fn coord(&self) -> Ticked {
        Ticked {
            inner: (self.range.0..self.range.1).into(),
            ticks: self.ticks.iter().map(|t| t.0).collect(),
        }
    }
}

/// A linear f64 coordinate whose key points are given ticks (plotters'
/// `WithKeyPoints` does not take label formatters).
#[derive(Clone)]
pub(crate) struct Ticked {
    inner: RangedCoordf64,
    ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        self.ticks.clone()
    }

    fn range(&self) -> Range<f64> {
        self.inner.range()
    }
}

fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    })
}

/// Axis numbers: short and without float noise (2.5M, 40k, 0.95).
pub(crate) fn tick(value: &f64) -> String {
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

/// Ticks at 1, 2, 2.5 or 5 times a power of ten, about five to eight of
/// them.
fn linear_ticks((low, high): (f64, f64)) -> Vec<(f64, String)> {
    let raw = (high - low) / 6.0;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * power);
    let first = (low / step).ceil() as i64;
    let last = (high / step).floor() as i64;
    (first..=last)
        .map(|k| {
            // Multiply rather than accumulate: no drift in the labels.
            let value = k as f64 * step;
            let value = if value.abs() < step * 1e-9 {
                0.0
            } else {
                value
            };
            (value, tick(&value))
        })
        .collect()
}

/// Decades, with 2 and 5 in between when the range spans less than three.
fn log_number_ticks((low, high): (f64, f64)) -> Vec<(f64, String)> {
    let decades = (low.floor() as i32)..=(high.ceil() as i32);
    let fine = high - low < 3.0;
    let mut ticks = Vec::new();
    for d in decades {
        for m in if fine {
            &[1.0, 2.0, 5.0][..]
        } else {
            &[1.0][..]
        } {
            let value = m * 10f64.powi(d);
            let position = value.log10();
            if position >= low && position <= high {
                ticks.push((position, tick(&value)));
            }
        }
    }
    ticks
}

/// Round durations: 1 s, 10 s, 1 min, 10 min, 1 h, 10 h, 1 day, 10 days...
/// (finer steps when the range is short).
fn log_duration_ticks((low, high): (f64, f64)) -> Vec<(f64, String)> {
    // About one label per decade, none closer than half a decade.
    const COARSE: [(f64, &str); 8] = [
        (1.0, "1 s"),
        (10.0, "10 s"),
        (60.0, "1 min"),
        (600.0, "10 min"),
        (3600.0, "1 h"),
        (86400.0, "1 day"),
        (864000.0, "10 days"),
        (8640000.0, "100 days"),
    ];
    // Roughly halfway (in log) between coarse neighbours.
    const FINE: [(f64, &str); 6] = [
        (3.0, "3 s"),
        (30.0, "30 s"),
        (300.0, "5 min"),
        (1800.0, "30 min"),
        (21600.0, "6 h"),
        (259200.0, "3 days"),
    ];
    let within = |set: &[(f64, &str)]| -> Vec<(f64, String)> {
        set.iter()
            .map(|&(seconds, text)| (seconds.log10(), text.to_owned()))
            .filter(|&(p, _)| p >= low && p <= high)
            .collect()
    };
    let mut ticks = within(&COARSE);
    if ticks.len() < 3 {
        ticks.extend(within(&FINE));
        ticks.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    if ticks.len() < 2 {
        // Shorter than a second or longer than centuries: plain decades.
        ticks = log_number_ticks((low, high));
    }
    ticks
}

/// Approximate width of `text` at the legend's font size, in pixels (SVG
/// viewers' sans-serif averages about 0.55 em per character).
pub(crate) fn text_width(text: &str) -> i32 {
    (text.chars().count() as f64 * 0.55 * TEXT_SIZE / 1.24).ceil() as i32
}

/// One legend entry: the series name and its look.
pub(crate) struct LegendEntry<'a> {
    pub(crate) name: &'a str,
    pub(crate) look: SeriesLook,
    pub(crate) markers: bool,
}

const LEGEND_ROW: i32 = 30;
const LEGEND_SAMPLE: i32 = 44;

/// Splits a legend name into lines that fit `room` pixels, breaking after
/// `,` or `:` (policy specs) or, failing that, anywhere.
pub(crate) fn wrap_name(name: &str, room: i32) -> Vec<String> {
    let per_line = ((room as f64) / (0.55 * TEXT_SIZE / 1.24)).floor().max(8.0) as usize;
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut piece = String::new();
    let flush = |line: &mut String, lines: &mut Vec<String>| {
        if !line.is_empty() {
            lines.push(std::mem::take(line));
        }
    };
    for c in name.chars() {
        piece.push(c);
        if c == ',' || c == ':' {
            if line.chars().count() + piece.chars().count() > per_line {
                flush(&mut line, &mut lines);
            }
            line.push_str(&std::mem::take(&mut piece));
        }
    }
    if line.chars().count() + piece.chars().count() > per_line {
        flush(&mut line, &mut lines);
    }
    line.push_str(&piece);
    // A piece longer than a line on its own is cut hard.
    for long in std::mem::take(&mut lines)
        .into_iter()
        .chain(std::iter::once(line))
    {
        let chars: Vec<char> = long.chars().collect();
        lines.extend(chars.chunks(per_line).map(|c| c.iter().collect::<String>()));
    }
    lines.retain(|l| !l.is_empty());
    lines
}

/// Lays legend entries out in aligned columns across `width` (as many as
/// the widest entry allows, filled row by row; names too long for the
/// figure wrap over several lines, one entry per row): the top-left pixel
/// of each entry, its lines, and the total height.
pub(crate) fn legend_layout(
    entries: &[LegendEntry<'_>],
    width: i32,
) -> (Vec<(i32, i32, Vec<String>)>, i32) {
    if entries.is_empty() {
        return (Vec::new(), 0);
    }
    let margin = 16;
    let chrome = LEGEND_SAMPLE + 8 + 24;
    let room = width - 2 * margin - chrome;
    let widest = entries
        .iter()
        .map(|e| chrome + text_width(e.name))
        .max()
        .unwrap_or(0);
    if widest > width - 2 * margin {
        let mut y = 8;
        let mut at = Vec::with_capacity(entries.len());
        for entry in entries {
            let lines = wrap_name(entry.name, room);
            let rows = lines.len() as i32;
            at.push((margin, y, lines));
            y += rows * LEGEND_ROW;
        }
        return (at, y + 4);
    }
    let columns = ((width - 2 * margin) / widest.max(1)).clamp(1, entries.len() as i32);
    let at = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let i = i as i32;
            (
                margin + (i % columns) * widest,
                8 + (i / columns) * LEGEND_ROW,
                vec![e.name.to_owned()],
            )
        })
        .collect();
    let rows = (entries.len() as i32 + columns - 1) / columns;
    (at, 8 + rows * LEGEND_ROW + 4)
}

/// Draws the legend into `area` (pixel coordinates relative to it).
pub(crate) fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[LegendEntry<'_>],
    positions: &[(i32, i32, Vec<String>)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = ("sans-serif", TEXT_SIZE)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for (entry, (x, y, lines)) in entries.iter().zip(positions) {
        let (x, y) = (*x, *y);
        let middle = y + LEGEND_ROW / 2;
        let line = [(x, middle), (x + LEGEND_SAMPLE, middle)];
        let style = entry.look.color.stroke_width(2);
        if entry.look.dash == (0, 0) {
            area.draw(&PathElement::new(line, style))?;
        } else {
            area.draw(&DashedPathElement::new(
                line,
                entry.look.dash.0,
                entry.look.dash.1,
                style,
            ))?;
        }
        if entry.markers {
            let at = (x + LEGEND_SAMPLE / 2, middle);
            match entry.look.marker {
                Marker::Circle => area.draw(&Circle::new(at, 5, entry.look.color.filled()))?,
                Marker::OpenCircle => area.draw(&Circle::new(at, 5, style))?,
                Marker::Square => area.draw(&Rectangle::new(
                    [(at.0 - 4, at.1 - 4), (at.0 + 4, at.1 + 4)],
                    entry.look.color.filled(),
                ))?,
                Marker::Triangle => area.draw(&Polygon::new(
                    vec![(at.0, at.1 - 6), (at.0 + 6, at.1 + 5), (at.0 - 6, at.1 + 5)],
                    entry.look.color.filled(),
                ))?,
                Marker::Diamond => area.draw(&Polygon::new(
                    vec![
                        (at.0, at.1 - 6),
                        (at.0 + 6, at.1),
                        (at.0, at.1 + 6),
                        (at.0 - 6, at.1),
                    ],
                    entry.look.color.filled(),
                ))?,
                Marker::Cross => {
                    area.draw(&PathElement::new(
                        [(at.0 - 5, at.1 - 5), (at.0 + 5, at.1 + 5)],
                        style,
                    ))?;
                    area.draw(&PathElement::new(
                        [(at.0 - 5, at.1 + 5), (at.0 + 5, at.1 - 5)],
                        style,
                    ))?;
                }
            }
        }
        for (row, line) in lines.iter().enumerate() {
            area.draw(&Text::new(
                line.clone(),
                (x + LEGEND_SAMPLE + 8, middle + row as i32 * LEGEND_ROW),
                font.clone(),
            ))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(&2_500_000.0), "2.5M");
        assert_eq!(tick(&40_000.0), "40k");
        assert_eq!(tick(&0.95), "0.95");
        assert_eq!(tick(&-500.0), "-500");
    }

    #[test]
    fn looks_differ_between_neighbours() {
        for i in 0..20 {
            let (a, b) = (SeriesLook::of(i), SeriesLook::of(i + 1));
            assert_ne!(a.color, b.color);
            assert_ne!(a.marker, b.marker);
            assert_ne!(a.dash, b.dash);
        }
        // 7 colours x 6 markers x 4 dashes cycle together after lcm = 84.
        let looks: Vec<_> = (0..84).map(SeriesLook::of).collect();
        for i in 0..84 {
            for j in 0..i {
                assert_ne!(looks[i], looks[j], "{i} {j}");
            }
        }
        assert_eq!(SeriesLook::of(84), looks[0]);
    }

    #[test]
    fn linear_ticks_are_round() {
        // Range 0..1.05: raw step 0.175 -> 0.2: 0, 0.2, ..., 1.
        let ticks = linear_ticks((0.0, 1.05));
        let labels: Vec<&str> = ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["0", "0.2", "0.4", "0.6", "0.8", "1"]);
    }

    #[test]
    fn auto_scale_turns_log_when_values_span_decades() {
        // 100 .. 40,000 s: ratio 400 >= 10: log, ticks at round durations.
        let axis = Axis::new(
            "wait",
            AxisScale::Auto,
            AxisUnit::Seconds,
            &[100.0, 400.0, 40_000.0],
            &[],
            false,
        );
        assert!(axis.log);
        assert_eq!(axis.label, "wait (log)");
        let labels: Vec<&str> = axis.ticks.iter().map(|t| t.1.as_str()).collect();
        // Only two coarse ticks (10 min, 1 h) fit 10^1.9 .. 10^4.7: the
        // halfway ticks join them.
        assert_eq!(labels, ["5 min", "10 min", "30 min", "1 h", "6 h"]);
        // 1,000 .. 5,000 s: ratio 5 < 10: linear, in minutes (5,000 s < 2 h).
        let axis = Axis::new(
            "wait",
            AxisScale::Auto,
            AxisUnit::Seconds,
            &[1000.0, 5000.0],
            &[-100.0],
            false,
        );
        assert!(!axis.log);
        assert_eq!(axis.label, "wait (min)");
        assert_eq!(axis.map(3000.0), Some(50.0));
        // A zero keeps it linear: a log axis could not show it.
        let axis = Axis::new(
            "x",
            AxisScale::Auto,
            AxisUnit::Number,
            &[0.0, 1e6],
            &[],
            false,
        );
        assert!(!axis.log);
        // Error bars below zero do not stop a log axis: they are cut.
        let axis = Axis::new(
            "x",
            AxisScale::Auto,
            AxisUnit::Number,
            &[10.0, 1e4],
            &[-5.0, 20.0],
            false,
        );
        assert!(axis.log);
        assert_eq!(axis.map_clamped(-5.0), axis.range.0);
    }

    #[test]
    fn durations_pick_their_unit() {
        // 30 days of seconds: days.
        let axis = Axis::new(
            "time",
            AxisScale::Linear,
            AxisUnit::Seconds,
            &[0.0, 30.0 * 86400.0],
            &[],
            false,
        );
        assert_eq!(axis.label, "time (days)");
        assert_eq!(axis.map(86400.0 * 3.0), Some(3.0));
        // 90 s: seconds.
        let axis = Axis::new(
            "t",
            AxisScale::Linear,
            AxisUnit::Seconds,
            &[0.0, 90.0],
            &[],
            false,
        );
        assert_eq!(axis.label, "t (s)");
    }

    #[test]
    fn log_number_ticks_by_decade() {
        // 10^0.5 .. 10^5.5: decades 10 .. 100k.
        let labels: Vec<String> = log_number_ticks((0.5, 5.5))
            .into_iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(labels, ["10", "100", "1000", "10k", "100k"]);
        // Less than three decades: 1, 2, 5 steps.
        let labels: Vec<String> = log_number_ticks((0.0, 1.0))
            .into_iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(labels, ["1", "2", "5", "10"]);
    }

    #[test]
    fn legend_columns_are_aligned() {
        let look = SeriesLook::of(0);
        let entry = |name| LegendEntry {
            name,
            look,
            markers: true,
        };
        let entries = [entry("easy"), entry("los:lookahead=50"), entry("fcfs")];
        // The widest entry: 44 + 8 + ceil(16 * 0.55 * 20.97) = 185 + 24 = 261
        // px; 640 - 32 = 608 px hold 2 columns: rows of 2 and 1.
        let (at, height) = legend_layout(&entries, 640);
        let corners: Vec<(i32, i32)> = at.iter().map(|a| (a.0, a.1)).collect();
        assert_eq!(corners, [(16, 8), (16 + 261, 8), (16, 8 + LEGEND_ROW)]);
        assert_eq!(height, 8 + 2 * LEGEND_ROW + 4);
        // Too narrow for two: one column.
        let (at, _) = legend_layout(&entries, 300);
        assert_eq!(at.iter().map(|p| p.0).collect::<Vec<_>>(), [16, 16, 16]);
        // Too narrow for the widest: names wrap after `:` and `,`.
        let long = [entry(
            "los:lookahead=50,traceback=selected-first,merit=maxjobs",
        )];
        let (at, height) = legend_layout(&long, 640);
        // Room: 640 - 32 - 76 = 532 px, 46 characters of 11.53 px.
        assert_eq!(
            at[0].2,
            [
                "los:lookahead=50,traceback=selected-first,",
                "merit=maxjobs"
            ]
        );
        assert_eq!(height, 8 + 2 * LEGEND_ROW + 4);
    }

    #[test]
    fn names_wrap_at_separators_or_hard() {
        assert_eq!(wrap_name("easy", 500), ["easy"]);
        // 8 characters per line at least; no separator: cut hard.
        assert_eq!(wrap_name("abcdefghijkl", 10), ["abcdefgh", "ijkl"]);
        assert_eq!(wrap_name("ab:cd,ef", 10), ["ab:cd,ef"]);
    }
}
