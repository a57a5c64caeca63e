//! In a git repository, the files git tracks are the project: they are
//! listed from the index even where the default excludes (`build/`,
//! `out/`, `vendor/`, `*.log`, ...) or a `.gitignore` would hide them. The
//! default excludes keep their job for untracked files (the walk applies
//! them); the user's own excludes and includes apply to every file.
//!
//! Only what the walk did not list is added, and only when it is on disk
//! (a file deleted but not committed, or outside a sparse checkout, is not
//! there to open).

use std::collections::HashSet;
use std::path::Path;

use crate::filters::Filters;
use crate::listing::{Entry, Listing};
use crate::walk::WalkOptions;

/// Tracked files below `root` that `listing` lacks, added to it. Returns
/// how many were added; a directory outside any repository, or a
/// repository whose index cannot be read, adds nothing.
pub fn add_tracked(
    root: &Path,
    filters: &Filters,
    listing: &mut Listing,
    options: &WalkOptions,
) -> usize {
    // gix opens HEAD, config and the index with a blocking `open`: a FIFO
    // a command planted there would hang the listing.
    if !agentctx_fs::git_files_are_regular(root) {
        return 0;
    }
    let Ok(repo) = gix::discover(root) else {
        return 0;
    };
    let Some(workdir) = repo.workdir() else {
        return 0;
    };
    let (Ok(workdir), Ok(root_real)) = (workdir.canonicalize(), root.canonicalize()) else {
        return 0;
    };
    let Ok(prefix) = root_real.strip_prefix(&workdir) else {
        return 0;
    };
    let Some(prefix) = prefix.to_str() else {
        return 0;
    };
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{}/", prefix.replace(std::path::MAIN_SEPARATOR, "/"))
    };
    let Ok(index) = repo.index_or_empty() else {
        return 0;
    };
    let known: HashSet<&str> = listing.entries.iter().map(|e| e.path.as_str()).collect();
    let mut added = Vec::new();
    for entry in index.entries() {
        // A conflict has up to three entries for one path; one is enough.
        if entry.stage_raw() > 1 {
            continue;
        }
        let Ok(path) = std::str::from_utf8(entry.path(&index)) else {
            continue;
        };
        let Some(relative) = path.strip_prefix(&prefix) else {
            continue;
        };
        if relative.is_empty() || known.contains(relative) || user_excluded(filters, relative) {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(root.join(relative)) else {
            continue;
        };
        let mode = entry.mode;
        let mut item = if mode == gix::index::entry::Mode::COMMIT {
            Entry {
                submodule: true,
                ..Entry::dir(relative)
            }
        } else {
            Entry::file(relative)
        };
        item.symlink = mode == gix::index::entry::Mode::SYMLINK;
        if meta.is_file() {
            crate::walk::stamp(&mut item, &meta, options);
        }
        added.push(item);
    }
    let n = added.len();
    listing.entries.extend(added);
    n
}

/// Whether the user's excludes hide `relative` or one of its directories.
fn user_excluded(filters: &Filters, relative: &str) -> bool {
    let path = Path::new(relative);
    path.ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .any(|a| filters.excludes_by_user(a))
}
