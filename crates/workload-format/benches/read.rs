//! Read throughput on the LANL-CM5 trace (122k jobs, 11.4 MB uncompressed).
//!
//! Run: `SCHEDSIM_TRACES=/path/to/traces cargo bench -p workload-format`.
//! Targets (issue 2): the uncompressed bytes at >= 200 MB/s; the `.gz`
//! within 1.5x of `zcat FILE > /dev/null` (compare by hand, see the README).

use std::hint::black_box;
use std::io::Read;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use workload_format::{ReadOptions, Reader, open_path, read_from, read_path};

const TRACE: &str = "LANL-CM5-1994-4.1-cln.swf.gz";

fn trace_path() -> Option<PathBuf> {
    let Some(folder) = std::env::var_os("SCHEDSIM_TRACES") else {
        eprintln!("skipped: SCHEDSIM_TRACES not set (it names the folder holding {TRACE})");
        return None;
    };
    let path = PathBuf::from(folder).join(TRACE);
    if !path.exists() {
        eprintln!("skipped: {} does not exist", path.display());
        return None;
    }
    Some(path)
}

fn read(c: &mut Criterion) {
    let Some(path) = trace_path() else {
        return;
    };
    let compressed = std::fs::read(&path).expect("read the trace");
    let mut text = Vec::new();
    flate2::read::MultiGzDecoder::new(compressed.as_slice())
        .read_to_end(&mut text)
        .expect("decompress the trace");
    let options = ReadOptions::strict();

    let mut group = c.benchmark_group("lanl-cm5");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("stream records (uncompressed, in memory)", |b| {
        b.iter(|| {
            let reader = Reader::new(text.as_slice(), TRACE, options).expect("header");
            let mut jobs = 0u64;
            for record in reader {
                jobs += black_box(record.expect("record")).job_number & 1;
            }
            jobs
        });
    });
    group.bench_function("read_from (uncompressed, in memory, into a Vec)", |b| {
        b.iter(|| read_from(text.as_slice(), TRACE, &options).expect("read"));
    });
    // Same byte count (uncompressed) so the MB/s compare with the above.
    group.bench_function("stream records (.gz file, open_path)", |b| {
        b.iter(|| {
            let reader = open_path(&path, &options).expect("header");
            let mut jobs = 0u64;
            for record in reader {
                jobs += black_box(record.expect("record")).job_number & 1;
            }
            jobs
        });
    });
    group.bench_function("read_path (.gz file, into a Vec)", |b| {
        b.iter(|| read_path(&path, &options).expect("read"));
    });
    group.finish();
}

criterion_group!(benches, read);
criterion_main!(benches);
