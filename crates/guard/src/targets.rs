//! Every path a tool call can touch, with what the call does with it: the
//! agents' file tools' fields, a Codex patch's headers, the files a shell
//! command line names, and every argument of an MCP tool that names a path
//! (values and keys, `file://` URIs, relative names of existing files).

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use agentctx_shell::{Access, NamedPath};

/// A path a call touches.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Target {
    /// As written.
    pub path: String,
    /// What the call does with it.
    pub access: Access,
    /// A glob pattern (a shell word): the files it matches.
    pub pattern: bool,
    /// Relative to the project root, not the working directory.
    pub from_root: bool,
    /// The program (shell) or tool that names it.
    pub by: String,
}

/// The agents' file tools that change the files they name.
pub(crate) const WRITE_TOOLS: [&str; 5] =
    ["Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch"];
/// Search tools: they read whatever their scope holds.
pub(crate) const SEARCH_TOOLS: [&str; 3] = ["Grep", "Glob", "LS"];
/// The fields the agents' file tools name paths in.
pub(crate) const PATH_FIELDS: [&str; 4] = ["file_path", "notebook_path", "path", "filePath"];

/// How deep a tool input may nest; deeper is refused (its paths cannot be
/// read in a hook's time and stack).
pub(crate) const MAX_DEPTH: usize = 256;

/// Why a tool input cannot be read.
pub(crate) fn unreadable_shape(input: &Value) -> Option<String> {
    match input {
        Value::Object(map) => {
            for field in PATH_FIELDS.iter().chain(&["command"]) {
                if let Some(value) = map.get(*field)
                    && !value.is_string()
                    && !value.is_null()
                {
                    return Some(format!("`{field}` is not a string"));
                }
            }
            (depth(input) > MAX_DEPTH).then(|| format!("it nests deeper than {MAX_DEPTH} levels"))
        }
        Value::Null => None,
        _ => Some("the tool input is not an object".to_owned()),
    }
}

/// The nesting depth of `value`, without recursion.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 1usize)];
    while let Some((value, level)) = stack.pop() {
        deepest = deepest.max(level);
        if level > MAX_DEPTH {
            return level;
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, level + 1))),
            Value::Object(map) => stack.extend(map.values().map(|v| (v, level + 1))),
            _ => {}
        }
    }
    deepest
}

/// Every string in `value`, object keys included, in document order,
/// without recursion.
pub(crate) fn strings(value: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(s) => out.push(s.as_str()),
            Value::Array(items) => stack.extend(items.iter().rev()),
            Value::Object(map) => {
                for (key, value) in map.iter().rev() {
                    stack.push(value);
                    out.push(key.as_str());
                }
            }
            _ => {}
        }
    }
    out
}

/// The paths of a file tool's fields and of a patch.
/// What JavaScript's `trim()` and `\s` take for white space: Unicode's
/// white space and U+FEFF, which Rust's `char::is_whitespace` leaves out.
pub(crate) fn js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

pub(crate) fn tool_fields(tool: &str, input: &Value, out: &mut Targets) {
    let access = if WRITE_TOOLS.contains(&tool) {
        Access::Write
    } else if SEARCH_TOOLS.contains(&tool) {
        Access::Search
    } else {
        Access::Read
    };
    for field in PATH_FIELDS {
        if let Some(path) = input
            .get(field)
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
        {
            out.add(path, access, tool);
            // Claude Code's search tools trim the path before they expand
            // `~` and resolve it (2.1.330's path expander): `"secrets\n"`
            // is `secrets` to them, so it is to the rules too.
            let trimmed = path.trim_matches(js_space);
            if trimmed != path {
                out.add(if trimmed.is_empty() { "." } else { trimmed }, access, tool);
            }
        }
    }
    // A search without a scope searches the working directory.
    if SEARCH_TOOLS.contains(&tool)
        && input
            .get("path")
            .and_then(Value::as_str)
            .is_none_or(|p| p.trim_matches(js_space).is_empty())
    {
        out.add(".", Access::Search, tool);
    }
    // A glob pattern that leaves its folder (absolute, or `..`) searches
    // where its fixed part leads.
    if tool == "Glob"
        && let Some(pattern) = input.get("pattern").and_then(Value::as_str)
        && (pattern.starts_with('/') || pattern.starts_with('~') || pattern.contains(".."))
    {
        let fixed: Vec<&str> = pattern
            .split('/')
            .take_while(|part| !part.contains(['*', '?', '[', '{']))
            .collect();
        let fixed = fixed.join("/");
        let scope = if fixed.is_empty() {
            "/"
        } else {
            fixed.as_str()
        };
        let base = input
            .get("path")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty());
        match base {
            Some(base) if !scope.starts_with(['/', '~']) => {
                out.add(
                    &format!("{}/{scope}", base.trim_end_matches('/')),
                    Access::Search,
                    tool,
                );
            }
            _ => out.add(scope, Access::Search, tool),
        }
    }
    if let Some(files) = input.get("files").and_then(Value::as_array) {
        for path in files
            .iter()
            .filter_map(|f| f.get("path").and_then(Value::as_str))
        {
            out.add(path, access, tool);
        }
    }
    // A patch is read whatever tool carries it (opencode's
    // `apply_patch{patchText}`, a tool agentctx does not know yet).
    if tool != "Bash" {
        for text in strings(input)
            .into_iter()
            .filter(|t| t.contains("*** Begin Patch"))
        {
            for path in agentctx_agents::patch_paths(text) {
                out.add(&path, Access::Write, tool);
            }
        }
    }
}

/// The paths an MCP tool's arguments name: every string (and key) that
/// looks like a path or names an existing entry of the working directory,
/// `file://` URIs decoded. Each is a write unless the tool's name says it
/// only reads (an MCP tool's effect is its own business).
pub(crate) fn mcp_arguments(tool: &str, input: &Value, cwd: &Path, out: &mut Targets) {
    let name = tool.rsplit('/').next().unwrap_or(tool).to_ascii_lowercase();
    let reads = [
        "get", "read", "list", "search", "view", "find", "fetch", "show", "stat",
    ]
    .iter()
    .any(|verb| name.starts_with(verb));
    // A tool that looks through folders reads what they hold: its folder
    // arguments are searches (the guard walks them), `.` included.
    let searches = [
        "search",
        "find",
        "list",
        "grep",
        "glob",
        "tree",
        "directory",
        "ls",
    ]
    .iter()
    .any(|word| name.contains(word));
    let access = match (reads || searches, searches) {
        (_, true) => Access::Search,
        (true, false) => Access::Read,
        _ => Access::Write,
    };
    // Arguments whose key names a path are paths whatever they look like
    // (a bare `.agentctx.yaml` that does not exist yet, `.`).
    let named = path_valued(input);
    for text in &named {
        if !text.is_empty() && !text.contains(['\n', '\0']) {
            out.add(text, access, tool);
        }
    }
    // A search with no folder named searches where the server runs: the
    // session's folder, as for Grep.
    if searches && named.is_empty() {
        out.add(".", Access::Search, tool);
    }
    for text in strings(input) {
        let text = text.trim();
        // URI schemes and hosts have no case (`FILE://LOCALHOST/...`).
        let lower = text.get(..16).unwrap_or(text).to_ascii_lowercase();
        let path = if lower.starts_with("file://localhost") {
            agentctx_agents::percent_decode(text.get(16..).unwrap_or(""))
        } else if lower.starts_with("file://") {
            agentctx_agents::percent_decode(text.get(7..).unwrap_or(""))
        } else if lower.starts_with("file:") {
            agentctx_agents::percent_decode(text.get(5..).unwrap_or(""))
        } else {
            text.to_owned()
        };
        if looks_like_path(&path) || names_an_entry(&path, cwd) {
            out.add(&path, access, tool);
        }
    }
    // Any folder an MCP tool is given is searched by it, whatever its name
    // says (`query`, `walk`, `get_symbols_overview`): judged as a search.
    let expand = |text: &str| match text.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map(|h| Path::new(&h).join(rest)),
        None => Some(cwd.join(text)),
    };
    let folders: Vec<String> = out
        .list
        .iter()
        .filter(|t| t.by == tool && t.access != Access::Search)
        .filter(|t| expand(&t.path).is_some_and(|p| p.is_dir()))
        .map(|t| t.path.clone())
        .collect();
    for folder in folders {
        out.add(&folder, Access::Search, tool);
    }
}

/// Keys whose string values are paths in the MCP servers agents use
/// (filesystem, serena, grep-like servers).
const MCP_PATH_KEYS: [&str; 19] = [
    "path",
    "paths",
    "scope",
    "folder",
    "location",
    "workspace",
    "file_path",
    "filePath",
    "filename",
    "file",
    "relative_path",
    "dir",
    "directory",
    "root",
    "cwd",
    "source",
    "destination",
    "target",
    "notebook_path",
];

/// The string values of `MCP_PATH_KEYS` keys, at any depth.
fn path_valued(value: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(map) => {
                for (key, value) in map {
                    if MCP_PATH_KEYS.contains(&key.as_str()) {
                        match value {
                            Value::String(text) => out.push(text.as_str()),
                            Value::Array(items) => {
                                out.extend(items.iter().filter_map(Value::as_str));
                            }
                            _ => {}
                        }
                    }
                    stack.push(value);
                }
            }
            _ => {}
        }
    }
    out
}

/// A string shaped like a path: absolute, `~/`, `./`, `../`, or with a
/// `/` and no line break (spaces allowed: `my dir/key`), and no URL scheme.
fn looks_like_path(text: &str) -> bool {
    !text.is_empty()
        && !text.contains('\n')
        && !text.contains("://")
        && (text.starts_with('/')
            || text.starts_with("~/")
            || text.starts_with("./")
            || text.starts_with("../")
            || text.contains('/'))
}

/// A short bare name (`key`, `.env`) that is an entry of the working
/// directory.
fn names_an_entry(text: &str, cwd: &Path) -> bool {
    text.len() <= 255
        && !text.is_empty()
        && !text.contains(['\n', '\0'])
        && text != "."
        && text != ".."
        && std::fs::symlink_metadata(cwd.join(text)).is_ok()
}

/// The paths a shell command line names.
pub(crate) fn shell(named: Vec<NamedPath>, out: &mut Targets) {
    for n in named {
        out.push(Target {
            path: n.path,
            access: n.access,
            pattern: n.pattern,
            from_root: n.from_root,
            by: n.program,
        });
    }
}

/// Targets, each once (linear, however many a call names).
#[derive(Default)]
pub(crate) struct Targets {
    pub list: Vec<Target>,
    seen: HashSet<(String, Access, bool, bool)>,
}

impl Targets {
    pub fn add(&mut self, path: &str, access: Access, by: &str) {
        self.push(Target {
            path: path.to_owned(),
            access,
            pattern: false,
            from_root: false,
            by: by.to_owned(),
        });
    }

    pub fn push(&mut self, target: Target) {
        let key = (
            target.path.clone(),
            target.access,
            target.pattern,
            target.from_root,
        );
        if self.seen.insert(key) {
            self.list.push(target);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes_that_cannot_be_read_are_named() {
        assert!(unreadable_shape(&json!("cat secrets/key")).is_some());
        assert!(unreadable_shape(&json!({"file_path": ["secrets/key"]})).is_some());
        assert!(unreadable_shape(&json!({"file_path": "a"})).is_none());
        let mut deep = json!("x");
        for _ in 0..1_000 {
            deep = json!([deep]);
        }
        assert!(unreadable_shape(&json!({"a": deep})).is_some());
    }

    #[test]
    fn mcp_arguments_are_read_in_keys_uris_and_long_strings() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "x").unwrap();
        let mut out = Targets::default();
        let long = format!("{}secrets/key", "/".repeat(5_000));
        mcp_arguments(
            "fs/write_file",
            &json!({"uri": "file:///repo/secrets/k%65y", "paths": {"secrets/a b": 1}, "x": long, "name": ".env"}),
            dir.path(),
            &mut out,
        );
        let paths: Vec<&str> = out.list.iter().map(|t| t.path.as_str()).collect();
        assert!(paths.contains(&"/repo/secrets/key"), "{paths:?}");
        assert!(paths.contains(&"secrets/a b"), "{paths:?}");
        assert!(paths.contains(&long.as_str()));
        assert!(paths.contains(&".env"));
        assert!(out.list.iter().all(|t| t.access == Access::Write));
    }

    #[test]
    fn mcp_path_keys_are_paths_whatever_they_look_like_and_searches_search() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = Targets::default();
        mcp_arguments(
            "fs/write_file",
            &json!({"path": ".agentctx.yaml"}),
            dir.path(),
            &mut out,
        );
        assert!(
            out.list
                .iter()
                .any(|t| t.path == ".agentctx.yaml" && t.access == Access::Write)
        );
        let mut out = Targets::default();
        mcp_arguments(
            "serena/search_for_pattern",
            &json!({"substring_pattern": "SECRET", "relative_path": "."}),
            dir.path(),
            &mut out,
        );
        assert!(
            out.list
                .iter()
                .any(|t| t.path == "." && t.access == Access::Search),
            "{:?}",
            out.list.iter().map(|t| &t.path).collect::<Vec<_>>()
        );
    }
}
