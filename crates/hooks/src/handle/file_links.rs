//! A file tool's path through a symlink that a command could change: the
//! hook judges where the link leads when it is asked, and the agent's tool
//! opens the path later, outside any sandbox. A command left running in
//! the background (sandboxed or not) can flip the link in between, from
//! `README.md` to the secret, or a Write's to `.git/hooks/pre-commit`.
//! So the tool is made to open what was judged: where the agent runs a
//! changed input (Claude Code), its path is replaced by the resolved one;
//! elsewhere the call is denied, naming the resolved path to use instead.
//!
//! A folder on the way that is replaced by a link after the check is not
//! covered here (nothing a hook returns can pin a folder); `agentctx run`
//! puts the agent's own tools under the kernel.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The input fields of the file tools that name one path (Claude Code's
/// Read, Write, Edit, MultiEdit, NotebookEdit, Grep, Glob, LS; the shared
/// names the other dialects' tools are read into).
const PATH_FIELDS: [&str; 3] = ["file_path", "notebook_path", "path"];

/// A path of the call that goes through a link a command could change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ChangeableLink {
    /// The input field.
    pub field: &'static str,
    /// The path as the call gives it.
    pub given: String,
    /// The link on the way (the first that a command could change).
    pub link: PathBuf,
    /// Where the path leads now: what the hook judged.
    pub resolved: PathBuf,
}

/// The call's path fields that go through a symlink in a folder this user
/// may write (a command could replace it), with where each leads now.
/// `absolute` makes a given path absolute as the tool would (`~/`, the
/// session's folder).
pub(super) fn changeable_links(
    input: &Value,
    absolute: impl Fn(&str) -> PathBuf,
) -> Vec<ChangeableLink> {
    let mut out = Vec::new();
    for field in PATH_FIELDS {
        let Some(given) = input.get(field).and_then(Value::as_str) else {
            continue;
        };
        if given.is_empty() {
            continue;
        }
        let path = agentctx_types::normalize_lexically(&absolute(given));
        let Some(link) = first_changeable_link(&path) else {
            continue;
        };
        // A link that leads nowhere was denied by the guard already.
        if let agentctx_rules::OnDisk::Resolved(resolved) = agentctx_rules::physical_path(&path) {
            out.push(ChangeableLink {
                field,
                given: given.to_owned(),
                link,
                resolved,
            });
        }
    }
    out
}

/// The first prefix of `path` that is a symlink whose folder this user may
/// write.
fn first_changeable_link(path: &Path) -> Option<PathBuf> {
    let mut prefix = PathBuf::new();
    for component in path.components() {
        prefix.push(component);
        if std::fs::symlink_metadata(&prefix).is_ok_and(|m| m.file_type().is_symlink()) {
            let folder = prefix.parent().unwrap_or(Path::new("/"));
            if rustix::fs::access(folder, rustix::fs::Access::WRITE_OK).is_ok() {
                return Some(prefix);
            }
        }
    }
    None
}

/// `input` with each changeable link's field replaced by its resolved path.
pub(super) fn pinned_input(input: &Value, links: &[ChangeableLink]) -> Value {
    let mut input = input.clone();
    for link in links {
        input[link.field] = Value::String(link.resolved.display().to_string());
    }
    input
}

/// The reason a call through a changeable link is denied where the agent
/// cannot be given the resolved path.
pub(super) fn denial(links: &[ChangeableLink]) -> String {
    let named: Vec<String> = links
        .iter()
        .map(|l| {
            format!(
                "`{}` goes through the link `{}`, which a command could change after this check; it leads to `{}` now",
                l.given,
                l.link.display(),
                l.resolved.display()
            )
        })
        .collect();
    agentctx_types::system_reminder(
        agentctx_types::SystemReminderType::PermissionDecision,
        &format!(
            "Denied: this call.\nWhy: {}.\nCall the tool again with the path the link leads to.",
            named.join("; ")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_link_in_a_writable_folder_is_changeable_and_a_plain_path_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("README.md"), "r").unwrap();
        std::fs::create_dir(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/a.md"), "a").unwrap();
        std::os::unix::fs::symlink("README.md", root.join("doc.md")).unwrap();
        std::os::unix::fs::symlink("docs", root.join("d")).unwrap();
        let abs = |p: &str| root.join(p);
        let input = json!({"file_path": "doc.md", "limit": 3});
        let links = changeable_links(&input, abs);
        assert_eq!(links.len(), 1);
        assert_eq!(links[0].resolved, root.join("README.md"));
        let pinned = pinned_input(&input, &links);
        assert_eq!(pinned["file_path"], json!(root.join("README.md")));
        assert_eq!(pinned["limit"], 3);
        // A folder on the way.
        let links = changeable_links(&json!({"path": "d/a.md"}), abs);
        assert_eq!(links[0].link, root.join("d"));
        assert_eq!(links[0].resolved, root.join("docs/a.md"));
        // No link: nothing to pin.
        assert!(changeable_links(&json!({"file_path": "docs/a.md"}), abs).is_empty());
        assert!(changeable_links(&json!({"command": "cat doc.md"}), abs).is_empty());
    }
}
