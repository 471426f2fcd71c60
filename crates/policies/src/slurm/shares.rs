//! The shares file: fair-share associations (what `sacctmgr` keeps in
//! slurmdbd), partition and QOS priorities.

use std::collections::BTreeMap;
use std::path::Path;

use super::conf::{SlurmConfError, read_file};
use crate::number::non_negative_u32;

/// Fair-share shares of accounts and users, and the priorities of
/// partitions and QOS, read from a small text file:
///
/// ```text
/// # account NAME shares=N [parent=ACCOUNT]   (parent: root by default)
/// account physics shares=40
/// account chemistry shares=60
/// account theory shares=1 parent=physics
/// # user NUMBER account=ACCOUNT shares=N     (the SWF user number)
/// user 3 account=physics shares=10
/// user * account=chemistry shares=1          # every user not listed
/// # partition NUMBER priority_job_factor=N   (SWF partition number)
/// partition 2 priority_job_factor=10
/// # qos NUMBER priority=N                    (SWF queue number, as `convert` maps QOS)
/// qos 1 priority=100
/// ```
///
/// Users of the workload not listed (and with no `user *` line) get an
/// association of their own under root with 1 share, Slurm's default
/// `Fairshare=1`. Without a file every user is such a root child.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SharesFile {
    /// Accounts in file order: (name, shares, parent name; None = root).
    pub accounts: Vec<(String, u32, Option<String>)>,
    /// Users: number -> (account, shares).
    pub users: BTreeMap<u32, (String, u32)>,
    /// `user *`: the account and shares of every user not listed.
    pub default_user: Option<(String, u32)>,
    /// Partition number -> PriorityJobFactor.
    pub partitions: BTreeMap<u32, u32>,
    /// QOS (SWF queue) number -> Priority.
    pub qos: BTreeMap<u32, u32>,
}

impl SharesFile {
    /// Reads a shares file.
    ///
    /// # Errors
    /// The file cannot be read or a line is not valid (naming file, line,
    /// key and value).
    pub fn from_file(path: &Path) -> Result<Self, SlurmConfError> {
        let (text, name) = read_file(path)?;
        Self::parse(&text, &name)
    }

    /// Reads shares-file text; `path` names it in errors.
    ///
    /// # Errors
    /// As [`from_file`](Self::from_file).
    pub fn parse(text: &str, path: &str) -> Result<Self, SlurmConfError> {
        let mut file = Self::default();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let bad_line = |reason: String| SlurmConfError::BadLine {
                path: path.to_owned(),
                line,
                text: content.to_owned(),
                reason,
            };
            let words: Vec<&str> = content.split_whitespace().collect();
            let [kind, name, settings @ ..] = words.as_slice() else {
                return Err(bad_line("expected KIND NAME key=value...".to_owned()));
            };
            let mut values = BTreeMap::new();
            for setting in settings {
                let Some((key, value)) = setting.split_once('=') else {
                    return Err(bad_line(format!("`{setting}` is not key=value")));
                };
                values.insert(key, value);
            }
            let bad = |key: &str, value: &str, reason: &str| SlurmConfError::BadValue {
                path: path.to_owned(),
                line,
                key: key.to_owned(),
                value: value.to_owned(),
                reason: reason.to_owned(),
            };
            let allowed: &[&str] = match *kind {
                "account" => &["shares", "parent"],
                "user" => &["shares", "account"],
                "partition" => &["priority_job_factor"],
                "qos" => &["priority"],
                other => {
                    return Err(bad_line(format!(
                        "unknown kind `{other}` (expected account, user, partition or qos)"
                    )));
                }
            };
            if let Some(key) = values.keys().find(|key| !allowed.contains(key)) {
                return Err(bad_line(format!(
                    "`{kind}` takes {}, not `{key}`",
                    allowed.join(", ")
                )));
            }
            let number = |key: &str, required: bool| -> Result<Option<u32>, SlurmConfError> {
                match values.get(key) {
                    Some(value) => non_negative_u32(value)
                        .map(Some)
                        .map_err(|reason| bad(key, value, &reason)),
                    None if required => Err(bad_line(format!("`{key}=` is missing"))),
                    None => Ok(None),
                }
            };
            let id = || -> Result<u32, SlurmConfError> {
                name.parse::<u32>()
                    .map_err(|_| bad(kind, name, "expected a number (the SWF field's value)"))
            };
            match *kind {
                "account" => {
                    if *name == "root" || file.accounts.iter().any(|(a, _, _)| a == name) {
                        return Err(bad(kind, name, "defined twice (root is implicit)"));
                    }
                    let parent = values.get("parent").map(|p| (*p).to_owned());
                    if let Some(parent) = &parent
                        && parent != "root"
                        && !file.accounts.iter().any(|(a, _, _)| a == parent)
                    {
                        return Err(bad("parent", parent, "not an account defined above"));
                    }
                    let parent = parent.filter(|p| p != "root");
                    let shares = number("shares", true)?.unwrap_or(1);
                    file.accounts.push(((*name).to_owned(), shares, parent));
                }
                "user" => {
                    let account = values.get("account").map_or("root", |a| *a).to_owned();
                    if account != "root" && !file.accounts.iter().any(|(a, _, _)| *a == account) {
                        return Err(bad("account", &account, "not an account defined above"));
                    }
                    let shares = number("shares", true)?.unwrap_or(1);
                    if *name == "*" {
                        file.default_user = Some((account, shares));
                    } else if file.users.insert(id()?, (account, shares)).is_some() {
                        return Err(bad(kind, name, "defined twice"));
                    }
                }
                "partition" => {
                    let factor = number("priority_job_factor", true)?.unwrap_or(0);
                    file.partitions.insert(id()?, factor);
                }
                _ => {
                    let priority = number("priority", true)?.unwrap_or(0);
                    file.qos.insert(id()?, priority);
                }
            }
        }
        Ok(file)
    }
}

/// One association (root, an account or a user) of the fair-share tree.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Association {
    pub(crate) parent: usize,
    pub(crate) shares: u32,
    /// Shares of this association and its siblings (children of the same
    /// parent).
    pub(crate) level_shares: u64,
    /// S = (S_self / S_siblings) * (S_parent / S_parent_siblings) * ...
    pub(crate) shares_norm: f64,
}

/// The fair-share tree: index 0 is root, then accounts, then users.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tree {
    pub(crate) nodes: Vec<Association>,
    /// User number -> association index.
    pub(crate) users: BTreeMap<u32, usize>,
    /// Users of the workload given a default root association.
    pub(crate) defaulted: usize,
}

pub(crate) const ROOT: usize = 0;

impl Tree {
    /// The tree for `file` and the users of the workload (`None`, a job
    /// with no user, is user number `u32::MAX`).
    pub(crate) fn build(file: &SharesFile, workload_users: impl Iterator<Item = u32>) -> Self {
        let mut nodes = vec![Association {
            parent: ROOT,
            shares: 1,
            level_shares: 1,
            shares_norm: 1.0,
        }];
        let mut account_index = BTreeMap::new();
        account_index.insert("root".to_owned(), ROOT);
        for (name, shares, parent) in &file.accounts {
            let parent = parent.as_deref().map_or(ROOT, |p| account_index[p]);
            account_index.insert(name.clone(), nodes.len());
            nodes.push(Association {
                parent,
                shares: *shares,
                level_shares: 0,
                shares_norm: 0.0,
            });
        }
        let mut users = BTreeMap::new();
        let mut defaulted = 0;
        let mut all_users: Vec<u32> = file.users.keys().copied().chain(workload_users).collect();
        all_users.sort_unstable();
        all_users.dedup();
        for user in all_users {
            let (parent, shares) = match (file.users.get(&user), &file.default_user) {
                (Some((account, shares)), _) | (None, Some((account, shares))) => {
                    (account_index[account.as_str()], *shares)
                }
                (None, None) => {
                    defaulted += 1;
                    (ROOT, 1)
                }
            };
            users.insert(user, nodes.len());
            nodes.push(Association {
                parent,
                shares,
                level_shares: 0,
                shares_norm: 0.0,
            });
        }
        // Level shares: the sum over the children of each parent.
        let mut children_shares = vec![0u64; nodes.len()];
        for node in &nodes[1..] {
            children_shares[node.parent] += u64::from(node.shares);
        }
        // Parents come before their children, so one pass in index order
        // fills the normalized shares top-down.
        for index in 1..nodes.len() {
            let parent = nodes[index].parent;
            let level = children_shares[parent];
            let own = if level == 0 {
                0.0
            } else {
                f64::from(nodes[index].shares) / level as f64
            };
            nodes[index].level_shares = level;
            nodes[index].shares_norm = own * nodes[parent].shares_norm;
        }
        Self {
            nodes,
            users,
            defaulted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_shares_multiply_down_the_tree() {
        let file = SharesFile::parse(
            "account a shares=40\naccount b shares=60\naccount a1 shares=1 parent=a\n\
             account a2 shares=3 parent=a\nuser 1 account=a1 shares=1\n\
             user 2 account=a2 shares=1\nuser 3 account=a2 shares=1\nuser * account=b shares=2\n\
             partition 1 priority_job_factor=5\nqos 2 priority=7\n",
            "shares",
        )
        .unwrap();
        let tree = Tree::build(&file, [4, 5].into_iter());
        let norm = |user: u32| tree.nodes[tree.users[&user]].shares_norm;
        // a = 40/100; a1 = 1/4 of a; user 1 alone in a1: 0.4 * 0.25 = 0.1.
        assert!((norm(1) - 0.1).abs() < 1e-12);
        // a2 = 3/4 of a = 0.3, two users with 1 share each: 0.15.
        assert!((norm(2) - 0.15).abs() < 1e-12);
        // b = 0.6, users 4 and 5 (from `user *`) with 2 shares each: 0.3.
        assert!((norm(5) - 0.3).abs() < 1e-12);
        assert_eq!(tree.defaulted, 0);
        assert_eq!(file.partitions[&1], 5);
        assert_eq!(file.qos[&2], 7);
    }

    #[test]
    fn errors_name_the_line() {
        let error = SharesFile::parse("account a shares=x\n", "s").unwrap_err();
        assert_eq!(
            error.to_string(),
            "s:1: shares=x: expected a non-negative integer"
        );
        // Shares are a u32: 2^32 = 4294967296 is one past it.
        let error = SharesFile::parse("account a shares=4294967296\n", "s").unwrap_err();
        assert_eq!(
            error.to_string(),
            "s:1: shares=4294967296: out of range: 0 to 4294967295"
        );
        let error = SharesFile::parse("user 1 account=nope shares=1\n", "s").unwrap_err();
        assert_eq!(
            error.to_string(),
            "s:1: account=nope: not an account defined above"
        );
        let error = SharesFile::parse("group 1\n", "s").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("s:1: `group 1`: unknown kind")
        );
    }
}
