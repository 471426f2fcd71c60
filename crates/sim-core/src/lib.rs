//! Discrete-event core of schedsim: machine, jobs, events, and the policy interface.
#![warn(missing_docs)]
