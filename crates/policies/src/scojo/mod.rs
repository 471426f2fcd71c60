//! SCOJO-PECT and its dynamic group optimiser
//! (../shared/papers/scojo-pect-dynamic-grouping.txt).
//!
//! SCOJO-PECT (thesis section 4, after Esbaugh and Sodan) time-shares the
//! machine between runtime classes: short (< `short-below`, 10 min),
//! medium (< `medium-below`, 3 h) and long jobs. A cycle of `cycle` seconds
//! is cut into one slice per class with shares `long-share` (0.73) and
//! `medium-share` (0.265), the rest short. At a slice start the class's
//! suspended jobs resume on the processors they had, its waiting jobs start
//! FCFS with EASY backfilling, then (`smart`) other classes' suspended and
//! waiting jobs fill processors where they do not collide; at the slice end
//! the class's running jobs are suspended (`slice-end`). Each suspend and
//! resume costs the run's switch overhead (`--suspend-overhead`,
//! `--resume-overhead`; the thesis uses 60 s).
//!
//! With smart backfilling off, a class whose slice is no longer than a
//! suspension plus a resumption never progresses: the thesis's 0.5% short
//! share with its 60 s overheads does so for any cycle under 6.7 hours,
//! and the thesis does not say how its runs without smart backfilling
//! avoided it. The policy stops with an error naming the job; `min-slice`
//! (ours, default 0) lengthens every slice to at least that many seconds,
//! the cycle growing by what is added (docs/RESULTS.md uses 300 s).
//!
//! `scojo-pect-opt` adds the dynamic group optimiser (sections 6-7): when
//! enough long or medium jobs wait (`long-min-jobs`/`medium-min-jobs`, at
//! most `*-max-jobs`, total size above `*-size-factor` times the machine,
//! the work criterion with `*-lambda` and `*-mean-runtime`), they form a
//! group whose order is searched on a virtual schedule: level 1 permutes
//! the long-wide jobs, level 2 walks orders by discrepancy (`search=lds`,
//! `dds` or `dfs`) with branch and bound on total bounded slowdown, at most
//! `budget` schedules per group (10,000), force-shifting into earlier gaps;
//! the best of three by makespan, utilization and response (`alpha`,
//! `beta`, `gamma`) becomes the plan, which later jobs backfill around.
//!
//! Readings where the thesis is garbled or silent are options (see each
//! option's text in `schedsim policies`). One addition of ours: a node
//! budget ([`NODES_PER_SCHEDULE`](search::NODES_PER_SCHEDULE) placements
//! per schedule of the budget), since with branch and bound most paths are
//! cut before they become schedules and the discrepancy passes could
//! otherwise visit factorially many nodes of a 20-30 job group without
//! spending any budget.

mod config;
mod group;
mod policy;
mod procset;
mod search;
mod spec;

pub use config::{
    GroupParams, JobClass, OptimiserConfig, Rounding, ScojoConfig, SearchConfig, SearchOrder,
    Selection, SliceEnd, Tail, WorkCriterion,
};
pub use policy::{ScojoCounters, ScojoPect};
pub use search::{
    MAX_SEARCH_NODES, NODES_PER_SCHEDULE, SearchCounters, SearchInput, SearchJob, SearchOutcome,
    search_group,
};
pub(crate) use spec::{OPT_OPTIONS, SCOJO_OPTIONS, build, config};
