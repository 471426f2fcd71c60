//! The library behind the `schedsim` command: its subcommands as functions,
//! so that `cargo xtask` and tests can call them without a subprocess.
