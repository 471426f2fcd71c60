//! How far a `simulate` call has got, for a progress display drawn by
//! another thread (the command line draws a bar on a terminal; a library
//! user can poll it). Atomics only: the simulating threads never wait for
//! the display.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// A run's clock once it has ended.
const ENDED: i64 = i64::MAX;

/// Shared between [`simulate_observed`](crate::simulate_observed) and a
/// thread that shows it.
///
/// ```
/// use schedsim_run::Progress;
/// let progress = Progress::new();
/// assert_eq!(progress.fraction(), 0.0);
/// assert_eq!(progress.policies(), (0, 0));
/// assert!(!progress.is_done());
/// ```
#[derive(Debug, Default)]
pub struct Progress {
    /// (first, last) submit time of the workload, once loaded.
    span: Mutex<Option<(i64, i64)>>,
    /// The simulated time each policy's run has reached ([`ENDED`] once it
    /// has ended).
    clocks: Mutex<Vec<Arc<AtomicI64>>>,
    done: AtomicBool,
}

impl Progress {
    /// Nothing started.
    pub fn new() -> Self {
        Self::default()
    }

    /// The workload's arrivals span `[first, last]`; one clock per policy
    /// run follows, for the run to advance.
    pub(crate) fn begin(&self, first: i64, last: i64, policies: usize) -> Vec<Arc<AtomicI64>> {
        *self.span.lock().unwrap_or_else(PoisonError::into_inner) = Some((first, last));
        let clocks: Vec<_> = (0..policies)
            .map(|_| Arc::new(AtomicI64::new(first)))
            .collect();
        clocks.clone_into(&mut self.clocks.lock().unwrap_or_else(PoisonError::into_inner));
        clocks
    }

    /// Marks a run's clock as ended.
    pub(crate) fn end_run(clock: &AtomicI64) {
        clock.store(ENDED, Ordering::Relaxed);
    }

    /// Marks the whole call as ended (successfully or not);
    /// [`simulate_observed`](crate::simulate_observed) does so itself, and
    /// a caller may too (e.g. from a drop guard, should the call panic).
    pub fn end(&self) {
        self.done.store(true, Ordering::Release);
    }

    /// Whether the call has ended.
    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// Policy runs ended and in all (0 and 0 while the workload loads).
    pub fn policies(&self) -> (usize, usize) {
        let clocks = self.clocks.lock().unwrap_or_else(PoisonError::into_inner);
        let ended = clocks
            .iter()
            .filter(|clock| clock.load(Ordering::Relaxed) == ENDED)
            .count();
        (ended, clocks.len())
    }

    /// The mean over the policy runs of the share of the arrivals' time
    /// span each has simulated, in [0, 1]; a run still draining its queue
    /// after the last arrival stays just below 1 until it ends.
    pub fn fraction(&self) -> f64 {
        let Some((first, last)) = *self.span.lock().unwrap_or_else(PoisonError::into_inner) else {
            return 0.0;
        };
        let clocks = self.clocks.lock().unwrap_or_else(PoisonError::into_inner);
        if clocks.is_empty() {
            return 0.0;
        }
        let span = (last - first).max(1) as f64;
        let sum: f64 = clocks
            .iter()
            .map(|clock| match clock.load(Ordering::Relaxed) {
                ENDED => 1.0,
                now => ((now - first) as f64 / span).clamp(0.0, 0.999),
            })
            .sum();
        sum / clocks.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fraction_is_the_mean_over_runs() {
        // Arrivals over [100, 1100]: one run at 600 (half), one ended (1),
        // one past the last arrival but draining (0.999).
        let progress = Progress::new();
        let clocks = progress.begin(100, 1100, 3);
        clocks[0].store(600, Ordering::Relaxed);
        Progress::end_run(&clocks[1]);
        clocks[2].store(5000, Ordering::Relaxed);
        let expected = (0.5 + 1.0 + 0.999) / 3.0;
        assert!((progress.fraction() - expected).abs() < 1e-12);
        assert_eq!(progress.policies(), (1, 3));
        progress.end();
        assert!(progress.is_done());
    }
}
