//! Generation speed: the target is 1M jobs in at most 1 s (release).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use lublin_model::{CwfGenerator, CwfParams, EstimateParams, LublinGenerator, LublinParams};

const JOBS: usize = 1_000_000;

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate_1M");
    group.sample_size(10);
    let cases = [
        ("lublin_typed_128", LublinParams::default()),
        (
            "lublin_typeless_1024",
            LublinParams::for_machine(1024).job_types(false),
        ),
        (
            "lublin_typed_1024_load0.8_fmodel",
            LublinParams::for_machine(1024)
                .load(0.8)
                .estimate(EstimateParams::f_model(3.0).rounded()),
        ),
    ];
    for (name, params) in cases {
        let g = LublinGenerator::new(params, 1).unwrap();
        group.bench_function(name, |b| b.iter(|| black_box(g.generate(black_box(JOBS)))));
    }
    // Streaming: the same records, consumed one at a time (what a writer
    // does), without holding 1M records of 312 bytes in memory.
    let g = LublinGenerator::new(LublinParams::default(), 1).unwrap();
    group.bench_function("lublin_typed_128_streamed", |b| {
        b.iter(|| black_box(g.records(black_box(JOBS)).map(|r| r.submit_time).max()));
    });
    let g = CwfGenerator::new(CwfParams::default(), 1).unwrap();
    group.bench_function("cwf_default_streamed", |b| {
        b.iter(|| black_box(g.records(black_box(JOBS)).map(|r| r.submit_time).max()));
    });
    group.bench_function("cwf_default", |b| {
        b.iter(|| black_box(g.generate(black_box(JOBS))));
    });
    let g = CwfGenerator::new(CwfParams::default().load(0.9), 1).unwrap();
    group.bench_function("cwf_load0.9", |b| {
        b.iter(|| black_box(g.generate(black_box(JOBS))));
    });
    group.finish();
}

criterion_group!(benches, generate);
criterion_main!(benches);
