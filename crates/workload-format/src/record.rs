use serde::{Deserialize, Serialize};

/// One data line of an SWF or CWF file: a job submission or, in CWF, an
/// elastic control command (ECC) for an earlier job with the same number.
///
/// Every field that SWF allows to be `-1` ("unknown") is an [`Option`]:
/// `None` is written back as `-1`, so the magic number never reaches
/// arithmetic. Values below `-1` are invalid input.
///
/// Field numbers in the docs are the 1-based SWF field numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Field 1: job number. Cleaned logs keep the original numbers, so this
    /// is not `1..=N`; it is never unknown.
    pub job_number: u64,
    /// Field 2: submit time, seconds since the log's start.
    pub submit_time: Option<u64>,
    /// Field 3: wait time, seconds from submit to start.
    pub wait_time: Option<u64>,
    /// Field 4: run time, wall-clock seconds (may be 0).
    pub run_time: Option<u64>,
    /// Field 5: number of allocated processors (may be 0 in real logs).
    pub allocated_processors: Option<u64>,
    /// Field 6: average CPU time used per processor, seconds. The only field
    /// kept as a float, because real logs hold fractions here.
    pub average_cpu_time: Option<f64>,
    /// Field 7: used memory, KB per processor.
    pub used_memory: Option<u64>,
    /// Field 8: requested number of processors.
    pub requested_processors: Option<u64>,
    /// Field 9: requested time (the user's runtime estimate), seconds.
    pub requested_time: Option<u64>,
    /// Field 10: requested memory, KB per processor.
    pub requested_memory: Option<u64>,
    /// Field 11: completion status.
    pub status: Option<JobStatus>,
    /// Field 12: user id.
    pub user_id: Option<u64>,
    /// Field 13: group id.
    pub group_id: Option<u64>,
    /// Field 14: executable (application) number.
    pub executable_number: Option<u64>,
    /// Field 15: queue number; by convention 0 is interactive.
    pub queue_number: Option<u64>,
    /// Field 16: partition number.
    pub partition_number: Option<u64>,
    /// Field 17: preceding job number (dependencies, feedback).
    pub preceding_job_number: Option<u64>,
    /// Field 18: think time from the preceding job, seconds.
    pub think_time: Option<u64>,
    /// Fields 19-21, present when the line is a CWF line (21 fields).
    pub cwf: Option<CwfFields>,
}

/// The three fields that the Cloud Workload Format adds to SWF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CwfFields {
    /// Field 19: requested start time of a dedicated job, seconds since the
    /// log's start; `None` (`-1`) for batch jobs.
    pub requested_start_time: Option<u64>,
    /// Field 20: what the line is: a submission or an elastic control command.
    pub request_type: RequestType,
    /// Field 21: the extension or reduction amount: seconds for
    /// [`RequestType::ExtendTime`]/[`RequestType::ReduceTime`], processors
    /// for [`RequestType::ExtendProcessors`]/[`RequestType::ReduceProcessors`].
    pub amount: Option<u64>,
}

/// CWF field 20: a normal submission or an elastic control command (ECC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RequestType {
    /// `S`: a normal job submission.
    #[serde(rename = "S")]
    Submit,
    /// `ET`: extend the job's requested time by the amount (seconds).
    #[serde(rename = "ET")]
    ExtendTime,
    /// `RT`: reduce the job's requested time by the amount (seconds).
    #[serde(rename = "RT")]
    ReduceTime,
    /// `EP`: extend the job's processors by the amount.
    #[serde(rename = "EP")]
    ExtendProcessors,
    /// `RP`: reduce the job's processors by the amount.
    #[serde(rename = "RP")]
    ReduceProcessors,
}

impl RequestType {
    /// Every request type, in the order the CWF definition lists them.
    pub const ALL: [Self; 5] = [
        Self::Submit,
        Self::ExtendTime,
        Self::ReduceTime,
        Self::ExtendProcessors,
        Self::ReduceProcessors,
    ];

    /// The token written in field 20.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Submit => "S",
            Self::ExtendTime => "ET",
            Self::ReduceTime => "RT",
            Self::ExtendProcessors => "EP",
            Self::ReduceProcessors => "RP",
        }
    }

    /// Parses a field-20 token (`S`, `ET`, `RT`, `EP`, `RP`; exact case).
    pub fn from_token(token: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == token)
    }
}

/// SWF field 11: how the job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum JobStatus {
    /// `0`: the job failed.
    Failed,
    /// `1`: the job completed normally.
    Completed,
    /// `2`: partial execution, to be continued (checkpointing logs).
    PartialToBeContinued,
    /// `3`: last partial execution, completed.
    PartialLastCompleted,
    /// `4`: last partial execution, failed.
    PartialLastFailed,
    /// `5`: the job was cancelled (it may still have run for a while).
    Cancelled,
}

impl JobStatus {
    /// Every status, in code order (0 to 5).
    pub const ALL: [Self; 6] = [
        Self::Failed,
        Self::Completed,
        Self::PartialToBeContinued,
        Self::PartialLastCompleted,
        Self::PartialLastFailed,
        Self::Cancelled,
    ];

    /// The name serde (and so JSON lines) writes: the variant's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Failed => "Failed",
            Self::Completed => "Completed",
            Self::PartialToBeContinued => "PartialToBeContinued",
            Self::PartialLastCompleted => "PartialLastCompleted",
            Self::PartialLastFailed => "PartialLastFailed",
            Self::Cancelled => "Cancelled",
        }
    }

    /// The numeric code written in field 11.
    pub fn code(self) -> u8 {
        match self {
            Self::Failed => 0,
            Self::Completed => 1,
            Self::PartialToBeContinued => 2,
            Self::PartialLastCompleted => 3,
            Self::PartialLastFailed => 4,
            Self::Cancelled => 5,
        }
    }

    /// The status for a numeric code, if it is one of `0..=5`.
    pub fn from_code(code: u64) -> Option<Self> {
        Self::ALL.get(usize::try_from(code).ok()?).copied()
    }
}

impl Record {
    /// Fields 7-18 (used memory to think time) in SWF order, the status
    /// as its code: the integer fields after the average CPU time, as the
    /// writers emit them.
    pub(crate) fn fields_7_to_18(&self) -> [Option<u64>; 12] {
        [
            self.used_memory,
            self.requested_processors,
            self.requested_time,
            self.requested_memory,
            self.status.map(|s| u64::from(s.code())),
            self.user_id,
            self.group_id,
            self.executable_number,
            self.queue_number,
            self.partition_number,
            self.preceding_job_number,
            self.think_time,
        ]
    }

    /// A record with the given job number and every other field unknown
    /// (an SWF line, not CWF). Convenient for generators and tests.
    pub fn unknown(job_number: u64) -> Self {
        Self {
            job_number,
            submit_time: None,
            wait_time: None,
            run_time: None,
            allocated_processors: None,
            average_cpu_time: None,
            used_memory: None,
            requested_processors: None,
            requested_time: None,
            requested_memory: None,
            status: None,
            user_id: None,
            group_id: None,
            executable_number: None,
            queue_number: None,
            partition_number: None,
            preceding_job_number: None,
            think_time: None,
            cwf: None,
        }
    }

    /// The CWF request type; plain SWF lines are submissions.
    pub fn request_type(&self) -> RequestType {
        self.cwf.map_or(RequestType::Submit, |c| c.request_type)
    }

    /// Whether this line is an elastic control command (CWF `ET`/`RT`/`EP`/`RP`).
    pub fn is_command(&self) -> bool {
        self.request_type() != RequestType::Submit
    }

    /// The requested start time of a dedicated CWF job.
    pub fn requested_start_time(&self) -> Option<u64> {
        self.cwf.and_then(|c| c.requested_start_time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_of_statuses_and_request_types_follow_the_codes_and_serde() {
        for (code, status) in JobStatus::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(status.code()), code);
            assert_eq!(JobStatus::from_code(code as u64), Some(status));
            // JSON lines reads back the names serde writes.
            let written = serde_json::to_string(&status).unwrap();
            assert_eq!(written, format!("{:?}", status.name()));
        }
        assert_eq!(JobStatus::from_code(6), None);
        for request_type in RequestType::ALL {
            assert_eq!(
                RequestType::from_token(request_type.as_str()),
                Some(request_type)
            );
            let written = serde_json::to_string(&request_type).unwrap();
            assert_eq!(written, format!("{:?}", request_type.as_str()));
        }
        assert_eq!(RequestType::from_token("s"), None);
    }
}
