use schedsim_sim_core::{AvailabilityProfile, Time};

/// Free processors over future time, as depth-k backfilling and the
/// dedicated-job policies keep it (LOS thesis, appendix A.2): the steps of
/// sim-core's `AvailabilityProfile` (the same steps, merged the same way,
/// which the tests check against it), stored in chunks of at most
/// [`CHUNK_MAX`] steps with each chunk's least and most free processors.
/// A change inserts or removes steps inside one chunk instead of shifting
/// every later step, and a search skips whole chunks without room.
/// (Conservative backfilling keeps its own, [`crate::conservative`]'s
/// timeline, where reservations hold their steps.) Capacity is not bounded here
/// (the running jobs' ends give the machine's processors back), and the
/// callers only reserve where a job fits.
#[derive(Debug, Clone)]
pub(crate) struct Profile {
    /// The first time of each chunk: the directory a lookup searches first.
    starts: Vec<Time>,
    /// Never empty, nor is any chunk; times increase across chunks, and no
    /// step has the free count of the step before it.
    chunks: Vec<Chunk>,
    /// Scratch for [`reset`](Self::reset), which lets sim-core's profile
    /// build the steps.
    flat: AvailabilityProfile,
}

/// Steps after a split; a chunk splits when it passes [`CHUNK_MAX`].
const CHUNK: usize = 16;
const CHUNK_MAX: usize = 2 * CHUNK;
/// A chunk this small is merged into its successor when they fit in one.
const CHUNK_MIN: usize = CHUNK / 4;

/// A chunk's room: its most steps, plus the one a change inserts before
/// the chunk splits.
const CHUNK_ROOM: usize = CHUNK_MAX + 1;

#[derive(Debug, Clone, Default)]
struct Chunk {
    times: Steps<Time>,
    free: Steps<u32>,
    min: u32,
    max: u32,
}

/// A chunk's times or free counts, held inline: a lookup goes from the
/// directory straight to the values, with no pointer to follow.
#[derive(Clone, Copy)]
struct Steps<T> {
    len: usize,
    items: [T; CHUNK_ROOM],
}

impl<T: Copy + Default> Default for Steps<T> {
    fn default() -> Self {
        Self {
            len: 0,
            items: [T::default(); CHUNK_ROOM],
        }
    }
}

impl<T: Copy + Default> Steps<T> {
    fn insert(&mut self, index: usize, value: T) {
        assert!(self.len < CHUNK_ROOM, "a chunk holds too many steps");
        self.items.copy_within(index..self.len, index + 1);
        self.items[index] = value;
        self.len += 1;
    }

    fn remove(&mut self, index: usize) -> T {
        let value = self[index];
        self.items.copy_within(index + 1..self.len, index);
        self.len -= 1;
        value
    }

    #[cfg(test)]
    fn remove_front(&mut self, count: usize) {
        self.items.copy_within(count..self.len, 0);
        self.len -= count;
    }

    fn split_off(&mut self, at: usize) -> Self {
        let mut rest = Self::default();
        rest.extend_from_slice(&self[at..]);
        self.len = at;
        rest
    }

    fn extend_from_slice(&mut self, values: &[T]) {
        self.items[self.len..self.len + values.len()].copy_from_slice(values);
        self.len += values.len();
    }

    fn clear(&mut self) {
        self.len = 0;
    }
}

impl<T> std::ops::Deref for Steps<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.items[..self.len]
    }
}

impl<T> std::ops::DerefMut for Steps<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.items[..self.len]
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Steps<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Chunk {
    fn summarize(&mut self) {
        self.min = self.free.iter().copied().min().unwrap_or(0);
        self.max = self.free.iter().copied().max().unwrap_or(0);
    }
}

/// `value` before `delta` was added to it.
fn shift_back(value: u32, delta: i64) -> u32 {
    (i64::from(value) - delta) as u32
}

/// Adds `delta` to the steps `from..stop` of `chunk`, keeping its summary.
fn add_to(chunk: &mut Chunk, from: usize, stop: usize, delta: i64) {
    if stop <= from {
        return;
    }
    let (mut low, mut high) = (u32::MAX, 0);
    for free in &mut chunk.free[from..stop] {
        // The callers keep it within 0..=u32::MAX.
        *free = (i64::from(*free) + delta) as u32;
        low = low.min(*free);
        high = high.max(*free);
    }
    if from == 0 && stop == chunk.free.len() {
        (chunk.min, chunk.max) = (low, high);
        return;
    }
    // The changed steps' own extremes, before and after, tell whether the
    // rest of the chunk must be looked at: only when they held the
    // extreme that moved away from it.
    if delta < 0 {
        chunk.min = chunk.min.min(low);
        if shift_back(high, delta) == chunk.max {
            chunk.max = chunk.free.iter().copied().max().unwrap_or(0);
        }
    } else {
        chunk.max = chunk.max.max(high);
        if shift_back(low, delta) == chunk.min {
            chunk.min = chunk.free.iter().copied().min().unwrap_or(0);
        }
    }
}

/// A step: its chunk and its index in the chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    chunk: usize,
    step: usize,
}

impl Default for Profile {
    fn default() -> Self {
        let mut chunk = Chunk::default();
        chunk.times.insert(0, 0);
        chunk.free.insert(0, 0);
        Self {
            starts: vec![0],
            chunks: vec![chunk],
            flat: AvailabilityProfile::new(u32::MAX, 0, 0, []),
        }
    }
}

impl PartialEq for Profile {
    fn eq(&self, other: &Self) -> bool {
        self.steps().eq(other.steps())
    }
}

impl Profile {
    /// Starts over at `now` with `free` processors free, plus the running
    /// jobs' processors coming back at their expected ends (those at or
    /// before `now` count as free now).
    pub(crate) fn reset(&mut self, now: Time, free: u32, ends: impl Iterator<Item = (Time, u32)>) {
        // sim-core's profile merges the returns into steps; this one cuts
        // them into chunks, reusing the chunks' buffers.
        self.flat.reset(now, free, ends);
        let (times, free) = self.flat.step_slices();
        let count = times.len().div_ceil(CHUNK);
        self.chunks.truncate(count);
        self.chunks.resize_with(count, Chunk::default);
        self.starts.clear();
        let pieces = times.chunks(CHUNK).zip(free.chunks(CHUNK));
        for (chunk, (times, free)) in self.chunks.iter_mut().zip(pieces) {
            chunk.times.clear();
            chunk.times.extend_from_slice(times);
            chunk.free.clear();
            chunk.free.extend_from_slice(free);
            chunk.summarize();
            self.starts.push(times[0]);
        }
    }

    /// Moves the start to `now`, forgetting what lies before.
    #[cfg(test)]
    pub(crate) fn advance(&mut self, now: Time) {
        if now <= self.start() {
            return;
        }
        let at = self.locate(now);
        self.chunks.drain(..at.chunk);
        self.starts.drain(..at.chunk);
        let chunk = &mut self.chunks[0];
        chunk.times.remove_front(at.step);
        chunk.free.remove_front(at.step);
        chunk.times[0] = now;
        chunk.summarize();
        self.starts[0] = now;
    }

    /// The profile's start.
    fn start(&self) -> Time {
        self.starts[0]
    }

    /// The steps, `(time, free)` from each time until the next.
    fn steps(&self) -> impl Iterator<Item = (Time, u32)> + '_ {
        self.chunks
            .iter()
            .flat_map(|chunk| chunk.times.iter().copied().zip(chunk.free.iter().copied()))
    }

    /// The step holding `time` (the first one for an earlier time).
    fn locate(&self, time: Time) -> Pos {
        let chunk = self
            .starts
            .partition_point(|&start| start <= time)
            .saturating_sub(1);
        let step = self.chunks[chunk]
            .times
            .partition_point(|&t| t <= time)
            .saturating_sub(1);
        Pos { chunk, step }
    }

    fn time(&self, at: Pos) -> Time {
        self.chunks[at.chunk].times[at.step]
    }

    fn free(&self, at: Pos) -> u32 {
        self.chunks[at.chunk].free[at.step]
    }

    fn next(&self, at: Pos) -> Option<Pos> {
        if at.step + 1 < self.chunks[at.chunk].times.len() {
            Some(Pos {
                chunk: at.chunk,
                step: at.step + 1,
            })
        } else if at.chunk + 1 < self.chunks.len() {
            Some(Pos {
                chunk: at.chunk + 1,
                step: 0,
            })
        } else {
            None
        }
    }

    /// The first step at or after `from` with at least `size` free
    /// (`at_least`), or with fewer; whole chunks are skipped by their
    /// least and most.
    fn first(&self, from: Pos, size: u32, at_least: bool) -> Option<Pos> {
        let hit = |free: u32| (free >= size) == at_least;
        let chunk = &self.chunks[from.chunk];
        if let Some(step) = (from.step..chunk.free.len()).find(|&i| hit(chunk.free[i])) {
            return Some(Pos {
                chunk: from.chunk,
                step,
            });
        }
        let index = (from.chunk + 1..self.chunks.len()).find(|&c| {
            let chunk = &self.chunks[c];
            if at_least {
                chunk.max >= size
            } else {
                chunk.min < size
            }
        })?;
        let step = self.chunks[index].free.iter().position(|&f| hit(f))?;
        Some(Pos { chunk: index, step })
    }

    /// The earliest anchor `t` in `[from, limit)` (`from`, not before the
    /// start, or a step's start) with `size` processors free over all of
    /// `[t, t + duration)` (at least 1 s); none whose window would end past
    /// the last representable time (`limit` is `Time::MAX` for an
    /// unbounded search).
    fn search(&self, size: u32, duration: Time, from: Time, limit: Time) -> Option<Time> {
        let mut candidate = self.locate(from);
        loop {
            candidate = self.first(candidate, size, true)?;
            let anchor = self.time(candidate).max(from);
            if anchor >= limit {
                return None;
            }
            let end = anchor.checked_add(duration.max(1))?;
            let Some(after) = self.next(candidate) else {
                return Some(anchor);
            };
            match self.first(after, size, false) {
                Some(dip) if self.time(dip) < end => candidate = self.next(dip)?,
                _ => return Some(anchor),
            }
        }
    }

    /// The earliest time, not before the profile's start, at which `size`
    /// processors stay free for `duration` seconds (the anchor point of
    /// appendix A.2).
    pub(crate) fn earliest_start(&self, size: u32, duration: Time) -> Option<Time> {
        self.earliest_start_from(self.start(), size, duration)
    }

    /// The earliest time at or after `from` at which `size` processors stay
    /// free for `duration` seconds.
    pub(crate) fn earliest_start_from(
        &self,
        from: Time,
        size: u32,
        duration: Time,
    ) -> Option<Time> {
        if duration < 0 {
            return None;
        }
        self.search(size, duration, from.max(self.start()), Time::MAX)
    }

    /// Where the free processors first fall below those free at the start,
    /// and how many are free there; `(Time::MAX, free at the start)` if
    /// they never do.
    pub(crate) fn first_drop(&self) -> (Time, u32) {
        let first = Pos { chunk: 0, step: 0 };
        let at_start = self.free(first);
        self.first(first, at_start, false)
            .map_or((Time::MAX, at_start), |dip| {
                (self.time(dip), self.free(dip))
            })
    }

    /// Processors free at `time` (the start's when earlier).
    pub(crate) fn free_at(&self, time: Time) -> u32 {
        self.free(self.locate(time))
    }

    /// Whether `size` processors are free over `[start, start + duration)`
    /// (false before the profile's start or on overflow; a duration of 0
    /// asks for one instant).
    pub(crate) fn fits(&self, start: Time, size: u32, duration: Time) -> bool {
        let end = match start.checked_add(duration) {
            Some(end) if start >= self.start() && duration >= 0 => end.max(start + 1),
            _ => return false,
        };
        let from = self.locate(start);
        if self.free(from) < size {
            return false;
        }
        self.next(from)
            .and_then(|after| self.first(after, size, false))
            .is_none_or(|dip| self.time(dip) >= end)
    }

    /// Takes `size` processors over `[start, end)`, where they fit.
    pub(crate) fn reserve(&mut self, start: Time, end: Time, size: u32) {
        debug_assert!(
            self.fits(start, size, end - start),
            "reserving {size} over [{start}, {end}) where they do not fit"
        );
        self.change(start, end, -i64::from(size));
    }

    /// Gives back `size` processors over `[start, end)` taken by
    /// [`reserve`](Self::reserve).
    #[cfg(test)]
    pub(crate) fn release(&mut self, start: Time, end: Time, size: u32) {
        self.change(start, end, i64::from(size));
    }

    /// Adds `delta` to the free processors over `[start, end)` (not before
    /// the profile's start), keeping the steps merged: one lookup, then a
    /// walk over the steps changed.
    fn change(&mut self, start: Time, end: Time, delta: i64) {
        if end <= start || delta == 0 {
            return;
        }
        debug_assert!(
            start >= self.start(),
            "changing [{start}, {end}) before the profile's start"
        );
        let first = self.ensure_step(start);
        let mut at = first;
        let end_at = loop {
            let next_start = self.starts.get(at.chunk + 1).copied();
            let chunk = &mut self.chunks[at.chunk];
            let len = chunk.times.len();
            let stop = at.step + chunk.times[at.step..].partition_point(|&t| t < end);
            let beyond = stop == len && next_start.is_some_and(|next| next < end);
            let end_at = if beyond {
                None
            } else if stop < len && chunk.times[stop] == end {
                Some(Pos {
                    chunk: at.chunk,
                    step: stop,
                })
            } else if stop == len && next_start == Some(end) {
                Some(Pos {
                    chunk: at.chunk + 1,
                    step: 0,
                })
            } else {
                // A step at `end` with what was free before it.
                let free = chunk.free[stop - 1];
                chunk.times.insert(stop, end);
                chunk.free.insert(stop, free);
                Some(Pos {
                    chunk: at.chunk,
                    step: stop,
                })
            };
            add_to(chunk, at.step, stop, delta);
            match end_at {
                Some(end_at) => break end_at,
                None => {
                    at = Pos {
                        chunk: at.chunk + 1,
                        step: 0,
                    }
                }
            }
        };
        if self.chunks[end_at.chunk].times.len() > CHUNK_MAX {
            self.split(end_at.chunk);
            self.merge_at(self.locate(end));
            self.merge_at(self.locate(start));
        } else {
            // The later merge first: it cannot move the earlier step.
            self.merge_at(end_at);
            self.merge_at(first);
        }
    }

    /// Makes a step start at `time` (not before the profile's start),
    /// splitting the one holding it, and returns it.
    fn ensure_step(&mut self, time: Time) -> Pos {
        let at = self.locate(time);
        if self.time(at) == time {
            return at;
        }
        let chunk = &mut self.chunks[at.chunk];
        let free = chunk.free[at.step];
        chunk.times.insert(at.step + 1, time);
        chunk.free.insert(at.step + 1, free);
        if chunk.times.len() > CHUNK_MAX {
            self.split(at.chunk);
            return self.locate(time);
        }
        Pos {
            chunk: at.chunk,
            step: at.step + 1,
        }
    }

    /// Cuts chunk `index` in two halves.
    fn split(&mut self, index: usize) {
        let chunk = &mut self.chunks[index];
        let times = chunk.times.split_off(chunk.times.len() / 2);
        let free = chunk.free.split_off(chunk.free.len() / 2);
        chunk.summarize();
        let mut rest = Chunk {
            times,
            free,
            min: 0,
            max: 0,
        };
        rest.summarize();
        self.starts.insert(index + 1, rest.times[0]);
        self.chunks.insert(index + 1, rest);
    }

    /// Removes the step at `at` if it has the free count of the step
    /// before it (the first step stays).
    fn merge_at(&mut self, at: Pos) {
        if at.chunk == 0 && at.step == 0 {
            return;
        }
        let before = if at.step > 0 {
            self.chunks[at.chunk].free[at.step - 1]
        } else {
            *self.chunks[at.chunk - 1].free.last().unwrap_or(&u32::MAX)
        };
        if before != self.free(at) {
            return;
        }
        let chunk = &mut self.chunks[at.chunk];
        chunk.times.remove(at.step);
        let removed = chunk.free.remove(at.step);
        if chunk.times.is_empty() {
            self.chunks.remove(at.chunk);
            self.starts.remove(at.chunk);
            return;
        }
        // The removed step equals the one before it, so only a first step
        // can change the chunk's summary, and only if it held an extreme.
        if at.step == 0 {
            if removed == chunk.min || removed == chunk.max {
                chunk.summarize();
            }
            self.starts[at.chunk] = chunk.times[0];
        }
        // Keep chunks from dwindling: a small one takes in its successor.
        let c = at.chunk;
        if self.chunks[c].times.len() < CHUNK_MIN
            && c + 1 < self.chunks.len()
            && self.chunks[c].times.len() + self.chunks[c + 1].times.len() <= CHUNK_MAX
        {
            let next = self.chunks.remove(c + 1);
            self.starts.remove(c + 1);
            let chunk = &mut self.chunks[c];
            chunk.times.extend_from_slice(&next.times);
            chunk.free.extend_from_slice(&next.free);
            chunk.min = chunk.min.min(next.min);
            chunk.max = chunk.max.max(next.max);
        }
    }

    #[cfg(test)]
    pub(crate) fn slots(&self) -> Vec<(Time, u32)> {
        self.steps().collect()
    }

    /// The representation's invariants: chunks neither empty nor past
    /// their maximum, the directory and summaries exact, times increasing
    /// and neighbours different.
    #[cfg(test)]
    fn check(&self) -> Result<(), String> {
        if self.chunks.is_empty() || self.starts.len() != self.chunks.len() {
            return Err(format!(
                "{} chunks, {} starts",
                self.chunks.len(),
                self.starts.len()
            ));
        }
        for (c, chunk) in self.chunks.iter().enumerate() {
            let len = chunk.times.len();
            if len == 0 || len > CHUNK_MAX || chunk.free.len() != len {
                return Err(format!("chunk {c} holds {len} steps"));
            }
            if self.starts[c] != chunk.times[0] {
                return Err(format!(
                    "chunk {c} starts at {} not {}",
                    chunk.times[0], self.starts[c]
                ));
            }
            let (min, max) = (chunk.min, chunk.max);
            let mut exact = chunk.clone();
            exact.summarize();
            if (min, max) != (exact.min, exact.max) {
                return Err(format!(
                    "chunk {c} summary {min}..{max}, not {}..{}",
                    exact.min, exact.max
                ));
            }
        }
        let steps = self.slots();
        if steps
            .windows(2)
            .any(|pair| pair[0].0 >= pair[1].0 || pair[0].1 == pair[1].1)
        {
            return Err(format!("steps not increasing or not merged: {steps:?}"));
        }
        Ok(())
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
    fn chunks_split_and_merge_back() {
        // 1000 free from 0; k + 1 taken over each [2k, 2k + 1) for k < 400:
        // 800 steps, free 999, 1000, 998, 1000... (seven chunks, each with
        // its own least free). Giving them back, every other one first,
        // merges steps until one is left, the chunks dwindling and merging
        // on the way.
        let mut profile = Profile::default();
        profile.reset(0, 1000, std::iter::empty());
        let mut flat = reference(0, 1000, &[]);
        let size = |k: i64| u32::try_from(k + 1).unwrap();
        for k in 0..400 {
            profile.reserve(2 * k, 2 * k + 1, size(k));
            flat.reserve(2 * k, 1, size(k)).unwrap();
        }
        assert_eq!(profile.slots().len(), 800);
        assert!(profile.chunks.len() >= 7, "{} chunks", profile.chunks.len());
        assert_eq!(profile.check(), Ok(()));
        let order = (0..400)
            .filter(|k| k % 2 == 1)
            .chain((0..400).filter(|k| k % 2 == 0));
        for k in order {
            profile.release(2 * k, 2 * k + 1, size(k));
            flat.release(2 * k, 1, size(k)).unwrap();
            assert_eq!(
                profile.check(),
                Ok(()),
                "after giving back [{}, {})",
                2 * k,
                2 * k + 1
            );
            assert_eq!(profile.slots(), flat.steps().collect::<Vec<_>>());
        }
        assert_eq!(profile.slots(), [(0, 1000)]);
        assert_eq!(profile.chunks.len(), 1);
    }

    /// The reference: sim-core's flat profile, unbounded like this one.
    fn reference(now: Time, free: u32, ends: &[(Time, u32)]) -> AvailabilityProfile {
        AvailabilityProfile::new(u32::MAX, now, free, ends.iter().copied())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The chunked steps equal sim-core's flat profile after every
        /// change (reserve, release, shift, advance) and answer every
        /// question as the flat profile does, over hundreds of steps (several
        /// chunks, split and merged).
        #[test]
        fn chunks_equal_the_flat_profile(
            free_now in 0u32..40,
            ends in proptest::collection::vec((1i64..3000, 1u32..6), 0..300),
            ops in proptest::collection::vec((0u8..4, 0i64..3200, 1i64..200, 1u32..8), 1..400),
            question in (0i64..3200, 1i64..300, 1u32..12),
        ) {
            let mut profile = Profile::default();
            profile.reset(0, free_now, ends.iter().copied());
            let mut flat = reference(0, free_now, &ends);
            let mut held: Vec<(Time, Time, u32)> = Vec::new();
            for &(op, at, length, size) in &ops {
                let start = flat.start();
                match op {
                    0 | 1 => {
                        let at = at.max(start);
                        // Long ones cover whole chunks.
                        let length = if op == 1 { length * 15 } else { length };
                        if flat.fits(at, size, length) {
                            flat.reserve(at, length, size).unwrap();
                            profile.reserve(at, at + length, size);
                            held.push((at, length, size));
                        }
                    }
                    2 if !held.is_empty() => {
                        let (from, length, size) = held[at as usize % held.len()];
                        let mut moved = flat.clone();
                        moved.release(from, length, size).unwrap();
                        let to = at.max(start);
                        if moved.reserve(to, length, size).is_ok() {
                            flat = moved;
                            profile.release(from, from + length, size);
                            profile.reserve(to, to + length, size);
                            let index = held.iter().position(|&h| h == (from, length, size)).unwrap();
                            held[index].0 = to;
                        } else if length % 2 == 0 {
                            flat = moved;
                            profile.release(from, from + length, size);
                            held.retain(|&h| h != (from, length, size));
                        }
                    }
                    3 if at % 8 != 0 && !held.is_empty() => {
                        let (from, length, size) = held.swap_remove(at as usize % held.len());
                        flat.release(from, length, size).unwrap();
                        profile.release(from, from + length, size);
                    }
                    3 => {
                        // Time passes: reservations already begun stay.
                        let to = start + at / 64;
                        flat.advance(to);
                        profile.advance(to);
                        held.retain(|&(from, _, _)| from >= to);
                    }
                    _ => {}
                }
                prop_assert_eq!(profile.slots(), flat.steps().collect::<Vec<_>>());
                prop_assert_eq!(profile.check(), Ok(()));
                // A question after each change reaches the chunks' summaries.
                let probe = (at % 3000).max(flat.start());
                prop_assert_eq!(profile.earliest_start_from(probe, size + 3, length), flat.earliest_fit(probe, size + 3, length));
            }
            let (at, length, size) = question;
            let at = at.max(flat.start());
            prop_assert_eq!(profile.free_at(at), flat.free_at(at));
            prop_assert_eq!(profile.fits(at, size, length), flat.fits(at, size, length));
            prop_assert_eq!(profile.earliest_start(size, length), flat.earliest_fit(flat.start(), size, length));
            prop_assert_eq!(profile.earliest_start_from(at, size, length), flat.earliest_fit(at, size, length));
            let (times, free) = flat.step_slices();
            let drop = free.iter().position(|&f| f < free[0]).map_or((Time::MAX, free[0]), |i| (times[i], free[i]));
            prop_assert_eq!(profile.first_drop(), drop);
        }
    }
}
