//! `install --mcp`: `agentctx mcp` registered as an MCP server where each
//! agent reads its servers, and taken out again by uninstall, leaving every
//! other server as it was. Each place and shape was checked by running the
//! agent (crates/e2e/tests/mcp.rs, mcp_other.rs):
//!
//! | agent | file | entry |
//! |---|---|---|
//! | Claude Code | the project's `.mcp.json` | `mcpServers.agentctx {command, args}` |
//! | Codex | `$CODEX_HOME/config.toml` | `[mcp_servers.agentctx]` |
//! | Gemini CLI | `$GEMINI_CLI_HOME` (else `$HOME`)`/.gemini/settings.json` | `mcpServers.agentctx {command, args, trust}` |
//! | Qwen Code | `$HOME/.qwen/settings.json` | `mcpServers.agentctx {command, args, trust}` |
//! | Copilot CLI | `$COPILOT_HOME` (else `~/.copilot`)`/mcp-config.json` | `mcpServers.agentctx {type: local, command, args, tools}` |
//! | opencode | `$XDG_CONFIG_HOME` (else `~/.config`)`/opencode/opencode.json` | `mcp.agentctx {type: local, command: [program, "mcp"]}` |
//! | Cline CLI | `$CLINE_MCP_SETTINGS_PATH`, else `$CLINE_DATA_DIR/settings/`, else `$CLINE_DIR` (else `~/.cline`)`/data/settings/` + `cline_mcp_settings.json` | `mcpServers.agentctx {command, args}` |

use std::path::PathBuf;

use agentctx_config::Environment;
use agentctx_types::Agent;
use serde_json::Value;

use super::SettingsError;

/// The user config files where the agents read their MCP servers, for
/// those whose server goes into a file of its own (Gemini CLI, Copilot
/// CLI, opencode, Qwen Code, Cline CLI; Claude Code's and Codex's go with
/// their hooks' files), and each agent's user folder (its profile's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct McpConfigs {
    places: Vec<(Agent, PathBuf)>,
    folders: Vec<(Agent, PathBuf)>,
}

impl McpConfigs {
    /// Where this machine's agents read them, from the environment.
    pub fn from_env(env: &Environment) -> Self {
        let places = Agent::ALL
            .into_iter()
            .filter_map(|agent| Some((agent, super::agent::of(agent).mcp_config(env)?)))
            .collect();
        let folders = Agent::ALL
            .into_iter()
            .filter_map(|agent| {
                Some((agent, agentctx_agents::dialect::of(agent).user_folder(env)?))
            })
            .collect();
        Self { places, folders }
    }

    /// The user folder of `agent` (`~/.cline`, `$CODEX_HOME`), when it has
    /// one and it is known.
    pub fn user_folder(&self, agent: Agent) -> Option<PathBuf> {
        self.folders
            .iter()
            .find(|(a, _)| *a == agent)
            .map(|(_, path)| path.clone())
    }

    /// The file of `agent` (`None` for Claude Code and Codex, or when
    /// unknown).
    pub fn of(&self, agent: Agent) -> Option<PathBuf> {
        self.places
            .iter()
            .find(|(a, _)| *a == agent)
            .map(|(_, path)| path.clone())
    }
}

/// Adds (or removes) the `agentctx` server in the user config of an agent
/// without hooks (see the table above); everything else stays as written.
pub(super) fn edit_agent_mcp(
    agent: Agent,
    text: Option<&str>,
    program: &str,
    adding: bool,
) -> Result<String, SettingsError> {
    let (key, entry) = super::agent::of(agent).mcp_entry(program);
    edit_server(text, key, entry, adding)
}

/// Adds (or removes) the `agentctx` server in a `.mcp.json`
/// (`{"mcpServers": {"agentctx": {"command": PROGRAM, "args": ["mcp"]}}}`);
/// every other server stays as it is.
pub(super) fn edit_mcp_json(
    text: Option<&str>,
    program: &str,
    adding: bool,
) -> Result<String, SettingsError> {
    edit_agent_mcp(Agent::Claude, text, program, adding)
}

/// `entry` as `agentctx` in the object `key` of a JSON config (added, or
/// removed with the object when it is left empty).
fn edit_server(
    text: Option<&str>,
    key: &'static str,
    entry: Value,
    adding: bool,
) -> Result<String, SettingsError> {
    super::entries::edit_object(text, adding, |object| {
        if !adding && !object.contains_key(key) {
            return Ok(());
        }
        let servers = object
            .entry(key)
            .or_insert_with(|| Value::Object(serde_json::Map::new()))
            .as_object_mut()
            .ok_or_else(|| SettingsError::shape(key, "an object"))?;
        if adding {
            servers.insert("agentctx".into(), entry);
        } else {
            servers.remove("agentctx");
            if servers.is_empty() {
                object.remove(key);
            }
        }
        Ok(())
    })
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
    use serde_json::json;

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

    #[test]
    fn each_agent_without_hooks_gets_its_own_entry_and_loses_only_it() {
        let program = "/opt/agentctx";
        let cases = [
            (
                Agent::Gemini,
                "mcpServers",
                json!({"command": program, "args": ["mcp"], "trust": true}),
            ),
            (
                Agent::Qwen,
                "mcpServers",
                json!({"command": program, "args": ["mcp"], "trust": true}),
            ),
            (
                Agent::Copilot,
                "mcpServers",
                json!({"type": "local", "command": program, "args": ["mcp"], "tools": ["*"]}),
            ),
            (
                Agent::Opencode,
                "mcp",
                json!({"type": "local", "command": [program, "mcp"]}),
            ),
        ];
        let mine = "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\"gh\": {\"command\": \"gh\"}},\n  \"mcp\": {\"gh\": {\"type\": \"local\"}}\n}\n";
        for (agent, key, entry) in cases {
            let added = edit_agent_mcp(agent, Some(mine), program, true).unwrap();
            let value: Value = serde_json::from_str(&added).unwrap();
            assert_eq!(value[key]["agentctx"], entry, "{agent}");
            assert_eq!(value["theme"], "dark", "{agent}");
            assert!(value[key].get("gh").is_some(), "{agent}");
            let removed = edit_agent_mcp(agent, Some(&added), program, false).unwrap();
            let value: Value = serde_json::from_str(&removed).unwrap();
            assert_eq!(
                value,
                serde_json::from_str::<Value>(mine).unwrap(),
                "{agent}"
            );
            // No file yet: one holding only the server.
            let fresh = edit_agent_mcp(agent, None, program, true).unwrap();
            let value: Value = serde_json::from_str(&fresh).unwrap();
            assert_eq!(value, json!({key: {"agentctx": entry}}), "{agent}");
        }
    }

    #[test]
    fn a_config_that_is_not_json_is_refused_and_one_without_the_server_left_alone() {
        let text = "{ \"mcp\": {}, // comment\n }";
        // Not JSON: an install refuses, naming why; an uninstall of a file
        // without the key leaves it as it is.
        assert!(edit_agent_mcp(Agent::Opencode, Some(text), "/a", true).is_err());
        let plain = "{\"theme\":\"dark\"}";
        assert_eq!(
            edit_agent_mcp(Agent::Gemini, Some(plain), "/a", false).unwrap(),
            plain
        );
    }

    #[test]
    fn the_config_places_follow_each_agents_variables() {
        let env = Environment::from_pairs([
            ("HOME", "/home/u"),
            ("GEMINI_CLI_HOME", "/g"),
            ("COPILOT_HOME", "/c"),
            ("XDG_CONFIG_HOME", "/x"),
        ]);
        let places = McpConfigs::from_env(&env);
        assert_eq!(
            places.of(Agent::Gemini),
            Some(PathBuf::from("/g/.gemini/settings.json"))
        );
        assert_eq!(
            places.of(Agent::Copilot),
            Some(PathBuf::from("/c/mcp-config.json"))
        );
        assert_eq!(
            places.of(Agent::Opencode),
            Some(PathBuf::from("/x/opencode/opencode.json"))
        );
        assert_eq!(
            places.of(Agent::Qwen),
            Some(PathBuf::from("/home/u/.qwen/settings.json"))
        );
        assert_eq!(places.of(Agent::Claude), None);
        let places = McpConfigs::from_env(&Environment::from_pairs([("HOME", "/home/u")]));
        assert_eq!(
            places.of(Agent::Gemini),
            Some(PathBuf::from("/home/u/.gemini/settings.json"))
        );
        assert_eq!(
            places.of(Agent::Copilot),
            Some(PathBuf::from("/home/u/.copilot/mcp-config.json"))
        );
        assert_eq!(
            places.of(Agent::Opencode),
            Some(PathBuf::from("/home/u/.config/opencode/opencode.json"))
        );
    }
}
