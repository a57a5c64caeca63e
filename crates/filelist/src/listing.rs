//! What a source (the local walk, a hosting API) produces: flat entries
//! relative to the root, before any limit is applied.

use serde::{Deserialize, Serialize};

/// One file or directory, relative to the root, `/`-separated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Root-relative path (lossy UTF-8 for names that are not UTF-8).
    pub path: String,
    /// A directory (or a submodule, which is shown as one and never entered).
    pub is_dir: bool,
    /// A git submodule (remote listings).
    pub submodule: bool,
    /// A symbolic link the walk did not follow (shown as `name@`).
    #[serde(default)]
    pub symlink: bool,
    /// Size in bytes, when the source knows it and it was asked for.
    pub size: Option<u64>,
    /// Modification time (seconds since the epoch), when known and asked for.
    pub mtime: Option<i64>,
}

impl Entry {
    /// A file entry.
    pub fn file(path: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            is_dir: false,
            submodule: false,
            symlink: false,
            size: None,
            mtime: None,
        }
    }

    /// A directory entry.
    pub fn dir(path: impl Into<String>) -> Self {
        Self {
            is_dir: true,
            ..Self::file(path)
        }
    }
}

/// Why a listing is incomplete or marked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SourceNote {
    /// The walk hit `timeout_secs` and stopped.
    Timeout {
        /// The limit.
        secs: u64,
    },
    /// Directories that could not be read (their contents are missing).
    Unreadable {
        /// Root-relative paths.
        paths: Vec<String>,
    },
    /// Symlinks the walk did not follow because they lead back to a folder
    /// they are in (following links).
    LinkCycles {
        /// Each link and the folder it leads back to, root-relative (`.`:
        /// the root).
        links: Vec<(String, String)>,
    },
    /// A hosting API cut the listing (remote sources).
    Truncated {
        /// Who cut it, e.g. `GitHub`.
        by: String,
    },
    /// GitHub truncated its answer; the trees were read level by level,
    /// complete down to this depth (deeper entries: what the answer held).
    CompleteTo {
        /// The depth.
        depth: usize,
    },
    /// The source has no sizes (GitLab): `--sizes` shows none.
    NoSizes {
        /// Which source.
        source: String,
    },
    /// No project root was found: the listing is of a home or a scratch
    /// folder, without its dot files and folders.
    OutsideProject,
}

/// Everything a source found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listing {
    /// The name in the header: the root's directory name, or `owner/repo@ref`.
    pub root_name: String,
    /// Entries in any order; the tree sorts them.
    pub entries: Vec<Entry>,
    /// Cuts and marks the footer reports.
    pub notes: Vec<SourceNote>,
    /// Names that were not valid UTF-8 (shown lossily).
    pub non_utf8_names: usize,
    /// The source already dropped excluded entries (the local walk prunes
    /// while walking), so they need not be matched again.
    pub excludes_applied: bool,
    /// The ref asked for, or the default branch (remote sources).
    #[serde(default)]
    pub reference: Option<String>,
    /// The commit the ref pointed at when listed (remote sources).
    #[serde(default)]
    pub commit: Option<String>,
    /// When the listing was fetched, seconds since the epoch (remote).
    #[serde(default)]
    pub fetched_at: Option<i64>,
    /// Why a cached listing was served although it may be out of date
    /// (the hosting API failed).
    #[serde(default)]
    pub stale: Option<String>,
}
