//! The checkpoint file: the parents and the log after a generation, with the
//! settings they were made under. The random draws of generation k depend
//! only on the seed and k, so this is all a run needs to continue exactly.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{Bounds, Config, Error, GenerationStats, Individual};

/// The `format` field of every checkpoint.
const FORMAT: &str = "evolution-strategy checkpoint";
/// The `version` field; raised when the layout changes.
const VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Checkpoint {
    format: String,
    version: u32,
    pub(crate) config: Config,
    pub(crate) bounds: Bounds,
    /// The caller's description of the fitness (`RunOptions::context`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) context: Option<String>,
    pub(crate) cases: usize,
    pub(crate) generation: u32,
    pub(crate) parents: Vec<Individual>,
    pub(crate) history: Vec<GenerationStats>,
}

impl Checkpoint {
    pub(crate) fn new(
        config: Config,
        bounds: Bounds,
        context: Option<String>,
        cases: usize,
        generation: u32,
        parents: Vec<Individual>,
        history: Vec<GenerationStats>,
    ) -> Self {
        Self {
            format: FORMAT.into(),
            version: VERSION,
            config,
            bounds,
            context,
            cases,
            generation,
            parents,
            history,
        }
    }
}

/// Reads the checkpoint at `path`.
pub(crate) fn read(path: &Path) -> Result<Checkpoint, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::CheckpointIo {
        path: path.to_path_buf(),
        action: "reading",
        source,
    })?;
    let checkpoint: Checkpoint =
        serde_json::from_slice(&bytes).map_err(|source| Error::CheckpointFormat {
            path: path.to_path_buf(),
            source,
        })?;
    if checkpoint.format != FORMAT || checkpoint.version != VERSION {
        return Err(Error::CheckpointMismatch {
            path: path.to_path_buf(),
            reason: format!(
                "it is \"{}\" version {}, expected \"{FORMAT}\" version {VERSION}",
                checkpoint.format, checkpoint.version
            ),
        });
    }
    Ok(checkpoint)
}

/// Writes `checkpoint` to `path` atomically: to `path` + ".tmp" first
/// (flushed to disk), then renamed over `path`, so a run killed at any
/// moment leaves the previous or the new checkpoint, never half of one.
pub(crate) fn write(path: &Path, checkpoint: &Checkpoint) -> Result<(), Error> {
    let io = |action: &'static str| {
        move |source| Error::CheckpointIo {
            path: path.to_path_buf(),
            action,
            source,
        }
    };
    let mut temporary = PathBuf::from(path);
    temporary.as_mut_os_string().push(".tmp");
    let json = serde_json::to_vec_pretty(checkpoint).map_err(|source| Error::CheckpointFormat {
        path: path.to_path_buf(),
        source,
    })?;
    let mut file = std::fs::File::create(&temporary).map_err(io("creating the temporary file"))?;
    file.write_all(&json)
        .and_then(|()| file.write_all(b"\n"))
        .and_then(|()| file.sync_all())
        .map_err(io("writing the temporary file"))?;
    drop(file);
    std::fs::rename(&temporary, path).map_err(io("renaming the temporary file"))
}
