use schedsim_sim_core::{AvailabilityProfile, Time};

/// A step of a [`Timeline`]: its handle, valid while the step exists. A
/// pinned step exists until it is unpinned.
pub(crate) type Step = u32;

const NONE: u32 = u32::MAX;

/// Whether bounds `(least, most)` rule out a step freeing at least `size`
/// (`room`), or fewer (`!room`).
fn none_in((least, most): (u32, u32), size: u32, room: bool) -> bool {
    if room { most < size } else { least >= size }
}

/// Steps a block holds at most; past this many it splits in two halves.
const BLOCK_MAX: u32 = 16;
/// A block this small takes in the block after it when both fit in half
/// of [`BLOCK_MAX`].
const BLOCK_MIN: u32 = 4;

/// Free processors over future time for conservative backfilling: the
/// steps of sim-core's `AvailabilityProfile` (the same steps, merged the
/// same way, which the tests check against it) as a doubly linked list,
/// so that a step keeps its handle while steps come and go around it.
///
/// Each reservation *pins* the steps where it starts and ends: they stay
/// (a pinned step is kept even when it frees as many processors as the
/// step before it), and the reservation keeps their handles. Moving a
/// reservation a little earlier (what compression does most) then touches
/// the steps around its two ends and looks nothing up: what is free just
/// before it is the step before its start, the room it slides into is
/// walked back from there, and what it gives back is walked back from its
/// end.
///
/// Consecutive steps are grouped in blocks of at most [`BLOCK_MAX`], each
/// with bounds on what its steps free: a walk for a step with (or
/// without) room skips the blocks that have none.
#[derive(Debug, Clone)]
pub(crate) struct Timeline {
    nodes: Vec<Node>,
    /// Nodes not in the list, for reuse.
    vacant: Vec<Step>,
    blocks: Vec<Block>,
    vacant_blocks: Vec<u32>,
    /// The blocks in time order, what their steps free at least and at
    /// most, and when they start: searches scan these in a row.
    order: Vec<u32>,
    bounds: Vec<(u32, u32)>,
    starts: Vec<Time>,
    /// Blocks whose bounds went loose since the last
    /// [`tighten`](Self::tighten).
    loose: Vec<u32>,
    /// The first step, at the profile's start.
    head: Step,
    /// Scratch for [`reset`](Self::reset), which lets sim-core's profile
    /// merge the running jobs' returns into steps.
    flat: AvailabilityProfile,
    /// What each step of the last gain frees, in time order, and the
    /// steps.
    levels: GainSteps,
    /// Steps made since the last [`relayout`](Self::relayout).
    made: usize,
    /// How many more than twice the steps there are must be made before
    /// a relayout pays (see [`scattered`](Self::scattered)).
    slack: usize,
    /// The last relayout's new handle of each old one, and the node and
    /// block arrays it left behind (kept for the next).
    remap: Vec<Step>,
    spare_nodes: Vec<Node>,
    spare_blocks: Vec<Block>,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    time: Time,
    free: u32,
    /// Reservations starting or ending here.
    pins: u32,
    next: Step,
    prev: Step,
    block: u32,
}

/// Consecutive steps, `first` to `last`; `rank` is the block's place in
/// time order, where its bounds are kept ([`Timeline::bounds`]), exact
/// when `exact` (else only bounds).
#[derive(Debug, Clone, Copy)]
struct Block {
    first: Step,
    last: Step,
    len: u32,
    rank: u32,
    exact: bool,
}

/// The steps of the last gain and what they free, the first
/// [`GAIN_STEPS`] of them (more: only the least and most).
#[derive(Debug, Clone, Copy, Default)]
struct GainSteps {
    count: usize,
    steps: [(Step, u32); GAIN_STEPS],
    low: u32,
    high: u32,
}

const GAIN_STEPS: usize = 8;

impl GainSteps {
    fn clear(&mut self) {
        (self.count, self.low, self.high) = (0, u32::MAX, 0);
    }

    fn push(&mut self, step: Step, free: u32) {
        if let Some(slot) = self.steps.get_mut(self.count) {
            *slot = (step, free);
        }
        self.count += 1;
        self.low = self.low.min(free);
        self.high = self.high.max(free);
    }

    /// The steps and what they free, if few enough to be kept.
    fn listed(&self) -> Option<&[(Step, u32)]> {
        self.steps.get(..self.count)
    }
}

/// A run of room around a gain ([`Timeline::room_around`]): where a window
/// reaching into the gain could lie, `[begin, end)`, and where the run
/// starts, if the walk found it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Room {
    pub(crate) begin: Time,
    pub(crate) end: Time,
    pub(crate) exact_begin: Option<Time>,
}

/// Processors given back over `[start, end)`, `amount` of them, by the
/// steps `first` to `last` (valid until the timeline changes again).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gain {
    pub(crate) start: Time,
    pub(crate) end: Time,
    pub(crate) amount: u32,
    first: Step,
    last: Step,
}

impl Default for Timeline {
    fn default() -> Self {
        let mut timeline = Self {
            nodes: Vec::new(),
            vacant: Vec::new(),
            blocks: Vec::new(),
            vacant_blocks: Vec::new(),
            order: Vec::new(),
            bounds: Vec::new(),
            starts: Vec::new(),
            loose: Vec::new(),
            head: NONE,
            flat: AvailabilityProfile::new(u32::MAX, 0, 0, []),
            levels: GainSteps::default(),
            made: 0,
            slack: 1024,
            remap: Vec::new(),
            spare_nodes: Vec::new(),
            spare_blocks: Vec::new(),
        };
        timeline.reset(0, 0, std::iter::empty());
        timeline
    }
}

/// Timelines are equal when they free the same processors at the same
/// times (pins, and the steps they keep, aside).
impl PartialEq for Timeline {
    fn eq(&self, other: &Self) -> bool {
        self.merged_steps().eq(other.merged_steps())
    }
}

impl Timeline {
    /// Starts over at `now` with `free` processors free, plus the running
    /// jobs' processors coming back at their expected ends (those at or
    /// before `now` count as free now). Every handle is void.
    pub(crate) fn reset(&mut self, now: Time, free: u32, ends: impl Iterator<Item = (Time, u32)>) {
        self.flat.reset(now, free, ends);
        self.nodes.clear();
        self.vacant.clear();
        self.blocks.clear();
        self.vacant_blocks.clear();
        self.order.clear();
        self.bounds.clear();
        self.starts.clear();
        self.loose.clear();
        self.made = 0;
        let (times, frees) = self.flat.step_slices();
        let count = times.len();
        let per_block = (BLOCK_MAX / 2) as usize;
        self.nodes.extend(
            times
                .iter()
                .zip(frees)
                .enumerate()
                .map(|(index, (&time, &free))| {
                    // A profile holds fewer than 2^32 steps.
                    let step = index as u32;
                    Node {
                        time,
                        free,
                        pins: 0,
                        next: if index + 1 < count { step + 1 } else { NONE },
                        prev: step.checked_sub(1).unwrap_or(NONE),
                        block: (index / per_block) as u32,
                    }
                }),
        );
        for (index, frees) in frees.chunks(per_block).enumerate() {
            let first = (index * per_block) as Step;
            let len = frees.len() as u32;
            self.blocks.push(Block {
                first,
                last: first + len - 1,
                len,
                rank: index as u32,
                exact: true,
            });
            self.order.push(index as u32);
            self.bounds.push((
                frees.iter().copied().min().unwrap_or(0),
                frees.iter().copied().max().unwrap_or(0),
            ));
            self.starts.push(times[index * per_block]);
        }
        self.head = 0;
    }

    /// Moves the start to `now`, forgetting the steps before it (none of
    /// which may be pinned: reservations before `now` have started).
    pub(crate) fn advance(&mut self, now: Time) {
        while let Some(next) = self.next(self.head)
            && self.time(next) <= now
        {
            debug_assert_eq!(self.node(self.head).pins, 0, "a pinned step passed");
            self.unlink(self.head);
        }
        let head = self.head as usize;
        if self.nodes[head].time < now {
            debug_assert_eq!(self.nodes[head].pins, 0, "a pinned step passed");
            self.nodes[head].time = now;
            self.starts[0] = now;
        }
    }

    /// Whether the steps have come and gone enough since the last
    /// [`relayout`](Self::relayout) (or reset) for one to pay: twice as
    /// many made as there are now, and the slack.
    pub(crate) fn scattered(&self) -> bool {
        self.made > 2 * (self.nodes.len() - self.vacant.len()) + self.slack
    }

    /// Sets the slack of [`scattered`](Self::scattered) (the tests lay
    /// small timelines out often).
    pub(crate) fn set_slack(&mut self, slack: usize) {
        self.slack = slack;
    }

    /// Renumbers the steps in time order and the blocks in theirs, so that
    /// walks along the list read memory in a row. Every handle changes:
    /// [`relocated`](Self::relocated) gives the new one of an old one,
    /// until the next relayout.
    pub(crate) fn relayout(&mut self) {
        self.tighten();
        let mut nodes = std::mem::take(&mut self.spare_nodes);
        nodes.clear();
        self.remap.clear();
        self.remap.resize(self.nodes.len(), NONE);
        let mut at = self.head;
        while at != NONE {
            // A profile holds fewer than 2^32 steps.
            self.remap[at as usize] = nodes.len() as Step;
            let node = self.nodes[at as usize];
            nodes.push(node);
            at = node.next;
        }
        let remap = &self.remap;
        let relocated = |step: Step| {
            if step == NONE {
                NONE
            } else {
                remap[step as usize]
            }
        };
        for node in &mut nodes {
            node.next = relocated(node.next);
            node.prev = relocated(node.prev);
            node.block = self.blocks[node.block as usize].rank;
        }
        let mut blocks = std::mem::take(&mut self.spare_blocks);
        blocks.clear();
        blocks.extend(self.order.iter().map(|&block| {
            let block = self.blocks[block as usize];
            Block {
                first: relocated(block.first),
                last: relocated(block.last),
                ..block
            }
        }));
        for (rank, block) in self.order.iter_mut().enumerate() {
            *block = rank as u32;
        }
        self.spare_nodes = std::mem::replace(&mut self.nodes, nodes);
        self.spare_blocks = std::mem::replace(&mut self.blocks, blocks);
        self.vacant.clear();
        self.vacant_blocks.clear();
        self.head = 0;
        self.made = 0;
        #[cfg(debug_assertions)]
        self.assert_valid();
    }

    /// The handle the last [`relayout`](Self::relayout) gave the step that
    /// `step` was.
    pub(crate) fn relocated(&self, step: Step) -> Step {
        self.remap[step as usize]
    }

    /// The profile's start.
    pub(crate) fn start(&self) -> Time {
        self.time(self.head)
    }

    fn node(&self, step: Step) -> &Node {
        &self.nodes[step as usize]
    }

    pub(crate) fn time(&self, step: Step) -> Time {
        self.node(step).time
    }

    pub(crate) fn free(&self, step: Step) -> u32 {
        self.node(step).free
    }

    pub(crate) fn next(&self, step: Step) -> Option<Step> {
        let next = self.node(step).next;
        (next != NONE).then_some(next)
    }

    pub(crate) fn prev(&self, step: Step) -> Option<Step> {
        let prev = self.node(step).prev;
        (prev != NONE).then_some(prev)
    }

    /// The time the step after `step` starts (`Time::MAX` after the last).
    fn end_of(&self, step: Step) -> Time {
        self.next(step).map_or(Time::MAX, |next| self.time(next))
    }

    /// The steps, `(time, free)`, as kept (pinned steps may repeat what
    /// the step before them frees).
    pub(crate) fn steps(&self) -> impl Iterator<Item = (Time, u32)> + '_ {
        let mut at = Some(self.head);
        std::iter::from_fn(move || {
            let step = at?;
            at = self.next(step);
            Some((self.time(step), self.free(step)))
        })
    }

    /// The steps merged as sim-core merges them: each free count once.
    pub(crate) fn merged_steps(&self) -> impl Iterator<Item = (Time, u32)> + '_ {
        let mut last = None;
        self.steps().filter(move |&(_, free)| {
            let new = last != Some(free);
            last = Some(free);
            new
        })
    }

    /// The step holding `time` (the first one for an earlier time): the
    /// block by its start, then a walk inside it.
    pub(crate) fn locate(&self, time: Time) -> Step {
        let rank = self
            .starts
            .partition_point(|&start| start <= time)
            .saturating_sub(1);
        let mut at = self.blocks[self.order[rank] as usize].first;
        while let Some(next) = self.next(at)
            && self.time(next) <= time
        {
            at = next;
        }
        at
    }

    /// Whether no step of `block` frees at least `size` (`room`), or fewer
    /// (`!room`), by its bounds.
    fn none_in(&self, block: u32, size: u32, room: bool) -> bool {
        none_in(
            self.bounds[self.blocks[block as usize].rank as usize],
            size,
            room,
        )
    }

    /// The rank of the first block from `rank` on (`forward`) or back
    /// from it that may hold a step freeing at least `size` (`room`) or
    /// fewer (`!room`).
    fn next_rank(&self, rank: usize, size: u32, room: bool, forward: bool) -> Option<usize> {
        if forward {
            let found = self
                .bounds
                .get(rank..)?
                .iter()
                .position(|&bounds| !none_in(bounds, size, room))?;
            Some(rank + found)
        } else {
            self.bounds
                .get(..=rank)?
                .iter()
                .rposition(|&bounds| !none_in(bounds, size, room))
        }
    }

    /// The last step at or before `from` that frees at least `size`
    /// (`room`) or fewer (`!room`), skipping blocks without one.
    fn last_where(&self, from: Step, size: u32, room: bool) -> Option<Step> {
        self.find_where(from, size, room, false)
    }

    /// The first step at or after `from` that frees at least `size`
    /// (`room`) or fewer (`!room`), skipping blocks without one.
    fn first_where(&self, from: Step, size: u32, room: bool) -> Option<Step> {
        self.find_where(from, size, room, true)
    }

    /// The nearest step from `from` on, `forward` or back, that frees at
    /// least `size` (`room`) or fewer (`!room`): the steps of a block its
    /// bounds allow, then the next such block by rank.
    #[inline(always)]
    fn find_where(&self, from: Step, size: u32, room: bool, forward: bool) -> Option<Step> {
        let mut at = from;
        loop {
            let block = self.blocks[self.node(at).block as usize];
            if !none_in(self.bounds[block.rank as usize], size, room) {
                let edge = if forward { block.last } else { block.first };
                loop {
                    let node = self.node(at);
                    if (node.free >= size) == room {
                        return Some(at);
                    }
                    if at == edge {
                        break;
                    }
                    at = if forward { node.next } else { node.prev };
                }
            }
            let rank = block.rank as usize;
            let beyond = if forward {
                rank + 1
            } else {
                rank.checked_sub(1)?
            };
            let block =
                self.blocks[self.order[self.next_rank(beyond, size, room, forward)?] as usize];
            at = if forward { block.first } else { block.last };
        }
    }

    /// Sets what `step` frees, keeping its block's bounds (loose when an
    /// extreme moves inwards).
    fn set_free(&mut self, step: Step, free: u32) {
        let node = &mut self.nodes[step as usize];
        let old = node.free;
        node.free = free;
        let block = node.block;
        let entry = &mut self.blocks[block as usize];
        let bounds = &mut self.bounds[entry.rank as usize];
        if free < bounds.0 {
            bounds.0 = free;
        } else if free > bounds.1 {
            bounds.1 = free;
        }
        if entry.exact && ((old == bounds.0 && free > old) || (old == bounds.1 && free < old)) {
            entry.exact = false;
            self.loose.push(block);
        }
    }

    /// Makes the bounds of every block exact again (the scheduler calls it
    /// before its searches): only the blocks loosened since are walked.
    pub(crate) fn tighten(&mut self) {
        while let Some(block) = self.loose.pop() {
            let entry = &self.blocks[block as usize];
            if entry.len > 0 && !entry.exact {
                self.tighten_block(block);
            }
        }
    }

    /// Makes `block`'s bounds exact.
    fn tighten_block(&mut self, block: u32) {
        let Block { first, len, .. } = self.blocks[block as usize];
        let (mut min, mut max) = (u32::MAX, 0);
        let mut at = first;
        for _ in 0..len {
            let free = self.free(at);
            min = min.min(free);
            max = max.max(free);
            at = self.node(at).next;
        }
        let block = &mut self.blocks[block as usize];
        block.exact = true;
        self.bounds[block.rank as usize] = (min, max);
    }

    /// A step at `time`, made after `holding` (the step holding it) if
    /// none starts there; it joins the block of `holding`.
    fn step_at(&mut self, holding: Step, time: Time) -> Step {
        debug_assert!(self.time(holding) <= time && time < self.end_of(holding));
        if self.time(holding) == time {
            return holding;
        }
        let Node {
            free, next, block, ..
        } = *self.node(holding);
        let node = Node {
            time,
            free,
            pins: 0,
            next,
            prev: holding,
            block,
        };
        self.made += 1;
        let step = match self.vacant.pop() {
            Some(step) => {
                self.nodes[step as usize] = node;
                step
            }
            None => {
                // A profile holds fewer than 2^32 steps.
                self.nodes.push(node);
                (self.nodes.len() - 1) as Step
            }
        };
        self.nodes[holding as usize].next = step;
        if next != NONE {
            self.nodes[next as usize].prev = step;
        }
        let entry = &mut self.blocks[block as usize];
        entry.len += 1;
        if entry.last == holding {
            entry.last = step;
        }
        if entry.len > BLOCK_MAX {
            self.split(block);
        }
        step
    }

    /// Cuts `block` in two halves.
    fn split(&mut self, block: u32) {
        let Block {
            first,
            last,
            len,
            rank,
            ..
        } = self.blocks[block as usize];
        let mut middle = first;
        for _ in 0..len / 2 {
            middle = self.node(middle).next;
        }
        let rest = Block {
            first: middle,
            last,
            len: len - len / 2,
            rank: rank + 1,
            exact: false,
        };
        let index = match self.vacant_blocks.pop() {
            Some(index) => {
                self.blocks[index as usize] = rest;
                index
            }
            None => {
                self.blocks.push(rest);
                (self.blocks.len() - 1) as u32
            }
        };
        let at_rank = rank as usize + 1;
        self.order.insert(at_rank, index);
        self.bounds.insert(at_rank, (0, 0));
        self.starts.insert(at_rank, self.time(middle));
        self.renumber(at_rank + 1);
        let mut at = middle;
        loop {
            self.nodes[at as usize].block = index;
            if at == last {
                break;
            }
            at = self.node(at).next;
        }
        let before = self.node(middle).prev;
        let head = &mut self.blocks[block as usize];
        head.len = len / 2;
        head.last = before;
        self.tighten_block(block);
        self.tighten_block(index);
    }

    /// Sets the ranks of the blocks from `rank` on to their places.
    fn renumber(&mut self, rank: usize) {
        for (index, &block) in self.order.iter().enumerate().skip(rank) {
            self.blocks[block as usize].rank = index as u32;
        }
    }

    /// Takes `block` (emptied or taken in) out of the order.
    fn drop_block(&mut self, block: u32) {
        let rank = self.blocks[block as usize].rank as usize;
        self.order.remove(rank);
        self.bounds.remove(rank);
        self.starts.remove(rank);
        self.renumber(rank);
        self.blocks[block as usize].len = 0;
        self.vacant_blocks.push(block);
    }

    /// Takes `step` out of the list (and of its block).
    fn unlink(&mut self, step: Step) {
        let Node {
            prev,
            next,
            block,
            free,
            ..
        } = *self.node(step);
        if prev != NONE {
            self.nodes[prev as usize].next = next;
        } else {
            self.head = next;
        }
        if next != NONE {
            self.nodes[next as usize].prev = prev;
        }
        self.vacant.push(step);
        let entry = &mut self.blocks[block as usize];
        entry.len -= 1;
        if entry.len == 0 {
            self.drop_block(block);
            return;
        }
        let rank = entry.rank as usize;
        if entry.first == step {
            entry.first = next;
            self.starts[rank] = self.nodes[next as usize].time;
        }
        let entry = &mut self.blocks[block as usize];
        if entry.last == step {
            entry.last = prev;
        }
        let (low, high) = self.bounds[rank];
        if entry.exact && (free == low || free == high) {
            entry.exact = false;
            self.loose.push(block);
        }
        let Block { len, last, .. } = *entry;
        // A small block takes in the next one when both fit in half.
        if len >= BLOCK_MIN {
            return;
        }
        let Some(after) = self.next(last) else {
            return;
        };
        let other = self.node(after).block;
        let taken = self.blocks[other as usize];
        if len + taken.len > BLOCK_MAX / 2 {
            return;
        }
        let mut at = after;
        loop {
            self.nodes[at as usize].block = block;
            if at == taken.last {
                break;
            }
            at = self.node(at).next;
        }
        let (taken_low, taken_high) = self.bounds[taken.rank as usize];
        let bounds = &mut self.bounds[rank];
        *bounds = (bounds.0.min(taken_low), bounds.1.max(taken_high));
        let entry = &mut self.blocks[block as usize];
        entry.len += taken.len;
        entry.last = taken.last;
        if entry.exact && !taken.exact {
            entry.exact = false;
            self.loose.push(block);
        }
        self.drop_block(other);
    }

    /// Removes `step` if it is not pinned, not the first, and frees what
    /// the step before it frees.
    fn merge_at(&mut self, step: Step) {
        let node = *self.node(step);
        if node.pins > 0 || node.prev == NONE || self.free(node.prev) != node.free {
            return;
        }
        self.unlink(step);
    }

    /// Adds `delta` to every step from `from` up to the step at `end`
    /// (made if none starts there), which it returns, with the last step
    /// changed; gains record what their steps free
    /// ([`gain_levels`](Self::gain_levels)).
    fn add_until(&mut self, from: Step, end: Time, delta: i64) -> (Step, Step) {
        if delta > 0 {
            self.levels.clear();
        }
        let mut at = from;
        loop {
            // The steps of one block at a time, its bounds kept at hand
            // (what `set_free` does step by step).
            let block = self.node(at).block;
            let Block { rank, exact, .. } = self.blocks[block as usize];
            let (mut least, mut most) = self.bounds[rank as usize];
            let mut still_exact = exact;
            let mut done = None;
            let cut = loop {
                let Node {
                    free: old, next, ..
                } = self.nodes[at as usize];
                // The callers keep it within 0..=u32::MAX.
                let free = (i64::from(old) + delta) as u32;
                if delta > 0 {
                    self.levels.push(at, free);
                }
                if next == NONE || self.time(next) > end {
                    break Some(free);
                }
                self.nodes[at as usize].free = free;
                if free < least {
                    least = free;
                } else if free > most {
                    most = free;
                }
                if still_exact && ((old == least && free > old) || (old == most && free < old)) {
                    still_exact = false;
                }
                if self.time(next) == end {
                    done = Some((next, at));
                    break None;
                }
                at = next;
                if self.node(next).block != block {
                    break None;
                }
            };
            self.bounds[rank as usize] = (least, most);
            if exact && !still_exact {
                self.blocks[block as usize].exact = false;
                self.loose.push(block);
            }
            if let Some(free) = cut {
                // `end` falls inside this step: cut it there, at what it
                // frees now.
                let cut = self.step_at(at, end);
                self.set_free(at, free);
                return (cut, at);
            }
            if let Some(done) = done {
                return done;
            }
        }
    }

    /// [`add_until`](Self::add_until) for a gain of `amount` from `from`
    /// (at `start`) to `end`, told to `gained` before anything else changes.
    fn gain_until(
        &mut self,
        from: Step,
        end: Time,
        amount: u32,
        gained: &mut impl FnMut(&Self, &Gain),
    ) -> Step {
        let start = self.time(from);
        let (stop, last) = self.add_until(from, end, i64::from(amount));
        let gain = Gain {
            start,
            end,
            amount,
            first: from,
            last,
        };
        gained(&*self, &gain);
        stop
    }

    /// What the steps of the last gain free now, in time order, if it
    /// had few; else `None` (valid until the next gain).
    pub(crate) fn gain_levels(&self) -> Option<impl Iterator<Item = u32> + '_> {
        self.levels
            .listed()
            .map(|steps| steps.iter().map(|&(_, free)| free))
    }

    /// The least and most the steps of the last gain free now.
    pub(crate) fn gain_range(&self) -> (u32, u32) {
        (self.levels.low, self.levels.high)
    }

    /// The run of room for `size` (steps with at least `size` free)
    /// around the steps of `gain` that have it, as `[begin, end)`, cut to
    /// where a window no longer than `reach` that reaches into the gain
    /// could lie, and `end` to `begin + reach` at most (enough for any
    /// such window); `None` if no step of the gain has the room.
    pub(crate) fn room_around(
        &self,
        gain: &Gain,
        size: u32,
        reach: Time,
        known_begin: Option<Time>,
    ) -> Option<Room> {
        // The first and last steps of the gain with the room.
        let (mut first, mut last) = match self.levels.listed() {
            Some(steps) => (
                steps.iter().find(|&&(_, free)| free >= size)?.0,
                steps.iter().rev().find(|&&(_, free)| free >= size)?.0,
            ),
            None => {
                let first = self.first_where(gain.first, size, true)?;
                let last = self.last_where(gain.last, size, true)?;
                if self.time(first) >= gain.end || self.time(last) < gain.start {
                    return None;
                }
                (first, last)
            }
        };
        let lowest = gain.start.saturating_sub(reach - 1);
        let known_begin = known_begin.filter(|&begin| begin <= self.time(first));
        // Back to the step before the room, or to `lowest`, a block all
        // room at a time when entering one.
        while known_begin.is_none()
            && self.time(first) > lowest
            && let Some(prev) = self.prev(first)
        {
            let block = self.node(prev).block;
            if block != self.node(first).block && self.none_in(block, size, false) {
                first = self.blocks[block as usize].first;
            } else if self.free(prev) >= size {
                first = prev;
            } else {
                break;
            }
        }
        let begin = known_begin.unwrap_or(self.time(first));
        // Forward as far as a window reaching into the gain could go, and
        // no further than `reach` past the run's begin: a window of every
        // shape asked about fits by then.
        let highest = gain.end.saturating_add(reach - 1);
        let enough = begin.max(lowest).saturating_add(reach);
        while let Some(next) = self.next(last)
            && self.time(next) < highest.min(enough)
        {
            let block = self.node(next).block;
            if block != self.node(last).block && self.none_in(block, size, false) {
                last = self.blocks[block as usize].last;
            } else if self.free(next) >= size {
                last = next;
            } else {
                break;
            }
        }
        // The walk stopped at a dip or the start unless it stopped at
        // `lowest` (the run may go on before it).
        let exact = known_begin.or_else(|| {
            let stopped_at_dip = self.prev(first).is_none_or(|prev| self.free(prev) < size);
            stopped_at_dip.then(|| self.time(first))
        });
        Some(Room {
            begin: begin.max(lowest),
            end: self.end_of(last).min(highest),
            exact_begin: exact,
        })
    }

    /// Takes `size` processors over `[at, at + duration)` (at least 1 s),
    /// where they fit, `holding` holding `at`; returns the steps where the
    /// reservation starts and ends, pinned if `pin` (else they may merge
    /// away: the caller knows another reservation pins them).
    pub(crate) fn reserve(
        &mut self,
        holding: Step,
        at: Time,
        duration: Time,
        size: u32,
        pin: bool,
    ) -> (Step, Step) {
        let end = at + duration.max(1);
        debug_assert!(
            self.fits(at, size, duration),
            "reserving {size} over [{at}, {end}) where they do not fit"
        );
        let start = self.step_at(holding, at);
        let (stop, _) = self.add_until(start, end, -i64::from(size));
        if pin {
            self.pin(start);
            self.pin(stop);
        } else {
            self.merge_at(stop);
            self.merge_at(start);
        }
        #[cfg(debug_assertions)]
        self.assert_valid();
        (start, stop)
    }

    /// Gives back `size` processors from the start until `end` (a running
    /// job that ended before its estimate), told to `gained`.
    pub(crate) fn release_until(
        &mut self,
        end: Time,
        size: u32,
        mut gained: impl FnMut(&Self, &Gain),
    ) {
        if end <= self.start() {
            return;
        }
        let stop = self.gain_until(self.head, end, size, &mut gained);
        self.merge_at(stop);
    }

    /// Gives back `size` processors over `[start, end)` (taken before by a
    /// reservation not pinned), told to `gained`.
    #[cfg(test)]
    pub(crate) fn release(
        &mut self,
        start: Time,
        end: Time,
        size: u32,
        mut gained: impl FnMut(&Self, &Gain),
    ) {
        let holding = self.locate(start);
        let from = self.step_at(holding, start);
        let stop = self.gain_until(from, end, size, &mut gained);
        self.merge_at(stop);
        self.merge_at(from);
    }

    /// Unpins a step a reservation held (it may merge away).
    pub(crate) fn unpin(&mut self, step: Step) {
        let node = &mut self.nodes[step as usize];
        debug_assert!(node.pins > 0, "unpinning a step not pinned");
        node.pins -= 1;
        self.merge_at(step);
        #[cfg(debug_assertions)]
        self.assert_valid();
    }

    /// Pins a step for one more reservation.
    pub(crate) fn pin(&mut self, step: Step) {
        self.nodes[step as usize].pins += 1;
    }

    /// Moves `size` processors of a reservation held over `[start, end)`
    /// (its pinned steps) to the earlier `to`, `holding` holding `to`
    /// (found before the move); `keep` when part of the reservation stays
    /// (the steps stay pinned for it). Returns the new pinned steps. A gain
    /// (what it gives back, at the end), told to `gained`, then a loss
    /// (what it takes, at the start), touching only the steps between the
    /// old and new times when they overlap.
    pub(crate) fn shift(
        &mut self,
        (start, end): (Step, Step),
        holding: Step,
        to: Time,
        size: u32,
        keep: bool,
        mut gained: impl FnMut(&Self, &Gain),
    ) -> (Step, Step) {
        let (from, until) = (self.time(start), self.time(end));
        let duration = until - from;
        debug_assert!(to < from);
        let moved = if to + duration > from {
            // What it gives back: from its new end to its old end, walked
            // back from the old end.
            let mut cut = self
                .prev(end)
                .expect("a reservation's end follows its start");
            while self.time(cut) > to + duration {
                cut = self.prev(cut).expect("the old start precedes the new end");
            }
            let new_end = self.step_at(cut, to + duration);
            self.gain_until(new_end, until, size, &mut gained);
            // What it takes: from its new start to its old start.
            let new_start = self.step_at(holding, to);
            self.add_until(new_start, from, -i64::from(size));
            (new_start, new_end)
        } else {
            self.gain_until(start, until, size, &mut gained);
            let new_start = self.step_at(holding, to);
            let (new_end, _) = self.add_until(new_start, to + duration, -i64::from(size));
            (new_start, new_end)
        };
        self.pin(moved.0);
        self.pin(moved.1);
        if keep {
            // Steps that stay pinned cannot merge; the others can now.
            #[cfg(debug_assertions)]
            self.assert_valid();
            return moved;
        }
        self.nodes[start as usize].pins -= 1;
        self.nodes[end as usize].pins -= 1;
        self.merge_at(start);
        self.merge_at(end);
        #[cfg(debug_assertions)]
        self.assert_valid();
        moved
    }

    /// Whether `size` processors are free over `[start, start + duration)`
    /// (false before the start; a duration of 0 asks for one instant).
    pub(crate) fn fits(&self, start: Time, size: u32, duration: Time) -> bool {
        let end = match start.checked_add(duration) {
            Some(end) if start >= self.start() && duration >= 0 => end.max(start + 1),
            _ => return false,
        };
        let from = self.locate(start);
        self.first_where(from, size, false)
            .is_none_or(|dip| self.time(dip) >= end)
    }

    /// The earliest time at or after `from` (`holding` holds it), not before the
    /// start, at which `size` processors stay free for `duration` (at least
    /// 1 s), and the step holding it; `None` if there is none (past the
    /// last representable time).
    pub(crate) fn earliest_start_from(
        &self,
        holding: Step,
        from: Time,
        size: u32,
        duration: Time,
    ) -> Option<(Time, Step)> {
        let mut candidate = holding;
        loop {
            let room = self.first_where(candidate, size, true)?;
            let anchor = self.time(room).max(from);
            let end = anchor.checked_add(duration.max(1))?;
            match self
                .next(room)
                .and_then(|next| self.first_where(next, size, false))
            {
                Some(dip) if self.time(dip) < end => candidate = dip,
                _ => return Some((anchor, room)),
            }
        }
    }

    /// [`earliest_start_from`](Self::earliest_start_from) from the start.
    pub(crate) fn earliest_start(&self, size: u32, duration: Time) -> Option<(Time, Step)> {
        self.earliest_start_from(self.head, self.start(), size, duration)
    }

    /// The earliest anchor `t` in `[from, limit)` at which `size`
    /// processors stay free over all of `[t, t + duration)`, given that
    /// fewer are free just before `limit`, in step `below` (so every such
    /// window ends before `limit`), and the step holding `t`. Walks the
    /// runs of room forward from `from` and stops at the first long
    /// enough (a search that finds none walks them all).
    pub(crate) fn earliest_window_below(
        &self,
        below: Step,
        from: Time,
        size: u32,
        duration: Time,
    ) -> Option<(Time, Step)> {
        let duration = duration.max(1);
        let from = from.max(self.start());
        debug_assert!(self.free(below) < size);
        let limit = self.time(below);
        let mut at = self.locate(from);
        loop {
            // The next run of room, `[begin, end)`: it ends at a step
            // without room, `below` at the latest.
            let room = self.first_where(at, size, true)?;
            let begin = self.time(room);
            if begin >= limit {
                return None;
            }
            let dip = self
                .first_where(room, size, false)
                .expect("a step without room follows the run");
            if self.time(dip) - begin.max(from) >= duration {
                // A run that starts before `from` holds it in its first
                // step, `at`.
                return Some((begin.max(from), room));
            }
            at = dip;
        }
    }

    /// For a reservation starting at `start` (a pinned step) with `size`
    /// processors free just before it: the start of the run of steps with
    /// room that ends there (every anchor from there on fits the job), that
    /// step, and the step before it (fewer free; `None` at the profile's
    /// start).
    pub(crate) fn room_since(&self, start: Step, size: u32) -> (Time, Step, Option<Step>) {
        let before = self.prev(start).expect("room before a reservation");
        debug_assert!(self.free(before) >= size);
        match self.last_where(before, size, false) {
            Some(dip) => {
                let first = self.node(dip).next;
                (self.time(first), first, Some(dip))
            }
            None => (self.start(), self.head, None),
        }
    }

    /// The fewest processors free over `[from, end)`, `holding` holding
    /// `from`.
    pub(crate) fn min_free(&self, holding: Step, end: Time) -> u32 {
        let mut least = self.free(holding);
        let mut at = holding;
        while let Some(next) = self.next(at)
            && self.time(next) < end
        {
            at = next;
            least = least.min(self.free(at));
        }
        least
    }

    /// The representation's invariants: times increasing along the list,
    /// links both ways, neighbours different unless the later one is
    /// pinned, and blocks of consecutive steps whose bounds hold.
    #[cfg(debug_assertions)]
    fn assert_valid(&self) {
        if let Err(error) = self.check() {
            panic!("timeline: {error}");
        }
    }

    #[cfg(any(test, debug_assertions))]
    pub(crate) fn check(&self) -> Result<(), String> {
        let mut at = self.head;
        if self.node(at).prev != NONE {
            return Err("the head has a predecessor".into());
        }
        // Steps met per block id (a vector: this runs after every change
        // in debug builds, where hashing was a sixth of the suite's slowest
        // test).
        let mut counts = vec![0u32; self.blocks.len()];
        if self.blocks[self.node(at).block as usize].first != at {
            return Err("the head does not start its block".into());
        }
        // Blocks met in list order are the order's.
        let mut rank = 0;
        loop {
            let node = *self.node(at);
            let block = &self.blocks[node.block as usize];
            if block.first == at {
                if self.order.get(rank) != Some(&node.block) || block.rank as usize != rank {
                    return Err(format!("block {} at rank {rank} out of order", node.block));
                }
                if self.starts[rank] != node.time {
                    return Err(format!(
                        "block at rank {rank} starts at {} not {}",
                        node.time, self.starts[rank]
                    ));
                }
                rank += 1;
            }
            counts[node.block as usize] += 1;
            let (low, high) = self.bounds[block.rank as usize];
            if node.free < low || node.free > high {
                return Err(format!(
                    "step at {} frees {} outside {low}..{high}",
                    node.time, node.free
                ));
            }
            let Some(next) = self.next(at) else {
                break;
            };
            let after = *self.node(next);
            if after.prev != at {
                return Err(format!("step {next} links back to {} not {at}", after.prev));
            }
            if after.time <= node.time {
                return Err(format!("times {} then {}", node.time, after.time));
            }
            if after.free == node.free && after.pins == 0 {
                return Err(format!(
                    "unpinned step at {} repeats {}",
                    after.time, after.free
                ));
            }
            if after.block != node.block
                && (block.last != at || self.blocks[after.block as usize].first != next)
            {
                return Err(format!("block boundary at {} not recorded", after.time));
            }
            at = next;
        }
        if rank != self.order.len() || self.bounds.len() != rank || self.starts.len() != rank {
            return Err(format!(
                "{rank} blocks in the list, {} in the order",
                self.order.len()
            ));
        }
        for (block, &count) in counts.iter().enumerate() {
            // Blocks not in the list (free for reuse) hold nothing to check.
            if count > 0 && self.blocks[block].len != count {
                return Err(format!(
                    "block {block} holds {count} steps, not {}",
                    self.blocks[block].len
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reference(now: Time, free: u32, ends: &[(Time, u32)]) -> AvailabilityProfile {
        AvailabilityProfile::new(u32::MAX, now, free, ends.iter().copied())
    }

    #[test]
    fn a_reservation_slides_back_by_its_pinned_steps() {
        // 10 processors: 4 free at 0, 7 from 5, 10 from 8.
        let mut timeline = Timeline::default();
        timeline.reset(0, 4, [(5, 3), (8, 3)].into_iter());
        // 6 for 10 s at 8: 4, 7, then 4 over [8, 18), 10 after.
        let (start, end) = timeline.reserve(timeline.locate(8), 8, 10, 6, true);
        assert_eq!(
            timeline.merged_steps().collect::<Vec<_>>(),
            [(0, 4), (5, 7), (8, 4), (18, 10)]
        );
        assert_eq!((timeline.time(start), timeline.time(end)), (8, 18));
        // 7 free just before it: it slides back to 5, where the room began
        // (4 before it), over which at least 7 are free.
        assert_eq!(timeline.free(timeline.prev(start).unwrap()), 7);
        let (since, holding, dip) = timeline.room_since(start, 6);
        assert_eq!(since, 5);
        assert_eq!(dip.map(|dip| timeline.free(dip)), Some(4));
        let moved = timeline.shift((start, end), holding, since, 6, false, |_, _| {});
        // Taken over [5, 15): 4, 1, 4 (from 8 the 3 more returned), 10.
        assert_eq!(
            timeline.merged_steps().collect::<Vec<_>>(),
            [(0, 4), (5, 1), (8, 4), (15, 10)]
        );
        assert_eq!((timeline.time(moved.0), timeline.time(moved.1)), (5, 15));
        assert_eq!(timeline.check(), Ok(()));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The linked steps equal sim-core's flat profile after every
        /// reservation, move, release, advance and relayout, and answer
        /// its questions as it does.
        #[test]
        fn timeline_equals_the_flat_profile(
            free_now in 0u32..40,
            ends in proptest::collection::vec((1i64..3000, 1u32..6), 0..200),
            ops in proptest::collection::vec((0u8..6, 0i64..3200, 1i64..200, 1u32..8), 1..300),
        ) {
            let mut timeline = Timeline::default();
            timeline.reset(0, free_now, ends.iter().copied());
            let mut flat = reference(0, free_now, &ends);
            // Held reservations: (steps, start, length, size).
            let mut held: Vec<((Step, Step), Time, Time, u32)> = Vec::new();
            for &(op, at, length, size) in &ops {
                let start = flat.start();
                match op {
                    0 | 1 => {
                        let length = if op == 1 { length * 15 } else { length };
                        if let Some((anchor, holding)) = timeline.earliest_start_from(
                            timeline.locate(at.max(start)), at.max(start), size, length)
                        {
                            prop_assert_eq!(Some(anchor), flat.earliest_fit(at.max(start), size, length));
                            flat.reserve(anchor, length, size).unwrap();
                            let steps = timeline.reserve(holding, anchor, length, size, true);
                            held.push((steps, anchor, length, size));
                        }
                    }
                    2 if !held.is_empty() => {
                        let index = at as usize % held.len();
                        let (steps, from, length, size) = held[index];
                        let mut released = flat.clone();
                        released.release(from, length, size).unwrap();
                        let to = released.earliest_fit(start, size, length).filter(|&t| t < from);
                        if let Some(to) = to {
                            released.reserve(to, length, size).unwrap();
                            flat = released;
                            let holding = timeline.locate(to);
                            let moved = timeline.shift(steps, holding, to, size, false, |_, _| {});
                            held[index] = (moved, to, length, size);
                        }
                    }
                    3 if held.iter().any(|h| h.1 == start) || at % 3 == 0 => {
                        // Time passes to the next reservation, which starts.
                        let to = held.iter().map(|h| h.1).min().unwrap_or(start + at / 64).max(start);
                        flat.advance(to);
                        for h in held.iter().filter(|h| h.1 == to) {
                            timeline.unpin(h.0.0);
                            timeline.unpin(h.0.1);
                        }
                        held.retain(|h| h.1 != to);
                        timeline.advance(to);
                    }
                    4 => {
                        // A running job ends early.
                        let end = start + at;
                        flat.release(start, at.max(1), size).unwrap();
                        timeline.release_until(end.max(start + 1), size, |_, _| {});
                    }
                    5 => {
                        // Laid out again: the held handles change.
                        timeline.relayout();
                        for h in &mut held {
                            h.0 = (timeline.relocated(h.0.0), timeline.relocated(h.0.1));
                        }
                        prop_assert!(!timeline.scattered());
                        let mut at = Some(timeline.head);
                        let mut expected = 0;
                        while let Some(step) = at {
                            prop_assert_eq!(step, expected, "steps in time order");
                            expected += 1;
                            at = timeline.next(step);
                        }
                    }
                    _ => {}
                }
                prop_assert_eq!(timeline.merged_steps().collect::<Vec<_>>(), flat.steps().collect::<Vec<_>>());
                prop_assert_eq!(timeline.check(), Ok(()));
                for h in &held {
                    prop_assert_eq!((timeline.time(h.0.0), timeline.time(h.0.1)), (h.1, h.1 + h.2));
                }
            }
        }
    }

    /// The earliest whole window of `size` for `duration` in `[from, limit)`
    /// by brute force over the merged steps.
    fn brute_window(
        timeline: &Timeline,
        size: u32,
        duration: Time,
        from: Time,
        limit: Time,
    ) -> Option<Time> {
        let steps: Vec<(Time, u32)> = timeline.merged_steps().collect();
        let duration = duration.max(1);
        let starts = std::iter::once(from).chain(
            steps
                .iter()
                .map(|&(time, _)| time)
                .filter(|&time| time > from),
        );
        starts.filter(|&t| t < limit).find(|&t| {
            let end = t + duration;
            steps.iter().enumerate().all(|(index, &(time, free))| {
                let next = steps.get(index + 1).map_or(Time::MAX, |step| step.0);
                next <= t || time >= end || free >= size
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// On random timelines of a few hundred steps (many blocks): the
        /// backward search for whole windows, the run of room before a
        /// reservation and the steps' lookup answer as brute force does.
        #[test]
        fn searches_equal_brute_force(
            free_now in 0u32..12,
            ends in proptest::collection::vec((1i64..3000, 1u32..4), 0..300),
            reservations in proptest::collection::vec((0i64..3000, 1i64..120, 1u32..6), 0..200),
            questions in proptest::collection::vec((1u32..10, 1i64..200, 0i64..3200, 0i64..3200), 1..20),
        ) {
            let mut timeline = Timeline::default();
            timeline.reset(0, free_now, ends.iter().copied());
            let mut held = Vec::new();
            for &(at, length, size) in &reservations {
                if timeline.fits(at, size, length) {
                    let steps = timeline.reserve(timeline.locate(at), at, length, size, true);
                    held.push((steps, at, size));
                }
            }
            timeline.tighten();
            prop_assert_eq!(timeline.check(), Ok(()));
            for &(size, duration, from, limit) in &questions {
                // Half the searches from the start, where the runs of
                // room run out.
                let (from, limit) = (from.min(limit), from.max(limit).max(1));
                let from = if from % 2 == 0 { 0 } else { from };
                prop_assert_eq!(timeline.time(timeline.locate(limit)), timeline.steps().map(|s| s.0).filter(|&t| t <= limit).last().unwrap_or(0));
                let below = timeline.locate(limit - 1);
                if timeline.free(below) < size {
                    let found = timeline.earliest_window_below(below, from, size, duration).map(|(time, _)| time);
                    prop_assert_eq!(found, brute_window(&timeline, size, duration, from, limit));
                    if let Some((time, holding)) = timeline.earliest_window_below(below, from, size, duration) {
                        prop_assert_eq!(timeline.locate(time), holding);
                    }
                }
            }
            for &((start, _), at, size) in &held {
                if let Some(before) = timeline.prev(start) && timeline.free(before) >= size {
                    let (since, holding, dip) = timeline.room_since(start, size);
                    // Brute force: back from `at` while `size` are free.
                    let steps: Vec<(Time, u32)> = timeline.merged_steps().collect();
                    let mut since_brute = at;
                    for &(time, free) in steps.iter().rev().filter(|&&(time, _)| time < at) {
                        if free < size {
                            break;
                        }
                        since_brute = time;
                    }
                    prop_assert_eq!(since, since_brute);
                    prop_assert_eq!(timeline.time(holding), since);
                    prop_assert!(dip.is_none_or(|dip| timeline.free(dip) < size));
                }
            }
        }
    }
}
