//! Deadline admission control: QoPS and its baselines MSB and MRT (Islam,
//! Balaji, Sadayappan and Panda, "QoPS: A QoS based scheme for Parallel
//! Job Scheduling", ../shared/papers/qops-deadline-admission.txt).
//!
//! Every job carries a deadline (`--deadlines FILE`, see
//! `schedsim deadlines`); at its arrival the policy searches a plan of
//! reservations in which it and every job admitted before end by their
//! deadlines, and admits it with that plan, or rejects it and keeps the
//! plan. The three searches, quoted from the paper:
//!
//! - **MSB** (Fig. 1): "for each time slot ts in the profile starting from
//!   current time: remove all the jobs from slot ts to the end; insert job J
//!   at slot ts; schedule each removed job one by one in Ascending Scheduled
//!   Time (AST) order; calculate the price of this new schedule using the
//!   cost function", keeping the cheapest; rejected when no price is finite.
//! - **MRT** (Fig. 2): "sort temporary list according to the Heuristic
//!   function ... for each job Ji from Temporary List: find whether job Ji
//!   is strongly feasible in the current partial schedule; if Ji is strongly
//!   feasible then add job Ji into partial schedule, else backtrack to the
//!   previous partial schedule; if (no of backtracks > backtrack max) then
//!   job is rejected".
//! - **QoPS** (Fig. 3): "for each time slot ts in position (0, N/2, 3N/4,
//!   7N/8 ...): remove all waiting jobs from position ts to the end of
//!   profile and place them into a Temporary List (TL); sort the temporary
//!   list using the Heuristic function; set Violation Count = 0; for each
//!   job Jc in the temporary List: add Job Jc into the schedule; if there is
//!   a deadline violation for job Jc at slot T then Violation Count =
//!   Violation Count + 1; if (Violation Count > K-Factor) break; remove all
//!   jobs from the schedule from position mid(ts + T) to position T and add
//!   them into temporary list again; sort the temporary list; add the failed
//!   job Jc into the top of temporary list".
//!
//! The paper leaves K, Bmax, the heuristic and MSB's cost function open,
//! and its figures and prose disagree in four places; each is an option
//! (`schedsim policies` lists them) with the default and the literal
//! reading named:
//!
//! | where | default | the other reading |
//! |---|---|---|
//! | QoPS: the new job | `new-job=first`: reserved after the kept jobs (prose) | `sorted` into the list (Fig. 3) |
//! | QoPS: a failed option | `on-fail=next`: the next option (prose: log2 N options) | `reject` at once (Fig. 3's `break`) |
//! | QoPS: acceptance | `accept=at-most-k` (prose: "at most K times") | `fewer-than-k` (Fig. 3, step B) |
//! | MSB: re-placement | `order=scheduled` (Fig. 1, step C.c) | `heuristic` (prose) |
//! | K, Bmax | `k=5`, `backtracks=100` | 0 to 10,000 and 0 to 1,000,000 ([`MAX_K`], [`MAX_BACKTRACKS`]) |
//! | heuristic | `edf` | `llf` |
//! | MSB cost | `cost=wait`: total wait | `last-end` |
//!
//! With the new job reserved first, QoPS's new job cannot be moved by the
//! list placed after it, so a miss of its own deadline fails the option
//! without a reordering.
//!
//! Cost per arrival, with N admitted jobs waiting and a placement being an
//! earliest-fit search plus a reservation in the availability profile
//! (linear in the profile's steps): QoPS places at most (K + 1) N jobs per
//! option and tries about log2 N options, O(K N log N) placements; MSB
//! re-places up to N jobs at each of N + 1 insertion points, O(N^2); MRT
//! checks strong feasibility of every extension (N placements), N levels
//! deep on a path without backtracks and Bmax more extensions at most,
//! O((N + Bmax) N). `cargo xtask bench` times all three on the SDSC sample
//! at load factor 1.6 (7,370 jobs, stringency 0.2): about 0.24 s for QoPS
//! (target 2 s), 0.9 s for MSB and 0.6 s for MRT, end to end.

mod plan;
mod policy;
mod spec;

pub use plan::{
    Acceptance, AdmissionCounters, Heuristic, MAX_BACKTRACKS, MAX_K, MrtConfig, MsbConfig, MsbCost,
    MsbOrder, NewJob, OnFailure, PlanJob, QopsConfig, Reservation, mrt, msb, qops, qops_options,
};
pub use policy::{Admission, DeadlineAdmission};
pub(crate) use spec::{MRT_OPTIONS, MSB_OPTIONS, QOPS_OPTIONS, build};
