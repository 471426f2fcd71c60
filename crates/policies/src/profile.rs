use schedsim_sim_core::Time;

/// Free processors over future time: a step function starting at the
/// current time, as conservative backfilling keeps it (LOS thesis, appendix
/// A.2). `slots[i] = (t, free)` means `free` processors from `t` until the
/// next slot's time; the last slot lasts forever.
#[derive(Debug, Clone, Default)]
pub(crate) struct Profile {
    slots: Vec<(Time, u32)>,
}

impl Profile {
    /// Starts over at `now` with `free` processors free, plus the running
    /// jobs' processors coming back at their expected ends. `ends` yields
    /// `(expected end, size)` sorted by end, every end after `now`.
    pub(crate) fn reset(&mut self, now: Time, free: u32, ends: impl Iterator<Item = (Time, u32)>) {
        self.slots.clear();
        self.slots.push((now, free));
        for (end, size) in ends {
            debug_assert!(end > now);
            let last = self.slots.len() - 1;
            let (last_time, last_free) = self.slots[last];
            if end == last_time {
                self.slots[last].1 += size;
            } else {
                self.slots.push((end, last_free + size));
            }
        }
    }

    /// The first slot's time.
    pub(crate) fn now(&self) -> Time {
        self.slots[0].0
    }

    /// The earliest time, not before the profile's start, at which `size`
    /// processors stay free for `duration` seconds (the anchor point of
    /// appendix A.2). `None` if they never are (the job is larger than the
    /// machine's capacity at the end of the profile).
    pub(crate) fn earliest_start(&self, size: u32, duration: Time) -> Option<Time> {
        self.earliest_start_from(self.now(), size, duration)
    }

    /// The earliest time at or after `from` at which `size` processors stay
    /// free for `duration` seconds: `from` itself, or the start of a later
    /// slot (a dedicated job's reservation, which may not start before its
    /// requested time). `None` as for [`earliest_start`](Self::earliest_start).
    pub(crate) fn earliest_start_from(
        &self,
        from: Time,
        size: u32,
        duration: Time,
    ) -> Option<Time> {
        let from = from.max(self.now());
        let mut candidate = self.slot_at(from);
        'anchors: while candidate < self.slots.len() {
            let (slot_time, free) = self.slots[candidate];
            let anchor = slot_time.max(from);
            if free < size {
                candidate += 1;
                continue;
            }
            let end = anchor + duration;
            let mut next = candidate + 1;
            while next < self.slots.len() && self.slots[next].0 < end {
                if self.slots[next].1 < size {
                    // No anchor before this dip can work either.
                    candidate = next + 1;
                    continue 'anchors;
                }
                next += 1;
            }
            return Some(anchor);
        }
        None
    }

    /// Processors free at `time` (not before the profile's start).
    pub(crate) fn free_at(&self, time: Time) -> u32 {
        self.slots[self.slot_at(time.max(self.now()))].1
    }

    /// Whether `size` processors are free over `[start, start + duration)`.
    pub(crate) fn fits(&self, start: Time, size: u32, duration: Time) -> bool {
        if start < self.now() {
            return false;
        }
        let first = self.slot_at(start);
        let end = start + duration;
        self.slots[first].1 >= size
            && self.slots[first + 1..]
                .iter()
                .take_while(|&&(time, _)| time < end)
                .all(|&(_, free)| free >= size)
    }

    /// Takes `size` processors over `[start, end)`.
    pub(crate) fn reserve(&mut self, start: Time, end: Time, size: u32) {
        self.update(start, end, |free| free - size);
    }

    /// Gives back `size` processors over `[start, end)`.
    pub(crate) fn release(&mut self, start: Time, end: Time, size: u32) {
        self.update(start, end, |free| free + size);
    }

    fn update(&mut self, start: Time, end: Time, change: impl Fn(u32) -> u32) {
        if end <= start {
            return;
        }
        let first = self.split_at(start);
        let last = self.split_at(end);
        for slot in &mut self.slots[first..last] {
            slot.1 = change(slot.1);
        }
        // Merge neighbours that became equal so the profile stays short.
        let from = first.saturating_sub(1);
        let to = (last + 1).min(self.slots.len());
        let mut write = from;
        for read in from..to {
            if read > from && self.slots[read].1 == self.slots[write - 1].1 {
                continue;
            }
            self.slots[write] = self.slots[read];
            write += 1;
        }
        self.slots.drain(write..to);
    }

    /// Index of the slot that contains `time` (time >= now).
    fn slot_at(&self, time: Time) -> usize {
        self.slots.partition_point(|&(t, _)| t <= time) - 1
    }

    /// Makes sure a slot starts exactly at `time` and returns its index.
    fn split_at(&mut self, time: Time) -> usize {
        let index = self.slot_at(time);
        if self.slots[index].0 == time {
            index
        } else {
            self.slots.insert(index + 1, (time, self.slots[index].1));
            index + 1
        }
    }

    #[cfg(test)]
    pub(crate) fn slots(&self) -> &[(Time, u32)] {
        &self.slots
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
