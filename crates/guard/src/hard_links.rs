//! Hard links: a file with more than one name is read through any of
//! them. The rules name paths, so another name of an excluded file (made
//! before the session, or by a command) reads the excluded file with none
//! of its patterns matching. The sandbox masks such names (its walk notes
//! every multiply-linked file of an excluded path and finds its other names
//! in the project); the file tools, which run outside it, are judged here
//! against the same walk.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use super::Guard;

/// A file's identity on its file system.
type Inode = (u64, u64);

/// What a hard-linked file is to the rules.
pub(super) enum OtherName {
    /// One name of a file the rules exclude.
    OfExcluded(PathBuf),
    /// Strict mode cannot verify it (no walk of the project could be made).
    Unverified(String),
}

impl Guard<'_> {
    /// Whether `path` (links followed) is a regular file with more than one
    /// name, one of which the rules exclude: `None` when it has one name or
    /// none of its names is excluded.
    pub(super) fn other_name_of_excluded(&self, path: &Path) -> Option<OtherName> {
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() || meta.nlink() < 2 {
            return None;
        }
        let inode = (meta.dev(), meta.ino());
        let state = crate::plan::sandbox_state(self.host);
        let kept = state.as_deref().map(|s| (s, "hard-links"));
        let plan = match crate::plan::plan_for(self.host, self.rules, false, kept) {
            Ok(plan) => plan,
            Err(error) => return Some(OtherName::Unverified(error.to_string())),
        };
        let excluded = excluded_inodes(&plan.mounts.hidden_files, &plan.mounts.hidden_dirs);
        excluded
            .get(&inode)
            .map(|name| OtherName::OfExcluded(name.clone()))
    }
}

/// The inodes of the multiply-linked files among `files` and inside
/// `dirs` (what the rules exclude), each with one of its excluded names.
fn excluded_inodes(
    files: &[PathBuf],
    dirs: &[PathBuf],
) -> std::collections::HashMap<Inode, PathBuf> {
    const BUDGET: usize = 200_000;
    let mut out = std::collections::HashMap::new();
    let mut note = |path: &Path, meta: &std::fs::Metadata| {
        if meta.is_file() && meta.nlink() > 1 {
            out.entry((meta.dev(), meta.ino()))
                .or_insert_with(|| path.to_path_buf());
        }
    };
    let mut seen = 0usize;
    let mut visited: HashSet<PathBuf> = HashSet::new();
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        if !visited.insert(dir.clone()) {
            continue;
        }
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            seen += 1;
            if seen > BUDGET {
                break;
            }
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                stack.push(path);
            } else {
                note(&path, &meta);
            }
        }
    }
    // The masked files last: an excluded name inside a masked folder is
    // the one to name.
    for file in files {
        if let Ok(meta) = std::fs::symlink_metadata(file) {
            note(file, &meta);
        }
    }
    out
}

/// Whether a file's metadata says it has more than one name.
pub(super) fn more_than_one_name(meta: &std::fs::Metadata) -> bool {
    meta.is_file() && meta.nlink() > 1
}

impl Guard<'_> {
    /// The verdict on `path` (shown as `shown`) for its other names: denied
    /// when one of them is excluded; in strict mode, any file with another
    /// name outside a git folder (whose objects git itself links) is
    /// denied, since strict mode denies what it cannot verify.
    pub(super) fn judge_other_names(
        &self,
        shown: &str,
        path: &Path,
        strict: bool,
        notes: &mut Vec<String>,
    ) -> Option<super::Verdict> {
        let meta = std::fs::metadata(path).ok()?;
        if !more_than_one_name(&meta) {
            return None;
        }
        let why = match self.other_name_of_excluded(path) {
            Some(OtherName::OfExcluded(name)) => format!(
                "it is another name (a hard link) of `{}`, which the rules exclude",
                name.display()
            ),
            Some(OtherName::Unverified(error)) if strict || self.restricting() => format!(
                "it has {} names and agentctx cannot tell whether one of them is excluded ({error})",
                meta.nlink()
            ),
            _ if strict && !path.components().any(|c| c.as_os_str() == ".git") => format!(
                "it has {} hard links; strict mode cannot tell whether another of its names is excluded",
                meta.nlink()
            ),
            _ => return None,
        };
        notes.push(format!("file {shown}: {why}"));
        Some(super::Verdict::Deny(agentctx_types::system_reminder(
            agentctx_types::SystemReminderType::PermissionDecision,
            &format!(
                "Denied: `{shown}`.\nWhy: {why}.\nDo not retry the same call; use what is allowed, or ask the user."
            ),
        )))
    }
}
