//! Path arithmetic shared by the crates that judge paths.

use std::path::{Component, Path, PathBuf};

/// Resolves `.`, `..` and repeated separators without touching the disk;
/// `..` above the root stays at the root. Meant for absolute paths.
///
/// ```
/// use agentctx_types::normalize_lexically;
/// assert_eq!(normalize_lexically("/a/./b//c/../d/".as_ref()), std::path::Path::new("/a/b/d"));
/// assert_eq!(normalize_lexically("/../../etc".as_ref()), std::path::Path::new("/etc"));
/// ```
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(p) => out.push(p.as_os_str()),
            Component::RootDir => out.push(Component::RootDir.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
        }
    }
    out
}
