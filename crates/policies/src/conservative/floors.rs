//! What conservative backfilling knows of whole windows between
//! compressions: per job shape (size and estimate), a time before which
//! none starts, kept true through the gains that could open one.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use schedsim_sim_core::Time;

use super::sizes::{BySize, SizeSet};
use super::timeline::{Gain, Timeline};

/// Per shape of the waiting jobs (size and estimate), its *floor*: no
/// whole window of the shape (`size` processors free for all of the
/// estimate) starts before it. A search that finds none before a limit
/// raises the floor to the limit, and placing a job at its earliest anchor
/// raises it to that anchor; losses keep it true. A gain can open a window
/// only for a size it *raised* (above what one of its steps freed before,
/// at most what it frees now), only inside the run of room for that size
/// around it, and only one that reaches into it: [`gained`](Self::gained)
/// lowers the floors of the waiting shapes that fit there. A job reserved
/// too early for a window from its shape's floor on has none, and
/// compression skips the search.
#[derive(Debug, Clone, Default)]
pub(crate) struct ShapeFloors {
    ids: HashMap<(u32, Time), u32, BuildHasherDefault<ShapeHasher>>,
    shapes: Vec<Shape>,
    /// Per size, its waiting shapes and what is known of their windows.
    by_size: BySize<SizeState>,
    /// Calls so far.
    call: u64,
    /// The sizes of which a job waits.
    waiting_sizes: SizeSet,
    /// The longest estimate of any shape so far (at least 1).
    longest: Time,
    /// The waiting sizes to which a gain of this call raised an instant
    /// (from fewer free processors than the size to at least it) before
    /// the reservation of a job of that size, each once.
    raised: Vec<u32>,
}

/// The waiting shapes of one size and what is known of their windows.
#[derive(Debug, Clone)]
struct SizeState {
    /// The shapes with jobs waiting, by increasing estimate.
    shapes: Vec<u32>,
    /// Their estimates and floors, in the same order: a copy of each
    /// shape's, written with it (the gains read these in a row, and most
    /// leave every floor as it is; the compressions read a shape's own).
    windows: Vec<(Time, Time)>,
    /// At least the latest `floor + estimate - 1` among them: a gain
    /// that starts there or later lowers no floor.
    top: Time,
    /// No job of the size is reserved later than this (the latest anchor
    /// given since the last clear: moves only go earlier).
    latest: Time,
    /// Waiting jobs of the size with a reservation.
    jobs: u32,
    /// The call in which a gain last raised the size ([`ShapeFloors::raised`]).
    raised_in: u64,
    /// The run of room last measured around a gain in this call
    /// (`[begin, end)`), with the call: gains since have shrunk it, or
    /// extended it through a gain measured again.
    room: (u64, Time, Time),
    /// The earliest start of a gain left unmeasured because no job of the
    /// size was reserved after it, since one first waited: a window it
    /// opened reaches past it, so the floors hold only for windows that
    /// end before it.
    unmeasured: Time,
}

/// Nothing known: set when a job of the size first waits.
impl Default for SizeState {
    fn default() -> Self {
        Self {
            shapes: Vec::new(),
            windows: Vec::new(),
            top: Time::MIN,
            latest: Time::MIN,
            jobs: 0,
            raised_in: 0,
            room: (0, 0, 0),
            unmeasured: Time::MAX,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Shape {
    size: u32,
    duration: Time,
    /// No whole window starts before this time.
    floor: Time,
    /// Waiting jobs of this shape.
    waiting: u32,
    /// While some wait: the shape's place in its size's list.
    slot: u32,
}

impl ShapeFloors {
    /// The shape of a job of `size` processors for `duration` seconds.
    pub(crate) fn shape(&mut self, size: u32, duration: Time) -> u32 {
        let next = self.shapes.len() as u32;
        self.longest = self.longest.max(duration.max(1));
        *self.ids.entry((size, duration)).or_insert_with(|| {
            self.shapes.push(Shape {
                size,
                duration,
                floor: Time::MIN,
                waiting: 0,
                slot: 0,
            });
            next
        })
    }

    /// The size and estimate of `shape`.
    pub(crate) fn size_and_duration(&self, shape: u32) -> (u32, Time) {
        let shape = &self.shapes[shape as usize];
        (shape.size, shape.duration)
    }

    /// No whole window of `shape` starts before this time.
    pub(crate) fn floor(&self, shape: u32) -> Time {
        let entry = &self.shapes[shape as usize];
        debug_assert!(
            entry.waiting == 0
                || self.by_size[entry.size].windows[entry.slot as usize]
                    == (entry.duration, entry.floor),
            "conservative: shape {shape}'s floor and its size's copy differ"
        );
        entry.floor
    }

    /// No whole window of `shape` starts before `limit` (a search found
    /// none, or the earliest one there).
    pub(crate) fn searched(&mut self, shape: u32, limit: Time) {
        let shape = &mut self.shapes[shape as usize];
        shape.floor = limit;
        if let Some(state) = self.by_size.get_mut(shape.size) {
            state.top = state.top.max(reach_of(shape.floor, shape.duration));
            if shape.waiting > 0 {
                state.windows[shape.slot as usize].1 = limit;
            }
        }
    }

    /// No whole window of `size` processors for `duration` starts before
    /// this time (`Time::MIN` if nothing is known): a window of a waiting
    /// shape no larger and no longer holds one of this shape, and no
    /// window of that shape starts before its floor and ends before the
    /// gains left unmeasured for its size. Of each size below, the
    /// longest such shape is asked.
    pub(crate) fn lower_bound(&self, size: u32, duration: Time) -> Time {
        let mut best = Time::MIN;
        let mut from = 1;
        while let Some(other) = self.waiting_sizes.first_in(from, size) {
            let state = &self.by_size[other];
            let list = &state.windows;
            let fitting = list.partition_point(|&(other, _)| other <= duration);
            if let Some(&(other, floor)) = fitting.checked_sub(1).and_then(|index| list.get(index))
            {
                // A window starting at or after this may reach into an
                // unmeasured gain (one second to spare).
                let horizon = state.unmeasured.saturating_sub(other.max(1));
                best = best.max(floor.min(horizon));
            }
            from = other + 1;
        }
        best
    }

    /// A job of `shape` now waits with a reservation at `at`.
    pub(crate) fn add(&mut self, shape: u32, at: Time) {
        let Shape {
            size,
            duration,
            waiting,
            ..
        } = self.shapes[shape as usize];
        self.shapes[shape as usize].waiting += 1;
        let state = self.by_size.entry(size);
        state.jobs += 1;
        if state.shapes.is_empty() {
            // What was known of this size while none waited is stale.
            state.latest = at;
            state.top = Time::MIN;
            state.unmeasured = Time::MAX;
            self.waiting_sizes.insert(size);
        } else {
            state.latest = state.latest.max(at);
        }
        if waiting > 0 {
            return;
        }
        // Gains lowered no floor while none of the shape waited: the
        // caller sets it (a placement) or it is unknown (a rebuild).
        self.shapes[shape as usize].floor = Time::MIN;
        let state = &mut self.by_size[size];
        let at = state
            .windows
            .partition_point(|&(other, _)| other < duration);
        state.shapes.insert(at, shape);
        state.windows.insert(at, (duration, Time::MIN));
        for (slot, &other) in state.shapes.iter().enumerate().skip(at) {
            self.shapes[other as usize].slot = slot as u32;
        }
    }

    /// A job of `shape` no longer waits with a reservation.
    pub(crate) fn remove(&mut self, shape: u32) {
        let entry = &mut self.shapes[shape as usize];
        debug_assert!(entry.waiting > 0, "conservative: shape {shape} not waiting");
        entry.waiting = entry.waiting.saturating_sub(1);
        let size = entry.size;
        let jobs = &mut self.by_size[size].jobs;
        *jobs = jobs.saturating_sub(1);
        if entry.waiting > 0 {
            return;
        }
        let at = entry.slot as usize;
        let state = &mut self.by_size[size];
        state.shapes.remove(at);
        state.windows.remove(at);
        for (slot, &other) in state.shapes.iter().enumerate().skip(at) {
            self.shapes[other as usize].slot = slot as u32;
        }
        if state.shapes.is_empty() {
            self.waiting_sizes.remove(size);
        }
    }

    /// A new call: rooms measured before may have shrunk or grown.
    pub(crate) fn next_call(&mut self) {
        self.call += 1;
        self.raised.clear();
    }

    /// The sizes to which a gain of this call raised an instant before
    /// the reservation of some job of that size. A waiting job of any other
    /// size has the same instants with room for it before its reservation
    /// as before the gains (whether it can move depends on those alone),
    /// and so the same windows.
    pub(crate) fn raised(&self) -> &[u32] {
        &self.raised
    }

    /// The waiting jobs of `size` processors that hold a reservation.
    pub(crate) fn jobs_of(&self, size: u32) -> u32 {
        self.by_size.get(size).map_or(0, |state| state.jobs)
    }

    /// Forgets every waiting job, and so every floor (the profile is
    /// rebuilt): only the sizes waiting are visited.
    pub(crate) fn clear(&mut self) {
        let (by_size, shapes) = (&mut self.by_size, &mut self.shapes);
        self.waiting_sizes.drain(|size| {
            let state = &mut by_size[size];
            for shape in state.shapes.drain(..) {
                shapes[shape as usize].waiting = 0;
            }
            state.jobs = 0;
            state.windows.clear();
        });
    }

    /// `gain` gave processors back: for each waiting size it raised, the
    /// shapes whose whole window fits in the run of room around it see
    /// their floor lowered to where such a window could start.
    pub(crate) fn gained(&mut self, timeline: &Timeline, gain: &Gain) {
        // What each step frees now, less the gain: the sizes above it and
        // at most what it frees now are raised (many steps: one band).
        let band = |free: u32| ((free + 1).saturating_sub(gain.amount).max(1), free);
        let mut bands: [(u32, u32); 8] = [(0, 0); 8];
        let count = match timeline.gain_levels() {
            Some(levels) => {
                let mut count = 0;
                for (slot, free) in bands.iter_mut().zip(levels) {
                    *slot = band(free);
                    count += 1;
                }
                count
            }
            None => {
                let (low, high) = timeline.gain_range();
                bands[0] = (band(low).0, high);
                1
            }
        };
        let bands = &mut bands[..count];
        bands.sort_unstable();
        // How long the run of room around the gain is for the least size
        // measured, once asked: no larger size has a longer one.
        let mut bound = None;
        let mut done = 0;
        for &(low, high) in bands.iter() {
            let low = low.max(done + 1);
            if low > high {
                continue;
            }
            done = high;
            let mut size = low;
            while let Some(found) = self.waiting_sizes.first_in(size, high) {
                self.lower(timeline, gain, found, &mut bound);
                size = found + 1;
            }
        }
    }

    /// Lowers the floors of the waiting shapes of `size` that fit in the
    /// run of room for it around `gain`.
    fn lower(&mut self, timeline: &Timeline, gain: &Gain, size: u32, bound: &mut Option<Time>) {
        // A window that reaches into the gain ends after its start: of use
        // only to a job reserved later.
        let state = &mut self.by_size[size];
        if state.latest <= gain.start {
            // Not measured: what was measured before may not hold.
            state.room.0 = 0;
            state.unmeasured = state.unmeasured.min(gain.start);
            return;
        }
        // A job reserved later has instants of the gain before its start.
        if state.raised_in != self.call {
            state.raised_in = self.call;
            self.raised.push(size);
        }
        // A new window reaches into the gain: no further than the longest
        // estimate around it.
        let Some(&(longest, _)) = state.windows.last() else {
            return;
        };
        let reach = longest.max(1);
        if state.top <= gain.start {
            // Every floor is already where a window reaching into the gain
            // could start, or earlier: the run of room goes unmeasured.
            state.room.0 = 0;
            return;
        }
        // The run of room measured last starts no earlier than it did then
        // (only a gain measured since could have moved it): one that
        // reaches this gain starts there.
        let (call, known_begin, known_end) = state.room;
        let known = (call == self.call && known_begin <= gain.start && gain.start <= known_end)
            .then_some(known_begin);
        // The run of room for a larger size lies inside the one for a
        // smaller (it holds fewer steps of the gain, and its walks stop at
        // the same dips or sooner). The least size measured is measured as
        // far as any estimate reaches (its own floors come out the same):
        // when that run is shorter than a larger size's shortest estimate,
        // no floor of that size moves.
        let least = bound.is_none();
        let shortest = state
            .windows
            .first()
            .map_or(Time::MAX, |&(duration, _)| duration.max(1));
        if bound.is_some_and(|length| length < shortest) {
            // Not measured: what was measured before may not hold.
            state.room.0 = 0;
            return;
        }
        let reach = if least { self.longest.max(1) } else { reach };
        let room = timeline.room_around(gain, size, reach, known);
        if least {
            *bound = Some(room.map_or(0, |room| room.end.saturating_sub(room.begin)));
        }
        let Some(room) = room else {
            return;
        };
        let (begin, end) = (room.begin, room.end);
        // Only a run found whole is worth remembering.
        state.room = match room.exact_begin {
            Some(start) => (self.call, start, end),
            None => (0, 0, 0),
        };
        let mut top = Time::MIN;
        let length = end.saturating_sub(begin);
        for (slot, window) in state.windows.iter_mut().enumerate() {
            let (duration, floor) = *window;
            let duration = duration.max(1);
            if length < duration {
                // The rest keep their floors: `top` stays.
                return;
            }
            let from = begin.max(gain.start.saturating_sub(duration - 1));
            if from < floor {
                window.1 = from;
                self.shapes[state.shapes[slot] as usize].floor = from;
            }
            top = top.max(reach_of(window.1, duration));
        }
        state.top = top;
    }
}

/// The last instant a window of a shape with `floor` and `duration`
/// from its floor on covers: `floor + duration - 1`.
fn reach_of(floor: Time, duration: Time) -> Time {
    floor.saturating_add(duration.max(1) - 1)
}

/// A multiply-rotate hash of a shape's size and estimate (as FxHash
/// does): every placement looks its shape up, and SipHash's resistance to
/// chosen keys buys nothing in a map nobody iterates.
#[derive(Debug, Clone, Copy, Default)]
struct ShapeHasher(u64);

impl ShapeHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for ShapeHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.add(u64::from(byte));
        }
    }

    fn write_u32(&mut self, value: u32) {
        self.add(u64::from(value));
    }

    fn write_i64(&mut self, value: i64) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 processor free from 0 on; jobs of 1 processor for 50 s wait (one
    /// reserved at 1000).
    fn setup() -> (Timeline, ShapeFloors, u32) {
        let mut timeline = Timeline::default();
        timeline.reset(0, 1, std::iter::empty());
        let mut floors = ShapeFloors::default();
        let shape = floors.shape(1, 50);
        floors.add(shape, 1000);
        floors.next_call();
        (timeline, floors, shape)
    }

    /// Takes the processor over `[start, end)` and gives it back: a gain
    /// there, told to the floors.
    fn gain(timeline: &mut Timeline, floors: &mut ShapeFloors, start: Time, end: Time) {
        let holding = timeline.locate(start);
        timeline.reserve(holding, start, end - start, 1, false);
        timeline.release(start, end, 1, |timeline, gain| {
            floors.gained(timeline, gain);
        });
    }

    #[test]
    fn a_gain_lowers_the_floor_to_where_a_window_reaching_it_could_start() {
        let (mut timeline, mut floors, shape) = setup();
        floors.searched(shape, 1000);
        // The processor comes back over [100, 110): the run of room around
        // it is [0, forever), but a 50 s window that reaches into it
        // starts at 100 - 49 = 51 at the earliest.
        gain(&mut timeline, &mut floors, 100, 110);
        assert_eq!(floors.floor(shape), 51);
        // Another gain, earlier, in the same call: 70 - 49 = 21. (The run
        // of room measured around the first gain was cut at 51: it must
        // not stand for where the run starts.)
        gain(&mut timeline, &mut floors, 70, 75);
        assert_eq!(floors.floor(shape), 21);
    }

    #[test]
    fn each_size_keeps_its_shapes_floors_in_step_as_shapes_come_and_go() {
        let mut floors = ShapeFloors::default();
        let short = floors.shape(1, 10);
        let middle = floors.shape(1, 20);
        let long = floors.shape(1, 30);
        // Added out of order, so that each insertion moves the others.
        for shape in [long, short, middle] {
            floors.add(shape, 0);
        }
        floors.searched(short, 100);
        floors.searched(middle, 200);
        floors.searched(long, 300);
        // A 25 s job of size 1 asks the longest waiting shape no longer
        // than it: 20 s, floor 200.
        assert_eq!(floors.lower_bound(1, 25), 200);
        floors.remove(middle);
        // Now the 10 s shape: 100.
        assert_eq!(floors.lower_bound(1, 25), 100);
        floors.searched(long, 350);
        assert_eq!(floors.lower_bound(1, 30), 350);
        assert_eq!(floors.floor(long), 350);
    }

    #[test]
    fn the_least_size_raised_bounds_the_runs_of_room_of_the_larger_ones() {
        // 2 processors. One is taken over [0, 1000), the other over
        // [0, 150): 0 free before 150, 1 until 1000, 2 after.
        let mut timeline = Timeline::default();
        timeline.reset(0, 2, std::iter::empty());
        timeline.reserve(timeline.locate(0), 0, 1000, 1, false);
        timeline.reserve(timeline.locate(0), 0, 150, 1, false);
        let mut floors = ShapeFloors::default();
        let one = floors.shape(1, 500);
        let two = floors.shape(2, 200);
        for shape in [one, two] {
            floors.add(shape, 1000);
            floors.searched(shape, 1000);
        }
        floors.next_call();
        // The first processor comes back over [100, 300): 1 free over
        // [100, 150), 2 over [150, 300), 1 until 1000. Both sizes are
        // raised. The run of room for 1 processor goes on from 100 (a
        // 500 s window from 100 now fits: floor 100); the one for 2 is
        // [150, 300), too short for 200 s (floor 1000). Measured from the
        // larger size, the bound would have hidden the smaller one's.
        timeline.release(100, 300, 1, |timeline, gain| floors.gained(timeline, gain));
        assert_eq!(floors.floor(one), 100);
        assert_eq!(floors.floor(two), 1000);
    }

    #[test]
    fn a_gain_too_short_for_a_window_leaves_the_floor() {
        let (mut timeline, mut floors, shape) = setup();
        // Nothing free but [100, 130) once it comes back: 30 s of room, too
        // short for 50 s.
        let holding = timeline.locate(0);
        timeline.reserve(holding, 0, 2000, 1, false);
        floors.searched(shape, 1000);
        timeline.release(100, 130, 1, |timeline, gain| floors.gained(timeline, gain));
        assert_eq!(floors.floor(shape), 1000);
        // Given back everywhere: all room, from the start.
        timeline.release(0, 2000, 1, |timeline, gain| floors.gained(timeline, gain));
        assert_eq!(floors.floor(shape), 0);
    }

    #[test]
    fn the_lower_bound_stops_short_of_gains_left_unmeasured() {
        let (mut timeline, mut floors, shape) = setup();
        let holding = timeline.locate(0);
        timeline.reserve(holding, 0, 2000, 1, false);
        floors.searched(shape, 1000);
        // [960, 1000) comes back: 40 s of room, too short for 50 s.
        timeline.release(960, 1000, 1, |timeline, gain| floors.gained(timeline, gain));
        assert_eq!(floors.floor(shape), 1000);
        assert_eq!(floors.lower_bound(1, 50), 1000);
        // [1000, 1100) comes back too: no job of the size is reserved
        // after 1000, so the gain is not measured, yet [960, 1010) is now
        // a whole window. The floor still says 1000 (it speaks of windows
        // ending before 1000); the bound for an arrival stops 50 s before
        // the gain, 1000 - 50 = 950 <= 960.
        timeline.release(1000, 1100, 1, |timeline, gain| {
            floors.gained(timeline, gain);
        });
        assert_eq!(floors.floor(shape), 1000);
        assert_eq!(floors.lower_bound(1, 50), 950);
        assert_eq!(
            timeline.earliest_start(1, 50).map(|(time, _)| time),
            Some(960)
        );
        // A longer or larger shape is bounded the same way; a shorter or
        // smaller one not at all.
        assert_eq!(floors.lower_bound(2, 60), 950);
        assert_eq!(floors.lower_bound(1, 49), Time::MIN);
    }
}
