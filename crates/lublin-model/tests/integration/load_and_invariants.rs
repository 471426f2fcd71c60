//! Target-load accuracy over several seeds and loads, and property tests of
//! the generators' invariants.

use lublin_model::{
    CwfGenerator, CwfParams, EstimateParams, LublinGenerator, LublinParams, offered_load,
};
use proptest::prelude::*;
use workload_format::RequestType;

#[test]
fn lublin_target_load_within_two_percent() {
    // 10,000 jobs (the promise is for 10k+), typed and typeless, three
    // machine sizes, four seeds, three loads: 36 workloads.
    let mut worst = 0.0f64;
    for (machine, typed) in [(128, true), (256, false), (1024, true)] {
        for seed in 1..=4 {
            for target in [0.5, 0.8, 1.0] {
                let params = LublinParams::for_machine(machine)
                    .job_types(typed)
                    .load(target);
                let out = LublinGenerator::new(params, seed)
                    .unwrap()
                    .generate_detailed(10_000);
                let load = offered_load(&out.records, u64::from(machine)).unwrap();
                let error = (load - target).abs() / target;
                worst = worst.max(error);
                assert!(
                    error < 0.02,
                    "{machine} nodes, typed {typed}, seed {seed}: load {load} for {target} (scale {})",
                    out.arrival_scale
                );
            }
        }
    }
    println!("worst relative load error: {worst:.2e}");
}

#[test]
fn cwf_target_load_within_two_percent() {
    for seed in 1..=4 {
        for target in [0.5, 0.7, 0.9, 1.0] {
            let out = CwfGenerator::new(CwfParams::default().load(target), seed)
                .unwrap()
                .generate_detailed(10_000);
            let load = offered_load(&out.records, 320).unwrap();
            assert!(
                (load - target).abs() / target < 0.02,
                "seed {seed}: load {load} for {target}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn lublin_records_are_well_formed(
        seed in any::<u64>(),
        machine in 1u32..5000,
        typed in any::<bool>(),
        f in 1.0f64..10.0,
        n in 0usize..400,
    ) {
        let params = LublinParams::for_machine(machine)
            .job_types(typed)
            .estimate(EstimateParams::f_model(f));
        let records = LublinGenerator::new(params, seed).unwrap().generate(n);
        prop_assert_eq!(records.len(), n);
        for (i, r) in records.iter().enumerate() {
            prop_assert_eq!(r.job_number, i as u64 + 1);
            let size = r.allocated_processors.unwrap();
            prop_assert!(size >= 1 && size <= u64::from(machine));
            let runtime = r.run_time.unwrap();
            prop_assert!((1..=162_754).contains(&runtime));
            let estimate = r.requested_time.unwrap();
            prop_assert!(estimate >= runtime && estimate as f64 <= (runtime as f64 * f).ceil());
        }
        prop_assert!(records.windows(2).all(|w| w[0].submit_time <= w[1].submit_time));
    }

    #[test]
    fn cwf_lines_are_well_formed(
        seed in any::<u64>(),
        small in 0.0f64..=1.0,
        dedicated in 0.0f64..=1.0,
        extend in 0.0f64..=1.0,
        reduce in 0.0f64..=1.0,
        n in 0usize..300,
    ) {
        let params = { let mut params = CwfParams::default(); params.small_prob = small; params.dedicated_prob = dedicated; params.extend_prob = extend; params.reduce_prob = reduce; params };
        let lines = CwfGenerator::new(params, seed).unwrap().generate(n);
        let mut submitted = vec![None; n + 1];
        for r in &lines {
            let cwf = r.cwf.unwrap();
            let number = r.job_number as usize;
            let time = r.submit_time.unwrap();
            if cwf.request_type == RequestType::Submit {
                prop_assert!(submitted[number].is_none());
                submitted[number] = Some(time);
                let size = r.allocated_processors.unwrap();
                prop_assert!(size % 32 == 0 && (32..=320).contains(&size));
                prop_assert!(cwf.requested_start_time.is_none_or(|s| s >= time));
            } else {
                let at = submitted[number];
                prop_assert!(at.is_some_and(|s| s < time), "command before its job");
                prop_assert!(cwf.amount.is_some_and(|a| a >= 1));
            }
        }
        prop_assert!(submitted[1..].iter().all(Option::is_some));
        let key = |r: &workload_format::Record| {
            (r.submit_time, r.is_command(), r.job_number, r.request_type())
        };
        prop_assert!(lines.windows(2).all(|w| key(&w[0]) <= key(&w[1])));
    }
}
