//! Parallel job scheduling policies for schedsim: FCFS, EASY, conservative and depth-k backfilling, LOS.
#![warn(missing_docs)]
