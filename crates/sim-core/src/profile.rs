//! Free processors over future time, for policies that plan: reservations
//! (conservative backfilling, EASY-D), admission control that tries several
//! insertion points (QoPS, MSB, MRT), virtual schedules searched with
//! backtracking (SCOJO-PECT's optimiser).

use crate::Time;
use crate::policy::View;

/// Why a profile operation was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// `start + duration` does not fit in a [`Time`].
    #[error("the interval from {start} lasting {duration} s overflows the time range")]
    TimeOverflow {
        /// Its start.
        start: Time,
        /// Its length.
        duration: Time,
    },
    /// A negative duration.
    #[error("a duration of {0} s is negative")]
    NegativeDuration(Time),
    /// The interval starts before the profile does.
    #[error("the interval starts at {start}, before the profile's start {profile_start}")]
    BeforeStart {
        /// Its start.
        start: Time,
        /// The profile's start.
        profile_start: Time,
    },
    /// A reservation takes more processors than are free somewhere in its
    /// interval.
    #[error("reserving {size} processors at {at}, where only {free} are free")]
    NotFree {
        /// Processors asked for.
        size: u32,
        /// Where they are missing.
        at: Time,
        /// Processors free there.
        free: u32,
    },
    /// A release gives back more processors than the machine has.
    #[error("releasing {size} processors at {at} would exceed the machine's {capacity}")]
    OverCapacity {
        /// Processors given back.
        size: u32,
        /// Where.
        at: Time,
        /// The machine's processors.
        capacity: u32,
    },
}

/// A point to go back to ([`AvailabilityProfile::rollback`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Checkpoint(usize);

/// One change, kept while a checkpoint is open so that it can be undone.
#[derive(Debug, Clone, Copy)]
struct Change {
    start: Time,
    end: Time,
    /// Processors taken (positive) or given back (negative).
    taken: i64,
}

/// Free processors over time from a start time on: a step function,
/// `free(t)` for `t >= start`, whose last step lasts forever (built from a
/// view, that is the whole machine once every running job has ended).
///
/// Steps are kept in two parallel vectors (times, free counts) with no two
/// neighbours equal, so every state has one representation and scans are
/// tight loops. Operations:
/// - [`earliest_fit`](Self::earliest_fit): the earliest time at or after `t`
///   at which `size` processors stay free for `duration` seconds;
/// - [`reserve`](Self::reserve) and [`release`](Self::release) an interval;
/// - [`checkpoint`](Self::checkpoint) and [`rollback`](Self::rollback): try
///   placements and undo them (the changes since a checkpoint are logged and
///   replayed backwards), nested as deep as needed; [`commit`](Self::commit)
///   forgets the log.
///
/// Costs: a query or change touches the steps it spans, plus a binary search
/// and, for a change, at most two insertions and two removals in the
/// vectors. The benchmark (`cargo bench -p schedsim-sim-core --bench
/// profile`) measures earliest fit + reserve + rollback on a profile of
/// 1,000 steps.
///
/// ```
/// use schedsim_sim_core::AvailabilityProfile;
/// // 10 processors; at time 0, 4 are free, 3 more at 5 and 3 more at 8.
/// let mut profile = AvailabilityProfile::new(10, 0, 4, [(5, 3), (8, 3)]);
/// assert_eq!(profile.earliest_fit(0, 6, 100), Some(5));
/// let before = profile.checkpoint();
/// profile.reserve(5, 7, 6)?; // 6 processors over [5, 12)
/// assert_eq!(profile.earliest_fit(0, 6, 100), Some(12));
/// profile.rollback(before);
/// assert_eq!(profile.earliest_fit(0, 6, 100), Some(5));
/// # Ok::<(), schedsim_sim_core::ProfileError>(())
/// ```
#[derive(Debug, Clone)]
pub struct AvailabilityProfile {
    capacity: u32,
    /// Step start times, increasing; `times[0]` is the profile's start.
    times: Vec<Time>,
    /// Free processors from `times[i]` until `times[i + 1]`.
    free: Vec<u32>,
    /// Changes since the oldest open checkpoint.
    log: Vec<Change>,
    recording: bool,
    /// Scratch for [`reset`](Self::reset), kept so that a reset per
    /// scheduling call allocates nothing.
    returns: Vec<(Time, u32)>,
}

/// Profiles are equal when their steps are (whatever their undo logs).
impl PartialEq for AvailabilityProfile {
    fn eq(&self, other: &Self) -> bool {
        self.capacity == other.capacity && self.times == other.times && self.free == other.free
    }
}

impl Eq for AvailabilityProfile {}

impl AvailabilityProfile {
    /// A profile of a machine of `capacity` processors from `start` on:
    /// `free_now` processors are free at `start`, and each `(time, size)` of
    /// `returns` gives `size` more back at `time` (running jobs' expected
    /// ends, in any order; times at or before `start` count as free now).
    /// Free counts are capped at the capacity.
    pub fn new(
        capacity: u32,
        start: Time,
        free_now: u32,
        returns: impl IntoIterator<Item = (Time, u32)>,
    ) -> Self {
        let mut profile = Self {
            capacity,
            times: Vec::new(),
            free: Vec::new(),
            log: Vec::new(),
            recording: false,
            returns: Vec::new(),
        };
        profile.reset(start, free_now, returns);
        profile
    }

    /// The profile of a policy's view: the view's time, its free
    /// processors, and the running jobs' expected ends.
    pub fn from_view(view: &View<'_>) -> Self {
        Self::new(
            view.procs(),
            view.now(),
            view.free(),
            view.running().map(|job| (job.expected_end, job.size)),
        )
    }

    /// Starts over as [`new`](Self::new) does, keeping the buffers (and
    /// forgetting any checkpoint).
    pub fn reset(
        &mut self,
        start: Time,
        free_now: u32,
        returns: impl IntoIterator<Item = (Time, u32)>,
    ) {
        self.times.clear();
        self.free.clear();
        self.log.clear();
        self.recording = false;
        let mut now = free_now;
        let mut later = std::mem::take(&mut self.returns);
        later.clear();
        for (time, size) in returns {
            if time <= start {
                now = now.saturating_add(size);
            } else {
                later.push((time, size));
            }
        }
        later.sort_unstable();
        let mut current = now.min(self.capacity);
        self.times.push(start);
        self.free.push(current);
        let mut index = 0;
        while index < later.len() {
            // Every return of one instant, then one step.
            let time = later[index].0;
            while index < later.len() && later[index].0 == time {
                current = current.saturating_add(later[index].1).min(self.capacity);
                index += 1;
            }
            if self.free.last() != Some(&current) {
                self.times.push(time);
                self.free.push(current);
            }
        }
        self.returns = later;
    }

    /// Moves the profile's start to `to` (if later), forgetting the steps
    /// before it: the same steps as a profile rebuilt at `to` from the same
    /// reservations. Forgets any checkpoint.
    pub fn advance(&mut self, to: Time) {
        if to <= self.times[0] {
            return;
        }
        self.log.clear();
        self.recording = false;
        let first = self.step_at(to);
        self.times.drain(..first);
        self.free.drain(..first);
        self.times[0] = to;
    }

    /// Processors in the machine.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// The profile's start time.
    pub fn start(&self) -> Time {
        self.times[0]
    }

    /// Number of steps.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Always false: a profile has at least its first step.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The steps: `(time, free)` from each time until the next.
    pub fn steps(&self) -> impl ExactSizeIterator<Item = (Time, u32)> + '_ {
        self.times.iter().copied().zip(self.free.iter().copied())
    }

    /// Index of the step that holds `time` (clamped to the start).
    fn step_at(&self, time: Time) -> usize {
        self.times.partition_point(|&t| t <= time).saturating_sub(1)
    }

    /// The steps as two slices: start times (increasing; the first is the
    /// profile's start) and the processors free from each until the next.
    pub fn step_slices(&self) -> (&[Time], &[u32]) {
        (&self.times, &self.free)
    }

    /// Processors free at `time` (the start's when earlier).
    pub fn free_at(&self, time: Time) -> u32 {
        self.free[self.step_at(time)]
    }

    /// The fewest processors free anywhere in `[from, to)` (the capacity
    /// for an empty interval).
    pub fn min_free(&self, from: Time, to: Time) -> u32 {
        if to <= from {
            return self.capacity;
        }
        let (first, last) = self.span(from, to);
        self.free[first..last.max(first + 1)]
            .iter()
            .copied()
            .min()
            .unwrap_or(self.capacity)
    }

    /// Whether `size` processors are free over `[start, start + duration)`
    /// (false before the profile's start or on overflow).
    pub fn fits(&self, start: Time, size: u32, duration: Time) -> bool {
        match start.checked_add(duration) {
            Some(end) if start >= self.start() && duration >= 0 => {
                self.min_free(start, end.max(start + 1)) >= size
            }
            _ => false,
        }
    }

    /// The earliest time at or after `from` (and not before the profile's
    /// start) at which `size` processors stay free for `duration` seconds:
    /// `from` itself or the start of a later step. `None` if never (more
    /// than the capacity, or an overflowing interval). A duration of 0 asks
    /// for `size` free processors at one instant.
    pub fn earliest_fit(&self, from: Time, size: u32, duration: Time) -> Option<Time> {
        if size > self.capacity || duration < 0 {
            return None;
        }
        let from = from.max(self.start());
        let steps = self.times.len();
        let mut candidate = self.step_at(from);
        'anchors: while candidate < steps {
            if self.free[candidate] < size {
                candidate += 1;
                continue;
            }
            let anchor = self.times[candidate].max(from);
            let end = anchor.checked_add(duration.max(1))?;
            let mut next = candidate + 1;
            while next < steps && self.times[next] < end {
                if self.free[next] < size {
                    // No anchor before this dip can hold the job either.
                    candidate = next + 1;
                    continue 'anchors;
                }
                next += 1;
            }
            return Some(anchor);
        }
        None
    }

    /// Takes `size` processors over `[start, start + duration)`.
    ///
    /// # Errors
    /// An overflowing or negative interval, one starting before the
    /// profile, or too few free processors somewhere in it (then nothing
    /// changes).
    pub fn reserve(&mut self, start: Time, duration: Time, size: u32) -> Result<(), ProfileError> {
        let end = self.interval(start, duration)?;
        if end == start || size == 0 {
            return Ok(());
        }
        let (first, last) = self.span(start, end);
        if let Some(i) = (first..last).find(|&i| self.free[i] < size) {
            return Err(ProfileError::NotFree {
                size,
                at: self.times[i].max(start),
                free: self.free[i],
            });
        }
        self.change_span(start, end, (first, last), i64::from(size));
        Ok(())
    }

    /// Gives back `size` processors over `[start, start + duration)`.
    ///
    /// # Errors
    /// An overflowing or negative interval, one starting before the
    /// profile, or more than the capacity free somewhere in it (then nothing
    /// changes).
    pub fn release(&mut self, start: Time, duration: Time, size: u32) -> Result<(), ProfileError> {
        let end = self.interval(start, duration)?;
        if end == start || size == 0 {
            return Ok(());
        }
        let (first, last) = self.span(start, end);
        if let Some(i) = (first..last)
            .find(|&i| u64::from(self.free[i]) + u64::from(size) > u64::from(self.capacity))
        {
            return Err(ProfileError::OverCapacity {
                size,
                at: self.times[i].max(start),
                capacity: self.capacity,
            });
        }
        self.change_span(start, end, (first, last), -i64::from(size));
        Ok(())
    }

    /// Moves a reservation of `size` processors for `duration` from `from`
    /// to `to`: the same steps as [`release`](Self::release) at `from`
    /// then [`reserve`](Self::reserve) at `to`, but when the two intervals
    /// overlap only their differences are touched (a reservation sliding a
    /// little earlier costs the slide, not its length).
    ///
    /// # Errors
    /// As `release` and `reserve`: then nothing changes.
    pub fn shift(
        &mut self,
        from: Time,
        to: Time,
        duration: Time,
        size: u32,
    ) -> Result<(), ProfileError> {
        let from_end = self.interval(from, duration)?;
        let to_end = self.interval(to, duration)?;
        let overlapping = to < from && from < to_end;
        if !overlapping || size == 0 {
            self.release(from, duration, size)?;
            return self.reserve(to, duration, size).inspect_err(|_| {
                // Put it back where it was (it fitted there).
                let _ = self.reserve(from, duration, size);
            });
        }
        // Taken over [to, from), given back over [to_end, from_end).
        let taken = self.span(to, from);
        if let Some(i) = (taken.0..taken.1).find(|&i| self.free[i] < size) {
            return Err(ProfileError::NotFree {
                size,
                at: self.times[i].max(to),
                free: self.free[i],
            });
        }
        let given = self.span(to_end, from_end);
        if let Some(i) = (given.0..given.1)
            .find(|&i| u64::from(self.free[i]) + u64::from(size) > u64::from(self.capacity))
        {
            return Err(ProfileError::OverCapacity {
                size,
                at: self.times[i].max(to_end),
                capacity: self.capacity,
            });
        }
        // The later change first: its steps do not move the earlier span.
        self.change_span(to_end, from_end, given, -i64::from(size));
        self.change(to, from, i64::from(size));
        Ok(())
    }

    fn interval(&self, start: Time, duration: Time) -> Result<Time, ProfileError> {
        if duration < 0 {
            return Err(ProfileError::NegativeDuration(duration));
        }
        if start < self.start() {
            return Err(ProfileError::BeforeStart {
                start,
                profile_start: self.start(),
            });
        }
        start
            .checked_add(duration)
            .ok_or(ProfileError::TimeOverflow { start, duration })
    }

    /// The steps `[first, last)` that `[start, end)` overlaps (one binary
    /// search for each end, the second over the rest of the steps).
    fn span(&self, start: Time, end: Time) -> (usize, usize) {
        let first = self.step_at(start);
        let last = first + self.times[first..].partition_point(|&t| t < end);
        (first, last)
    }

    /// Applies a change (checked, `end > start`) and logs it while a
    /// checkpoint is open.
    fn change(&mut self, start: Time, end: Time, taken: i64) {
        let span = self.span(start, end);
        self.change_span(start, end, span, taken);
    }

    /// [`change`](Self::change) with the span already found.
    fn change_span(&mut self, start: Time, end: Time, (first, last): (usize, usize), taken: i64) {
        if self.recording {
            self.log.push(Change { start, end, taken });
        }
        // A step at `end` (the span's last step continues past it), then
        // one at `start`.
        if self.times.get(last).is_none_or(|&t| t != end) {
            self.times.insert(last, end);
            self.free.insert(last, self.free[last - 1]);
        }
        let (first, last) = if self.times[first] == start {
            (first, last)
        } else {
            self.times.insert(first + 1, start);
            self.free.insert(first + 1, self.free[first]);
            (first + 1, last + 1)
        };
        for free in &mut self.free[first..last] {
            // Checked by the caller: stays within 0..=capacity.
            *free = (i64::from(*free) - taken) as u32;
        }
        // Only the two boundaries can have made equal neighbours.
        self.merge_at(last);
        self.merge_at(first);
    }

    /// Removes step `index` when it equals the one before.
    fn merge_at(&mut self, index: usize) {
        if index > 0 && index < self.times.len() && self.free[index] == self.free[index - 1] {
            self.times.remove(index);
            self.free.remove(index);
        }
    }

    /// Marks the current state; [`rollback`](Self::rollback) to it undoes
    /// every later change. Checkpoints nest.
    pub fn checkpoint(&mut self) -> Checkpoint {
        self.recording = true;
        Checkpoint(self.log.len())
    }

    /// Undoes every change made since `checkpoint` (later checkpoints are
    /// gone with them).
    pub fn rollback(&mut self, checkpoint: Checkpoint) {
        while self.log.len() > checkpoint.0 {
            let Some(change) = self.log.pop() else {
                break;
            };
            // Applied without logging: the inverse restores the exact steps
            // (the representation is unique).
            let recording = std::mem::replace(&mut self.recording, false);
            self.change(change.start, change.end, -change.taken);
            self.recording = recording;
        }
    }

    /// Forgets the undo log: the current state is kept for good and no
    /// change is logged until the next [`checkpoint`](Self::checkpoint).
    pub fn commit(&mut self) {
        self.log.clear();
        self.recording = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(profile: &AvailabilityProfile) -> Vec<(Time, u32)> {
        profile.steps().collect()
    }

    #[test]
    fn builds_reserves_releases_and_merges() {
        // 10 processors at 0: 4 free now, 3 more at 5, 3 more at 8 (given in
        // any order), one return already due.
        let mut profile = AvailabilityProfile::new(10, 0, 3, [(8, 3), (5, 3), (-2, 1)]);
        assert_eq!(steps(&profile), [(0, 4), (5, 7), (8, 10)]);
        assert_eq!(profile.earliest_fit(0, 4, 100), Some(0));
        assert_eq!(profile.earliest_fit(0, 6, 100), Some(5));
        assert_eq!(profile.earliest_fit(0, 9, 1), Some(8));
        assert_eq!(profile.earliest_fit(0, 11, 1), None);
        // 6 over [5, 12): 4, 1 in [5, 8), 4 in [8, 12), 10.
        profile.reserve(5, 7, 6).unwrap();
        assert_eq!(steps(&profile), [(0, 4), (5, 1), (8, 4), (12, 10)]);
        // 2 for 6 s: not at 0 (1 free in [5, 8)), at 8.
        assert_eq!(profile.earliest_fit(0, 2, 6), Some(8));
        // 2 for 5 s ends by 5: now.
        assert_eq!(profile.earliest_fit(0, 2, 5), Some(0));
        // From 9 for 2 s: 9 itself (4 free until 12).
        assert_eq!(profile.earliest_fit(9, 2, 2), Some(9));
        assert!(profile.fits(0, 4, 5) && !profile.fits(0, 4, 6));
        assert_eq!((profile.min_free(0, 20), profile.free_at(13)), (1, 10));
        profile.release(5, 7, 6).unwrap();
        assert_eq!(steps(&profile), [(0, 4), (5, 7), (8, 10)]);
    }

    #[test]
    fn advancing_equals_rebuilding_later() {
        // 10 processors: 4 free at 0, 7 from 5, 10 from 8; 6 taken over
        // [9, 12). At 6 the steps before 6 go and 6 starts the profile with
        // the 7 free then: (6, 7), (8, 10), (9, 4), (12, 10).
        let mut profile = AvailabilityProfile::new(10, 0, 4, [(5, 3), (8, 3)]);
        profile.reserve(9, 3, 6).unwrap();
        profile.advance(6);
        let mut rebuilt = AvailabilityProfile::new(10, 6, 7, [(8, 3)]);
        rebuilt.reserve(9, 3, 6).unwrap();
        assert_eq!(steps(&profile), [(6, 7), (8, 10), (9, 4), (12, 10)]);
        assert_eq!(profile, rebuilt);
        // Onto a step boundary, and never backwards.
        profile.advance(9);
        assert_eq!(steps(&profile), [(9, 4), (12, 10)]);
        profile.advance(3);
        assert_eq!(profile.start(), 9);
    }

    #[test]
    fn refused_changes_leave_the_profile_as_it_was() {
        let mut profile = AvailabilityProfile::new(10, 0, 4, [(5, 6)]);
        let before = profile.clone();
        assert_eq!(
            profile.reserve(3, 4, 5).unwrap_err(),
            ProfileError::NotFree {
                size: 5,
                at: 3,
                free: 4
            }
        );
        assert_eq!(
            profile.release(0, 10, 7).unwrap_err().to_string(),
            "releasing 7 processors at 0 would exceed the machine's 10"
        );
        assert!(matches!(
            profile.reserve(-1, 2, 1),
            Err(ProfileError::BeforeStart { .. })
        ));
        assert!(matches!(
            profile.reserve(1, Time::MAX, 1),
            Err(ProfileError::TimeOverflow { .. })
        ));
        assert!(matches!(
            profile.reserve(0, -1, 1),
            Err(ProfileError::NegativeDuration(-1))
        ));
        assert_eq!(profile, before);
        assert_eq!(profile.earliest_fit(Time::MAX - 1, 1, 10), None);
    }

    #[test]
    fn shifting_touches_the_difference() {
        // 10 processors, all free; 4 taken over [10, 30). Shifted to 6:
        // taken over [6, 10) as well, given back over [26, 30): 10, 6 over
        // [6, 26), 10.
        let mut profile = AvailabilityProfile::new(10, 0, 10, []);
        profile.reserve(10, 20, 4).unwrap();
        profile.shift(10, 6, 20, 4).unwrap();
        assert_eq!(steps(&profile), [(0, 10), (6, 6), (26, 10)]);
        // 7 more over [0, 6) leave 3 free there: shifting the 4 to 2 (taking
        // [2, 6) too) is refused and changes nothing.
        profile.reserve(0, 6, 7).unwrap();
        let before = profile.clone();
        assert!(matches!(
            profile.shift(6, 2, 20, 4),
            Err(ProfileError::NotFree {
                size: 4,
                at: 2,
                free: 3
            })
        ));
        assert_eq!(profile, before);
        // Not overlapping: release then reserve.
        profile.shift(6, 30, 20, 4).unwrap();
        assert_eq!(steps(&profile), [(0, 3), (6, 10), (30, 6), (50, 10)]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Shifting equals releasing then reserving, step for step, and
        /// refuses what they refuse without a change.
        #[test]
        fn shift_equals_release_then_reserve(
            reservations in proptest::collection::vec((0i64..200, 1i64..60, 1u32..5), 1..40),
            pick in 0usize..40,
            to in 0i64..260,
        ) {
            let mut profile = AvailabilityProfile::new(12, 0, 12, []);
            let mut held = Vec::new();
            for &(at, length, size) in &reservations {
                if profile.reserve(at, length, size).is_ok() {
                    held.push((at, length, size));
                }
            }
            proptest::prop_assume!(!held.is_empty());
            let (from, length, size) = held[pick % held.len()];
            let mut expected = profile.clone();
            expected.release(from, length, size).unwrap();
            let fits = expected.reserve(to, length, size).is_ok();
            let before = profile.clone();
            let shifted = profile.shift(from, to, length, size);
            proptest::prop_assert_eq!(shifted.is_ok(), fits);
            if fits {
                proptest::prop_assert_eq!(steps(&profile), steps(&expected));
            } else {
                proptest::prop_assert_eq!(steps(&profile), steps(&before));
            }
        }
    }

    #[test]
    fn nested_checkpoints_roll_back_exactly() {
        let mut profile = AvailabilityProfile::new(8, 0, 8, []);
        let outer = profile.checkpoint();
        profile.reserve(0, 10, 3).unwrap();
        let inner = profile.checkpoint();
        profile.reserve(5, 10, 5).unwrap();
        profile.release(0, 3, 3).unwrap();
        assert_eq!(steps(&profile), [(0, 8), (3, 5), (5, 0), (10, 3), (15, 8)]);
        profile.rollback(inner);
        assert_eq!(steps(&profile), [(0, 5), (10, 8)]);
        profile.rollback(outer);
        assert_eq!(steps(&profile), [(0, 8)]);
        profile.commit();
        profile.reserve(1, 1, 1).unwrap();
        assert!(profile.log.is_empty(), "nothing is logged after a commit");
    }
}
