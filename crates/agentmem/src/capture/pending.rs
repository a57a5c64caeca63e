//! Captures a hook could not make yet: Claude Code 2.0.42 – 2.1.46 send
//! `SubagentStop` with the path of the sub-agent's transcript, which they
//! write on a 100 ms timer, so several sub-agents ending at once can stop
//! before theirs exists. When waiting did not see it, the hook's payload is
//! kept in `<root>/.agentmem/pending/<key hash>.json`; the `PostToolUse` of
//! the sub-agent's `Task` (its result, same key) or any later capture
//! (the transcript, read again) completes it, and the record goes. A
//! record whose output never appeared is reported lost after
//! [`PENDING_TTL_SECONDS`], never dropped silently.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use agentctx_types::HookInput;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How long a pending capture is tried before it is reported lost: a
/// transcript is flushed within a second of its agent's stop; an hour of
/// later hooks that still do not see it will not.
pub const PENDING_TTL_SECONDS: i64 = 3600;

/// A capture left for a later hook.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct PendingRecord {
    /// The run's dedupe key (`agent:<id>`).
    pub key: String,
    /// When it was left (Unix seconds).
    pub since: i64,
    /// The payload of the hook that left it (the capture runs it again).
    pub hook: HookInput,
}

fn dir(root: &Path) -> PathBuf {
    root.join(".agentmem").join("pending")
}

fn file_of(root: &Path, key: &str) -> PathBuf {
    let digest = Sha256::digest(key.as_bytes());
    let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    dir(root).join(format!("{name}.json"))
}

/// Keeps `hook` as the pending capture of `key` (a complete file renamed
/// into place; a second record of the same run replaces the first).
pub(super) fn record(
    root: &Path,
    key: &str,
    hook: &HookInput,
    now: i64,
) -> std::io::Result<PathBuf> {
    let folder = dir(root);
    std::fs::create_dir_all(&folder)?;
    let record = PendingRecord {
        key: key.to_owned(),
        since: now,
        hook: hook.clone(),
    };
    let text = serde_json::to_vec(&record).map_err(std::io::Error::other)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".pending-")
        .suffix(".tmp")
        .tempfile_in(&folder)?;
    temp.write_all(&text)?;
    let path = file_of(root, key);
    temp.persist(&path).map_err(|e| e.error)?;
    Ok(path)
}

/// Removes the pending capture of `key`; the event of the hook that left
/// it, when there was one.
pub(super) fn take(root: &Path, key: &str) -> Option<String> {
    let path = file_of(root, key);
    let left = std::fs::read(&path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<PendingRecord>(&bytes).ok())
        .map(|r| {
            r.hook
                .hook_event_name
                .unwrap_or_else(|| "a hook".to_owned())
        });
    match std::fs::remove_file(&path) {
        Ok(()) => Some(left.unwrap_or_else(|| "a hook".to_owned())),
        Err(_) => None,
    }
}

/// Every pending capture of the memory root, oldest first (by `since`,
/// then key): each, or the file that could not be read and why.
pub(super) fn all(root: &Path) -> Vec<Result<PendingRecord, (PathBuf, String)>> {
    let Ok(entries) = std::fs::read_dir(dir(root)) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let mut records: Vec<Result<PendingRecord, (PathBuf, String)>> = paths
        .into_iter()
        .map(|path| {
            std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|bytes| {
                    serde_json::from_slice::<PendingRecord>(&bytes).map_err(|e| e.to_string())
                })
                .map_err(|why| (path, why))
        })
        .collect();
    records.sort_by(|a, b| match (a, b) {
        (Ok(a), Ok(b)) => (a.since, &a.key).cmp(&(b.since, &b.key)),
        (Ok(_), Err(_)) => std::cmp::Ordering::Greater,
        (Err(_), Ok(_)) => std::cmp::Ordering::Less,
        (Err((a, _)), Err((b, _))) => a.cmp(b),
    });
    records
}

/// Removes an unreadable record file.
pub(super) fn remove(path: &Path) {
    let _ = std::fs::remove_file(path);
}
