//! Offered load and the search for the arrival scale that reaches a target.

use workload_format::Record;

/// Relative accuracy the search aims for (the promise is 2%; the search stops
/// well inside it so integer submit times and the jumps of the job mix cannot
/// push the result out).
const TOLERANCE: f64 = 1e-3;
/// Scale bounds, as natural logs (1e-6 .. 1e6).
const LN_SCALE_BOUND: f64 = 13.815_510_557_964_274;
const MAX_EVALUATIONS: usize = 100;

/// The offered load of a workload: `sum(size * runtime) / (machine_size *
/// span)`, `span` = last submit - first submit, over submission lines with
/// known submit time, allocated processors and runtime (CWF commands are
/// skipped). `None` when the span is zero (fewer than two submissions, or all
/// at one second) or `machine_size` is 0.
pub fn offered_load(records: &[Record], machine_size: u64) -> Option<f64> {
    let mut tally = Tally::default();
    for r in records {
        tally.add(r);
    }
    tally.offered_load(machine_size)
}

/// Counts, submit-time range and work of records seen one at a time: what
/// [`offered_load`] and a header need, without holding the records. One code
/// path for both, so a streamed workload's load is bit-identical to the
/// collected one's.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tally {
    /// Submission lines.
    pub(crate) jobs: usize,
    /// All lines.
    pub(crate) records: usize,
    /// Earliest and latest submit time of a submission (`u64::MAX` and 0
    /// before the first).
    pub(crate) first: u64,
    pub(crate) last: u64,
    /// Node-seconds of the submissions with known size and runtime.
    work: f64,
}

impl Default for Tally {
    fn default() -> Self {
        Self {
            jobs: 0,
            records: 0,
            first: u64::MAX,
            last: 0,
            work: 0.0,
        }
    }
}

impl Tally {
    pub(crate) fn add(&mut self, r: &Record) {
        self.records += 1;
        if r.is_command() {
            return;
        }
        self.jobs += 1;
        let Some(submit) = r.submit_time else {
            return;
        };
        self.first = self.first.min(submit);
        self.last = self.last.max(submit);
        if let (Some(size), Some(runtime)) = (r.allocated_processors, r.run_time) {
            self.work += size as f64 * runtime as f64;
        }
    }

    pub(crate) fn offered_load(&self, machine_size: u64) -> Option<f64> {
        load_from(self.work, self.first, self.last, machine_size)
    }
}

pub(crate) fn load_from(work: f64, first: u64, last: u64, machine_size: u64) -> Option<f64> {
    (last > first && machine_size > 0).then(|| work / (machine_size as f64 * (last - first) as f64))
}

/// Finds the factor `c` on every inter-arrival draw for which `load_at(c)`
/// is within [`TOLERANCE`] of `target`, and returns it (or, if the bounds or
/// the evaluation budget are hit first, the best factor seen).
///
/// The search works on `x = ln c`. Offered load is roughly proportional to
/// `1 / c` (the span grows linearly with the scaled draws; only the position
/// in the daily cycle of the first and last job bends it), so each step is a
/// Newton step with slope -1 in log-log space, `x += ln(load / target)`,
/// which lands within a fraction of a percent in one or two steps. A bracket
/// is kept, and a step that leaves it is replaced by bisection, so a load
/// curve that is not smooth (the job mix of two streams changes with `c`)
/// still converges. `load_at` returns `None` for a zero span, which counts as
/// "too dense" (load above any target).
pub(crate) fn find_scale(target: f64, mut load_at: impl FnMut(f64) -> Option<f64>) -> f64 {
    let mut x: f64 = 0.0;
    let (mut lo, mut hi) = (-LN_SCALE_BOUND, LN_SCALE_BOUND);
    let mut best = (f64::INFINITY, 0.0);
    for _ in 0..MAX_EVALUATIONS {
        let load = load_at(x.exp());
        let error = load.map_or(f64::INFINITY, |l| (l / target).ln());
        if error.abs() <= best.0 {
            best = (error.abs(), x);
        }
        if error.abs() <= TOLERANCE {
            break;
        }
        // Load too high: the arrivals must spread out, so c (x) must grow.
        if error > 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let newton = x + error;
        x = if newton.is_finite() && newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if hi - lo < 1e-12 {
            break;
        }
    }
    best.1.exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(submit: u64, size: u64, runtime: u64) -> Record {
        let mut r = Record::unknown(submit);
        r.submit_time = Some(submit);
        r.allocated_processors = Some(size);
        r.run_time = Some(runtime);
        r
    }

    #[test]
    fn offered_load_by_hand() {
        // Work 4*100 + 2*50 + 1*300 = 800 node-s; span 200 - 0 = 200 s; 8
        // nodes: 800 / (8 * 200) = 0.5.
        let records = [job(0, 4, 100), job(50, 2, 50), job(200, 1, 300)];
        assert_eq!(offered_load(&records, 8), Some(0.5));
        assert_eq!(offered_load(&records[..1], 8), None);
        assert_eq!(offered_load(&records, 0), None);
    }

    #[test]
    fn search_hits_a_smooth_inverse_curve_in_a_few_steps() {
        // load(c) = 2 / c + 0.01: the answer for 0.5 is c = 2 / 0.49.
        let mut calls = 0;
        let c = find_scale(0.5, |c| {
            calls += 1;
            Some(2.0 / c + 0.01)
        });
        let load = 2.0 / c + 0.01;
        assert!((load / 0.5 - 1.0).abs() <= TOLERANCE, "load {load}");
        assert!(calls <= 4, "{calls} evaluations");
    }

    #[test]
    fn search_copes_with_steps_and_undefined_loads() {
        // A staircase (load jumps by 0.2% steps) with no value below c = 0.01.
        let curve = |c: f64| (c >= 0.01).then(|| ((3.0 / c) * 500.0).floor() / 500.0);
        let c = find_scale(0.8, curve);
        let load = curve(c).unwrap();
        assert!((load / 0.8 - 1.0).abs() <= 2e-3, "load {load}");
        // An unreachable target returns the best bound instead of looping.
        let c = find_scale(0.8, |_| Some(1e9));
        assert!((c.ln() - LN_SCALE_BOUND).abs() < 1e-6);
    }
}
