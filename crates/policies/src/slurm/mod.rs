//! Slurm's scheduling as operators configure it: the priority/multifactor
//! plugin ([`Multifactor`]), the sched/backfill plugin with the main
//! scheduler ([`SlurmBackfill`]), and the slurm.conf keys and shares file
//! they read ([`SlurmConf`], [`SharesFile`]).

mod backfill;
mod conf;
mod multifactor;
mod shares;

pub use backfill::SlurmBackfill;
pub use conf::{BackfillConf, PriorityConf, PriorityFlags, SlurmConf, SlurmConfError};
pub use multifactor::{Factors, Multifactor, MultifactorConfig};
pub use shares::SharesFile;
