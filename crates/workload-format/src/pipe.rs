//! A reader that runs its source on a helper thread: used for gzip input, so
//! that decompression and parsing overlap on two cores.

use std::io::{self, BufRead, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

/// Bytes per chunk handed from the helper thread.
const CHUNK_BYTES: usize = 256 * 1024;
/// Chunks in flight: enough to smooth out speed differences, little memory.
const CHUNKS_IN_FLIGHT: usize = 4;

/// A [`BufRead`] fed by a thread that reads `source` ahead in chunks. The
/// thread stops at the end of the input, at an error (passed on), or when
/// this reader is dropped.
pub(crate) struct ThreadedReader {
    chunks: Receiver<io::Result<Vec<u8>>>,
    /// Emptied chunks go back for reuse.
    spare: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    position: usize,
    done: bool,
}

impl ThreadedReader {
    pub(crate) fn spawn<R: Read + Send + 'static>(mut source: R) -> io::Result<Self> {
        let (chunk_tx, chunk_rx) = sync_channel::<io::Result<Vec<u8>>>(CHUNKS_IN_FLIGHT);
        let (spare_tx, spare_rx) = sync_channel::<Vec<u8>>(CHUNKS_IN_FLIGHT + 2);
        thread::Builder::new()
            .name("workload-format-read".into())
            .spawn(move || {
                loop {
                    let mut chunk = spare_rx.try_recv().unwrap_or_default();
                    chunk.clear();
                    chunk.resize(CHUNK_BYTES, 0);
                    let mut filled = 0;
                    let result = loop {
                        match source.read(&mut chunk[filled..]) {
                            Ok(0) => break Ok(()),
                            Ok(n) => {
                                filled += n;
                                if filled == chunk.len() {
                                    break Ok(());
                                }
                            }
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(e) => break Err(e),
                        }
                    };
                    chunk.truncate(filled);
                    let at_end = filled == 0;
                    // Pass on what was read before an error, then the error.
                    if filled > 0 && chunk_tx.send(Ok(chunk)).is_err() {
                        return; // The reader was dropped.
                    }
                    if let Err(e) = result {
                        let _ = chunk_tx.send(Err(e));
                        return;
                    }
                    if at_end {
                        return; // Dropping the sender tells the reader: end.
                    }
                }
            })?;
        Ok(Self {
            chunks: chunk_rx,
            spare: spare_tx,
            current: Vec::new(),
            position: 0,
            done: false,
        })
    }
}

impl Read for ThreadedReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ThreadedReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.position >= self.current.len() && !self.done {
            match self.chunks.recv() {
                Ok(Ok(chunk)) => {
                    let used = std::mem::replace(&mut self.current, chunk);
                    self.position = 0;
                    // If the thread has ended or the queue is full, the
                    // buffer is simply freed.
                    let _ = self.spare.try_send(used);
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => self.done = true,
            }
        }
        Ok(&self.current[self.position.min(self.current.len())..])
    }

    fn consume(&mut self, amount: usize) {
        self.position = (self.position + amount).min(self.current.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_every_byte_in_order() {
        let data: Vec<u8> = (0..(3 * CHUNK_BYTES + 17))
            .map(|i| (i % 251) as u8)
            .collect();
        let mut reader = ThreadedReader::spawn(io::Cursor::new(data.clone())).unwrap();
        let mut out = Vec::new();
        reader.read_to_end(&mut out).unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn passes_on_errors_after_the_data() {
        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::other("broken"));
                }
                let n = self.0.min(buf.len());
                buf[..n].fill(b'x');
                self.0 -= n;
                Ok(n)
            }
        }
        let mut reader = ThreadedReader::spawn(Failing(10)).unwrap();
        let mut out = Vec::new();
        let err = reader.read_to_end(&mut out).unwrap_err();
        assert_eq!(err.to_string(), "broken");
        assert_eq!(out, b"xxxxxxxxxx");
    }
}
