//! The LOS (Lookahead Optimizing Scheduler) dynamic-programming kernel: Basic_DP and Reservation_DP.
#![warn(missing_docs)]
