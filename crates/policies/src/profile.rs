use schedsim_sim_core::{AvailabilityProfile, Time};

/// Free processors over future time, as conservative backfilling and the
/// dedicated-job policies keep it (LOS thesis, appendix A.2): sim-core's
/// [`AvailabilityProfile`] behind the names these policies use. Capacity is
/// not bounded here (the running jobs' ends give the machine's processors
/// back), and the callers only reserve where a job fits.
#[derive(Debug, Clone)]
pub(crate) struct Profile {
    inner: AvailabilityProfile,
}

impl Default for Profile {
    fn default() -> Self {
        Self {
            inner: AvailabilityProfile::new(u32::MAX, 0, 0, []),
        }
    }
}

impl Profile {
    /// Starts over at `now` with `free` processors free, plus the running
    /// jobs' processors coming back at their expected ends.
    pub(crate) fn reset(&mut self, now: Time, free: u32, ends: impl Iterator<Item = (Time, u32)>) {
        self.inner.reset(now, free, ends);
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
        let result = self.inner.reserve(start, end - start, size);
        debug_assert!(result.is_ok(), "{result:?}");
    }

    /// Gives back `size` processors over `[start, end)` taken by
    /// [`reserve`](Self::reserve).
    pub(crate) fn release(&mut self, start: Time, end: Time, size: u32) {
        let result = self.inner.release(start, end - start, size);
        debug_assert!(result.is_ok(), "{result:?}");
    }

    #[cfg(test)]
    pub(crate) fn slots(&self) -> Vec<(Time, u32)> {
        self.inner.steps().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
