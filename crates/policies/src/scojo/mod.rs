//! SCOJO-PECT and its dynamic group optimiser (docs in progress).

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
pub use search::{SearchCounters, SearchInput, SearchJob, SearchOutcome, search_group};
pub(crate) use spec::{OPT_OPTIONS, SCOJO_OPTIONS, build};
