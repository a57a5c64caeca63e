//! Codex's `hooks.json` (and, for earlier installs, `config.toml`).

use serde_json::Value;
use sha2::{Digest as _, Sha256};

use super::{SettingsError, is_agentctx_command};
use agentctx_types::Agent;

/// Adds (or removes) agentctx's entries in a Codex `hooks.json` text
/// (`{"hooks": {"Event": [{"matcher": "...", "hooks": [...]}]}}`).
pub fn edit_codex_hooks(
    text: Option<&str>,
    program: &str,
    adding: bool,
) -> Result<String, SettingsError> {
    super::entries::edit_object(text, adding, |object| {
        if adding {
            // Codex keeps its default timeout (600 s): its trust hash covers
            // the entry, so a timeout of ours would change what the user
            // trusted.
            super::entries::add_hooks(object, program, Agent::Codex, None, &[])
        } else {
            super::entries::remove_hooks(object);
            Ok(())
        }
    })
}

/// Removes what agentctx versions before 0.2 added to a Codex
/// `config.toml`: values marked `# added by agentctx`.
pub fn edit_codex_toml(text: &str) -> Result<String, SettingsError> {
    const MARK: &str = "added by agentctx";
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(SettingsError::Toml)?;
    let marked = |item: Option<&toml_edit::Item>| {
        item.and_then(toml_edit::Item::as_value)
            .and_then(|v| v.decor().suffix())
            .and_then(|s| s.as_str())
            .is_some_and(|s| s.contains(MARK))
    };
    if marked(doc.get("notify")) {
        doc.remove("notify");
    }
    let mut empty = false;
    if let Some(features) = doc
        .get_mut("features")
        .and_then(toml_edit::Item::as_table_like_mut)
    {
        if marked(features.get("codex_hooks")) {
            features.remove("codex_hooks");
        }
        empty = features.is_empty();
    }
    if empty {
        doc.remove("features");
    }
    Ok(doc.to_string())
}

/// Codex's name of an event in hook trust keys (`PreToolUse` → `pre_tool_use`).
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The hash Codex trusts a hook by: `sha256:` and the hex SHA-256 of the
/// compact JSON, keys sorted, of `{event_name, hooks: [{async: false,
/// command, timeout: 600, type: "command"}], matcher}` (matcher only when
/// the entry has one), as Codex 0.169 computes it (codex-rs/hooks,
/// engine/discovery.rs); checked against the real Codex by the e2e suite.
pub fn codex_trust_hash(event: &str, matcher: Option<&str>, command: &str) -> String {
    let handler = format!(
        r#"{{"async":false,"command":{},"timeout":600,"type":"command"}}"#,
        Value::from(command)
    );
    let identity = match matcher {
        Some(matcher) => format!(
            r#"{{"event_name":{},"hooks":[{handler}],"matcher":{}}}"#,
            Value::from(snake_case(event)),
            Value::from(matcher)
        ),
        None => format!(
            r#"{{"event_name":{},"hooks":[{handler}]}}"#,
            Value::from(snake_case(event))
        ),
    };
    let digest = Sha256::digest(identity.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// agentctx's handlers in a Codex `hooks.json` text as Codex keys their
/// trust (`<hooks.json>:<event>:<group>:<handler>`), with their hashes.
pub fn codex_trust_entries(hooks_json: &std::path::Path, text: &str) -> Vec<(String, String)> {
    let Ok(root) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    let mut entries = Vec::new();
    let Some(hooks) = root.get("hooks").and_then(Value::as_object) else {
        return entries;
    };
    for (event, groups) in hooks {
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group.get("matcher").and_then(Value::as_str);
            for (h, handler) in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let Some(command) = handler.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if !is_agentctx_command(command) {
                    continue;
                }
                let key = format!("{}:{}:{g}:{h}", hooks_json.display(), snake_case(event));
                entries.push((key, codex_trust_hash(event, matcher, command)));
            }
        }
    }
    entries
}

/// Adds (or removes) `[hooks.state."<key>"] trusted_hash = "..."` tables in
/// Codex's user `config.toml`, keeping everything else as written.
pub fn edit_codex_trust(
    text: Option<&str>,
    entries: &[(String, String)],
    adding: bool,
) -> Result<String, SettingsError> {
    let original = text.unwrap_or("");
    let mut doc: toml_edit::DocumentMut = original.parse().map_err(SettingsError::Toml)?;
    if !adding && doc.get("hooks").is_none() {
        return Ok(original.to_owned());
    }
    let hooks = implicit_table(doc.as_table_mut(), "hooks", "hooks")?;
    let state = implicit_table(hooks, "state", "hooks.state")?;
    for (key, hash) in entries {
        if adding {
            let entry = state
                .entry(key)
                .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()))
                .as_table_mut()
                .ok_or_else(|| SettingsError::shape(format!("hooks.state.\"{key}\""), "a table"))?;
            entry.insert("trusted_hash", toml_edit::value(hash.as_str()));
        } else if state
            .get(key)
            .and_then(|t| t.get("trusted_hash"))
            .and_then(toml_edit::Item::as_str)
            == Some(hash.as_str())
        {
            state.remove(key);
        }
    }
    if state.is_empty() {
        hooks.remove("state");
    }
    if hooks.is_empty() {
        doc.remove("hooks");
    }
    let edited = doc.to_string();
    if !adding && edited.trim() == original.trim() {
        return Ok(original.to_owned());
    }
    Ok(edited)
}

/// Adds (or removes) agentctx's permission profile in a project's Codex
/// `config.toml`: `default_permissions = "agentctx"` and the
/// `[permissions.agentctx.filesystem]` tables of `entries` (see
/// [`agentctx_guard::codex_permissions`]), replacing an earlier one; everything
/// else stays as written.
pub fn edit_codex_profile(
    text: Option<&str>,
    entries: &[(&'static str, String, &'static str)],
    adding: bool,
) -> Result<String, SettingsError> {
    let profile = agentctx_agents::CODEX_PROFILE;
    let original = text.unwrap_or("");
    let mut doc: toml_edit::DocumentMut = original.parse().map_err(SettingsError::Toml)?;
    let ours = doc
        .get("default_permissions")
        .and_then(toml_edit::Item::as_str)
        == Some(profile);
    if !adding {
        if ours {
            doc.remove("default_permissions");
        }
        let mut empty = false;
        if let Some(permissions) = doc
            .get_mut("permissions")
            .and_then(toml_edit::Item::as_table_like_mut)
        {
            permissions.remove(profile);
            empty = permissions.is_empty();
        }
        if empty {
            doc.remove("permissions");
        }
        let edited = doc.to_string();
        return Ok(if edited.trim() == original.trim() {
            original.to_owned()
        } else {
            edited
        });
    }
    doc.insert("default_permissions", toml_edit::value(profile));
    let permissions = implicit_table(doc.as_table_mut(), "permissions", "permissions")?;
    let mut filesystem = toml_edit::Table::new();
    let mut workspace = toml_edit::Table::new();
    for (table, key, access) in entries {
        let target = if *table == "workspace" {
            &mut workspace
        } else {
            &mut filesystem
        };
        target.insert(key, toml_edit::value(*access));
    }
    filesystem.insert(":workspace_roots", toml_edit::Item::Table(workspace));
    let mut ours = toml_edit::Table::new();
    ours.set_implicit(true);
    ours.insert("filesystem", toml_edit::Item::Table(filesystem));
    permissions.insert(profile, toml_edit::Item::Table(ours));
    Ok(doc.to_string())
}

/// The table at `key` in `parent` (made, implicit, when missing): `shown`
/// names it in the error when something else stands there.
pub(super) fn implicit_table<'t>(
    parent: &'t mut toml_edit::Table,
    key: &str,
    shown: &str,
) -> Result<&'t mut toml_edit::Table, SettingsError> {
    parent
        .entry(key)
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(|| SettingsError::shape(shown, "a table"))
}

/// Codex's install: `hooks.json` in `.codex/` at the root (or its home);
/// the permission profile in the project's `.codex/config.toml`; the MCP
/// server and the hooks' trust in the user config.
pub(super) struct Codex;

impl super::agent::AgentInstall for Codex {
    fn targets(
        &self,
        request: &super::Request,
        places: &super::Places,
        adding: bool,
        out: &mut Vec<super::targets::Target>,
    ) -> Result<(), super::InstallError> {
        use super::targets::{FileKind, Target};
        use super::{InstallError, Parts, Scope};
        let home = || {
            places.codex_home.clone().ok_or_else(|| {
                InstallError::Unplaced("no $HOME or $CODEX_HOME: Codex's home is unknown".into())
            })
        };
        let base = match request.scope {
            Scope::User => home()?,
            Scope::Project | Scope::Shared => places.root.join(".codex"),
        };
        out.push(Target {
            path: base.join("hooks.json"),
            kind: FileKind::CodexHooks,
            parts: super::agent::HOOKS,
        });
        // The permission profile is the project's (its paths are); an
        // uninstall takes it out wherever install put it.
        let profile = request.codex_profile.is_some() || !adding;
        if profile && request.scope != Scope::User {
            out.push(Target {
                path: places.root.join(".codex/config.toml"),
                kind: FileKind::CodexProjectConfig,
                parts: Parts {
                    codex_profile: true,
                    ..Parts::default()
                },
            });
        }
        // MCP servers live in the user config whatever the scope.
        if (request.mcp || !adding)
            && let Some(home) = places.codex_home.clone()
        {
            out.push(Target {
                path: home.join("config.toml"),
                kind: FileKind::CodexConfig,
                parts: super::agent::MCP,
            });
        }
        // Hook trust lives in the user config whatever the scope.
        let undo_trust = !adding && places.codex_home.is_some();
        if request.codex_trust || undo_trust {
            out.push(Target {
                path: home()?.join("config.toml"),
                kind: FileKind::CodexConfig,
                parts: Parts {
                    codex_trust: true,
                    ..Parts::default()
                },
            });
        }
        Ok(())
    }

    fn advice(&self, request: &super::Request) -> Option<String> {
        Some(if request.codex_trust {
            "agentctx's hooks are recorded as trusted in Codex's user config; Codex also needs the project trusted (its first start in the project asks).".to_owned()
        } else {
            "Codex runs these hooks only in a trusted project and once they are trusted: start `codex` in the project and accept \"Hooks need review ... Trust all and continue\" (or run `agentctx install codex --trust` to record the trust now). `codex exec` skips untrusted hooks without a word.".to_owned()
        })
    }

    fn version_matters(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trust_hash_is_over_sorted_compact_json() {
        // The identity as Codex builds it, hashed here the long way.
        let identity = r#"{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"a b","timeout":600,"type":"command"}],"matcher":"*"}"#;
        let digest = Sha256::digest(identity.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            codex_trust_hash("PreToolUse", Some("*"), "a b"),
            format!("sha256:{hex}")
        );
        assert_eq!(snake_case("SubagentStart"), "subagent_start");
    }

    #[test]
    fn trust_tables_are_added_and_removed_and_the_rest_stays() {
        let original = "# mine\nmodel = \"gpt-5.5\"\n";
        let entries = vec![("/h/hooks.json:stop:0:0".to_owned(), "sha256:ab".to_owned())];
        let added = edit_codex_trust(Some(original), &entries, true).unwrap();
        assert!(added.starts_with(original), "{added}");
        assert!(
            added
                .contains("[hooks.state.\"/h/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:ab\""),
            "{added}"
        );
        let removed = edit_codex_trust(Some(&added), &entries, false).unwrap();
        assert_eq!(removed.trim(), original.trim());
    }

    #[test]
    fn the_permission_profile_is_added_and_taken_out_again() {
        let original = "# mine\nmodel = \"gpt-5.5\"\n";
        let entries = vec![
            ("", ":root".to_owned(), "read"),
            ("workspace", ".".to_owned(), "write"),
            ("workspace", "secrets".to_owned(), "none"),
        ];
        let added = edit_codex_profile(Some(original), &entries, true).unwrap();
        assert!(
            added.contains("default_permissions = \"agentctx\""),
            "{added}"
        );
        assert!(
            added.contains("[permissions.agentctx.filesystem]\n\":root\" = \"read\""),
            "{added}"
        );
        assert!(added.contains("[permissions.agentctx.filesystem.\":workspace_roots\"]\n\".\" = \"write\"\nsecrets = \"none\""), "{added}");
        let again = edit_codex_profile(Some(&added), &entries, true).unwrap();
        assert_eq!(again, added, "idempotent");
        let removed = edit_codex_profile(Some(&added), &[], false).unwrap();
        assert_eq!(removed.trim(), original.trim());
    }
}
