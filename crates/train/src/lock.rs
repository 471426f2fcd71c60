//! The output folder's lock: one training per folder.
//!
//! An advisory lock ([`fs::File::try_lock`]) on `OUT/.lock`, which the
//! operating system drops when its process ends, however it ends (kill -9
//! included): a killed training never leaves its folder locked, and its
//! rerun resumes. The file stays and names its last holder (pid and host)
//! for the message of a refused training.

use std::fs;
use std::io::{Read as _, Write as _};
use std::path::Path;

use crate::TrainError;

/// The output folder's lock, released when dropped.
#[derive(Debug)]
pub(crate) struct FolderLock {
    _file: fs::File,
}

/// Takes `out/.lock`, or refuses naming its holder.
pub(crate) fn lock_folder(out: &Path) -> Result<FolderLock, TrainError> {
    let path = out.join(".lock");
    let lock_error = |source| TrainError::Lock {
        path: path.clone(),
        source,
    };
    // No truncation: that would erase a live holder's name.
    let mut file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(lock_error)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = match holder.trim() {
                "" => "another process".to_owned(),
                text => text.to_owned(),
            };
            return Err(TrainError::Busy {
                folder: out.to_path_buf(),
                lock: path,
                holder,
            });
        }
        Err(fs::TryLockError::Error(e)) => return Err(lock_error(e)),
    }
    // Only a detail of other trainings' messages: a failure keeps the lock.
    let _ = file.set_len(0).and_then(|()| {
        writeln!(
            file,
            "pid {} on host {}",
            std::process::id(),
            schedsim_run::host_name()
        )
    });
    Ok(FolderLock { _file: file })
}
