//! The batch / dedicated table of `schedsim simulate` for workloads with
//! dedicated jobs (CWF requested start times).

use std::io::{self, Write};

use schedsim_metrics::RunMetrics;
use schedsim_sim_core::Normalization;

use crate::simulate::PolicyRun;

/// Writes, for each run whose workload has dedicated jobs, the batch and
/// the dedicated jobs' metrics apart and how late the dedicated jobs
/// started, then what each policy did not handle (dedicated jobs run as
/// batch jobs, elastic commands ignored or rejected).
pub(crate) fn report_split(
    runs: &[PolicyRun],
    width: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    report_unhandled(runs, out)?;
    if runs.iter().all(|run| run.split.is_none()) {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:<width$} {:<9} {:>6} {:>6} {:>10} {:>7} {:>8} {:>8} {:>10} {:>10}",
        "policy",
        "class",
        "jobs",
        "util",
        "mean wait",
        "msld",
        "delayed",
        "early",
        "mean delay",
        "max delay"
    )?;
    for run in runs {
        let Some(split) = &run.split else { continue };
        let name = run.spec.to_string();
        let row = |out: &mut dyn Write, class: &str, metrics: &RunMetrics| {
            write!(
                out,
                "{:<width$} {:<9} {:>6} {:>6.3} {:>10.0} {:>7.2}",
                name,
                class,
                metrics.jobs,
                metrics.utilization,
                metrics.wait.map_or(0.0, |w| w.mean),
                metrics.mean_based_slowdown.unwrap_or(0.0),
            )
        };
        if let Some(batch) = &split.batch {
            row(out, "batch", batch)?;
            writeln!(out)?;
        }
        if let Some(dedicated) = &split.dedicated {
            row(out, "dedicated", dedicated)?;
            match &split.delay {
                Some(delay) => writeln!(
                    out,
                    " {:>8} {:>8} {:>10.0} {:>10}",
                    delay.delayed, delay.early, delay.mean, delay.max
                )?,
                None => writeln!(out)?,
            }
        }
    }
    writeln!(
        out,
        "dedicated = jobs with a requested start; delayed / early = started after / before it \
         (early only under policies that run them as batch jobs); delays in seconds, mean over \
         all dedicated jobs"
    )
}

/// One line per run that ran dedicated jobs as batch jobs or did not apply
/// elastic control commands: nothing is dropped silently.
fn report_unhandled(runs: &[PolicyRun], out: &mut dyn Write) -> io::Result<()> {
    for run in runs {
        let stats = run.schedule.stats();
        let counted = [
            (
                stats.dedicated_as_batch,
                "dedicated jobs run as batch jobs (requested starts ignored)",
            ),
            (
                stats.commands_ignored,
                "elastic commands ignored (no ECC processor)",
            ),
            (
                stats.processor_commands_rejected,
                "processor commands (EP/RP) rejected",
            ),
            (stats.commands_applied, "elastic commands applied"),
            (
                stats.commands_ending_jobs,
                "time reductions ended their job at once (to the run time it had made)",
            ),
            (
                stats.commands_after_end,
                "elastic commands came after their job ended or was rejected (no effect)",
            ),
        ];
        let notes: Vec<String> = counted
            .iter()
            .filter(|&&(count, _)| count > 0)
            .map(|(count, what)| format!("{count} {what}"))
            .collect();
        if !notes.is_empty() {
            writeln!(out, "{}: {}", run.spec, notes.join("; "))?;
        }
    }
    Ok(())
}

/// The workload's elastic control commands and dedicated jobs, if it has
/// any: how many were read, kept, and dropped (by reason).
pub(crate) fn report_commands(n: &Normalization, out: &mut dyn Write) -> io::Result<()> {
    if n.dedicated > 0 {
        writeln!(
            out,
            "dedicated jobs (with a requested start): {}",
            n.dedicated
        )?;
    }
    if n.commands == 0 {
        return Ok(());
    }
    write!(
        out,
        "elastic control commands: {} read, {} kept",
        n.commands, n.commands_kept
    )?;
    for (reason, count) in &n.commands_dropped {
        write!(out, ", {count} dropped ({})", reason.describe())?;
    }
    writeln!(out)
}
