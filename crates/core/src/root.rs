//! Finding the project root: an override, else the nearest marker above the
//! working directory, else the working directory itself.

use std::path::{Component, Path, PathBuf};

use agentctx_types::{AgentsConfig, RootInfo, RootSource};

use crate::CoreError;

/// How to look for the root. Build it from config with [`RootOptions::from_config`].
#[derive(Clone, Debug)]
pub struct RootOptions {
    /// A fixed root; the walk is skipped. Relative paths are taken against the cwd.
    pub override_root: Option<PathBuf>,
    /// Names that mark a root.
    pub markers: Vec<String>,
    /// `false` confines the walk to the home directory's subtree.
    pub stop_at_fs_root: bool,
    /// The user's home directory, never chosen as a root by marker.
    pub home: Option<PathBuf>,
}

impl RootOptions {
    /// Options from the `agents` config section and the user's home directory.
    pub fn from_config(config: &AgentsConfig, home: Option<PathBuf>) -> Self {
        Self {
            override_root: config.root.project_root_override.clone(),
            markers: config.root.markers.clone(),
            stop_at_fs_root: config.root.stop_at_fs_root,
            home: home.map(|h| std::fs::canonicalize(&h).unwrap_or(h)),
        }
    }
}

/// Finds the project root for `cwd`.
///
/// `cwd` is canonicalized first, so the root and every path derived from it
/// are canonical too. Errors: the cwd or the override does not exist.
pub fn find_root(cwd: &Path, options: &RootOptions) -> Result<RootInfo, CoreError> {
    let cwd = std::fs::canonicalize(cwd).map_err(|source| CoreError::Io {
        path: cwd.to_path_buf(),
        source,
    })?;

    if let Some(fixed) = &options.override_root {
        let absolute = cwd.join(fixed);
        let root = std::fs::canonicalize(&absolute)
            .ok()
            .filter(|p| p.is_dir())
            .ok_or_else(|| CoreError::OverrideMissing {
                path: absolute.clone(),
            })?;
        return Ok(RootInfo {
            root,
            cwd,
            source: RootSource::Override,
            marker: None,
        });
    }

    let home = options.home.as_deref();
    let inside_home = home.is_some_and(|h| cwd.starts_with(h) && cwd != h);
    for dir in cwd.ancestors() {
        if Some(dir) == home {
            break;
        }
        if let Some(marker) = marker_in(dir, &options.markers) {
            return Ok(RootInfo {
                root: dir.to_path_buf(),
                cwd: cwd.clone(),
                source: RootSource::Marker,
                marker: Some(marker),
            });
        }
        // Confined to the home subtree: a cwd outside it looks at itself only.
        if !options.stop_at_fs_root && !inside_home {
            break;
        }
    }
    Ok(RootInfo {
        root: cwd.clone(),
        cwd,
        source: RootSource::Cwd,
        marker: None,
    })
}

/// The first of `markers` that marks `dir` as a root.
fn marker_in(dir: &Path, markers: &[String]) -> Option<String> {
    markers
        .iter()
        .find(|marker| marks_root(&dir.join(marker.as_str()), marker))
        .cloned()
}

fn marks_root(candidate: &Path, marker: &str) -> bool {
    let Ok(meta) = std::fs::metadata(candidate) else {
        return false;
    };
    if marker != ".git" {
        return true;
    }
    if meta.is_dir() {
        // An empty stray `.git` directory is not a repository.
        return candidate.join("HEAD").is_file();
    }
    // A `.git` file: a linked worktree counts, a submodule does not (its
    // superproject is the root, and the superproject's AGENTS.md apply).
    match git_file_target(candidate) {
        Some(gitdir) => !is_submodule_gitdir(&gitdir),
        None => false,
    }
}

/// A `.git` file is one line; more is not one.
const GIT_FILE_LIMIT: u64 = 64 * 1024;

/// The `gitdir:` of a `.git` file, made absolute against the file's directory.
fn git_file_target(git_file: &Path) -> Option<PathBuf> {
    let text = agentctx_fs::read_to_string(git_file, GIT_FILE_LIMIT).ok()?;
    let target = text
        .lines()
        .find_map(|line| line.strip_prefix("gitdir:"))?
        .trim();
    if target.is_empty() {
        return None;
    }
    let base = git_file.parent()?;
    Some(crate::fsutil::normalize_lexically(&base.join(target)))
}

/// A submodule's git directory lives in another repository's `.git/modules/`.
fn is_submodule_gitdir(gitdir: &Path) -> bool {
    let names: Vec<Component<'_>> = gitdir.components().collect();
    names
        .windows(2)
        .any(|pair| pair[0].as_os_str() == ".git" && pair[1].as_os_str() == "modules")
}
