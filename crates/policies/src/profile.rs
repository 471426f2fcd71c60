use schedsim_sim_core::{AvailabilityProfile, Time};

/// Free processors over future time, as conservative backfilling and the
/// dedicated-job policies keep it (LOS thesis, appendix A.2): sim-core's
/// [`AvailabilityProfile`] behind the names these policies use. Capacity is
/// not bounded here (the running jobs' ends give the machine's processors
/// back), and the callers only reserve where a job fits.
#[derive(Debug, Clone)]
pub(crate) struct Profile {
    inner: AvailabilityProfile,
    /// Block summaries of the steps for
    /// [`earliest_start_before`](Self::earliest_start_before).
    index: StepIndex,
}

impl Default for Profile {
    fn default() -> Self {
        Self {
            inner: AvailabilityProfile::new(u32::MAX, 0, 0, []),
            index: StepIndex::default(),
        }
    }
}

impl PartialEq for Profile {
    fn eq(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
}

impl Profile {
    /// Starts over at `now` with `free` processors free, plus the running
    /// jobs' processors coming back at their expected ends.
    pub(crate) fn reset(&mut self, now: Time, free: u32, ends: impl Iterator<Item = (Time, u32)>) {
        self.inner.reset(now, free, ends);
        self.index.invalidate_from(0);
    }

    /// Moves the start to `now`, forgetting what lies before.
    pub(crate) fn advance(&mut self, now: Time) {
        self.inner.advance(now);
        self.index.invalidate_from(0);
    }

    /// Where a job holding `size` processors over `[at, at + duration)`
    /// could start instead, earlier than `at`: the earliest anchor of the
    /// profile with that reservation given back, if it is before `at`.
    /// Equivalent to releasing, searching and comparing, but it leaves the
    /// profile alone: before `at` the job's own reservation frees nothing,
    /// and from `at` on it covers whatever part of an earlier window
    /// reaches past `at`, so only `[t, min(t + duration, at))` must have
    /// `size` processors free. Whole blocks of steps without room are
    /// skipped by their summaries, so compressing a long queue costs little
    /// for the jobs that cannot move.
    pub(crate) fn earliest_start_before(
        &mut self,
        size: u32,
        duration: Time,
        at: Time,
    ) -> Option<Time> {
        self.search_before(size, duration, self.inner.start(), at, true)
    }

    /// The earliest anchor before `limit` at which `size` processors stay
    /// free for the whole of `duration` (at least 1 s), if any: the windows
    /// that [`earliest_start_before`](Self::earliest_start_before) finds
    /// for a reservation at `limit` or later, less those that reach into
    /// it. (Compression asks [`earliest_full_start_between`](Self::earliest_full_start_between).)
    #[cfg(test)]
    pub(crate) fn earliest_full_start_before(
        &mut self,
        size: u32,
        duration: Time,
        limit: Time,
    ) -> Option<Time> {
        self.search_before(size, duration, self.inner.start(), limit, false)
    }

    /// The earliest anchor in `[from, limit)` (`from` clamped to the
    /// profile's start) at which `size` processors stay free for the whole
    /// of `duration`: a search that resumes where an earlier one that found
    /// nothing before `from` stopped.
    pub(crate) fn earliest_full_start_between(
        &mut self,
        size: u32,
        duration: Time,
        from: Time,
        limit: Time,
    ) -> Option<Time> {
        let from = from.max(self.inner.start());
        self.search_before(size, duration, from, limit, false)
    }

    /// For a job that can slide back from `at` (`size` processors free
    /// just before it, [`free_before`](Self::free_before)): the
    /// earliest time from which `size` processors stay free until `at`
    /// (the start of the run of steps with room that ends at `at`). Every
    /// anchor from there to `at` fits the job (its own reservation covers
    /// the rest of its window); an earlier one must be a whole window that
    /// ends before the run, so the job's earliest anchor is the earliest
    /// whole window before this time, or this time.
    pub(crate) fn room_since(&mut self, size: u32, at: Time) -> Time {
        let (times, free) = self.inner.step_slices();
        let holding = times.partition_point(|&t| t < at);
        match self.index.last_below(free, holding, size) {
            Some(dip) => times[dip + 1],
            None => times[0],
        }
    }

    /// Whether a job of `size` processors reserved at `at` could start a
    /// little earlier: `size` processors are free just before `at` (its own
    /// reservation covers the rest of any window). When it cannot, the
    /// earliest anchor of [`earliest_start_before`](Self::earliest_start_before)
    /// is that of [`earliest_full_start_before`](Self::earliest_full_start_before):
    /// a window reaching into `at` would need that room.
    /// (Compression compares [`free_before`](Self::free_before), which it
    /// remembers for job arrays reserved at one time.)
    #[cfg(test)]
    pub(crate) fn slides_back(&self, size: u32, at: Time) -> bool {
        self.free_before(at) >= size
    }

    /// Processors free just before `at`; none at or before the start (a
    /// reservation there cannot slide back).
    pub(crate) fn free_before(&self, at: Time) -> u32 {
        if at > self.inner.start() {
            self.inner.free_at(at - 1)
        } else {
            0
        }
    }

    /// Windows from `from` (not before the profile's start) to `limit`,
    /// truncated at `limit` or whole, through the block summaries.
    fn search_before(
        &mut self,
        size: u32,
        duration: Time,
        from: Time,
        limit: Time,
        truncate: bool,
    ) -> Option<Time> {
        self.index.resize(self.inner.step_slices().1);
        self.index.earliest_fit_before(
            self.inner.step_slices(),
            from,
            size,
            duration,
            limit,
            truncate,
        )
    }

    /// The earliest time, not before the profile's start, at which `size`
    /// processors stay free for `duration` seconds (the anchor point of
    /// appendix A.2).
    pub(crate) fn earliest_start(&self, size: u32, duration: Time) -> Option<Time> {
        self.inner.earliest_fit(self.inner.start(), size, duration)
    }

    /// The earliest time at or after `from` at which `size` processors stay
    /// free for `duration` seconds.
    pub(crate) fn earliest_start_from(
        &self,
        from: Time,
        size: u32,
        duration: Time,
    ) -> Option<Time> {
        self.inner.earliest_fit(from, size, duration)
    }

    /// Where the free processors first fall below those free at the start,
    /// and how many are free there; `(Time::MAX, free at the start)` if
    /// they never do.
    pub(crate) fn first_drop(&self) -> (Time, u32) {
        let (times, free) = self.inner.step_slices();
        let Some(&first) = free.first() else {
            return (Time::MAX, 0);
        };
        free.iter()
            .position(|&f| f < first)
            .map_or((Time::MAX, first), |step| (times[step], free[step]))
    }

    /// Processors free at `time` (not before the profile's start).
    pub(crate) fn free_at(&self, time: Time) -> u32 {
        self.inner.free_at(time)
    }

    /// Whether `size` processors are free over `[start, start + duration)`.
    pub(crate) fn fits(&self, start: Time, size: u32, duration: Time) -> bool {
        self.inner.fits(start, size, duration)
    }

    /// Takes `size` processors over `[start, end)`, where they fit.
    pub(crate) fn reserve(&mut self, start: Time, end: Time, size: u32) {
        self.index.invalidate_from(self.step_of(start));
        let result = self.inner.reserve(start, end - start, size);
        debug_assert!(result.is_ok(), "{result:?}");
    }

    /// Moves a reservation of `size` processors for `duration` from `from`
    /// to `to` (where it fits): [`release`](Self::release) then
    /// [`reserve`](Self::reserve), touching only what changes.
    pub(crate) fn shift(&mut self, from: Time, to: Time, duration: Time, size: u32) {
        self.index.invalidate_from(self.step_of(from.min(to)));
        let result = self.inner.shift(from, to, duration, size);
        debug_assert!(result.is_ok(), "{result:?}");
    }

    /// Index of the step holding `time`.
    fn step_of(&self, time: Time) -> usize {
        let times = self.inner.step_slices().0;
        times.partition_point(|&t| t <= time).saturating_sub(1)
    }

    /// Gives back `size` processors over `[start, end)` taken by
    /// [`reserve`](Self::reserve).
    pub(crate) fn release(&mut self, start: Time, end: Time, size: u32) {
        self.index.invalidate_from(self.step_of(start));
        let result = self.inner.release(start, end - start, size);
        debug_assert!(result.is_ok(), "{result:?}");
    }

    #[cfg(test)]
    pub(crate) fn slots(&self) -> Vec<(Time, u32)> {
        self.inner.steps().collect()
    }
}

/// Per block of [`BLOCK`] steps, the least and most processors free, so
/// that a search skips whole blocks. Kept for a prefix of the blocks that
/// is still valid: a change at a step invalidates its block and every later
/// one (a new or merged step shifts them), which are recomputed when next
/// searched.
#[derive(Debug, Clone, Default)]
struct StepIndex {
    min: Vec<u32>,
    max: Vec<u32>,
    /// Blocks from this one on are stale.
    valid_blocks: usize,
}

/// Steps per block: a block's summary is one pass over 64 `u32`s.
const BLOCK: usize = 64;

impl StepIndex {
    /// Marks the block holding step `step` and all later ones stale.
    fn invalidate_from(&mut self, step: usize) {
        self.valid_blocks = self.valid_blocks.min(step / BLOCK);
    }

    /// Sizes the summaries for `free`, keeping the valid prefix; the stale
    /// blocks are summarized when a search first reaches them (after a
    /// change, most searches stop long before the profile's end).
    fn resize(&mut self, free: &[u32]) {
        let blocks = free.len().div_ceil(BLOCK);
        self.min.resize(blocks, 0);
        self.max.resize(blocks, 0);
        self.valid_blocks = self.valid_blocks.min(blocks);
    }

    /// Summarizes the stale blocks up to and including `block`.
    fn summarize_to(&mut self, free: &[u32], block: usize) {
        for b in self.valid_blocks..=block {
            let chunk = &free[b * BLOCK..free.len().min((b + 1) * BLOCK)];
            self.min[b] = chunk.iter().copied().min().unwrap_or(0);
            self.max[b] = chunk.iter().copied().max().unwrap_or(0);
        }
        self.valid_blocks = self.valid_blocks.max(block + 1);
    }

    /// The first step at or after `from` with at least `size` free
    /// (`at_least`), or with fewer than `size` free.
    fn first(&mut self, free: &[u32], from: usize, size: u32, at_least: bool) -> Option<usize> {
        let hit = |f: u32| (f >= size) == at_least;
        let block_end = free.len().min((from / BLOCK + 1) * BLOCK);
        if let Some(i) = (from..block_end).find(|&i| hit(free[i])) {
            return Some(i);
        }
        let b = (from / BLOCK + 1..self.min.len()).find(|&b| {
            if b >= self.valid_blocks {
                self.summarize_to(free, b);
            }
            if at_least {
                self.max[b] >= size
            } else {
                self.min[b] < size
            }
        })?;
        (b * BLOCK..free.len().min((b + 1) * BLOCK)).find(|&i| hit(free[i]))
    }

    /// The last step before `before` with fewer than `size` free.
    fn last_below(&mut self, free: &[u32], before: usize, size: u32) -> Option<usize> {
        if before == 0 {
            return None;
        }
        self.resize(free);
        let block_start = (before - 1) / BLOCK * BLOCK;
        if let Some(i) = (block_start..before).rev().find(|&i| free[i] < size) {
            return Some(i);
        }
        let block = before.saturating_sub(1) / BLOCK;
        if block == 0 {
            return None;
        }
        if self.valid_blocks < block {
            self.summarize_to(free, block - 1);
        }
        let b = (0..block).rev().find(|&b| self.min[b] < size)?;
        (b * BLOCK..(b + 1) * BLOCK).rev().find(|&i| free[i] < size)
    }

    /// The earliest anchor `t` in `[from, limit)` (`from` or a step start)
    /// with `size` processors free over `[t, min(t + duration, limit))`,
    /// or over all of `[t, t + duration)` unless `truncate`.
    fn earliest_fit_before(
        &mut self,
        (times, free): (&[Time], &[u32]),
        from: Time,
        size: u32,
        duration: Time,
        limit: Time,
        truncate: bool,
    ) -> Option<Time> {
        // Searches start at the profile's start, its first step: no binary
        // search needed (it cost a fifth of a long compression).
        let mut candidate = if times.first().is_some_and(|&t| t >= from) {
            0
        } else {
            times.partition_point(|&t| t <= from).saturating_sub(1)
        };
        loop {
            candidate = self.first(free, candidate, size, true)?;
            let anchor = times[candidate].max(from);
            if anchor >= limit {
                return None;
            }
            let full_end = anchor.saturating_add(duration.max(1));
            let end = if truncate {
                full_end.min(limit)
            } else {
                full_end
            };
            match self.first(free, candidate + 1, size, false) {
                Some(dip) if times[dip] < end => candidate = dip + 1,
                _ => return Some(anchor),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn anchors_and_reservations() {
        // 10 processors at t = 0: 4 free now, 3 more at 5, 3 more at 8.
        let mut profile = Profile::default();
        profile.reset(0, 4, [(5, 3), (8, 3)].into_iter());
        assert_eq!(profile.slots(), [(0, 4), (5, 7), (8, 10)]);
        // 4 fit now; 6 fit from 5 on; 9 fit from 8 on.
        assert_eq!(profile.earliest_start(4, 100), Some(0));
        assert_eq!(profile.earliest_start(6, 100), Some(5));
        assert_eq!(profile.earliest_start(9, 1), Some(8));
        assert_eq!(profile.earliest_start(11, 1), None);
        // Reserve 6 over [5, 12): free becomes 4 in [0,5), 1 in [5,8),
        // 4 in [8,12), 10 from 12.
        profile.reserve(5, 12, 6);
        assert_eq!(profile.slots(), [(0, 4), (5, 1), (8, 4), (12, 10)]);
        // A 2-processor job for 5 s fits at 0? No: only 1 free in [5,8).
        // It fits at 8 (4 free until 12, then 10).
        assert_eq!(profile.earliest_start(2, 6), Some(8));
        // But a 2-processor job for 5 s ending by 5 fits now.
        assert_eq!(profile.earliest_start(2, 5), Some(0));
        assert!(profile.fits(0, 4, 5));
        assert!(!profile.fits(0, 4, 6));
        profile.release(5, 12, 6);
        assert_eq!(profile.slots(), [(0, 4), (5, 7), (8, 10)]);
    }

    #[test]
    fn anchors_not_before_a_given_time() {
        // 10 processors at t = 0: 4 free now, 7 from 5, 10 from 8; 6 taken
        // over [12, 20) by a reservation.
        let mut profile = Profile::default();
        profile.reset(0, 4, [(5, 3), (8, 3)].into_iter());
        profile.reserve(12, 20, 6);
        assert_eq!(
            profile.slots(),
            [(0, 4), (5, 7), (8, 10), (12, 4), (20, 10)]
        );
        // 4 processors for 3 s from 2: free at 2 itself (4 free until 5).
        assert_eq!(profile.earliest_start_from(2, 4, 3), Some(2));
        // 6 processors for 3 s from 6: 7 free at 6, until 8, then 10 until
        // 12: [6, 9) fits.
        assert_eq!(profile.earliest_start_from(6, 6, 3), Some(6));
        // 6 processors for 5 s from 9: [9, 14) dips to 4 at 12; the next
        // anchor is 20.
        assert_eq!(profile.earliest_start_from(9, 6, 5), Some(20));
        // From before the profile's start: the same as earliest_start.
        assert_eq!(profile.earliest_start_from(-5, 6, 3), Some(5));
        assert_eq!(profile.free_at(13), 4);
        assert_eq!(profile.free_at(-1), 4);
    }

    #[test]
    fn neighbours_merge() {
        let mut profile = Profile::default();
        profile.reset(0, 10, std::iter::empty());
        profile.reserve(2, 4, 3);
        profile.reserve(4, 6, 3);
        assert_eq!(profile.slots(), [(0, 10), (2, 7), (6, 10)]);
        profile.release(2, 6, 3);
        assert_eq!(profile.slots(), [(0, 10)]);
    }

    #[test]
    fn earliest_start_before_sees_the_jobs_own_reservation() {
        // 10 processors: 4 free at 0, 7 from 5, 10 from 8. A job of 6 for
        // 10 s reserved at 8: the profile shows 4, 7, then 4 over [8, 18).
        let mut profile = Profile::default();
        profile.reset(0, 4, [(5, 3), (8, 3)].into_iter());
        profile.reserve(8, 18, 6);
        // Given back, it fits from 5 (7 free until 8, then its own 6):
        // only [5, 8) must hold 6 free.
        assert_eq!(profile.earliest_start_before(6, 10, 8), Some(5));
        // A job of 8 cannot start before 8 (at most 7 free before).
        assert_eq!(profile.earliest_start_before(8, 10, 8), None);
        // Nothing is earlier than the reservation itself.
        assert_eq!(profile.earliest_start_before(1, 10, 0), None);
    }

    #[test]
    fn room_since_finds_the_run_before_a_reservation() {
        // 10 processors: 4 free at 0, 7 from 5, 10 from 8; a job of 2 for
        // 10 s reserved at 8 leaves 8 free over [8, 18).
        let mut profile = Profile::default();
        profile.reset(0, 4, [(5, 3), (8, 3)].into_iter());
        profile.reserve(8, 18, 2);
        assert_eq!(profile.slots(), [(0, 4), (5, 7), (8, 8), (18, 10)]);
        // 2 processors are free all the way from 0 to 8.
        assert!(profile.slides_back(2, 8));
        assert_eq!(profile.room_since(2, 8), 0);
        // 5 are free only from 5 (4 before).
        assert!(profile.slides_back(5, 8));
        assert_eq!(profile.room_since(5, 8), 5);
        // 8 are not free just before 8: no slide.
        assert!(!profile.slides_back(8, 8));
        assert_eq!(profile.free_before(8), 7);
        assert_eq!(profile.free_before(0), 0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The search without touching the profile equals release, search
        /// and compare, on random profiles and reservations (up to a few
        /// hundred steps: several blocks).
        #[test]
        fn earliest_start_before_equals_release_and_search(
            free_now in 0u32..30,
            ends in proptest::collection::vec((1i64..600, 1u32..4), 0..80),
            reservations in proptest::collection::vec((0i64..800, 1i64..60, 1u32..5), 0..120),
            job in (0i64..800, 1i64..100, 1u32..9),
        ) {
            let mut profile = Profile::default();
            profile.reset(0, free_now, ends.iter().copied());
            for &(at, length, size) in &reservations {
                if profile.fits(at, size, length) {
                    profile.reserve(at, at + length, size);
                }
            }
            let (at, length, size) = job;
            prop_assume!(profile.fits(at, size, length));
            profile.reserve(at, at + length, size);
            let fast = profile.earliest_start_before(size, length, at);
            let mut slow = profile.clone();
            slow.release(at, at + length, size);
            let anchor = slow.earliest_start(size, length).filter(|&t| t < at);
            prop_assert_eq!(fast, anchor);
            // Compression's shortcut: room just before the reservation, or
            // else the earliest whole window, is the same answer.
            let full = profile.earliest_full_start_before(size, length, at);
            if profile.slides_back(size, at) {
                // The earliest whole window before the run of room that
                // ends at the reservation, or the run's start.
                let since = profile.room_since(size, at);
                let window = profile.earliest_full_start_before(size, length, since);
                prop_assert_eq!(fast, Some(window.unwrap_or(since)));
            } else {
                prop_assert_eq!(fast, full);
            }
        }
    }
}
