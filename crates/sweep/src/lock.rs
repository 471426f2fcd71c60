//! Locks of a sweep folder: which runs and merges may share it.
//!
//! Every lock is an advisory lock ([`schedsim_run::try_lock_file`]) that the
//! operating system drops when its process ends, however it ends (kill -9
//! included), so a killed sweep never leaves a folder locked; the lock file
//! stays, and only says who held it last (pid and host) for the messages.
//!
//! - `.lock-shard-I-of-N`: held by the run of shard I/N (an unsharded run is
//!   shard 0/1) for its whole run. Shards of one sharding (a Slurm job
//!   array) hold different files and run side by side; a run refuses while
//!   its own shard or a shard of another N is held, since shardings of
//!   different N split the cells differently and would run some twice.
//! - `.lock`: held briefly while a run looks at the shard locks and takes
//!   its own, so that two runs of different N starting at once cannot both
//!   see a free folder; held by a merge for its whole merge, so that no run
//!   starts writing cells (and temporary files) while the merge removes the
//!   temporary files of killed runs.

use std::fs;
use std::path::{Path, PathBuf};

use schedsim_run::{FileLock, LockAttempt, lock_file, lock_holder, try_lock_file};

use crate::SweepError;

/// A shard lock that a live process holds.
struct Held {
    shard: (usize, usize),
    path: PathBuf,
    holder: String,
}

fn shard_lock_name((index, count): (usize, usize)) -> String {
    format!(".lock-shard-{index}-of-{count}")
}

fn parse_shard_lock_name(name: &str) -> Option<(usize, usize)> {
    let (index, count) = name.strip_prefix(".lock-shard-")?.split_once("-of-")?;
    Some((index.parse().ok()?, count.parse().ok()?))
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> SweepError {
    let path = path.to_path_buf();
    move |source| SweepError::Io {
        action,
        path,
        source,
    }
}

/// Takes `out/.lock`, waiting (briefly, unless a merge runs) for whoever
/// holds it.
fn folder_lock(out: &Path) -> Result<FileLock, SweepError> {
    let path = out.join(".lock");
    match try_lock_file(&path).map_err(io_error("lock", &path))? {
        LockAttempt::Taken(lock) => Ok(lock),
        LockAttempt::Held { holder } => {
            eprintln!(
                "waiting for {} (held by {holder}: a merge, or a sweep starting)",
                path.display()
            );
            lock_file(&path).map_err(io_error("lock", &path))
        }
    }
}

/// The shard locks of `out` that live processes hold. Call with
/// `out/.lock` held, so that none is taken meanwhile.
fn held_shards(out: &Path) -> Result<Vec<Held>, SweepError> {
    let mut held = Vec::new();
    let entries = fs::read_dir(out).map_err(io_error("read", out))?;
    for entry in entries {
        let entry = entry.map_err(io_error("read", out))?;
        let Some(shard) = parse_shard_lock_name(&entry.file_name().to_string_lossy()) else {
            continue;
        };
        let path = entry.path();
        if let Some(holder) = lock_holder(&path).map_err(io_error("lock", &path))? {
            held.push(Held {
                shard,
                holder,
                path,
            });
        }
    }
    held.sort_by_key(|h| h.shard);
    Ok(held)
}

/// Takes the lock of running `shard` (I, N) in `out`: refused while another
/// run holds that shard or any shard of another N.
pub fn lock_shard(out: &Path, shard: (usize, usize)) -> Result<FileLock, SweepError> {
    let (index, count) = shard;
    let _folder = folder_lock(out)?;
    if let Some(other) = held_shards(out)?.into_iter().find(|h| h.shard.1 != count) {
        return Err(SweepError::Locked {
            what: format!(
                "cannot run shard {index}/{count}: a sweep of another sharding is running shard {}/{}",
                other.shard.0, other.shard.1
            ),
            folder: out.to_path_buf(),
            holder: other.holder,
            lock: other.path,
            advice: "shards of one folder must all be of the same --shard I/N count; wait for it to finish or give another --out",
        });
    }
    let path = out.join(shard_lock_name(shard));
    match try_lock_file(&path).map_err(io_error("lock", &path))? {
        LockAttempt::Taken(lock) => Ok(lock),
        LockAttempt::Held { holder } => Err(SweepError::Locked {
            what: format!("another sweep is running shard {index}/{count}"),
            folder: out.to_path_buf(),
            holder,
            lock: path,
            advice: "wait for it to finish or give another --out",
        }),
    }
}

/// Takes the lock of merging `out`, held until dropped: refused while any
/// run holds a shard lock.
pub fn lock_merge(out: &Path) -> Result<FileLock, SweepError> {
    let folder = folder_lock(out)?;
    if let Some(running) = held_shards(out)?.into_iter().next() {
        return Err(SweepError::Locked {
            what: format!(
                "cannot merge while a sweep is running shard {}/{}",
                running.shard.0, running.shard.1
            ),
            folder: out.to_path_buf(),
            holder: running.holder,
            lock: running.path,
            advice: "wait for every shard to finish, then merge",
        });
    }
    Ok(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(test: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("schedsim-sweep-lock-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn shards_of_one_sharding_share_a_folder_and_no_other_sharding_does() {
        let out = folder("sharding");
        let first = lock_shard(&out, (0, 2)).unwrap();
        let second = lock_shard(&out, (1, 2)).unwrap();
        for other in [(0, 1), (0, 3), (2, 3)] {
            let error = lock_shard(&out, other).unwrap_err().to_string();
            assert!(
                error.contains("a sweep of another sharding is running shard 0/2")
                    && error.contains(".lock-shard-0-of-2")
                    && error.contains(&format!("pid {}", std::process::id())),
                "{error}"
            );
        }
        let error = lock_shard(&out, (1, 2)).unwrap_err().to_string();
        assert!(
            error.contains("another sweep is running shard 1/2"),
            "{error}"
        );
        // A holder that ends (as a killed one does) frees the folder.
        drop((first, second));
        drop(lock_shard(&out, (0, 1)).unwrap());
        drop(lock_shard(&out, (0, 3)).unwrap());
        let _ = fs::remove_dir_all(&out);
    }

    #[test]
    fn a_merge_refuses_while_a_shard_runs() {
        let out = folder("merge");
        let shard = lock_shard(&out, (1, 2)).unwrap();
        let error = lock_merge(&out).unwrap_err().to_string();
        assert!(
            error.contains("cannot merge while a sweep is running shard 1/2")
                && error.contains(".lock-shard-1-of-2"),
            "{error}"
        );
        drop(shard);
        drop(lock_merge(&out).unwrap());
        let _ = fs::remove_dir_all(&out);
    }
}
