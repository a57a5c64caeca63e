//! Session taint: once a session has tried to read a file the rules deny
//! (a key, a `.env`, a cloud credential), anything that would leave the
//! machine afterwards is asked about for the rest of the session, where
//! the user can be asked (elsewhere it is noted: the network rules bound
//! where it goes). The read itself was refused, but an
//! agent that reaches for secrets may be following someone else's
//! instructions; what it sends out next is the user's call. Kept in
//! `<state>/taint/<session>` (the path tried, never its contents), so it
//! holds across hook processes and ends with the session.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Where the taint of `session` is kept; `None` for an id that cannot
/// name a file.
fn taint_file(state: &Path, session: &str) -> Option<PathBuf> {
    agentctx_core::is_session_id(session).then(|| state.join("taint").join(session))
}

/// Marks `session` as having tried to read `path`. The first path is kept.
/// Best effort: a state folder that cannot be written loses the taint,
/// never the decision that was made.
pub(super) fn mark(state: &Path, session: &str, path: &Path) -> Result<(), std::io::Error> {
    let Some(file) = taint_file(state, session) else {
        return Ok(());
    };
    if file.exists() {
        return Ok(());
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    agentctx_fs::replace_file(&file, path.display().to_string().as_bytes(), Some(0o600))
}

/// The path `session` tried to read, when it did.
pub(super) fn tainted(state: &Path, session: &str) -> Option<String> {
    let file = taint_file(state, session)?;
    let text = agentctx_fs::read(&file, 4096).ok()?;
    Some(String::from_utf8_lossy(&text).trim().to_owned())
}

/// What of a tool call would leave the machine: a fetch tool, an MCP
/// tool but a server's read of files (arguments that only name paths and
/// how to read them), a shell line that names a URL or a host. `None`
/// when nothing does.
pub(super) fn egress(normalized_tool: &str, input: &Value) -> Option<String> {
    if normalized_tool == "WebFetch" || normalized_tool == "WebSearch" {
        return Some(format!("`{normalized_tool}`"));
    }
    if normalized_tool.contains('/') {
        // A server's file tool (its arguments name paths, no URL) works
        // on this machine; any other may send what it is given anywhere
        // (a GitHub server's calls go to github.com).
        let urls = agentctx_guard::network::urls_in(normalized_tool, input);
        // Only paths and how to read them: a `content` or any other field
        // beside a `path` is something to send (`create_or_update_file`).
        const READ_ONLY_KEYS: [&str; 9] = [
            "path",
            "paths",
            "file_path",
            "filePath",
            "encoding",
            "head",
            "tail",
            "offset",
            "limit",
        ];
        let file_tool = input.as_object().is_some_and(|fields| {
            fields
                .keys()
                .any(|k| matches!(k.as_str(), "path" | "paths" | "file_path" | "filePath"))
                && fields.keys().all(|k| READ_ONLY_KEYS.contains(&k.as_str()))
        });
        return (!urls.is_empty() || !file_tool)
            .then(|| format!("the MCP tool `{normalized_tool}`"));
    }
    let command = input.get("command").and_then(Value::as_str)?;
    agentctx_guard::network::reached_in_line(command)
        .map(|url| format!("a command that reaches `{url}`"))
}
