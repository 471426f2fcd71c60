//! The LOS (Lookahead Optimizing Scheduler) dynamic-programming kernel: Basic_DP and Reservation_DP.
#![warn(missing_docs)]

mod error;
mod kernel;
mod options;
mod solver;
mod table;

pub use error::Error;
pub use options::{DEFAULT_MEMORY_LIMIT, Merit, Options, Traceback, waiting_slowdown};
pub use solver::{Solution, Solver};
pub use table::{Cell, Table};
