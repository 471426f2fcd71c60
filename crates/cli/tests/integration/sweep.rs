//! `schedsim sweep` end to end: a clean run, a resumed run (pre-seeded
//! finished cells and a stray temporary file, as a killed sweep leaves
//! them), shards, and the Slurm script. The resumed and sharded sweeps must
//! merge into byte-identical results.

use crate::support::{ok, run, s, temp_dir};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// 300 jobs on 16 processors from a fixed linear congruential sequence:
/// sizes 1-16, runtimes 10-2000 s, estimates 1-3 times the runtime.
fn write_fixture(dir: &Path) {
    let mut state: u64 = 12345;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let mut text = String::from("; MaxProcs: 16\n");
    let mut submit = 0;
    for job in 1..=300 {
        submit += next(200);
        let size = 1 + next(16);
        let runtime = 10 + next(1990);
        let estimate = runtime * (1 + next(3));
        text.push_str(&format!(
            "{job} {submit} -1 {runtime} {size} -1 -1 {size} {estimate} -1 1 1 1 -1 1 -1 -1 -1\n"
        ));
    }
    fs::write(dir.join("tiny.swf"), text).expect("write fixture");
}

const SPEC: &str = r#"
name = "tiny"
loads = [0.6, 0.9]
seeds = [1, 2]
policies = ["fcfs", "easy", "los:lookahead=10"]
baseline = "easy"
metrics = ["response.mean", "wait.mean", "bounded_slowdown.mean", "utilization"]
batches = 10

[[workload]]
name = "tiny"
file = "tiny.swf"

[[workload]]
name = "gen"
lublin = { nodes = 16, jobs = 300, estimate_f = 3.0 }
"#;

/// Cells: file workload 2 loads x 3 policies (scale: no seed) + generated
/// 2 loads x 2 seeds x 3 policies = 6 + 12.
const CELLS: usize = 18;

fn setup(test: &str) -> (PathBuf, PathBuf) {
    let dir = temp_dir(&format!("sweep-{test}"));
    write_fixture(&dir);
    let spec = dir.join("sweep.toml");
    fs::write(&spec, SPEC).expect("write spec");
    (dir, spec)
}

fn cell_files(out: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(out.join("cells"))
        .expect("cells folder")
        .map(|e| {
            let e = e.expect("entry");
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).expect("read cell"),
            )
        })
        .collect()
}

/// Every file the merge writes, by path relative to the sweep folder.
fn merged(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for name in ["results.csv", "differentials.csv"] {
        files.insert(name.to_owned(), fs::read(out.join(name)).expect(name));
    }
    for workload in ["tiny", "gen"] {
        let dir = out.join("plots").join(workload);
        for entry in fs::read_dir(&dir).expect("plots folder") {
            let entry = entry.expect("entry");
            files.insert(
                format!("plots/{workload}/{}", entry.file_name().to_string_lossy()),
                fs::read(entry.path()).expect("plot"),
            );
        }
    }
    files
}

/// Legend entries of a figure: name -> the stroke colour of its sample
/// line (the last stroke drawn before the entry's text).
fn legend_colours(svg: &str) -> BTreeMap<String, String> {
    let mut legend = BTreeMap::new();
    let mut stroke = String::new();
    let mut lines = svg.lines();
    while let Some(line) = lines.next() {
        if let Some(at) = line.find("stroke=\"#") {
            stroke = line[at + 8..at + 15].to_owned();
        }
        // Legend texts are the only left-anchored ones (ticks and axis
        // descriptions are centred or right-aligned).
        if line.starts_with("<text") && line.contains("text-anchor=\"start\"") {
            let name = lines.next().unwrap_or_default().trim().to_owned();
            legend.insert(name, stroke.clone());
        }
    }
    legend
}

/// Every policy has one colour across the figures of a sweep (absolute
/// metrics, differentials against the baseline, queue over time), and
/// every text is at least 8 pt when the figure is 3.5 inches (252 pt) wide.
fn figures_keep_policy_styles_and_print_sizes(files: &BTreeMap<String, Vec<u8>>) {
    let svg = |name: &str| String::from_utf8_lossy(&files[name]).into_owned();
    let response = legend_colours(&svg("plots/tiny/response_mean.svg"));
    let diff = legend_colours(&svg("plots/tiny/diff_wait.svg"));
    let queue = legend_colours(&svg("plots/tiny/queue_0.9.svg"));
    let generated = legend_colours(&svg("plots/gen/utilization.svg"));
    assert_eq!(response.len(), 3, "{response:?}");
    for policy in ["fcfs", "los:lookahead=10"] {
        // The differential's legend names the policy (the caption names
        // the baseline).
        assert_eq!(response[policy], diff[policy], "{policy}");
    }
    for policy in ["fcfs", "easy", "los:lookahead=10"] {
        assert_eq!(response[policy], queue[policy], "{policy}");
        assert_eq!(response[policy], generated[policy], "{policy}");
    }
    // Three policies, three colours.
    let distinct: std::collections::BTreeSet<_> = response.values().collect();
    assert_eq!(distinct.len(), 3);
    for (name, bytes) in files.iter().filter(|(n, _)| n.ends_with(".svg")) {
        let text = String::from_utf8_lossy(bytes);
        let attribute = |key: &str, from: &str| -> f64 {
            let at = from.find(key).expect(key) + key.len();
            from[at..].split('"').next().unwrap().parse().unwrap()
        };
        let width = attribute("width=\"", &text);
        let smallest = 8.0 * width / 252.0;
        for piece in text.split("font-size=\"").skip(1) {
            let size: f64 = piece.split('"').next().unwrap().parse().unwrap();
            assert!(size >= smallest, "{name}: font {size} px < {smallest} px");
        }
    }
}

#[test]
fn resumed_and_sharded_sweeps_merge_like_a_clean_one() {
    let (dir, spec) = setup("resume");
    let clean = dir.join("clean");
    let report = ok(&run(&["sweep", s(&spec), "--out", s(&clean), "--quiet"]));
    assert!(
        report.contains(&format!(
            "{CELLS} cells (shard 0/1): 0 already finished, {CELLS} run"
        )),
        "{report}"
    );
    ok(&run(&["sweep", s(&spec), "--out", s(&clean), "--merge"]));
    let expected = merged(&clean);
    let clean_cells = cell_files(&clean);
    assert_eq!(clean_cells.len(), CELLS);
    // One row per run x metric: 18 runs x 4 metrics, plus the header.
    let results = String::from_utf8_lossy(&expected["results.csv"]).into_owned();
    assert_eq!(results.lines().count(), 1 + CELLS * 4);
    assert!(
        results.starts_with("workload,load,load_method,seed,policy,achieved_load,metric,value\n")
    );
    // Differentials: fcfs and LOS against easy at each of the 6 instances,
    // 3 metrics each.
    let diffs = String::from_utf8_lossy(&expected["differentials.csv"]).into_owned();
    assert_eq!(diffs.lines().count(), 1 + 2 * 6 * 3);
    // Batch means of unequal batches: jobs = batches x batch_size +
    // larger_batches (the first larger_batches batches take one job more).
    let header: Vec<&str> = diffs.lines().next().unwrap().split(',').collect();
    assert_eq!(
        header[header.len() - 4..],
        ["jobs", "batches", "batch_size", "larger_batches"]
    );
    for line in diffs.lines().skip(1) {
        let n: Vec<u64> = line
            .rsplit(',')
            .take(4)
            .map(|field| field.parse().unwrap())
            .collect();
        let (larger, size, batches, jobs) = (n[0], n[1], n[2], n[3]);
        assert_eq!(jobs, batches * size + larger, "{line}");
        assert!(larger < batches.max(1), "{line}");
    }
    for plot in [
        "plots/tiny/utilization.svg",
        "plots/tiny/diff_response.svg",
        "plots/tiny/diff_bounded_slowdown.svg",
        "plots/tiny/response_mean.svg",
        "plots/tiny/queue_0.9.svg",
        "plots/gen/diff_wait.svg",
    ] {
        assert!(expected.contains_key(plot), "missing {plot}");
    }
    figures_keep_policy_styles_and_print_sizes(&expected);

    // A killed sweep: every other cell finished, one write cut short.
    let resumed = dir.join("resumed");
    fs::create_dir_all(resumed.join("cells")).unwrap();
    let mut seeded = Vec::new();
    for (name, bytes) in clean_cells.iter().step_by(2) {
        fs::write(resumed.join("cells").join(name), bytes).unwrap();
        seeded.push(name.clone());
    }
    let stray = resumed
        .join("cells")
        .join(format!(".{}.tmp.host.999.0", seeded[0]));
    fs::write(&stray, &clean_cells[&seeded[0]][..100]).unwrap();
    let modified = |name: &str| {
        fs::metadata(resumed.join("cells").join(name))
            .and_then(|m| m.modified())
            .unwrap()
    };
    let before: Vec<_> = seeded.iter().map(|n| modified(n)).collect();
    let report = ok(&run(&["sweep", s(&spec), "--out", s(&resumed), "--quiet"]));
    assert!(
        report.contains(&format!(
            "{} already finished, {} run",
            seeded.len(),
            CELLS - seeded.len()
        )),
        "{report}"
    );
    // Finished cells are not rewritten; the stray file is left to the merge.
    let after: Vec<_> = seeded.iter().map(|n| modified(n)).collect();
    assert_eq!(before, after);
    assert!(stray.exists());
    let report = ok(&run(&["sweep", s(&spec), "--out", s(&resumed), "--merge"]));
    assert!(
        report.contains("1 stray temporary files removed"),
        "{report}"
    );
    assert!(!stray.exists());
    // Nothing lost, nothing duplicated: the same cell files, byte for byte.
    assert_eq!(cell_files(&resumed), clean_cells);
    assert_eq!(merged(&resumed), expected);
    // A third run has nothing to do.
    let report = ok(&run(&["sweep", s(&spec), "--out", s(&resumed), "--quiet"]));
    assert!(
        report.contains(&format!("{CELLS} already finished, 0 run")),
        "{report}"
    );

    // Shards: merging before every shard ran is refused; after, identical.
    let sharded = dir.join("sharded");
    for shard in ["0/3", "1/3"] {
        ok(&run(&[
            "sweep",
            s(&spec),
            "--out",
            s(&sharded),
            "--shard",
            shard,
            "--quiet",
        ]));
    }
    let refused = run(&["sweep", s(&spec), "--out", s(&sharded), "--merge"]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("6 of 18 cells are not finished"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    ok(&run(&[
        "sweep",
        s(&spec),
        "--out",
        s(&sharded),
        "--shard",
        "2/3",
        "--quiet",
    ]));
    ok(&run(&["sweep", s(&spec), "--out", s(&sharded), "--merge"]));
    assert_eq!(merged(&sharded), expected);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn slurm_script_runs_one_shard_per_array_task() {
    let (dir, spec) = setup("slurm");
    let out = dir.join("out");
    let report = ok(&run(&[
        "sweep",
        s(&spec),
        "--out",
        s(&out),
        "--slurm",
        "--shards",
        "3",
        "--sbatch-option=--time=10",
    ]));
    assert!(report.contains("sbatch"), "{report}");
    let script = fs::read_to_string(out.join("sweep.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-2\n"), "{script}");
    assert!(script.contains("#SBATCH --time=10\n"));
    assert!(script.contains("--shard \"${SLURM_ARRAY_TASK_ID}/3\""));
    assert!(script.contains(env!("CARGO_BIN_EXE_schedsim")));
    assert!(out.join("slurm").is_dir());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn bad_specs_are_reported() {
    let (dir, spec) = setup("bad");
    fs::write(&spec, SPEC.replace("los:lookahead=10", "los:lookahead=ten")).unwrap();
    let output = run(&["sweep", s(&spec), "--out", s(&dir.join("out"))]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("policy `los:lookahead=ten`"), "{stderr}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn untrusted_cells_run_again_names_stay_inside_and_a_running_sweep_is_not_doubled() {
    let dir = temp_dir("sweep-robust");
    write_fixture(&dir);
    let spec = dir.join("odd.toml");
    // A workload name that would climb out of plots/ and a policy spec
    // with a comma (quoted in the CSV).
    fs::write(
        &spec,
        r#"
name = "odd"
loads = [0.8]
policies = ["easy", "los:lookahead=5,merit=maxjobs"]
metrics = ["wait.mean"]

[[workload]]
name = "../../x y"
file = "tiny.swf"
"#,
    )
    .unwrap();
    let out = dir.join("out");
    ok(&run(&["sweep", s(&spec), "--out", s(&out), "--quiet"]));

    // An emptied result file and one holding the other cell's result are
    // not results: both cells run again, with a warning each.
    let cells = cell_files(&out);
    assert_eq!(cells.len(), 2);
    let names: Vec<&String> = cells.keys().collect();
    fs::write(out.join("cells").join(names[0]), b"").unwrap();
    fs::write(out.join("cells").join(names[1]), &cells[names[0]]).unwrap();
    let output = run(&["sweep", s(&spec), "--out", s(&out), "--quiet"]);
    let report = ok(&output);
    assert!(
        report.contains("2 cells (shard 0/1): 0 already finished, 2 run (2 of them again"),
        "{report}"
    );
    let warnings = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(warnings.contains("not a cell result"), "{warnings}");
    assert!(
        warnings.contains("it holds another cell's result"),
        "{warnings}"
    );
    assert_eq!(
        cell_files(&out),
        cells,
        "rerun cells differ from the first run"
    );

    // A result whose content was edited (a count here) no longer matches
    // its digest: merge refuses it, and a run redoes it with a warning.
    let first = out.join("cells").join(names[0]);
    let text = fs::read_to_string(&first).unwrap();
    assert!(text.contains("\"dropped_jobs\":0,"), "{text}");
    fs::write(
        &first,
        text.replace("\"dropped_jobs\":0,", "\"dropped_jobs\":7,"),
    )
    .unwrap();
    let output = run(&["sweep", s(&spec), "--out", s(&out), "--merge"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        stderr.contains("its content does not match its digest (edited or damaged)"),
        "{stderr}"
    );
    let output = run(&["sweep", s(&spec), "--out", s(&out), "--quiet"]);
    assert!(ok(&output).contains("1 run (1 of them again"));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("does not match its digest"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(cell_files(&out), cells, "the redone cell differs");

    // A figure no longer drawn (as after a workload is renamed) is removed.
    let stale = out.join("plots").join("old-name");
    fs::create_dir_all(&stale).unwrap();
    fs::write(stale.join("wait_mean.svg"), "<svg/>").unwrap();
    let report = ok(&run(&["sweep", s(&spec), "--out", s(&out), "--merge"]));
    assert!(
        report.contains("1 figures of earlier merges removed"),
        "{report}"
    );
    assert!(!stale.exists());
    // The odd name became one folder inside plots/; nothing outside.
    assert!(
        out.join("plots/_.._.._x_y/wait_mean.svg").exists(),
        "{report}"
    );
    assert!(!dir.join("x y").exists() && !out.join("x y").exists());
    let results = fs::read_to_string(out.join("results.csv")).unwrap();
    assert!(
        results.contains("\"los:lookahead=5,merit=maxjobs\""),
        "{results}"
    );

    // A cell file whose hash was edited is no result of this spec: merge
    // refuses it (a run would rerun it), as it refuses a missing cell.
    let first = out.join("cells").join(names[0]);
    let text = fs::read_to_string(&first).unwrap();
    let hash = names[0].trim_end_matches(".json");
    fs::write(&first, text.replace(hash, "0123456789abcdef")).unwrap();
    let output = run(&["sweep", s(&spec), "--out", s(&out), "--merge"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        stderr.contains("holds another cell's result than its name says"),
        "{stderr}"
    );
    fs::write(&first, text).unwrap();

    // While a sweep holds the shard's lock, a second one refuses.
    let lock = fs::OpenOptions::new()
        .write(true)
        .open(out.join(".lock-shard-0-of-1"))
        .expect("the first sweep left its lock file");
    lock.lock().unwrap();
    let output = run(&["sweep", s(&spec), "--out", s(&out), "--quiet"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        stderr.contains("another sweep is running shard 0/1"),
        "{stderr}"
    );
    lock.unlock().unwrap();
    ok(&run(&["sweep", s(&spec), "--out", s(&out), "--quiet"]));

    // Names that would share one folder are refused.
    let clash = dir.join("clash.toml");
    fs::write(
        &clash,
        r#"
loads = [0.8]
policies = ["easy"]
[[workload]]
name = "a/b"
file = "tiny.swf"
[[workload]]
name = "a_b"
file = "tiny.swf"
"#,
    )
    .unwrap();
    let output = run(&["sweep", s(&clash), "--out", s(&out)]);
    assert_ne!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        stderr.contains("workload names `a/b` and `a_b` both become the folder plots/a_b"),
        "{stderr}"
    );
}

#[test]
fn cwf_sweeps_report_batch_and_dedicated_jobs_apart() {
    // A small heterogeneous CWF workload (half dedicated jobs): the cells
    // carry the batch-only and dedicated-only metrics and the dedicated
    // jobs' start delays, which the merge writes like any metric path.
    let dir = temp_dir("sweep-split");
    let spec = dir.join("split.toml");
    fs::write(
        &spec,
        r#"name = "split"
loads = [0.9]
seeds = [3]
granularity = 32
policies = ["easy-d", "easy-d:dedicated=head", "hybrid-los"]
baseline = "easy-d"
metrics = ["wait.mean", "batch.wait.mean", "dedicated.wait.mean", "delay.mean", "delay.delayed"]

[[workload]]
name = "het"
cwf = { jobs = 120, params = { small_prob = 0.5, dedicated_prob = 0.5, extend_prob = 0.0, reduce_prob = 0.0 } }

[[workload]]
name = "batch"
cwf = { jobs = 60, params = { small_prob = 0.5, dedicated_prob = 0.0, extend_prob = 0.0, reduce_prob = 0.0 } }
"#,
    )
    .expect("write spec");
    let out = dir.join("out");
    ok(&run(&["sweep", s(&spec), "--out", s(&out), "--quiet"]));
    ok(&run(&[
        "sweep",
        s(&spec),
        "--out",
        s(&out),
        "--merge",
        "--quiet",
    ]));
    let results = fs::read_to_string(out.join("results.csv")).expect("results.csv");
    // A batch-only workload has no split: its figures of those metrics are
    // left out, the others drawn.
    assert!(out.join("plots/batch/wait_mean.svg").exists());
    assert!(!out.join("plots/batch/batch_wait_mean.svg").exists());
    assert!(out.join("plots/het/delay_mean.svg").exists());
    for policy in ["easy-d", "easy-d:dedicated=head", "hybrid-los"] {
        for metric in [
            "batch.wait.mean",
            "dedicated.wait.mean",
            "delay.mean",
            "delay.delayed",
        ] {
            let row = results
                .lines()
                .find(|line| {
                    line.starts_with("het,")
                        && line.contains(&format!(",{metric},"))
                        && line.contains(policy)
                })
                .unwrap_or_else(|| panic!("no {metric} for {policy}:\n{results}"));
            let value = row.rsplit(',').next().unwrap_or_default();
            assert!(value.parse::<f64>().is_ok(), "{policy} {metric}: `{row}`");
        }
    }
    let _ = fs::remove_dir_all(&dir);
}
