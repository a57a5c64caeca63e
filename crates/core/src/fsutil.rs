//! Small file-system facts the other modules share.

use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use agentctx_types::{FileId, LoadedVersion};

/// The file name looked for in every directory.
pub const AGENTS_FILE_NAME: &str = "AGENTS.md";

/// Whole milliseconds since the Unix epoch; 0 for times before it or unknown.
pub fn mtime_ms(meta: &Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| {
            crate::probe::millis(
                i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                d.subsec_nanos(),
            )
        })
        .unwrap_or(0)
}

#[cfg(unix)]
pub fn file_id(meta: &Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some(FileId {
        dev: meta.dev(),
        ino: meta.ino(),
    })
}

#[cfg(not(unix))]
pub fn file_id(_meta: &Metadata) -> Option<FileId> {
    None
}

/// The version of a file as the model would see it.
pub fn version_of(meta: &Metadata) -> LoadedVersion {
    LoadedVersion {
        mtime_ms: mtime_ms(meta),
        size_bytes: meta.len(),
        file_id: file_id(meta),
    }
}

/// `dir/AGENTS.md` if it is a regular file (symlinks followed).
pub fn agents_file_in(dir: &Path) -> Option<(PathBuf, Metadata)> {
    let path = dir.join(AGENTS_FILE_NAME);
    let meta = std::fs::metadata(&path).ok()?;
    meta.is_file().then_some((path, meta))
}

pub use agentctx_types::normalize_lexically;

/// Where `path` really leads, when that is outside `root` (canonical):
/// a symlink to a file elsewhere. `None` for a file inside the root.
pub fn outside_root(root: &Path, path: &Path) -> Option<PathBuf> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let real = std::fs::canonicalize(path).ok()?;
    // A file reached through a symlinked directory is judged by where it is too.
    (!real.starts_with(root) && (is_link || real != *path)).then_some(real)
}

/// The directories from `root` down to `dir`, inclusive, root first.
/// Empty when `dir` is not `root` or below it.
pub fn chain_dirs(root: &Path, dir: &Path) -> Vec<PathBuf> {
    let Ok(relative) = dir.strip_prefix(root) else {
        return Vec::new();
    };
    let mut dirs = Vec::with_capacity(relative.components().count() + 1);
    let mut current = root.to_path_buf();
    dirs.push(current.clone());
    for component in relative.components() {
        current.push(component);
        dirs.push(current.clone());
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_removes_dots_and_stops_at_root() {
        assert_eq!(
            normalize_lexically(Path::new("/a/./b//c/../d/")),
            Path::new("/a/b/d")
        );
        assert_eq!(normalize_lexically(Path::new("/../../x")), Path::new("/x"));
    }

    #[test]
    fn chain_dirs_runs_root_to_dir_and_is_empty_outside() {
        let dirs = chain_dirs(Path::new("/r"), Path::new("/r/a/b"));
        assert_eq!(
            dirs,
            [Path::new("/r"), Path::new("/r/a"), Path::new("/r/a/b")]
        );
        assert!(chain_dirs(Path::new("/r"), Path::new("/other")).is_empty());
        assert!(chain_dirs(Path::new("/r"), Path::new("/rx")).is_empty());
    }
}
