//! Scheduling metrics: wait, response, bounded slowdown, utilization, AWRT, queue length, class breakdowns.
#![warn(missing_docs)]
