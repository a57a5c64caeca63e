//! Who gives the model the bodies of AGENTS.md files in a session: the
//! agent's own loader, or agentctx.
//!
//! Claude Code 2.1.x has a built-in plugin (`agents-md@builtin`) that puts
//! the AGENTS.md files from the cwd up to the root into the first request
//! and, after a `Read`, the bodies of AGENTS.md files between the read file
//! and the root that the reading agent has not been given yet. It is off
//! when the project has a CLAUDE.md (its default mode loads AGENTS.md only
//! in projects without one), when its `instructionFiles` option says so,
//! and (the nested part) under `CLAUDE_CODE_SIMPLE` or
//! `CLAUDE_CODE_DISABLE_ATTACHMENTS`. Codex loads the chain from the root to
//! the cwd itself. docs/integrations/ records what was measured, per version.

use std::path::{Path, PathBuf};

use agentctx_config::Environment;
use agentctx_types::{AgentsMdBodies, HookAgent};
use serde_json::Value;

/// What the agent's own loader gives the model in this session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuiltinLoader {
    /// The chain from the root to the cwd, at session start.
    pub initial: bool,
    /// After a `Read`, the AGENTS.md files on the way to the read file that
    /// this agent (main or sub-agent) has not been given yet. It never
    /// gives a file again when it changes.
    pub nested_on_read: bool,
}

/// The plugin's key in Claude Code's settings.
pub(crate) const CLAUDE_PLUGIN: &str = "agents-md@builtin";
/// The names that make a directory a "Claude project" for the plugin.
const CLAUDE_FILES: [&str; 3] = ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"];

/// What the agent loads itself, from the setting (`auto` works it out).
pub fn builtin_loader(
    agent: HookAgent,
    setting: AgentsMdBodies,
    cwd: &Path,
    root: &Path,
    env: &Environment,
) -> BuiltinLoader {
    let all = BuiltinLoader {
        initial: true,
        nested_on_read: true,
    };
    match (setting, agent) {
        (AgentsMdBodies::Agentctx, _) => BuiltinLoader::default(),
        (AgentsMdBodies::Builtin, HookAgent::Claude) => all,
        // Codex gives the chain at start; nested files are agentctx's.
        (_, HookAgent::Codex) => BuiltinLoader {
            initial: true,
            nested_on_read: false,
        },
        (AgentsMdBodies::Auto, HookAgent::Claude) => {
            let on = claude_loads_agents_md(cwd, root, env);
            BuiltinLoader {
                // A CLAUDE.md that imports `@AGENTS.md` (a common setup)
                // brings the body in through Claude Code's own import.
                initial: on || claude_md_imports_agents_md(cwd, root),
                nested_on_read: on
                    && !truthy(env.get("CLAUDE_CODE_SIMPLE"))
                    && !truthy(env.get("CLAUDE_CODE_DISABLE_ATTACHMENTS")),
            }
        }
    }
}

/// Claude Code's user settings file: `$CLAUDE_CONFIG_DIR/settings.json`,
/// else `~/.claude/settings.json`.
pub fn claude_user_settings(env: &Environment) -> Option<PathBuf> {
    match env.get("CLAUDE_CONFIG_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => Some(dir.join("settings.json")),
        _ => env.home().map(|home| home.join(".claude/settings.json")),
    }
}

/// The plugin's mode as Claude Code 2.1.330 reads it from the user
/// settings (project settings are not read for plugin options).
fn claude_mode(env: &Environment) -> Option<String> {
    let path = claude_user_settings(env)?;
    let text = std::fs::read_to_string(path).ok()?;
    let settings: Value = serde_json::from_str(&text).ok()?;
    if settings.pointer(&format!("/enabledPlugins/{CLAUDE_PLUGIN}")) == Some(&Value::Bool(false)) {
        return Some("off".to_owned());
    }
    let options = settings.pointer(&format!("/pluginConfigs/{CLAUDE_PLUGIN}/options"))?;
    if let Some(mode) = options.get("instructionFiles").and_then(Value::as_str) {
        return Some(mode.to_owned());
    }
    // The older option, as the plugin maps it.
    let legacy = options.get("projectInstructions").and_then(Value::as_str)?;
    Some(
        match legacy {
            "none" => "managed-only",
            "agents-fallback" => "claude-md-or-agents-md",
            "both" => "claude-md-and-agents-md",
            _ => "claude-md",
        }
        .to_owned(),
    )
}

fn claude_loads_agents_md(cwd: &Path, root: &Path, env: &Environment) -> bool {
    match claude_mode(env).as_deref() {
        Some("claude-md-and-agents-md") => true,
        None | Some("claude-md-or-agents-md") => !claude_project(cwd, root),
        // "claude-md", "managed-only", the plugin disabled, or a mode this
        // version does not know: agentctx gives the bodies.
        Some(_) => false,
    }
}

/// A CLAUDE.md (or `.claude/CLAUDE.md`, `CLAUDE.local.md`) in the cwd or a
/// directory above it, up to the root.
fn claude_project(cwd: &Path, root: &Path) -> bool {
    cwd.ancestors()
        .take_while(|dir| dir.starts_with(root))
        .any(|dir| CLAUDE_FILES.iter().any(|name| dir.join(name).is_file()))
}

/// A CLAUDE file on the way from the cwd to the root that imports the
/// AGENTS.md beside it (`@AGENTS.md` or `@./AGENTS.md` on a line of its own).
fn claude_md_imports_agents_md(cwd: &Path, root: &Path) -> bool {
    cwd.ancestors()
        .take_while(|dir| dir.starts_with(root))
        .flat_map(|dir| CLAUDE_FILES.iter().map(move |name| dir.join(name)))
        .filter_map(|file| std::fs::read_to_string(file).ok())
        .any(|text| {
            text.lines()
                .any(|line| matches!(line.trim(), "@AGENTS.md" | "@./AGENTS.md"))
        })
}

fn truthy(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, PathBuf, Environment) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("packages/api")).unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let env = Environment::from_pairs([("HOME", home.to_str().unwrap())]);
        (dir, root, env)
    }

    fn claude(root: &Path, env: &Environment) -> BuiltinLoader {
        builtin_loader(
            HookAgent::Claude,
            AgentsMdBodies::Auto,
            &root.join("packages/api"),
            root,
            env,
        )
    }

    #[test]
    fn claude_loads_agents_md_by_default_in_a_project_without_claude_md() {
        let (_dir, root, env) = project();
        assert_eq!(
            claude(&root, &env),
            BuiltinLoader {
                initial: true,
                nested_on_read: true
            }
        );
    }

    #[test]
    fn a_claude_md_on_the_way_to_the_root_turns_the_default_mode_off() {
        let (_dir, root, env) = project();
        std::fs::write(root.join("CLAUDE.md"), "x").unwrap();
        assert_eq!(claude(&root, &env), BuiltinLoader::default());
    }

    #[test]
    fn a_claude_md_that_imports_agents_md_counts_as_loading_the_chain() {
        let (_dir, root, env) = project();
        std::fs::write(root.join("CLAUDE.md"), "Team notes.\n@AGENTS.md\n").unwrap();
        let loader = claude(&root, &env);
        assert!(loader.initial && !loader.nested_on_read, "{loader:?}");
    }

    #[test]
    fn the_plugin_option_in_user_settings_decides() {
        let (dir, root, env) = project();
        let settings = dir.path().join("home/.claude/settings.json");
        std::fs::write(&settings, r#"{"pluginConfigs":{"agents-md@builtin":{"options":{"instructionFiles":"claude-md"}}}}"#).unwrap();
        assert_eq!(claude(&root, &env), BuiltinLoader::default());
        std::fs::write(root.join("CLAUDE.md"), "x").unwrap();
        std::fs::write(&settings, r#"{"pluginConfigs":{"agents-md@builtin":{"options":{"instructionFiles":"claude-md-and-agents-md"}}}}"#).unwrap();
        assert!(claude(&root, &env).initial);
        std::fs::write(
            &settings,
            r#"{"enabledPlugins":{"agents-md@builtin":false}}"#,
        )
        .unwrap();
        assert!(!claude(&root, &env).initial);
    }

    #[test]
    fn attachments_off_leaves_only_the_initial_chain() {
        let (_dir, root, env) = project();
        let mut pairs: Vec<(String, String)> = vec![("CLAUDE_CODE_SIMPLE".into(), "1".into())];
        pairs.push(("HOME".into(), env.home().unwrap().display().to_string()));
        let env = Environment::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let loader = claude(&root, &env);
        assert!(loader.initial && !loader.nested_on_read);
    }

    #[test]
    fn settings_override_detection_and_codex_always_loads_the_chain() {
        let (_dir, root, env) = project();
        let at = |agent, setting| builtin_loader(agent, setting, &root, &root, &env);
        assert_eq!(
            at(HookAgent::Claude, AgentsMdBodies::Agentctx),
            BuiltinLoader::default()
        );
        assert!(at(HookAgent::Claude, AgentsMdBodies::Builtin).nested_on_read);
        let codex = at(HookAgent::Codex, AgentsMdBodies::Auto);
        assert!(codex.initial && !codex.nested_on_read);
    }
}
