//! Advisory locks on files: one writer per output folder.
//!
//! [`fs::File::try_lock`] on a lock file, which the operating system drops
//! when its process ends, however it ends (kill -9 included): a killed
//! run never leaves a folder locked. The file stays, signed by its last
//! holder (pid and host), so a refused run can say who holds it.

use std::fs;
use std::io::{self, Read as _, Write as _};
use std::path::Path;

use crate::host_name;

/// A lock taken by [`try_lock_file`] or [`lock_file`], released when
/// dropped.
#[derive(Debug)]
pub struct FileLock {
    _file: fs::File,
}

/// What [`try_lock_file`] found.
#[derive(Debug)]
pub enum LockAttempt {
    /// The lock is this process's now.
    Taken(FileLock),
    /// A live process holds it.
    Held {
        /// As it signed the file: "pid N on host H", or "another process".
        holder: String,
    },
}

/// Takes the lock of `path` (created if absent) if no live process holds
/// it, and signs it with this process's pid and host.
///
/// # Errors
/// The file cannot be created or locked.
pub fn try_lock_file(path: &Path) -> io::Result<LockAttempt> {
    let mut file = open(path)?;
    match file.try_lock() {
        Ok(()) => Ok(LockAttempt::Taken(signed(file))),
        Err(fs::TryLockError::WouldBlock) => Ok(LockAttempt::Held {
            holder: holder(&mut file),
        }),
        Err(fs::TryLockError::Error(error)) => Err(error),
    }
}

/// Takes the lock of `path` (created if absent), waiting for its holder.
///
/// # Errors
/// The file cannot be created or locked.
pub fn lock_file(path: &Path) -> io::Result<FileLock> {
    let file = open(path)?;
    file.lock()?;
    Ok(signed(file))
}

/// Who holds the lock of the existing file `path`, or `None` if no live
/// process does; the file is left as it is (unsigned).
///
/// # Errors
/// The file cannot be opened or locked.
pub fn lock_holder(path: &Path) -> io::Result<Option<String>> {
    let mut file = open(path)?;
    match file.try_lock() {
        // Free: its last holder has ended; this probe's lock ends with the
        // file, here.
        Ok(()) => Ok(None),
        Err(fs::TryLockError::WouldBlock) => Ok(Some(holder(&mut file))),
        Err(fs::TryLockError::Error(error)) => Err(error),
    }
}

/// Opens (creating) a lock file without truncating it: truncating would
/// erase a live holder's name.
fn open(path: &Path) -> io::Result<fs::File> {
    fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)
}

/// The name the holder of `file`'s lock signed it with.
fn holder(file: &mut fs::File) -> String {
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    match text.trim() {
        "" => "another process".to_owned(),
        text => text.to_owned(),
    }
}

/// Writes this process's pid and host into a lock file it holds. A failure
/// loses only a detail of other runs' messages, never the lock.
fn signed(mut file: fs::File) -> FileLock {
    let _ = file
        .set_len(0)
        .and_then(|()| writeln!(file, "pid {} on host {}", std::process::id(), host_name()));
    FileLock { _file: file }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_names_its_holder_and_is_free_once_dropped() {
        let dir = std::env::temp_dir().join(format!("schedsim-file-lock-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(".lock");
        let LockAttempt::Taken(lock) = try_lock_file(&path).unwrap() else {
            panic!("a new lock file is free");
        };
        // Another open file description, as another process has.
        let signature = format!("pid {} on host {}", std::process::id(), host_name());
        match try_lock_file(&path).unwrap() {
            LockAttempt::Held { holder } => assert_eq!(holder, signature),
            LockAttempt::Taken(_) => panic!("taken twice"),
        }
        assert_eq!(lock_holder(&path).unwrap(), Some(signature.clone()));
        drop(lock);
        assert_eq!(lock_holder(&path).unwrap(), None);
        // The probe did not sign it; the last holder's name stays.
        assert_eq!(fs::read_to_string(&path).unwrap().trim(), signature);
        drop(lock_file(&path).unwrap());
        fs::remove_dir_all(&dir).unwrap();
    }
}
