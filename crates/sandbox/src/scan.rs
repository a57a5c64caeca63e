//! What the kernel must refuse in one project: the excluded files and
//! folders that exist (to be made unreadable), and the protected ones (to
//! be made read-only), found by walking the project. The walk is kept,
//! with every folder's modification time, and used again while no folder
//! changed: a file is created, removed or renamed only by changing its
//! folder.

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use agentctx_rules::Rules;
use serde::{Deserialize, Serialize};

use crate::SandboxError;
use crate::layers::{Layer, Layers};

/// What is protected from writes: names at any depth of the project
/// (`.claude`, `.codex`, `.agentctx.yaml`) and exact paths anywhere (the
/// rule file, the agents' user settings, agentctx's state and binary);
/// and what is out of reach whatever the rules (the sockets of programs
/// that would run a command outside the sandbox).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Protection {
    /// File and folder names protected wherever they are in the project.
    pub names: Vec<String>,
    /// Absolute paths protected (when they exist).
    pub paths: Vec<PathBuf>,
    /// Absolute paths made unreachable (when they exist): a socket or a
    /// folder of sockets is covered by something that cannot be opened.
    pub hidden: Vec<PathBuf>,
    /// Absolute folders a command may write (when they exist; one that
    /// has a protected name is not protected by its name): with any,
    /// everything else is read-only, so nothing a command leaves behind
    /// runs later outside the sandbox; none: everything but the protected
    /// paths is writable. One inside a protected path is writable again
    /// there (a cache in a read-only home), its own protected paths
    /// read-only again.
    pub writable: Vec<PathBuf>,
}

/// The mounts the sandbox makes, all absolute paths that exist.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mounts {
    /// Folders made unreadable (an empty folder nobody may open).
    pub hidden_dirs: Vec<PathBuf>,
    /// Files made unreadable (an empty file nobody may open).
    pub hidden_files: Vec<PathBuf>,
    /// Files and folders made read-only (inside a writable folder: the
    /// rest is read-only as a whole).
    pub read_only: Vec<PathBuf>,
    /// Folders left writable when everything else is read-only (none:
    /// everything but `read_only` is writable). Real paths, none inside
    /// another.
    #[serde(default)]
    pub writable: Vec<PathBuf>,
    /// Writable folders inside a read-only path (itself in a writable
    /// folder), made writable again after it: a cache in a home that lies
    /// in `/tmp`, a worktree in the project's `.claude/`. Real paths.
    #[serde(default)]
    pub writable_again: Vec<PathBuf>,
    /// Protected paths outside every writable folder: read-only with the
    /// rest of the file system, without a mount of their own (what
    /// `Plan::enforced_here` checks besides `read_only`).
    #[serde(skip)]
    pub read_only_outside: Vec<PathBuf>,
    /// Folders bound onto themselves, writable as they are, before the
    /// masks and read-only binds: every folder between a writable root and
    /// a masked or protected path. The kernel refuses to rename a mount
    /// point, so a command cannot move a protected file's folder away
    /// (`mv .git .git-old`, then a `.git` of its own) nor an excluded
    /// path's (`mv cfg cfg2` out from under `/cfg/prod/`). Parents first.
    #[serde(skip)]
    pub pinned: Vec<PathBuf>,
    /// Every entry of the project with a protected name (and every `.git`)
    /// when it was walked, links included.
    #[serde(default)]
    pub named: Vec<PathBuf>,
    /// The folders the walk saw, for what a command makes afterwards.
    #[serde(skip)]
    pub walked: Walk,
}

impl Mounts {
    /// How many mounts.
    pub fn len(&self) -> usize {
        self.hidden_dirs.len()
            + self.hidden_files.len()
            + self.read_only.len()
            + self.writable.len()
            + self.writable_again.len()
            + self.pinned.len()
    }

    /// Whether there is nothing to mount.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A walk as it was kept: the folders seen with their modification times,
/// and what was found.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Kept {
    /// What the walk was for (root, rules, protection).
    key: String,
    /// Every folder walked, with what says it changed: its inode, its
    /// mtime and its ctime in nanoseconds (an owner can set a folder's
    /// mtime back; nobody can set its ctime).
    dirs: Vec<(PathBuf, Stamp)>,
    mounts: Mounts,
}

/// How many entries a walk visits before it gives up: a sandbox whose
/// masks cannot be known is no sandbox.
pub(crate) const MAX_ENTRIES: usize = 2_000_000;
/// How many mounts a sandbox makes at most.
pub(crate) const MAX_MOUNTS: usize = 8_192;

/// The mounts for `root` under `rules` and `protection`, from the kept
/// walk in `cache` when no folder changed since, else walked again (and
/// kept). `key` names what the walk depends on besides the tree.
pub(crate) fn mounts(
    rules: &Rules,
    protection: &Protection,
    cache: Option<&Path>,
    key: &str,
) -> Result<(Mounts, bool), SandboxError> {
    let (mut mounts, from_cache, dirs) = match cache.and_then(|c| read_kept(c, key)) {
        Some(kept) => (kept.mounts, true, kept.dirs),
        None => {
            let walked = walk(rules, protection)?;
            if let Some(cache) = cache {
                let kept = Kept {
                    key: key.to_owned(),
                    dirs: walked.dirs.clone(),
                    mounts: walked.mounts.clone(),
                };
                // A walk that cannot be kept is used all the same.
                let _ = write_kept(cache, &kept);
            }
            (walked.mounts, false, walked.dirs)
        }
    };
    mounts.walked = Walk {
        root: rules.root().to_path_buf(),
        named: mounts.named.clone(),
        dirs: dirs
            .into_iter()
            .filter(|(d, _)| d.starts_with(rules.root()))
            .collect(),
    };
    // Looked at again every time: a protected file outside the project may
    // appear without any folder of the project changing.
    beyond_the_walk(rules.main_checkout(), protection, &mut mounts);
    masks_once(&mut mounts);
    let layers = nest(&protection.writable, &mut mounts);
    if !mounts.writable.is_empty() {
        let writable = mounts.writable.clone();
        let inside = |path: &Path| writable.iter().any(|w| path.starts_with(w));
        let (keep, outside): (Vec<PathBuf>, Vec<PathBuf>) =
            mounts.read_only.drain(..).partition(|p| inside(p));
        mounts.read_only = keep;
        mounts.read_only_outside = outside;
    }
    mounts.pinned = pinned_folders(&mounts, &layers);
    if mounts.len() > MAX_MOUNTS {
        return Err(SandboxError::TooManyMounts {
            root: rules.root().to_path_buf(),
            mounts: mounts.len(),
        });
    }
    Ok((mounts, from_cache))
}

/// The project's folders a walk saw, with their stamps, and the protected
/// names there were: what changed since can be looked at alone. Kept with
/// a command that may be killed before it is looked at.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Walk {
    root: PathBuf,
    dirs: Vec<(PathBuf, Stamp)>,
    named: Vec<PathBuf>,
}

impl Walk {
    /// The files, folders and links in the project named one of `names`
    /// (or a `.git` below its root) that were not there when it was
    /// walked, in a folder changed since (or made since): what a command
    /// made. Only the project is looked at, never beyond its root. At most
    /// [`MAX_ENTRIES`] entries are looked at.
    pub fn new_entries_named(&self, names: &[String]) -> Vec<PathBuf> {
        let root = self.root.as_path();
        let seen: HashMap<&Path, &Stamp> =
            self.dirs.iter().map(|(d, s)| (d.as_path(), s)).collect();
        let known: HashSet<&Path> = self.named.iter().map(PathBuf::as_path).collect();
        let mut stack: Vec<PathBuf> = self
            .dirs
            .iter()
            .filter(|(dir, _)| dir.starts_with(root))
            .filter(|(dir, stamp)| {
                !std::fs::symlink_metadata(dir).is_ok_and(|m| stamp_of(&m) == *stamp)
            })
            .map(|(dir, _)| dir.clone())
            .collect();
        let mut found = Vec::new();
        let mut budget = MAX_ENTRIES;
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                budget = budget.saturating_sub(1);
                if budget == 0 {
                    return found;
                }
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                let watched = names.contains(&name) || (name == ".git" && dir != root);
                if watched && !known.contains(path.as_path()) {
                    found.push(path.clone());
                    continue;
                }
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                // A folder the walk never saw was made since: all of it is new.
                if is_dir && !seen.contains_key(path.as_path()) && name != ".git" {
                    stack.push(path);
                }
            }
        }
        found.sort();
        found
    }
}

/// The protected and hidden paths the walk does not find (outside the
/// walked checkout `start`, or in a folder it does not enter such as
/// `.git`), when they exist and are not already masked.
fn beyond_the_walk(start: &Path, protection: &Protection, mounts: &mut Mounts) {
    let masked = |mounts: &Mounts, path: &Path| {
        mounts.hidden_dirs.iter().any(|m| path.starts_with(m))
            || mounts.hidden_files.iter().any(|m| m == path)
    };
    for path in &protection.paths {
        let walked = path != start
            && path.starts_with(start)
            && !path.components().any(|c| c.as_os_str() == ".git");
        if !walked && std::fs::symlink_metadata(path).is_ok() && !masked(mounts, path) {
            mounts.read_only.push(path.clone());
        }
    }
    // A socket in a read-only folder still answers: only a mask covers it.
    for path in &protection.hidden {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => mounts.hidden_dirs.push(path.clone()),
            Ok(meta) if !meta.is_symlink() && !masked(mounts, path) => {
                mounts.hidden_files.push(path.clone());
            }
            _ => {}
        }
    }
    mounts.read_only.sort();
    mounts.read_only.dedup();
}

/// Each mask once, and none inside a masked folder: the folder's mask is
/// an empty folder, where nothing below it can be mounted (`~/.local/bin/`
/// and `~/.local/bin/moat` both excluded).
fn masks_once(mounts: &mut Mounts) {
    mounts.hidden_dirs.sort();
    mounts.hidden_dirs.dedup();
    let dirs = mounts.hidden_dirs.clone();
    let inside = |p: &Path| dirs.iter().any(|d| d != p && p.starts_with(d));
    mounts.hidden_dirs.retain(|d| !inside(d));
    mounts.hidden_files.sort();
    mounts.hidden_files.dedup();
    mounts.hidden_files.retain(|f| !inside(f));
}

/// The writable folders (`wanted`, as real paths that exist) as they nest
/// with the read-only paths and masks: the outermost ones are
/// `mounts.writable`; one inside a read-only path is writable again
/// (`mounts.writable_again`), unless a mask or the same path read-only
/// holds there; one inside a writable folder needs nothing. A read-only
/// path inside another with no writable folder between needs no mount of
/// its own. Returns the layers, to find what holds around a path.
fn nest(wanted: &[PathBuf], mounts: &mut Mounts) -> Layers {
    let mut folders: Vec<PathBuf> = wanted
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    folders.dedup();
    let mut layers = Layers::default();
    layers.add(&mounts.hidden_dirs, Layer::Hidden);
    layers.add(&mounts.read_only, Layer::ReadOnly);
    let (outer, nested): (Vec<PathBuf>, Vec<PathBuf>) = folders.iter().cloned().partition(|f| {
        !folders
            .iter()
            .any(|other| other != f && f.starts_with(other))
    });
    // A writable folder that is itself protected or masked stays so.
    mounts.writable = outer
        .into_iter()
        .filter(|f| layers.at(f).is_none())
        .collect();
    layers.add(&mounts.writable, Layer::Writable);
    let mut nested = nested;
    nested.sort_by_key(|f| f.components().count());
    mounts.writable_again.clear();
    for folder in nested {
        let again = layers.at(&folder).is_none()
            && layers
                .around(&folder)
                .is_some_and(|(_, layer)| layer == Layer::ReadOnly);
        if again {
            layers.add(std::slice::from_ref(&folder), Layer::WritableAgain);
            mounts.writable_again.push(folder);
        }
    }
    mounts.writable_again.sort();
    mounts.read_only.retain(|path| {
        !layers
            .around(path)
            .is_some_and(|(_, layer)| matches!(layer, Layer::ReadOnly | Layer::Hidden))
    });
    layers
}

/// Every folder strictly between a masked or read-only path and the
/// writable folder around it (or `/` when everything is writable),
/// parents first; none where a read-only path or a mask is around it
/// (nothing renames there).
fn pinned_folders(mounts: &Mounts, layers: &Layers) -> Vec<PathBuf> {
    let everything_writable = mounts.writable.is_empty();
    let mut pinned: HashSet<PathBuf> = HashSet::new();
    for path in mounts
        .hidden_dirs
        .iter()
        .chain(&mounts.hidden_files)
        .chain(&mounts.read_only)
    {
        let stop = match layers.around(path) {
            Some((stop, layer)) if layer.writable() => stop,
            None if everything_writable => Path::new("/"),
            _ => continue,
        };
        for dir in path.ancestors().skip(1) {
            if dir == stop || !dir.starts_with(stop) {
                break;
            }
            if !pinned.insert(dir.to_path_buf()) {
                // Its own parents are in already.
                break;
            }
        }
    }
    let mut pinned: Vec<PathBuf> = pinned.into_iter().collect();
    pinned.sort_by_key(|p| (p.components().count(), p.clone()));
    pinned
}

fn read_kept(cache: &Path, key: &str) -> Option<Kept> {
    let text = std::fs::read(cache).ok()?;
    let kept: Kept = serde_json::from_slice(&text).ok()?;
    if kept.key != key {
        return None;
    }
    let unchanged = kept
        .dirs
        .iter()
        .all(|(dir, stamp)| std::fs::symlink_metadata(dir).is_ok_and(|m| stamp_of(&m) == *stamp));
    let still_there = kept
        .mounts
        .hidden_files
        .iter()
        .chain(&kept.mounts.hidden_dirs)
        .chain(&kept.mounts.read_only)
        .all(|p| std::fs::symlink_metadata(p).is_ok());
    (unchanged && still_there).then_some(kept)
}

fn write_kept(cache: &Path, kept: &Kept) -> std::io::Result<()> {
    let dir = cache.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    serde_json::to_writer(&mut temp, kept).map_err(std::io::Error::other)?;
    temp.persist(cache).map_err(|e| e.error)?;
    Ok(())
}

/// A folder's inode, mtime and ctime (nanoseconds).
type Stamp = (u64, i128, i128);

fn stamp_of(meta: &std::fs::Metadata) -> Stamp {
    (
        meta.ino(),
        i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
    )
}

struct Walked {
    dirs: Vec<(PathBuf, Stamp)>,
    mounts: Mounts,
}

/// Walks the project's main checkout, its worktrees with it (not
/// following links; `.git`'s insides are git's objects, which rules do not
/// name), then the home folder's excluded entries.
fn walk(rules: &Rules, protection: &Protection) -> Result<Walked, SandboxError> {
    // From the main checkout: with the session in one of its worktrees,
    // the project's own excluded paths are masked too.
    let root = rules.main_checkout().to_path_buf();
    let mut mounts = Mounts::default();
    let mut dirs = Vec::new();
    let protected_paths: HashSet<&Path> = protection.paths.iter().map(PathBuf::as_path).collect();
    let mut hidden_inodes: HashSet<(u64, u64)> = HashSet::new();
    let mut stack = vec![root.clone()];
    let mut seen = 0usize;
    if rules.denies_everything() {
        mounts.hidden_dirs.push(root.clone());
        return Ok(Walked { dirs, mounts });
    }
    while let Some(dir) = stack.pop() {
        let meta = std::fs::symlink_metadata(&dir).map_err(|source| SandboxError::Walk {
            path: dir.clone(),
            source,
        })?;
        dirs.push((dir.clone(), stamp_of(&meta)));
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            // A folder the user cannot list may still hold an excluded
            // path, and its owner could open it up inside the sandbox
            // (`chmod`): it is masked whole.
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                if dir != root {
                    mounts.hidden_dirs.push(dir);
                }
                continue;
            }
            Err(source) => return Err(SandboxError::Walk { path: dir, source }),
        };
        let mut children: Vec<(PathBuf, std::fs::FileType)> = entries
            .flatten()
            .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
            .collect();
        children.sort_by(|a, b| a.0.cmp(&b.0));
        for (path, kind) in children {
            seen += 1;
            if seen > MAX_ENTRIES {
                return Err(SandboxError::TooLarge {
                    root: root.clone(),
                    entries: MAX_ENTRIES,
                });
            }
            let Ok(relative) = path.strip_prefix(&root) else {
                continue;
            };
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // A nested `.git` (a submodule's, a repository inside) is git's
            // for every `git` run in its folder: read-only whole.
            let nested_git = name == ".git" && dir != root;
            let protected = (protection.names.contains(&name)
                && !protection.writable.iter().any(|w| w == &path))
                || protected_paths.contains(path.as_path())
                || nested_git;
            if protected || name == ".git" {
                // What is there before a command, by name (links too): a
                // protected name that appears later is the command's.
                mounts.named.push(path.clone());
            }
            if kind.is_symlink() {
                // A link is judged where it leads: its target is masked
                // when that is excluded; an excluded link itself reads
                // nothing of its own. A protected name that is a link
                // protects where it leads.
                if protected && let Ok(target) = std::fs::canonicalize(&path) {
                    mounts.read_only.push(target);
                }
                continue;
            }
            if rules.excluded(relative) {
                if kind.is_dir() {
                    // Another name of a file in it (a hard link outside
                    // it) reads the file: note its multiply-linked files.
                    linked_inside(&path, &mut hidden_inodes, &mut seen);
                    mounts.hidden_dirs.push(path);
                } else {
                    if let Ok(meta) = std::fs::symlink_metadata(&path)
                        && meta.nlink() > 1
                    {
                        hidden_inodes.insert((meta.dev(), meta.ino()));
                    }
                    mounts.hidden_files.push(path);
                }
                continue;
            }
            if kind.is_dir() {
                if protected {
                    mounts.read_only.push(path.clone());
                }
                // Inside a protected folder, excluded paths are masked too
                // (a git folder holds git's objects, which rules do not name).
                if name != ".git" {
                    stack.push(path);
                }
                continue;
            }
            if rules.not_included(relative) {
                mounts.hidden_files.push(path);
            } else if protected {
                mounts.read_only.push(path);
            }
        }
    }
    if !hidden_inodes.is_empty() {
        other_names(&root, &hidden_inodes, &mut mounts);
    }
    home_excludes(rules, &mut mounts, &mut dirs);
    Ok(Walked { dirs, mounts })
}

/// The files with more than one link below `dir`, by device and inode.
fn linked_inside(dir: &Path, inodes: &mut HashSet<(u64, u64)>, seen: &mut usize) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            *seen += 1;
            if *seen > MAX_ENTRIES {
                return;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.is_file() && meta.nlink() > 1 {
                inodes.insert((meta.dev(), meta.ino()));
            }
        }
    }
}

/// The other names of hard-linked excluded files in the project: reading
/// one of them reads the excluded file.
fn other_names(root: &Path, inodes: &HashSet<(u64, u64)>, mounts: &mut Mounts) {
    let hidden: HashSet<PathBuf> = mounts.hidden_files.iter().cloned().collect();
    let masked_dirs = mounts.hidden_dirs.clone();
    let mut stack = vec![root.to_path_buf()];
    let mut found = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                if !masked_dirs.iter().any(|m| path.starts_with(m))
                    && path.file_name() != Some(".git".as_ref())
                {
                    stack.push(path);
                }
            } else if meta.is_file()
                && meta.nlink() > 1
                && inodes.contains(&(meta.dev(), meta.ino()))
                && !hidden.contains(&path)
            {
                found.push(path);
            }
        }
    }
    found.sort();
    mounts.hidden_files.extend(found);
}

/// Exclude entries written `~/...`: a literal path is masked where it
/// exists; a pattern is matched against the folder it starts in (its
/// first component with a glob character ends the walk's fixed part),
/// at most two levels below it.
/// The folders looked into are kept with the walk (a file created there
/// later invalidates it).
fn home_excludes(rules: &Rules, mounts: &mut Mounts, dirs: &mut Vec<(PathBuf, Stamp)>) {
    let (Some(home), entries) = rules.home_excludes() else {
        return;
    };
    let mut by_base: HashMap<PathBuf, ()> = HashMap::new();
    for entry in entries {
        let text = entry.trim_end_matches('/');
        let glob = text.contains(['*', '?', '[', '{']);
        if !glob {
            let path = home.join(text);
            // Its folder is kept with the walk: the file may appear later.
            if let Some(parent) = path.parent()
                && let Ok(meta) = std::fs::symlink_metadata(parent)
            {
                dirs.push((parent.to_path_buf(), stamp_of(&meta)));
            }
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if meta.is_dir() => mounts.hidden_dirs.push(path),
                Ok(meta) if meta.is_file() => mounts.hidden_files.push(path),
                _ => {}
            }
            continue;
        }
        let fixed: PathBuf = Path::new(text)
            .components()
            .take_while(|c| {
                !c.as_os_str()
                    .to_string_lossy()
                    .contains(['*', '?', '[', '{'])
            })
            .collect();
        by_base.insert(home.join(fixed), ());
    }
    for base in by_base.into_keys() {
        let mut stack = vec![(base, 0)];
        while let Some((dir, depth)) = stack.pop() {
            if let Ok(meta) = std::fs::symlink_metadata(&dir) {
                dirs.push((dir.clone(), stamp_of(&meta)));
            }
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let Ok(relative) = path.strip_prefix(home) else {
                    continue;
                };
                if rules.home_excluded(relative) {
                    if kind.is_dir() {
                        mounts.hidden_dirs.push(path);
                    } else if kind.is_file() {
                        mounts.hidden_files.push(path);
                    }
                } else if kind.is_dir() && depth < 2 {
                    stack.push((path, depth + 1));
                }
            }
        }
    }
}
