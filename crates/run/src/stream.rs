//! A workload file parsed on a helper thread while the calling thread
//! normalizes the records parsed so far (`load_workload`).
//!
//! Parsing is the larger part of reading a trace, and normalizing the
//! records into jobs used to wait for all of it. Now the helper parses
//! batches of records and the caller packs and normalizes each batch as it
//! comes: the two overlap, and the records are packed from the parsed
//! records rather than decoded again from their packed bytes.
//!
//! Batches are recycled, so that a few allocations serve the whole file.

use std::collections::VecDeque;
use std::io::BufRead;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use workload_format::{PackedRecords, ReadError, Reader, Record};

/// Records a batch holds.
const BATCH: usize = 256;
/// Batches parsed ahead of the normalization (a bounded channel: the
/// parser waits when the normalization falls behind).
const AHEAD: usize = 4;

/// The parser's end of the channel.
pub(crate) struct Feeder {
    batches: SyncSender<VecDeque<Record>>,
    recycled: Receiver<VecDeque<Record>>,
}

/// The records as the parser sends them: an iterator that also packs each
/// record it yields (until [`stop_packing`](Self::stop_packing)).
pub(crate) struct Streamed {
    batches: Receiver<VecDeque<Record>>,
    recycle: SyncSender<VecDeque<Record>>,
    current: VecDeque<Record>,
    packed: Option<PackedRecords>,
}

/// A connected parser end and records end.
pub(crate) fn channel() -> (Feeder, Streamed) {
    let (batch_sender, batch_receiver) = sync_channel(AHEAD);
    let (recycle_sender, recycle_receiver) = sync_channel(AHEAD + 2);
    (
        Feeder {
            batches: batch_sender,
            recycled: recycle_receiver,
        },
        Streamed {
            batches: batch_receiver,
            recycle: recycle_sender,
            current: VecDeque::new(),
            packed: Some(PackedRecords::new()),
        },
    )
}

impl Feeder {
    /// Sends every record of `reader`, in order. Once the records end is
    /// dropped (its user failed), reads on without sending, so that a bad
    /// line further on is still reported as reading the whole file would.
    ///
    /// # Errors
    /// The reader's (an I/O error or, strict, the first bad line); the
    /// records end then sees the records end early.
    pub(crate) fn feed<R: BufRead>(self, reader: &mut Reader<R>) -> Result<(), ReadError> {
        let mut batch = VecDeque::with_capacity(BATCH);
        let mut listened = true;
        for record in reader {
            let record = record?;
            if !listened {
                continue;
            }
            batch.push_back(record);
            if batch.len() == BATCH {
                let next = self
                    .recycled
                    .try_recv()
                    .unwrap_or_else(|_| VecDeque::with_capacity(BATCH));
                listened = self
                    .batches
                    .send(std::mem::replace(&mut batch, next))
                    .is_ok();
            }
        }
        if listened && !batch.is_empty() {
            // A records end that is gone wants nothing more.
            let _ = self.batches.send(batch);
        }
        Ok(())
    }
}

impl Streamed {
    /// Yields the records without packing them (the caller changes them
    /// before it packs them).
    pub(crate) fn stop_packing(&mut self) {
        self.packed = None;
    }

    /// The records yielded so far, packed.
    pub(crate) fn take_packed(&mut self) -> PackedRecords {
        self.packed.take().unwrap_or_default()
    }
}

impl Iterator for Streamed {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        loop {
            if let Some(record) = self.current.pop_front() {
                if let Some(packed) = &mut self.packed {
                    packed.push(&record);
                }
                return Some(record);
            }
            let next = self.batches.recv().ok()?;
            let emptied = std::mem::replace(&mut self.current, next);
            // A full pool, or a parser that has finished, lets it go.
            let _ = self.recycle.try_send(emptied);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use workload_format::ReadOptions;

    fn swf(jobs: usize, bad_line: Option<usize>) -> String {
        let mut text = String::from("; MaxProcs: 8\n");
        for number in 1..=jobs {
            if Some(number) == bad_line {
                text.push_str("not a record\n");
            } else {
                text.push_str(&format!(
                    "{number} {number} -1 60 4 -1 -1 4 120 -1 1 1 1 -1 1 -1 -1 -1\n"
                ));
            }
        }
        text
    }

    #[test]
    fn records_arrive_in_order_and_packed() {
        // More than a few batches, and a last batch that is not full.
        let jobs = 3 * BATCH + 17;
        let text = swf(jobs, None);
        let mut reader = Reader::new(text.as_bytes(), "t.swf", ReadOptions::strict()).unwrap();
        let (feeder, mut streamed) = channel();
        let (fed, numbers) = std::thread::scope(|scope| {
            let parser = scope.spawn(|| feeder.feed(&mut reader));
            let numbers: Vec<u64> = streamed.by_ref().map(|r| r.job_number).collect();
            (parser.join().unwrap(), numbers)
        });
        fed.unwrap();
        assert_eq!(numbers, (1..=jobs as u64).collect::<Vec<_>>());
        let packed = streamed.take_packed();
        let expected: Vec<Record> = Reader::new(text.as_bytes(), "t.swf", ReadOptions::strict())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(packed.to_vec(), expected);
    }

    #[test]
    fn a_bad_line_ends_the_records_and_is_reported() {
        // Strict: line 2 + 600 (the header is line 1) is not a record.
        let text = swf(1_000, Some(600));
        let mut reader = Reader::new(text.as_bytes(), "t.swf", ReadOptions::strict()).unwrap();
        let (feeder, mut streamed) = channel();
        let (fed, count) = std::thread::scope(|scope| {
            let parser = scope.spawn(|| feeder.feed(&mut reader));
            let count = streamed.by_ref().count();
            (parser.join().unwrap(), count)
        });
        // The full batches before it arrive: 2 x 256 of the 599 good
        // records; the 87 of the unfinished batch go with the error.
        assert_eq!(count, 2 * BATCH);
        let message = fed.unwrap_err().to_string();
        assert!(
            message.contains("t.swf") && message.contains("601"),
            "{message}"
        );
    }

    #[test]
    fn a_reader_whose_records_end_is_gone_still_finds_a_later_bad_line() {
        // The caller stops after one record (its normalization failed);
        // the parser reads on and reports the bad line near the end.
        let text = swf(5 * BATCH, Some(5 * BATCH - 3));
        let mut reader = Reader::new(text.as_bytes(), "t.swf", ReadOptions::strict()).unwrap();
        let (feeder, mut streamed) = channel();
        let fed = std::thread::scope(|scope| {
            let parser = scope.spawn(|| feeder.feed(&mut reader));
            assert_eq!(streamed.next().map(|r| r.job_number), Some(1));
            drop(streamed);
            parser.join().unwrap()
        });
        let message = fed.unwrap_err().to_string();
        assert!(message.contains(&(5 * BATCH - 2).to_string()), "{message}");
    }
}
