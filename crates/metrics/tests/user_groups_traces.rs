//! User groups of the real KTH and LANL traces (needs SCHEDSIM_TRACES).
//!
//! A job's resource consumption is run time (field 4) x processors, the
//! processors being the job's size as the simulator uses it: requested
//! (field 8) if known and positive, else allocated (field 5). The paper's
//! m_j is the parallelism "the user provides at the release date", i.e. the
//! request. Jobs with an unknown or zero run time or size consume nothing
//! but still make their user (field 12) a member (of group 5 at least).

use std::path::PathBuf;

use schedsim_metrics::{GroupRule, UserGroups};
use workload_format::{ReadOptions, Record, read_path};

fn traces() -> Option<PathBuf> {
    match std::env::var_os("SCHEDSIM_TRACES") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            println!("skipped: SCHEDSIM_TRACES not set");
            None
        }
    }
}

fn size(record: &Record) -> u64 {
    match record.requested_processors {
        Some(requested) if requested > 0 => requested,
        _ => record.allocated_processors.unwrap_or(0),
    }
}

fn table(file: &str, size: impl Fn(&Record) -> u64) -> Option<UserGroups> {
    let path = traces()?.join(file);
    let workload = read_path(&path, &ReadOptions::strict()).unwrap();
    let jobs = workload.records.iter().map(|r| {
        let user = r.user_id.map(|u| u32::try_from(u).unwrap());
        (
            user,
            r.run_time.unwrap_or(0),
            u32::try_from(size(r)).unwrap(),
        )
    });
    Some(UserGroups::from_work(jobs, &GroupRule::paper()).unwrap())
}

/// Users per group, and each group's share in percent to one decimal (as
/// the notes print them).
fn counts_and_percent(table: &UserGroups) -> (Vec<u64>, Vec<f64>) {
    let shares = table.shares();
    (
        shares.iter().map(|s| s.users).collect(),
        shares
            .iter()
            .map(|s| (s.share * 1000.0).round() / 10.0)
            .collect(),
    )
}

#[test]
fn kth_users_per_group() {
    let Some(kth) = table("KTH-SP2-1996-2.1-cln.swf.gz", size) else {
        return;
    };
    // 214 users, all known.
    assert_eq!((kth.users().len(), kth.unknown_user()), (214, (0, 0)));
    let (users, percent) = counts_and_percent(&kth);
    assert_eq!(users, [1, 11, 13, 39, 150]);
    assert_eq!(percent, [8.9, 52.2, 19.3, 18.2, 1.5]);
}

#[test]
fn kth_with_allocated_processors_only() {
    // Field 5 alone moves a little work between users: the same counts,
    // shares 8.8/52.3/19.2/18.1/1.5 (the notes' figures come from the size
    // the simulator uses).
    let allocated = |r: &Record| r.allocated_processors.unwrap_or(0);
    let Some(kth) = table("KTH-SP2-1996-2.1-cln.swf.gz", allocated) else {
        return;
    };
    let (users, percent) = counts_and_percent(&kth);
    assert_eq!(users, [1, 11, 13, 39, 150]);
    assert_eq!(percent, [8.8, 52.3, 19.2, 18.1, 1.5]);
}

#[test]
fn lanl_users_per_group() {
    // LANL-cln: 11,329 jobs have no requested size and fall back to field 5.
    let Some(lanl) = table("LANL-CM5-1994-4.1-cln.swf.gz", size) else {
        return;
    };
    let (users, percent) = counts_and_percent(&lanl);
    assert_eq!(users, [3, 9, 11, 39, 151]);
    assert_eq!(percent, [27.4, 38.4, 15.1, 16.3, 2.8]);
}
