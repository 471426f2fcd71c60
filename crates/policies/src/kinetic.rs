//! A kinetic tournament: the highest of a set of lines `c + s t` at a time
//! t that only grows, without comparing every line at every query.
//!
//! Greedy's criteria f1 and f3 score a waiting job by a line in the current
//! time whose slope is the job's own (the wait divided by its estimate, or
//! by its area), so jobs overtake one another as they wait. A tournament
//! tree over the jobs keeps, per node, the winner of its two children at
//! the last time it was checked and a *certificate*: the first whole
//! second at which the loser could overtake the winner (never, if the
//! loser's slope is not larger). A query at time t re-plays only the nodes
//! whose certificates expired by t, so each costs O(log n) per overtaking
//! (Basch, Guibas and Hershberger's kinetic tournament). Insertion and
//! removal redo one leaf-to-root path.
//!
//! A line is given in the criteria's own form, `w (base + a (t - r) / d)`
//! ([`Growth`]), and scores are evaluated in that form, the wait divided
//! first: two jobs whose scores are equal as real numbers (the same w,
//! base and a, and waits in the same ratio to their divisors) get the very
//! same f64, so they tie and go by submission then id, as the criteria
//! say. Distributing the products into `intercept + slope t` would round
//! the two differently and let one ulp decide.
//!
//! Certificates err early, never late: the crossing time is computed in
//! floating point, moved earlier by a bound on the rounding of the scores
//! and the crossing (it matters only for nearly parallel lines), rounded
//! down and moved one second earlier, and an expired certificate is
//! re-checked by comparing the two scores exactly as a full sort does
//! (score descending, then submission, then id). A query earlier than the
//! last one rebuilds the tree at that time.

use std::cmp::Ordering;

use schedsim_sim_core::{JobId, Time};

/// No job in a leaf, no winner in a node.
const NONE: u32 = u32::MAX;

/// A certificate that never expires.
const NEVER: Time = Time::MAX;

/// A score that grows linearly with the wait: `w (base + a wait /
/// divisor)` (f1: base = K_i + b p̄_j / m_j, divisor p̄_j; f3: base = K_i,
/// divisor p̄_j m_j).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Growth {
    /// The group's weight w_i.
    pub(crate) w: f64,
    /// The part that does not grow.
    pub(crate) base: f64,
    /// The weight a of the wait.
    pub(crate) a: f64,
    /// What the wait is divided by.
    pub(crate) divisor: f64,
}

impl Growth {
    /// The score after `wait` seconds. The wait is divided first: waits
    /// and divisors are integers, so equal ratios give the same quotient
    /// (a correctly rounded division of the same rational), and the rest is
    /// the same arithmetic on the same values.
    pub(crate) fn at(&self, wait: Time) -> f64 {
        self.w * (self.base + self.a * (wait as f64 / self.divisor))
    }

    /// How fast the score grows, per second.
    fn slope(&self) -> f64 {
        self.w * self.a / self.divisor
    }
}

/// One job's line: score(t) = `growth.at(t - submit)`.
#[derive(Debug, Clone, Copy)]
struct Line {
    growth: Growth,
    /// The score at submission, w base.
    start: f64,
    /// Its growth per second (for certificates only).
    slope: f64,
    submit: Time,
    id: JobId,
}

impl Line {
    fn new(id: JobId, growth: Growth, submit: Time) -> Self {
        Self {
            growth,
            start: growth.at(0),
            slope: growth.slope(),
            submit,
            id,
        }
    }

    fn score(&self, t: Time) -> f64 {
        self.growth.at(t - self.submit)
    }
}

/// Whether `a` goes before `b` at time `t`: higher score, then earlier
/// submission, then smaller id.
fn ranks_before(a: &Line, b: &Line, t: Time) -> bool {
    b.score(t)
        .total_cmp(&a.score(t))
        .then(a.submit.cmp(&b.submit))
        .then(a.id.cmp(&b.id))
        == Ordering::Less
}

#[derive(Debug, Clone, Copy)]
struct Node {
    /// Slot of the winner, or `NONE`.
    winner: u32,
    /// The earliest certificate expiry in this subtree (this node's
    /// included).
    expires: Time,
}

const EMPTY: Node = Node {
    winner: NONE,
    expires: NEVER,
};

/// The tournament (see the module docs).
#[derive(Debug, Clone, Default)]
pub(crate) struct Tournament {
    /// Lines by slot; `None` for free slots.
    slots: Vec<Option<Line>>,
    /// Free slots.
    free: Vec<u32>,
    /// Per job index, its slot (`NONE` if absent).
    slot_of: Vec<u32>,
    /// Heap-ordered tree: node 1 is the root, leaves at `capacity + slot`.
    nodes: Vec<Node>,
    /// The time every certificate was last valid for.
    time: Time,
}

impl Tournament {
    /// Removes every line.
    pub(crate) fn clear(&mut self) {
        *self = Self {
            time: self.time,
            ..Self::default()
        };
    }

    fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Adds job `id`, submitted at `submit`, whose score grows as `growth`
    /// (it must not be in).
    pub(crate) fn insert(&mut self, id: JobId, growth: Growth, submit: Time) {
        let line = Line::new(id, growth, submit);
        if self.free.is_empty() {
            self.grow();
        }
        let Some(slot) = self.free.pop() else {
            return;
        };
        self.slots[slot as usize] = Some(line);
        if self.slot_of.len() <= id.index() {
            self.slot_of.resize(id.index() + 1, NONE);
        }
        self.slot_of[id.index()] = slot;
        let leaf = self.capacity() + slot as usize;
        self.nodes[leaf] = Node {
            winner: slot,
            expires: NEVER,
        };
        self.fix_path(leaf);
    }

    /// Removes job `id`'s line; false if it was not in.
    pub(crate) fn remove(&mut self, id: JobId) -> bool {
        let Some(&slot) = self.slot_of.get(id.index()).filter(|&&s| s != NONE) else {
            return false;
        };
        self.slot_of[id.index()] = NONE;
        self.slots[slot as usize] = None;
        self.free.push(slot);
        let leaf = self.capacity() + slot as usize;
        self.nodes[leaf] = EMPTY;
        self.fix_path(leaf);
        true
    }

    /// The job ranked first at `now`.
    pub(crate) fn top(&mut self, now: Time) -> Option<JobId> {
        if self.nodes.is_empty() {
            return None;
        }
        if now < self.time {
            self.rebuild(now);
        } else {
            self.time = now;
            self.replay(1);
        }
        let winner = self.nodes[1].winner;
        (winner != NONE).then(|| self.line(winner).id)
    }

    fn line(&self, slot: u32) -> &Line {
        // Winners are always occupied slots.
        self.slots[slot as usize]
            .as_ref()
            .unwrap_or_else(|| unreachable!("winner slot {slot} is empty"))
    }

    /// Doubles the capacity (at least 1) and rebuilds the tree.
    fn grow(&mut self) {
        let old = self.capacity();
        let capacity = (2 * old).max(1);
        self.slots.resize(capacity, None);
        self.free.extend((old as u32..capacity as u32).rev());
        self.rebuild(self.time);
    }

    /// Every node from the leaves up, at time `t`.
    fn rebuild(&mut self, t: Time) {
        self.time = t;
        let capacity = self.capacity();
        self.nodes = vec![EMPTY; 2 * capacity];
        for slot in 0..capacity {
            if self.slots[slot].is_some() {
                self.nodes[capacity + slot] = Node {
                    winner: slot as u32,
                    expires: NEVER,
                };
            }
        }
        for node in (1..capacity).rev() {
            self.decide(node);
        }
    }

    /// Redoes the nodes from `leaf`'s parent to the root.
    fn fix_path(&mut self, leaf: usize) {
        let mut node = leaf / 2;
        while node >= 1 {
            self.decide(node);
            node /= 2;
        }
    }

    /// Re-plays the expired certificates under `node`, at `self.time`.
    fn replay(&mut self, node: usize) {
        if self.nodes[node].expires > self.time || node >= self.capacity() {
            return;
        }
        self.replay(2 * node);
        self.replay(2 * node + 1);
        self.decide(node);
    }

    /// The winner of `node`'s children at `self.time` and its certificate
    /// (the children are up to date).
    fn decide(&mut self, node: usize) {
        let (left, right) = (self.nodes[2 * node], self.nodes[2 * node + 1]);
        let children = left.expires.min(right.expires);
        self.nodes[node] = match (left.winner, right.winner) {
            (NONE, NONE) => EMPTY,
            (NONE, only) | (only, NONE) => Node {
                winner: only,
                expires: children,
            },
            (a, b) => {
                let t = self.time;
                let (la, lb) = (self.line(a), self.line(b));
                let (winner, wl, ll) = if ranks_before(la, lb, t) {
                    (a, la, lb)
                } else {
                    (b, lb, la)
                };
                Node {
                    winner,
                    expires: expiry(wl, ll, t).min(children),
                }
            }
        };
    }
}

/// The first second after `t` at which `loser` may overtake `winner`,
/// early by at least a second: never if its slope is not larger.
///
/// The crossing is counted from the winner's submission, x seconds after
/// it: `start_w + slope_w x = start_l + slope_l (x + submit_w - submit_l)`,
/// so that only score-sized values are subtracted (no products of a slope
/// and an absolute time, which would cancel). It is then moved earlier by
/// a generous bound on the rounding of the two scores and of x itself
/// (relative to the slopes' difference, so negligible unless the lines are
/// nearly parallel).
fn expiry(winner: &Line, loser: &Line, t: Time) -> Time {
    if loser.slope <= winner.slope {
        return NEVER;
    }
    let closing = loser.slope - winner.slope;
    let lead = loser.slope * (winner.submit - loser.submit) as f64;
    let x = (winner.start - loser.start - lead) / closing;
    let scale = winner.start.abs()
        + loser.start.abs()
        + lead.abs()
        + (winner.slope.abs() + loser.slope.abs()) * x.abs();
    let early = x - 16.0 * f64::EPSILON * scale / closing;
    if !early.is_finite() || early >= 9.0e15 {
        return NEVER;
    }
    // `as` saturates; a crossing before `t` is re-checked at `t + 1`.
    winner
        .submit
        .saturating_add(early.floor() as Time)
        .saturating_sub(1)
        .max(t + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The score `base + slope (t - submit)`.
    fn growth(base: f64, slope: f64) -> Growth {
        Growth {
            w: 1.0,
            base,
            a: slope,
            divisor: 1.0,
        }
    }

    /// The full sort's first at `t`.
    fn naive(lines: &[(Growth, Time)], alive: &[bool], t: Time) -> Option<JobId> {
        let mut best: Option<Line> = None;
        for (i, &(growth, submit)) in lines.iter().enumerate() {
            if !alive[i] {
                continue;
            }
            let line = Line::new(JobId(i as u32), growth, submit);
            if best.is_none_or(|b| ranks_before(&line, &b, t)) {
                best = Some(line);
            }
        }
        best.map(|l| l.id)
    }

    #[test]
    fn follows_overtaking_lines() {
        // Job 0: 100 + 0 t, job 1: 0 + 1 t (overtakes at t = 100), job 2:
        // -300 + 2 t (overtakes job 1 at 300, job 0 at 200).
        let mut tournament = Tournament::default();
        tournament.insert(JobId(0), growth(100.0, 0.0), 0);
        tournament.insert(JobId(1), growth(0.0, 1.0), 0);
        tournament.insert(JobId(2), growth(-300.0, 2.0), 0);
        assert_eq!(tournament.top(0), Some(JobId(0)));
        // At 100 jobs 0 and 1 tie at 100 (and job 2 has -100): id 0 first.
        assert_eq!(tournament.top(100), Some(JobId(0)));
        assert_eq!(tournament.top(101), Some(JobId(1)));
        // At 300 jobs 1 and 2 tie at 300: id 1 first; at 301 job 2.
        assert_eq!(tournament.top(300), Some(JobId(1)));
        assert_eq!(tournament.top(301), Some(JobId(2)));
        assert!(tournament.remove(JobId(2)));
        assert!(!tournament.remove(JobId(2)));
        assert_eq!(tournament.top(301), Some(JobId(1)));
        // Back in time: rebuilt.
        assert_eq!(tournament.top(50), Some(JobId(0)));
    }

    #[test]
    fn agrees_with_the_full_sort_under_churn() {
        // A fixed pseudo-random sequence of inserts, removals and queries
        // at growing times.
        let mut state: u64 = 99;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let mut tournament = Tournament::default();
        let mut lines = Vec::new();
        let mut alive = Vec::new();
        let mut t: Time = 0;
        for _ in 0..3000 {
            t += next(50) as Time;
            match next(3) {
                0 | 1 => {
                    let slope = next(100) as f64 / 1000.0;
                    let submit = t - next(20) as Time;
                    let line = growth(next(5) as f64, slope);
                    let id = JobId(lines.len() as u32);
                    lines.push((line, submit));
                    alive.push(true);
                    tournament.insert(id, line, submit);
                }
                _ => {
                    if let Some(id) = naive(&lines, &alive, t) {
                        alive[id.index()] = false;
                        assert!(tournament.remove(id));
                    }
                }
            }
            assert_eq!(tournament.top(t), naive(&lines, &alive, t), "t = {t}");
        }
    }
}
