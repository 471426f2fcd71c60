//! Generated workloads written with workload-format's writer parse back
//! (strictly) to identical records and header.

use lublin_model::{CwfGenerator, CwfParams, EstimateParams, LublinGenerator, LublinParams};
use workload_format::{ReadOptions, Workload, read_from, workload_to_string};

fn round_trip(workload: &Workload) -> Workload {
    let text = workload_to_string(workload).unwrap();
    read_from(text.as_bytes(), "generated", &ReadOptions::strict()).unwrap()
}

#[test]
fn cwf_round_trips() {
    let generator = CwfGenerator::new(CwfParams::default().load(0.8), 5).unwrap();
    let generated = generator.generate_detailed(3000);
    let header = generator.header(&generated).unwrap();
    let workload = Workload::new(header, generated.records.clone());
    let parsed = round_trip(&workload);
    assert!(parsed.same_content(&workload));
    assert_eq!(parsed.records, generated.records);
    // Every line is a CWF line (21 fields); some are ET/RT commands.
    assert!(parsed.records.iter().all(|r| r.cwf.is_some()));
    assert!(parsed.records.iter().any(|r| r.is_command()));
    assert_eq!(parsed.header.max_procs(), Some(320));
    assert_eq!(parsed.header.max_nodes(), Some(320));
    assert_eq!(parsed.header.max_jobs(), Some(3000));
    assert_eq!(
        parsed.header.max_records(),
        Some(generated.records.len() as u64)
    );
    // The parameters Note reads back into the same parameters.
    let json = parsed
        .header
        .get_all("Note")
        .find_map(|n| n.strip_prefix("parameters "))
        .unwrap();
    let params: CwfParams = serde_json::from_str(json).unwrap();
    assert_eq!(&params, generator.params());
}

#[test]
fn lublin_round_trips() {
    let params = LublinParams::for_machine(256)
        .load(0.7)
        .estimate(EstimateParams::f_model(2.0).rounded());
    let generator = LublinGenerator::new(params, 6).unwrap();
    let generated = generator.generate_detailed(3000);
    let header = generator.header(&generated).unwrap();
    let workload = Workload::new(header, generated.records.clone());
    let parsed = round_trip(&workload);
    assert!(parsed.same_content(&workload));
    assert!(parsed.records.iter().all(|r| r.cwf.is_none()));
    assert_eq!(parsed.header.max_nodes(), Some(256));
    // (int) e^12 = 162754, as the reference writes.
    assert_eq!(parsed.header.max_runtime(), Some(162_754));
    let note = parsed.header.get_all("Note").next().unwrap();
    assert!(note.contains("seed 6"), "{note}");
    let json = parsed
        .header
        .get_all("Note")
        .find_map(|n| n.strip_prefix("parameters "))
        .unwrap();
    let back: LublinParams = serde_json::from_str(json).unwrap();
    assert_eq!(&back, generator.params());
}

#[test]
fn streamed_summary_gives_the_collected_header() {
    // The header written before streamed records (tallied from a clone of
    // the iterator) is the header of the collected records, with and without
    // a target load, for both generators and for tiny workloads.
    for n in [0, 1, 2, 2500] {
        for params in [
            LublinParams::default(),
            LublinParams::for_machine(512)
                .job_types(false)
                .load(0.6)
                .estimate(EstimateParams::f_model(3.0)),
        ] {
            let generator = LublinGenerator::new(params, 9).unwrap();
            let generated = generator.generate_detailed(n);
            let records = generator.records(n);
            let summary = records.clone().summary();
            assert_eq!(summary, generated.summary());
            assert_eq!(records.collect::<Vec<_>>(), generated.records);
            assert_eq!(summary.jobs, n);
            assert_eq!(summary.records, n);
            assert_eq!(summary.offered_load, generated.offered_load);
            assert_eq!(
                generator.header_for(&summary).unwrap(),
                generator.header(&generated).unwrap()
            );
        }
        let generator = CwfGenerator::new(CwfParams::default().load(0.8), 4).unwrap();
        let generated = generator.generate_detailed(n);
        let records = generator.records(n);
        let summary = records.clone().summary();
        assert_eq!(summary, generated.summary());
        assert_eq!(records.collect::<Vec<_>>(), generated.records);
        assert_eq!(summary.jobs, n);
        assert_eq!(summary.records, generated.records.len());
        assert_eq!(
            generator.header_for(&summary).unwrap(),
            generator.header(&generated).unwrap()
        );
    }
}

#[test]
fn summary_counts_by_hand() {
    // Two jobs submitted at 0 and 100 s on the default 320-processor machine
    // with no commands (P_E = P_R = 0): jobs 2, records 2, span 100.
    let params = {
        let mut params = CwfParams::default();
        params.extend_prob = 0.0;
        params.reduce_prob = 0.0;
        params
    };
    let generator = CwfGenerator::new(params, 1).unwrap();
    let generated = generator.generate_detailed(2);
    let summary = generated.summary();
    let submits: Vec<u64> = generated
        .records
        .iter()
        .map(|r| r.submit_time.unwrap())
        .collect();
    assert_eq!((summary.jobs, summary.records), (2, 2));
    assert_eq!(summary.first_submit, Some(submits[0]));
    assert_eq!(summary.last_submit, Some(submits[1]));
    assert_eq!(summary.span(), submits[1] - submits[0]);
    // No jobs: no submit range, span 0, no load.
    let empty = generator.generate_detailed(0).summary();
    assert_eq!(
        (empty.first_submit, empty.span(), empty.offered_load),
        (None, 0, None)
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    #[test]
    fn any_cwf_workload_round_trips(
        seed in proptest::prelude::any::<u64>(),
        small in 0.0f64..=1.0,
        dedicated in 0.0f64..=1.0,
        n in 0usize..200,
    ) {
        let params = { let mut params = CwfParams::default(); params.small_prob = small; params.dedicated_prob = dedicated; params };
        let generator = CwfGenerator::new(params, seed).unwrap();
        let generated = generator.generate_detailed(n);
        let workload = Workload::new(generator.header(&generated).unwrap(), generated.records);
        proptest::prop_assert!(round_trip(&workload).same_content(&workload));
    }
}
