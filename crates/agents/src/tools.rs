//! What a tool call names: its tool, in the rules' language, and the files
//! it touches.

use serde_json::Value;

/// `mcp__server__tool` (Claude Code's spelling) → `server/tool`; built-in
/// names as they are.
///
/// ```
/// use agentctx_agents::normalize_tool;
/// assert_eq!(normalize_tool("mcp__github__delete_file"), "github/delete_file");
/// assert_eq!(normalize_tool("Read"), "Read");
/// ```
pub fn normalize_tool(name: &str) -> String {
    agentctx_types::normalize_tool_name(name)
}

/// The headers of a Codex `apply_patch` patch that name a file.
const PATCH_HEADERS: [&str; 4] = [
    "*** Add File:",
    "*** Update File:",
    "*** Delete File:",
    "*** Move to:",
];

/// The files a tool call touches, from its input: `file_path` and
/// `notebook_path` (Read, Edit, MultiEdit, Write, NotebookEdit), `path`
/// (Glob, Grep, LS, GitHub MCP `create_or_update_file`), `files[].path`
/// (`push_files`), and the paths of a Codex `apply_patch` patch (its input
/// is `{"command": "<patch>"}`; every string is searched for a patch).
///
/// ```
/// use agentctx_agents::tool_paths;
/// let input = serde_json::json!({"file_path": "/repo/src/main.rs"});
/// assert_eq!(tool_paths(&input), ["/repo/src/main.rs"]);
/// let patch = serde_json::json!({"command": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n"});
/// assert_eq!(tool_paths(&patch), ["a.txt"]);
/// ```
pub fn tool_paths(input: &Value) -> Vec<String> {
    let mut paths = Vec::new();
    for key in ["file_path", "notebook_path", "path"] {
        if let Some(p) = input
            .get(key)
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
        {
            paths.push(p.to_owned());
        }
    }
    if let Some(files) = input.get("files").and_then(Value::as_array) {
        paths.extend(
            files
                .iter()
                .filter_map(|f| f.get("path").and_then(Value::as_str))
                .map(str::to_owned),
        );
    }
    let mut strings = Vec::new();
    collect_strings(input, &mut strings);
    for text in strings
        .into_iter()
        .filter(|t| t.contains("*** Begin Patch"))
    {
        paths.extend(patch_paths(text));
    }
    paths.dedup();
    paths
}

/// The files an `apply_patch` patch names, read as Codex reads them: each
/// line trimmed before its header is matched. A path is also read as a
/// JavaScript parser trims it (opencode's), which also drops a byte-order
/// mark (U+FEFF) that Rust's `trim` keeps: both are judged.
pub fn patch_paths(patch: &str) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for line in patch.lines() {
        for line in [line.trim(), js_trim(line)] {
            for header in PATCH_HEADERS {
                if let Some(path) = line.strip_prefix(header) {
                    for path in [path.trim(), js_trim(path)] {
                        if !path.is_empty() && !paths.iter().any(|p| p == path) {
                            paths.push(path.to_owned());
                        }
                    }
                }
            }
        }
    }
    paths
}

/// `text` without what JavaScript's `trim` removes at either end (Rust's
/// `trim`, and U+FEFF, which it keeps): how the agents written in
/// JavaScript (opencode, Cline CLI) read a patch's paths.
pub(crate) fn js_trim(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

/// `%XX` sequences decoded (others kept as written): `file://` URIs in MCP
/// arguments, and the paths Gemini CLI decodes before it opens them.
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Every string in `value`, in document order.
pub fn collect_strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_patch_path_is_judged_as_rust_and_javascript_trim_it() {
        let patch =
            "*** Begin Patch\n*** Add File: \u{feff}.opencode/plugin/x.js\n+x\n*** End Patch";
        let paths = patch_paths(patch);
        assert!(
            paths.contains(&".opencode/plugin/x.js".to_owned()),
            "{paths:?}"
        );
        assert!(
            paths.contains(&"\u{feff}.opencode/plugin/x.js".to_owned()),
            "{paths:?}"
        );
        // A line that starts with a byte-order mark is a header to JavaScript.
        let paths = patch_paths("\u{feff}*** Delete File: a.txt");
        assert_eq!(paths, ["a.txt"]);
        assert_eq!(js_trim("\u{3000} a \u{feff}"), "a");
    }

    #[test]
    fn mcp_names_become_server_slash_tool() {
        assert_eq!(
            normalize_tool("mcp__github__push_files"),
            "github/push_files"
        );
        assert_eq!(normalize_tool("mcp__a__b__c"), "a/b__c");
        assert_eq!(normalize_tool("mcp__nosep"), "mcp__nosep");
        assert_eq!(normalize_tool("Bash"), "Bash");
    }

    #[test]
    fn every_known_path_field_is_read() {
        let input = json!({"notebook_path": "n.ipynb", "path": "src", "files": [{"path": "a"}, {"path": "b"}]});
        assert_eq!(tool_paths(&input), ["n.ipynb", "src", "a", "b"]);
        assert!(tool_paths(&json!({"command": "ls"})).is_empty());
        assert!(tool_paths(&json!({"file_path": ""})).is_empty());
    }

    #[test]
    fn patch_headers_are_read_after_trimming_as_codex_does() {
        let patch = "*** Begin Patch\n  *** Add File: a.txt\n+x\n\t*** Update File: b.rs\n*** Move to: c.rs\n*** Delete File: d\n*** End Patch";
        assert_eq!(patch_paths(patch), ["a.txt", "b.rs", "c.rs", "d"]);
    }
}
