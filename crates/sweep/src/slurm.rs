//! `--slurm`: an sbatch job-array script, one array task per shard, each
//! running this sweep with `--shard $SLURM_ARRAY_TASK_ID/N` on the shared
//! output folder; `--merge` afterwards collects the results.

use std::fmt::Write as _;
use std::path::Path;

/// Settings of the generated script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlurmSettings {
    /// Array tasks (shards).
    pub shards: usize,
    /// CPUs per task (the sweep's threads in each task).
    pub cpus_per_task: usize,
    /// Extra `#SBATCH` options, e.g. `--partition=short`.
    pub options: Vec<String>,
}

/// Single-quotes `text` for the shell.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The sbatch script running `binary sweep SPEC --out OUT --shard i/N`.
pub fn script(
    name: &str,
    binary: &Path,
    spec: &Path,
    out: &Path,
    settings: &SlurmSettings,
) -> String {
    let mut text = String::from("#!/bin/bash\n");
    let _ = writeln!(text, "#SBATCH --job-name=sweep-{name}");
    let _ = writeln!(
        text,
        "#SBATCH --array=0-{}",
        settings.shards.saturating_sub(1)
    );
    let _ = writeln!(text, "#SBATCH --ntasks=1");
    let _ = writeln!(text, "#SBATCH --cpus-per-task={}", settings.cpus_per_task);
    let _ = writeln!(text, "#SBATCH --output={}/slurm/%A_%a.out", out.display());
    for option in &settings.options {
        let _ = writeln!(text, "#SBATCH {option}");
    }
    let _ = writeln!(
        text,
        "# Written by `cargo xtask sweep --slurm`: submit with `sbatch {0}`, then run\n\
         # `cargo xtask sweep {1} --out {2} --merge` once every task has finished.\n\
         # Each task runs the cells with index % {3} == its array index; finished cells\n\
         # are skipped, so a failed task can simply be resubmitted.",
        out.join("sweep.sbatch").display(),
        spec.display(),
        out.display(),
        settings.shards
    );
    let _ = writeln!(text, "set -euo pipefail");
    let _ = writeln!(
        text,
        "exec {} sweep {} --out {} --shard \"${{SLURM_ARRAY_TASK_ID}}/{}\" --threads \"${{SLURM_CPUS_PER_TASK:-1}}\"",
        quote(&binary.display().to_string()),
        quote(&spec.display().to_string()),
        quote(&out.display().to_string()),
        settings.shards
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_script() {
        let settings = SlurmSettings {
            shards: 4,
            cpus_per_task: 2,
            options: vec!["--partition=short".to_owned()],
        };
        let text = script(
            "kth",
            Path::new("/opt/xtask"),
            Path::new("/exp/it's.toml"),
            Path::new("/scratch/out"),
            &settings,
        );
        assert!(
            text.starts_with("#!/bin/bash\n#SBATCH --job-name=sweep-kth\n#SBATCH --array=0-3\n")
        );
        assert!(text.contains("#SBATCH --cpus-per-task=2\n"));
        assert!(text.contains("#SBATCH --output=/scratch/out/slurm/%A_%a.out\n"));
        assert!(text.contains("#SBATCH --partition=short\n"));
        assert!(text.ends_with(
            "exec '/opt/xtask' sweep '/exp/it'\\''s.toml' --out '/scratch/out' --shard \"${SLURM_ARRAY_TASK_ID}/4\" --threads \"${SLURM_CPUS_PER_TASK:-1}\"\n"
        ));
    }
}
