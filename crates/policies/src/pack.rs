use knapsack_dp::{Merit, Options, Solver, Traceback, waiting_slowdown};
use schedsim_sim_core::{JobId, View};

use crate::los::{LosMerit, TracebackOrder};

/// Which dynamic programme packs the candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dp {
    /// Basic_DP over every candidate (Delayed-LOS with a head that fits).
    BasicAll,
    /// Basic_DP over the candidates that end by the freeze (shadow) time.
    BasicEndingByFreeze,
    /// Reservation_DP: candidates still running at the freeze time use at
    /// most `extra` processors then.
    Reservation {
        /// Processors free at the freeze time.
        extra: u32,
    },
}

/// The packing step that LOS, LOS-D, Delayed-LOS and Hybrid-LOS share:
/// candidates are collected with their shadow sizes (and merits), then
/// knapsack-dp selects the set to start. The buffers and the solver are
/// reused from call to call.
#[derive(Debug, Default)]
pub(crate) struct Packer {
    solver: Solver,
    candidates: Vec<JobId>,
    sizes: Vec<u32>,
    shadow_sizes: Vec<u32>,
    eligible: Vec<bool>,
    merits: Vec<f64>,
    selected: Vec<JobId>,
}

impl Packer {
    /// Forgets the previous candidates.
    pub(crate) fn clear(&mut self) {
        self.candidates.clear();
        self.sizes.clear();
        self.shadow_sizes.clear();
        self.eligible.clear();
        self.merits.clear();
    }

    /// Candidates so far.
    pub(crate) fn len(&self) -> usize {
        self.candidates.len()
    }

    /// Adds a candidate. `ends_by_freeze` says whether it ends by the
    /// freeze (shadow) time: its shadow size is then 0, else its size. With
    /// the max-slowdown merit its waiting slowdown (Algorithm 7) is its
    /// merit.
    pub(crate) fn push(
        &mut self,
        view: &View<'_>,
        id: JobId,
        ends_by_freeze: bool,
        merit: LosMerit,
    ) {
        let (size, estimate) = (view.job(id).size, view.estimate(id));
        self.candidates.push(id);
        self.sizes.push(size);
        self.shadow_sizes
            .push(if ends_by_freeze { 0 } else { size });
        self.eligible.push(ends_by_freeze);
        let (now, submit) = (view.now(), view.job(id).submit);
        // Section 3.4: slowdown (t - arrival + estimate) / estimate, and the
        // response time t - arrival + estimate, maximized as they are or
        // minimized through their negatives.
        let slowdown = || waiting_slowdown(now, submit, estimate).unwrap_or(1.0);
        let response = || (now - submit + estimate) as f64;
        match merit {
            LosMerit::None | LosMerit::MaxJobs => {}
            LosMerit::MaxSlowdown => self.merits.push(slowdown()),
            LosMerit::MinSlowdown => self.merits.push(-slowdown()),
            LosMerit::MaxResponse => self.merits.push(response()),
            LosMerit::MinResponse => self.merits.push(-response()),
        }
    }

    /// Runs `dp` over the candidates with `capacity` processors free now and
    /// returns the selected jobs, in candidate order.
    ///
    /// # Errors
    /// The DP's own (inconsistent input, or a table too large for memory).
    pub(crate) fn solve(
        &mut self,
        dp: Dp,
        capacity: u32,
        merit: LosMerit,
        traceback: TracebackOrder,
    ) -> Result<&[JobId], knapsack_dp::Error> {
        self.selected.clear();
        if self.candidates.is_empty() {
            return Ok(&self.selected);
        }
        let merit = match merit {
            LosMerit::None => Merit::None,
            LosMerit::MaxJobs => Merit::MaxJobs,
            LosMerit::MaxSlowdown
            | LosMerit::MinSlowdown
            | LosMerit::MaxResponse
            | LosMerit::MinResponse => Merit::PerItem(&self.merits),
        };
        let options = Options::new()
            .with_merit(merit)
            .with_traceback(match traceback {
                TracebackOrder::BypassedFirst => Traceback::BypassedFirst,
                TracebackOrder::SelectedFirst => Traceback::SelectedFirst,
            });
        let solution = match dp {
            Dp::BasicAll => self
                .solver
                .basic_dp(&self.sizes, None, capacity, &options)?,
            Dp::BasicEndingByFreeze => {
                self.solver
                    .basic_dp(&self.sizes, Some(&self.eligible), capacity, &options)?
            }
            Dp::Reservation { extra } => self.solver.reservation_dp(
                &self.sizes,
                &self.shadow_sizes,
                capacity,
                extra,
                &options,
            )?,
        };
        let candidates = &self.candidates;
        self.selected
            .extend(solution.selected.iter().map(|&index| candidates[index]));
        Ok(&self.selected)
    }
}
