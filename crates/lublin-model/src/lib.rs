//! The Lublin-Feitelson parallel workload model and the CWF workload generator of Kumar et al..
#![warn(missing_docs)]
