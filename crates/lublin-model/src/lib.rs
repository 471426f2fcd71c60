//! The Lublin-Feitelson parallel workload model and the CWF workload generator of Kumar et al.
#![warn(missing_docs)]

mod cwf;
mod cycle;
mod dist;
mod error;
mod estimate;
mod load;
mod lublin;
mod params;
mod rng;

pub use cwf::{
    BlockRange, CommandAmount, CommandTime, CwfGenerator, CwfParams, ReduceFloor, SizeUnit,
};
pub use error::ParamsError;
pub use estimate::{EstimateModel, EstimateParams, POPULAR_ESTIMATES};
pub use load::offered_load;
pub use lublin::{Generated, LublinGenerator};
pub use params::{
    ArrivalParams, ClassParams, DEFAULT_MACHINE_SIZE, LublinParams, RuntimeParams, SizeParams,
};
