//! Prints read throughput for one workload file (best of N runs), for a
//! quick check without criterion:
//!
//! ```sh
//! cargo run --release -p workload-format --example throughput -- FILE.swf.gz [RUNS]
//! ```
//!
//! MB/s are uncompressed bytes per second in every row.

use std::io::Read;
use std::time::{Duration, Instant};

use workload_format::{ReadOptions, Reader, open_input, open_path, read_from, read_path};

fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: throughput FILE [RUNS]")?;
    let runs: usize = args.next().map_or(Ok(10), |r| r.parse())?;
    let mut text = Vec::new();
    open_input(path.as_ref())?.read_to_end(&mut text)?;
    let options = ReadOptions::strict();
    let megabytes = text.len() as f64 / 1e6;
    let report = |what: &str, d: Duration| {
        println!(
            "{what:<40} {:>8.1} ms {:>8.1} MB/s",
            d.as_secs_f64() * 1e3,
            megabytes / d.as_secs_f64()
        );
    };
    println!("{path}: {megabytes:.2} MB uncompressed, best of {runs} runs");
    report(
        "stream records (in memory)",
        best_of(runs, || {
            let reader = Reader::new(text.as_slice(), &path, options).expect("header");
            let n = reader
                .map(|r| r.expect("record").job_number & 1)
                .sum::<u64>();
            std::hint::black_box(n);
        }),
    );
    report(
        "read_from (in memory, into a Vec)",
        best_of(runs, || {
            std::hint::black_box(read_from(text.as_slice(), &path, &options).expect("read"));
        }),
    );
    report(
        "decompress only (open_input, if gzip)",
        best_of(runs, || {
            let mut sink = Vec::with_capacity(text.len());
            open_input(path.as_ref())
                .and_then(|mut input| input.read_to_end(&mut sink).map_err(|e| panic!("{e}")))
                .expect("read");
            std::hint::black_box(sink);
        }),
    );
    report(
        "stream records from the file (open_path)",
        best_of(runs, || {
            let reader = open_path(&path, &options).expect("header");
            let n = reader
                .map(|r| r.expect("record").job_number & 1)
                .sum::<u64>();
            std::hint::black_box(n);
        }),
    );
    report(
        "read_path (the file as given, into a Vec)",
        best_of(runs, || {
            std::hint::black_box(read_path(&path, &options).expect("read"));
        }),
    );
    Ok(())
}
