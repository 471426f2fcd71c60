//! [`PackedRecords`]: records kept in memory in a compact, lossless byte
//! encoding, for programs that hold a whole trace while they work on it.

use crate::record::{CwfFields, JobStatus, Record, RequestType};

/// Records in a compact, lossless encoding: about 25-40 bytes per record of
/// a real trace instead of the 312 bytes of a [`Record`]. Append with
/// [`push`](Self::push) (or collect), read back in order with
/// [`iter`](Self::iter); every record reads back equal to the one pushed
/// (`average_cpu_time` bit for bit).
///
/// The encoding, an implementation detail: per record a bit mask of the
/// fields present, then each present field as a LEB128 variable-length
/// integer; the job number and submit time as zig-zag differences from the
/// previous record's (logs are numbered and submitted in increasing order,
/// so these take a byte or two); an average CPU time that is a whole number
/// below 2^53 as an integer, any other value as its 8 bytes.
///
/// ```
/// use workload_format::{PackedRecords, Record};
/// let mut record = Record::unknown(7);
/// record.submit_time = Some(100);
/// record.average_cpu_time = Some(1.5);
/// let mut packed = PackedRecords::new();
/// packed.push(&record);
/// packed.push(&Record::unknown(8));
/// assert_eq!(packed.len(), 2);
/// assert_eq!(packed.iter().next(), Some(record));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackedRecords {
    bytes: Vec<u8>,
    len: usize,
    last_number: u64,
    last_submit: u64,
    /// The last job line's number (CWF commands left out), for
    /// [`PackedRecords::job_numbers_increase`].
    last_job_number: Option<u64>,
    job_numbers_out_of_order: bool,
    commands: usize,
}

/// Bits of the field mask, in encoding order after the job number.
const SUBMIT: u32 = 1 << 0;
const WAIT: u32 = 1 << 1;
const RUN: u32 = 1 << 2;
const ALLOCATED: u32 = 1 << 3;
const CPU_INTEGER: u32 = 1 << 4;
const CPU_BITS: u32 = 1 << 5;
const USED_MEMORY: u32 = 1 << 6;
const REQUESTED_PROCESSORS: u32 = 1 << 7;
const REQUESTED_TIME: u32 = 1 << 8;
const REQUESTED_MEMORY: u32 = 1 << 9;
const STATUS: u32 = 1 << 10;
const USER: u32 = 1 << 11;
const GROUP: u32 = 1 << 12;
const EXECUTABLE: u32 = 1 << 13;
const QUEUE: u32 = 1 << 14;
const PARTITION: u32 = 1 << 15;
const PRECEDING: u32 = 1 << 16;
const THINK: u32 = 1 << 17;
const CWF: u32 = 1 << 18;
const REQUESTED_START: u32 = 1 << 19;
const AMOUNT: u32 = 1 << 20;

/// Whole-number CPU times below this are stored as integers.
const CPU_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53

impl PackedRecords {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes the encoded records take (not counting spare capacity).
    pub fn encoded_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the job lines' numbers (CWF commands left out) strictly
    /// increase in the order pushed, as logs are usually numbered: then no
    /// number is given to two jobs, and a check for repeated numbers need
    /// not decode the records again.
    ///
    /// ```
    /// use workload_format::{PackedRecords, Record};
    ///
    /// let mut packed = PackedRecords::new();
    /// packed.push(&Record::unknown(1));
    /// packed.push(&Record::unknown(2));
    /// assert!(packed.job_numbers_increase());
    /// packed.push(&Record::unknown(2));
    /// assert!(!packed.job_numbers_increase());
    /// ```
    pub fn job_numbers_increase(&self) -> bool {
        !self.job_numbers_out_of_order
    }

    /// Number of CWF command lines among the records, counted as they were
    /// pushed (a count that does not decode them again).
    ///
    /// ```
    /// use workload_format::{CwfFields, PackedRecords, Record, RequestType};
    ///
    /// let mut command = Record::unknown(1);
    /// command.cwf = Some(CwfFields {
    ///     requested_start_time: None,
    ///     request_type: RequestType::ExtendTime,
    ///     amount: Some(60),
    /// });
    /// let packed: PackedRecords = [Record::unknown(1), command].iter().collect();
    /// assert_eq!(packed.command_count(), 1);
    /// ```
    pub fn command_count(&self) -> usize {
        self.commands
    }

    /// Gives spare capacity back to the allocator.
    pub fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
    }

    /// Appends a record.
    pub fn push(&mut self, record: &Record) {
        let cpu = record.average_cpu_time.map(|value| {
            // Whole, non-negative (not -0.0) and exact as an integer.
            if (0.0..CPU_INTEGER_LIMIT).contains(&value)
                && value.fract() == 0.0
                && value.is_sign_positive()
            {
                // In [0, 2^53) and whole: the cast is exact.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let whole = value as u64;
                Err(whole)
            } else {
                Ok(value.to_bits())
            }
        });
        let mut mask = 0;
        let mut flag = |present: bool, bit: u32| {
            if present {
                mask |= bit;
            }
        };
        flag(record.submit_time.is_some(), SUBMIT);
        flag(record.wait_time.is_some(), WAIT);
        flag(record.run_time.is_some(), RUN);
        flag(record.allocated_processors.is_some(), ALLOCATED);
        flag(matches!(cpu, Some(Err(_))), CPU_INTEGER);
        flag(matches!(cpu, Some(Ok(_))), CPU_BITS);
        let tail = record.fields_7_to_18();
        let tail_bits = [
            USED_MEMORY,
            REQUESTED_PROCESSORS,
            REQUESTED_TIME,
            REQUESTED_MEMORY,
            STATUS,
            USER,
            GROUP,
            EXECUTABLE,
            QUEUE,
            PARTITION,
            PRECEDING,
            THINK,
        ];
        for (value, bit) in tail.into_iter().zip(tail_bits) {
            flag(value.is_some(), bit);
        }
        flag(record.cwf.is_some(), CWF);
        flag(
            record.cwf.is_some_and(|c| c.requested_start_time.is_some()),
            REQUESTED_START,
        );
        flag(record.cwf.is_some_and(|c| c.amount.is_some()), AMOUNT);

        let out = &mut self.bytes;
        put(out, u64::from(mask));
        put(
            out,
            zigzag(record.job_number.wrapping_sub(self.last_number)),
        );
        self.last_number = record.job_number;
        if record.is_command() {
            self.commands += 1;
        } else {
            if self
                .last_job_number
                .is_some_and(|last| record.job_number <= last)
            {
                self.job_numbers_out_of_order = true;
            }
            self.last_job_number = Some(record.job_number);
        }
        if let Some(submit) = record.submit_time {
            put(out, zigzag(submit.wrapping_sub(self.last_submit)));
            self.last_submit = submit;
        }
        for value in [
            record.wait_time,
            record.run_time,
            record.allocated_processors,
        ]
        .into_iter()
        .flatten()
        {
            put(out, value);
        }
        match cpu {
            Some(Err(whole)) => put(out, whole),
            Some(Ok(bits)) => out.extend_from_slice(&bits.to_le_bytes()),
            None => {}
        }
        for value in tail.into_iter().flatten() {
            put(out, value);
        }
        if let Some(cwf) = record.cwf {
            out.push(request_code(cwf.request_type));
            for value in [cwf.requested_start_time, cwf.amount].into_iter().flatten() {
                put(out, value);
            }
        }
        self.len += 1;
    }

    /// The records in the order pushed.
    pub fn iter(&self) -> PackedIter<'_> {
        PackedIter {
            bytes: &self.bytes,
            remaining: self.len,
            last_number: 0,
            last_submit: 0,
        }
    }

    /// The records as a vector.
    pub fn to_vec(&self) -> Vec<Record> {
        let mut records = Vec::with_capacity(self.len);
        records.extend(self.iter());
        records
    }
}

impl<'a> Extend<&'a Record> for PackedRecords {
    fn extend<I: IntoIterator<Item = &'a Record>>(&mut self, records: I) {
        for record in records {
            self.push(record);
        }
    }
}

impl Extend<Record> for PackedRecords {
    fn extend<I: IntoIterator<Item = Record>>(&mut self, records: I) {
        for record in records {
            self.push(&record);
        }
    }
}

impl FromIterator<Record> for PackedRecords {
    fn from_iter<I: IntoIterator<Item = Record>>(records: I) -> Self {
        let mut packed = Self::new();
        packed.extend(records);
        packed
    }
}

impl<'a> FromIterator<&'a Record> for PackedRecords {
    fn from_iter<I: IntoIterator<Item = &'a Record>>(records: I) -> Self {
        let mut packed = Self::new();
        packed.extend(records);
        packed
    }
}

impl<'a> IntoIterator for &'a PackedRecords {
    type Item = Record;
    type IntoIter = PackedIter<'a>;

    fn into_iter(self) -> PackedIter<'a> {
        self.iter()
    }
}

/// The records of a [`PackedRecords`], decoded one at a time.
#[derive(Debug, Clone)]
pub struct PackedIter<'a> {
    bytes: &'a [u8],
    remaining: usize,
    last_number: u64,
    last_submit: u64,
}

impl Iterator for PackedIter<'_> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        // Only `push` wrote these bytes: the mask fits in 32 bits.
        #[allow(clippy::cast_possible_truncation)]
        let mask = self.take() as u32;
        let has = |bit: u32| mask & bit != 0;
        let mut record = Record::unknown(self.last_number.wrapping_add(unzigzag(self.take())));
        self.last_number = record.job_number;
        if has(SUBMIT) {
            let submit = self.last_submit.wrapping_add(unzigzag(self.take()));
            record.submit_time = Some(submit);
            self.last_submit = submit;
        }
        record.wait_time = self.field(has(WAIT));
        record.run_time = self.field(has(RUN));
        record.allocated_processors = self.field(has(ALLOCATED));
        if has(CPU_INTEGER) {
            // Stored only below 2^53: exact.
            #[allow(clippy::cast_precision_loss)]
            let value = self.take() as f64;
            record.average_cpu_time = Some(value);
        } else if has(CPU_BITS) {
            let (bits, rest) = self.bytes.split_at(8.min(self.bytes.len()));
            let mut raw = [0u8; 8];
            raw[..bits.len()].copy_from_slice(bits);
            self.bytes = rest;
            record.average_cpu_time = Some(f64::from_bits(u64::from_le_bytes(raw)));
        }
        record.used_memory = self.field(has(USED_MEMORY));
        record.requested_processors = self.field(has(REQUESTED_PROCESSORS));
        record.requested_time = self.field(has(REQUESTED_TIME));
        record.requested_memory = self.field(has(REQUESTED_MEMORY));
        record.status = self.field(has(STATUS)).and_then(JobStatus::from_code);
        record.user_id = self.field(has(USER));
        record.group_id = self.field(has(GROUP));
        record.executable_number = self.field(has(EXECUTABLE));
        record.queue_number = self.field(has(QUEUE));
        record.partition_number = self.field(has(PARTITION));
        record.preceding_job_number = self.field(has(PRECEDING));
        record.think_time = self.field(has(THINK));
        if has(CWF) {
            let code = self.bytes.first().copied().unwrap_or(0);
            self.bytes = self.bytes.get(1..).unwrap_or_default();
            record.cwf = Some(CwfFields {
                request_type: request_type(code),
                requested_start_time: self.field(has(REQUESTED_START)),
                amount: self.field(has(AMOUNT)),
            });
        }
        Some(record)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for PackedIter<'_> {}

impl PackedIter<'_> {
    /// The next variable-length integer.
    fn take(&mut self) -> u64 {
        let mut value = 0u64;
        let mut shift = 0;
        let mut used = 0;
        for &byte in self.bytes {
            used += 1;
            if shift < 64 {
                value |= u64::from(byte & 0x7f) << shift;
            }
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
        self.bytes = &self.bytes[used..];
        value
    }

    fn field(&mut self, present: bool) -> Option<u64> {
        present.then(|| self.take())
    }
}

/// Appends `value` as LEB128.
fn put(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        // The low 7 bits, with the continuation bit.
        #[allow(clippy::cast_possible_truncation)]
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    #[allow(clippy::cast_possible_truncation)]
    out.push(value as u8);
}

/// A difference (wrapping) as a small unsigned number: 0, -1, 1, -2, ...
/// map to 0, 1, 2, 3, ...
fn zigzag(difference: u64) -> u64 {
    let signed = difference.cast_signed();
    ((signed << 1) ^ (signed >> 63)).cast_unsigned()
}

fn unzigzag(value: u64) -> u64 {
    (value >> 1) ^ (value & 1).wrapping_neg()
}

fn request_code(request: RequestType) -> u8 {
    match request {
        RequestType::Submit => 0,
        RequestType::ExtendTime => 1,
        RequestType::ReduceTime => 2,
        RequestType::ExtendProcessors => 3,
        RequestType::ReduceProcessors => 4,
    }
}

fn request_type(code: u8) -> RequestType {
    match code {
        1 => RequestType::ExtendTime,
        2 => RequestType::ReduceTime,
        3 => RequestType::ExtendProcessors,
        4 => RequestType::ReduceProcessors,
        _ => RequestType::Submit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(number: u64) -> Record {
        Record {
            job_number: number,
            submit_time: Some(u64::MAX),
            wait_time: Some(0),
            run_time: Some(1 << 53),
            allocated_processors: Some(128),
            average_cpu_time: Some(12.25),
            used_memory: Some(u64::MAX - 1),
            requested_processors: Some(127),
            requested_time: Some(3600),
            requested_memory: Some(1),
            status: Some(JobStatus::PartialLastFailed),
            user_id: Some(3),
            group_id: Some(4),
            executable_number: Some(5),
            queue_number: Some(6),
            partition_number: Some(7),
            preceding_job_number: Some(8),
            think_time: Some(9),
            cwf: Some(CwfFields {
                requested_start_time: Some(10),
                request_type: RequestType::ReduceProcessors,
                amount: None,
            }),
        }
    }

    #[test]
    fn records_read_back_equal() {
        let mut records = vec![full(u64::MAX), Record::unknown(0), full(5), full(4)];
        for (i, cpu) in [
            0.0,
            -0.0,
            1.0,
            9_007_199_254_740_992.0,
            1e300,
            f64::NAN,
            f64::INFINITY,
            -3.0,
            0.1,
        ]
        .into_iter()
        .enumerate()
        {
            let mut record = Record::unknown(i as u64 * 1000);
            record.submit_time = Some(i as u64);
            record.average_cpu_time = Some(cpu);
            record.status = Some(JobStatus::Cancelled);
            record.cwf = Some(CwfFields {
                requested_start_time: None,
                request_type: RequestType::ExtendTime,
                amount: Some(60),
            });
            records.push(record);
        }
        let packed: PackedRecords = records.iter().collect();
        assert_eq!(packed.len(), records.len());
        let back = packed.to_vec();
        assert_eq!(back.len(), records.len());
        for (a, b) in records.iter().zip(&back) {
            // NaN != NaN: compare the CPU time's bits.
            assert_eq!(
                a.average_cpu_time.map(f64::to_bits),
                b.average_cpu_time.map(f64::to_bits)
            );
            let strip = |r: &Record| Record {
                average_cpu_time: None,
                ..r.clone()
            };
            assert_eq!(strip(a), strip(b));
        }
    }

    #[test]
    fn a_typical_record_is_small() {
        let mut packed = PackedRecords::new();
        for i in 0..1000u64 {
            let mut record = full(i + 1);
            record.submit_time = Some(i * 37);
            record.used_memory = Some(20_000);
            record.run_time = Some(7200);
            record.cwf = None;
            packed.push(&record);
        }
        assert!(
            packed.encoded_bytes() < 40 * 1000,
            "{}",
            packed.encoded_bytes()
        );
    }
}
