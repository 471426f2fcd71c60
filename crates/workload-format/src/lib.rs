//! Read and write the Standard Workload Format (SWF) of the Parallel
//! Workloads Archive and its Cloud Workload Format (CWF) extension.
#![warn(missing_docs)]

mod record;

pub use record::{CwfFields, JobStatus, Record, RequestType};
