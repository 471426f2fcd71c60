use schedsim_sim_core::{Decisions, JobId, Time, View};

/// Where and when the first waiting job that does not fit can start: the
/// shadow time and the extra processors (LOS thesis section 3.2.1 and
/// appendix A.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shadow {
    /// When the job is expected to be able to start.
    pub time: Time,
    /// Processors still free at that time once the job has started (the
    /// "extra nodes" of EASY, the "shadow free capacity" of LOS).
    pub extra: u32,
}

/// Computes the shadow for a job of `size` processors that does not fit in
/// the `free` processors now. The running jobs of `view` plus the jobs this
/// policy has just started (`started`: `(expected end, size)` sorted by end)
/// are walked by expected end, accumulating their processors until `size`
/// fit; that end is the shadow time. Every job ending at that same instant
/// counts towards the extra processors, since all of them are free "at this
/// time" (appendix A.1, step 1d). Returns `None` if the job never fits.
pub fn shadow(view: &View<'_>, started: &[(Time, u32)], free: u32, size: u32) -> Option<Shadow> {
    if size <= free {
        return None;
    }
    let mut running = view
        .running()
        .map(|job| (job.expected_end, job.size))
        .peekable();
    let mut started = started.iter().copied().peekable();
    let mut next_end = move || match (running.peek(), started.peek()) {
        (Some(a), Some(b)) if b.0 < a.0 => started.next(),
        (Some(_), _) => running.next(),
        (None, _) => started.next(),
    };
    let mut available = free;
    while let Some((end, job_size)) = next_end() {
        available += job_size;
        if available >= size {
            let mut extra = available - size;
            // Everything else ending at the same instant is free then too.
            loop {
                match next_end() {
                    Some((other_end, other_size)) if other_end == end => extra += other_size,
                    _ => break,
                }
            }
            return Some(Shadow { time: end, extra });
        }
    }
    None
}

/// The jobs a policy starts during one call, kept as (expected end, size)
/// sorted by end: for the rest of the call they count as running, e.g. in
/// the shadow computation. Reused across calls; clear it at the start of
/// each.
#[derive(Debug, Clone, Default)]
pub struct Starts {
    ends: Vec<(Time, u32)>,
}

impl Starts {
    /// Forgets the jobs of the previous call.
    pub fn clear(&mut self) {
        self.ends.clear();
    }

    /// Starts `id` now: records the decision and its expected end.
    pub fn start(&mut self, view: &View<'_>, id: JobId, decisions: &mut Decisions) {
        decisions.start(id);
        let end = view.now() + view.estimate(id);
        let position = self.ends.partition_point(|&(e, _)| e <= end);
        self.ends.insert(position, (end, view.job(id).size));
    }

    /// Starts the jobs at the front of `queue` while they fit in `free`
    /// (which it lowers); returns the position of the first job that does
    /// not fit (`queue.len()` if all started).
    pub fn start_heads(
        &mut self,
        view: &View<'_>,
        queue: &[JobId],
        free: &mut u32,
        decisions: &mut Decisions,
    ) -> usize {
        let mut position = 0;
        while let Some(&id) = queue.get(position) {
            let size = view.job(id).size;
            if size > *free {
                break;
            }
            self.start(view, id, decisions);
            *free -= size;
            position += 1;
        }
        position
    }

    /// The shadow of a job of `size` processors with `free` processors
    /// free, counting the jobs started so far (see [`shadow`]).
    pub fn shadow(&self, view: &View<'_>, free: u32, size: u32) -> Option<Shadow> {
        shadow(view, &self.ends, free, size)
    }

    /// (expected end, size) of the jobs started so far, sorted by end.
    pub fn ends(&self) -> &[(Time, u32)] {
        &self.ends
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedsim_sim_core::{Job, JobId, ViewStorage};

    fn job(size: u32, estimate: Time) -> Job {
        Job::new(0, 0, size, estimate, estimate)
    }

    #[test]
    fn thesis_example_shadow_28_extra_3() {
        // LOS thesis figures 3.2 and 3.4: N = 10, at t = 25 one job of size 5
        // with 3 s left (started at 22 with estimate 6); the head needs 7.
        // 5 free + 5 at 28 = 10 >= 7, so shadow = 28 and extra = 10 - 7 = 3.
        let jobs = [job(5, 6), job(7, 4)];
        let mut storage = ViewStorage::default();
        let view = View::new(25, 10, &jobs, &[JobId(1)], &[(JobId(0), 22)], &mut storage);
        assert_eq!(
            shadow(&view, &[], 5, 7),
            Some(Shadow { time: 28, extra: 3 })
        );
        // A job that fits now has no shadow.
        assert_eq!(shadow(&view, &[], 5, 5), None);
    }

    #[test]
    fn jobs_ending_at_the_shadow_time_all_count_as_extra() {
        // 8 processors: jobs of 2, 3 and 3 end at 10, 20, 20; 0 free.
        // A job of 4: 2 at 10 (not enough), +3 at 20 = 5 >= 4, and the other
        // job ending at 20 adds 3 more: extra = 5 + 3 - 4 = 4.
        let jobs = [job(2, 10), job(3, 20), job(3, 20), job(4, 5)];
        let mut storage = ViewStorage::default();
        let running = [(JobId(0), 0), (JobId(1), 0), (JobId(2), 0)];
        let view = View::new(0, 8, &jobs, &[JobId(3)], &running, &mut storage);
        assert_eq!(
            shadow(&view, &[], 0, 4),
            Some(Shadow { time: 20, extra: 4 })
        );
        // Jobs this policy just started are merged in: one of 1 processor
        // ending at 15 brings the shadow forward? No: 2 + 1 = 3 < 4 at 15,
        // still 20, and it adds to the extra: 2 + 1 + 3 + 3 - 4 = 5.
        assert_eq!(
            shadow(&view, &[(15, 1)], 0, 4),
            Some(Shadow { time: 20, extra: 5 })
        );
        // A started job of 2 ending at 15: 2 + 2 = 4 >= 4 at 15, extra 0.
        assert_eq!(
            shadow(&view, &[(15, 2)], 0, 4),
            Some(Shadow { time: 15, extra: 0 })
        );
    }
}
