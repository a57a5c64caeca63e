//! `install --mcp`: `agentctx mcp` registered as an MCP server where each
//! agent reads its servers (Claude Code: the project's `.mcp.json`; Codex:
//! `[mcp_servers.agentctx]` in its user `config.toml`), and taken out
//! again by uninstall, leaving every other server as it was.

use super::SettingsError;

/// Adds (or removes) the `agentctx` server in a `.mcp.json`
/// (`{"mcpServers": {"agentctx": {"command": PROGRAM, "args": ["mcp"]}}}`);
/// every other server stays as it is.
pub(super) fn edit_mcp_json(
    text: Option<&str>,
    program: &str,
    adding: bool,
) -> Result<String, SettingsError> {
    let Some(mut root) = super::entries::parse(text, adding)? else {
        return Ok(text.unwrap_or_default().to_owned());
    };
    let object = root.as_object_mut().ok_or(SettingsError::NotAnObject)?;
    let servers = object
        .entry("mcpServers")
        .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()))
        .as_object_mut()
        .ok_or_else(|| SettingsError::shape("mcpServers", "an object"))?;
    if adding {
        servers.insert(
            "agentctx".into(),
            serde_json::json!({"command": program, "args": ["mcp"]}),
        );
    } else {
        servers.remove("agentctx");
        if servers.is_empty() {
            object.remove("mcpServers");
        }
    }
    super::entries::serialize(text, &root, adding)
}

/// Adds (or removes) `[mcp_servers.agentctx]` (`command = PROGRAM`,
/// `args = ["mcp"]`) in Codex's user `config.toml`; everything else stays
/// as written.
pub(super) fn edit_codex_mcp(
    text: Option<&str>,
    program: &str,
    adding: bool,
) -> Result<String, SettingsError> {
    let original = text.unwrap_or("");
    let mut doc: toml_edit::DocumentMut = original.parse().map_err(SettingsError::Toml)?;
    if !adding && doc.get("mcp_servers").is_none() {
        return Ok(original.to_owned());
    }
    let servers = super::codex::implicit_table(doc.as_table_mut(), "mcp_servers", "mcp_servers")?;
    if adding {
        let mut server = toml_edit::Table::new();
        server.insert("command", toml_edit::value(program));
        let mut args = toml_edit::Array::new();
        args.push("mcp");
        server.insert("args", toml_edit::value(args));
        servers.insert("agentctx", toml_edit::Item::Table(server));
    } else {
        servers.remove("agentctx");
        if servers.is_empty() {
            doc.remove("mcp_servers");
        }
    }
    let edited = doc.to_string();
    if !adding && edited.trim() == original.trim() {
        return Ok(original.to_owned());
    }
    Ok(edited)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_is_added_beside_others_and_taken_out_exactly() {
        let before = "{\n  \"mcpServers\": {\n    \"github\": {\n      \"command\": \"gh-mcp\"\n    }\n  }\n}\n";
        let added = edit_mcp_json(Some(before), "/usr/bin/agentctx", true).unwrap();
        let value: serde_json::Value = serde_json::from_str(&added).unwrap();
        assert_eq!(value["mcpServers"]["agentctx"]["args"][0], "mcp");
        assert_eq!(value["mcpServers"]["github"]["command"], "gh-mcp");
        let removed = edit_mcp_json(Some(&added), "/usr/bin/agentctx", false).unwrap();
        let value: serde_json::Value = serde_json::from_str(&removed).unwrap();
        assert!(value["mcpServers"].get("agentctx").is_none());
        assert_eq!(value["mcpServers"]["github"]["command"], "gh-mcp");
        let toml = "model = \"gpt-5.5\" # mine\n";
        let added = edit_codex_mcp(Some(toml), "/usr/bin/agentctx", true).unwrap();
        assert!(added.contains("[mcp_servers.agentctx]"), "{added}");
        assert!(added.contains("args = [\"mcp\"]"), "{added}");
        assert_eq!(
            edit_codex_mcp(Some(&added), "/usr/bin/agentctx", false)
                .unwrap()
                .trim(),
            toml.trim()
        );
    }
}
