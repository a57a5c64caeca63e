//! Turning what a tool names into a path the patterns can judge, without
//! letting `..`, absolute paths or symlinks walk around a rule.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use agentctx_types::normalize_lexically;

/// What the disk says about a path below the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OnDisk {
    /// No symlink on the way: the lexical path is the real one.
    Plain,
    /// A symlink on the way; this is where it really leads.
    Resolved(PathBuf),
    /// A symlink on the way that leads nowhere (dangling or a loop).
    Unresolvable,
}

/// Looks for symlinks on paths below one root, remembering directories it
/// has seen, so that checking many paths in one run does not stat the same
/// directories again.
#[derive(Debug, Default)]
pub struct LinkScanner {
    /// Directory (absolute) → whether it is a symlink; missing directories are not cached.
    dirs: HashMap<PathBuf, bool>,
}

impl LinkScanner {
    /// `relative` is normalized and relative to `root`.
    pub fn scan(&mut self, root: &Path, relative: &Path) -> OnDisk {
        let mut current = root.to_path_buf();
        let mut components = relative.components().peekable();
        let mut linked = false;
        while let Some(component) = components.next() {
            current.push(component);
            let last = components.peek().is_none();
            let is_link = if last {
                match std::fs::symlink_metadata(&current) {
                    Ok(meta) => meta.file_type().is_symlink(),
                    Err(_) => break,
                }
            } else if let Some(cached) = self.dirs.get(&current) {
                *cached
            } else {
                match std::fs::symlink_metadata(&current) {
                    Ok(meta) => {
                        let is_link = meta.file_type().is_symlink();
                        self.dirs.insert(current.clone(), is_link);
                        is_link
                    }
                    // Nothing below a missing directory exists either.
                    Err(_) => break,
                }
            };
            if is_link {
                linked = true;
                break;
            }
        }
        if !linked {
            return OnDisk::Plain;
        }
        resolve(&root.join(relative))
    }
}

/// The real path of `absolute`: its deepest existing ancestor canonicalized,
/// with the part that does not exist yet appended.
fn resolve(absolute: &Path) -> OnDisk {
    for ancestor in absolute.ancestors() {
        match std::fs::canonicalize(ancestor) {
            Ok(real) => {
                let rest = absolute.strip_prefix(ancestor).unwrap_or(Path::new(""));
                return OnDisk::Resolved(normalize_lexically(&real.join(rest)));
            }
            // It exists as an entry but cannot be followed: a dangling link or a loop.
            Err(_) if std::fs::symlink_metadata(ancestor).is_ok() => return OnDisk::Unresolvable,
            Err(_) => {}
        }
    }
    OnDisk::Unresolvable
}
