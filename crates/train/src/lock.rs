//! The output folder's lock: one training per folder.
//!
//! An advisory lock ([`schedsim_run::try_lock_file`]) on `OUT/.lock`, which the
//! operating system drops when its process ends, however it ends (kill -9
//! included): a killed training never leaves its folder locked, and its
//! rerun resumes. The file stays and names its last holder (pid and host)
//! for the message of a refused training.

use std::path::Path;

use schedsim_run::{FileLock, LockAttempt, try_lock_file};

use crate::TrainError;

/// Takes `out/.lock`, or refuses naming its holder; released when dropped.
pub(crate) fn lock_folder(out: &Path) -> Result<FileLock, TrainError> {
    let path = out.join(".lock");
    match try_lock_file(&path) {
        Ok(LockAttempt::Taken(lock)) => Ok(lock),
        Ok(LockAttempt::Held { holder }) => Err(TrainError::Busy {
            folder: out.to_path_buf(),
            lock: path,
            holder,
        }),
        Err(source) => Err(TrainError::Lock { path, source }),
    }
}
