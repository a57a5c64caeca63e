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

/// Where the kernel would take `absolute`: each component resolved in order,
/// a symlink replaced by its target before the next component is looked at,
/// so `link/../x` goes to the folder above the link's *target*, as `open`
/// does, not to `x` beside the link. The part that does not exist yet is
/// appended as written (normalized). A dangling link or a loop (more than
/// 40 links) cannot be followed.
pub fn physical_path(absolute: &Path) -> OnDisk {
    use std::collections::VecDeque;
    use std::path::Component;
    let mut pending: VecDeque<std::ffi::OsString> = VecDeque::new();
    let mut out = PathBuf::from("/");
    for component in absolute.components() {
        match component {
            Component::Normal(name) => pending.push_back(name.to_owned()),
            Component::ParentDir => pending.push_back("..".into()),
            _ => {}
        }
    }
    let mut links = 0;
    let mut missing = false;
    while let Some(name) = pending.pop_front() {
        if name == ".." {
            out.pop();
            continue;
        }
        if name == "." {
            continue;
        }
        let candidate = out.join(&name);
        if missing {
            out = candidate;
            continue;
        }
        match std::fs::symlink_metadata(&candidate) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                let Ok(target) = std::fs::read_link(&candidate) else {
                    return OnDisk::Unresolvable;
                };
                if links > 40 {
                    return OnDisk::Unresolvable;
                }
                // A link whose target does not exist leads nowhere.
                let target_abs = if target.is_absolute() {
                    target.clone()
                } else {
                    out.join(&target)
                };
                if std::fs::metadata(&target_abs).is_err()
                    && std::fs::symlink_metadata(&target_abs).is_err()
                {
                    return OnDisk::Unresolvable;
                }
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                for component in target.components().rev() {
                    match component {
                        Component::Normal(n) => pending.push_front(n.to_owned()),
                        Component::ParentDir => pending.push_front("..".into()),
                        _ => {}
                    }
                }
            }
            Ok(_) => out = candidate,
            Err(_) => {
                missing = true;
                out = candidate;
            }
        }
    }
    OnDisk::Resolved(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_link_followed_by_dotdot_goes_where_the_kernel_goes() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("secrets/sub")).unwrap();
        std::fs::write(root.join("secrets/key"), "k").unwrap();
        std::fs::create_dir_all(root.join("links")).unwrap();
        std::os::unix::fs::symlink("../secrets/sub", root.join("links/tosub")).unwrap();
        let physical = physical_path(&root.join("links/tosub/../key"));
        assert_eq!(physical, OnDisk::Resolved(root.join("secrets/key")));
        assert!(
            std::fs::read_to_string(root.join("links/tosub/../key")).is_ok(),
            "the kernel agrees"
        );
        // Not yet existing parts are kept; loops cannot be followed.
        assert_eq!(
            physical_path(&root.join("new/a/../b")),
            OnDisk::Resolved(root.join("new/b"))
        );
        std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
        assert_eq!(physical_path(&root.join("loop/x")), OnDisk::Unresolvable);
    }
}
