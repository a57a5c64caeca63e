//! Who gives the model the bodies of AGENTS.md files in a session: the
//! agent's own loader, or agentctx.
//!
//! Claude Code has a built-in plugin (`agents-md@builtin`) that puts the
//! AGENTS.md files from the cwd up to the root into the first request and,
//! after a `Read`, the bodies of AGENTS.md files between the read file and
//! the root that the reading agent has not been given yet. It loads them by
//! default only from release 2.1.281 on ([`CLAUDE_LOADER_SINCE`]); earlier
//! releases give the model no AGENTS.md at all (docs/integrations/claude-code.md
//! has the measurements and the history), so the release that runs decides
//! ([`ClaudeRelease::running`]); when it cannot be known, agentctx gives the
//! chain. From 2.1.281 the plugin is off when the project has a CLAUDE.md
//! (its default mode loads AGENTS.md only in projects without one), when
//! its `instructionFiles` option says so, and (the nested part) under
//! `CLAUDE_CODE_SIMPLE` or `CLAUDE_CODE_DISABLE_ATTACHMENTS`. Codex loads
//! the chain from the root to the cwd itself.

use std::path::{Path, PathBuf};

use agentctx_config::Environment;
use agentctx_types::{Agent, AgentsMdBodies};
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
    /// The tools (shared names) after which it gives them: `Read` for
    /// Claude Code; Gemini CLI also after writes, edits and listings.
    pub nested_tools: &'static [&'static str],
    /// It gives only those below the cwd (opencode): a sibling's or one
    /// above is still agentctx's to report.
    pub nested_below_cwd_only: bool,
    /// At start it gives only the cwd's own AGENTS.md (Cline CLI's rules):
    /// the chain above the cwd is agentctx's to give.
    pub initial_cwd_only: bool,
}

/// [`BuiltinLoader`] and why, for the hook's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoaderDecision {
    /// What the agent loads itself.
    pub loader: BuiltinLoader,
    /// Why, in a sentence.
    pub why: String,
}

/// The first Claude Code release whose `agents-md@builtin` plugin loads
/// AGENTS.md by default. 2.1.274 - 2.1.280 ship the plugin switched off
/// (not on by default, and behind a feature flag whose default is off);
/// earlier releases have none. Measured: 2.1.280 sends no AGENTS.md body,
/// 2.1.281 sends the root's at start and a nested one after a Read.
pub const CLAUDE_LOADER_SINCE: (u32, u32, u32) = (2, 1, 281);

/// A Claude Code release, and where the hook read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaudeRelease {
    /// `major.minor.patch`.
    pub version: (u32, u32, u32),
    /// Where it was read.
    pub source: ReleaseSource,
}

/// Where a hook learns which Claude Code release runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReleaseSource {
    /// `AI_AGENT` (`claude-code_2-1-330_harness`), which Claude Code sets
    /// for its hooks (2.1.190 and later), taken only when
    /// `CLAUDE_CODE_SESSION_ID` names the payload's session: a value
    /// inherited from an outer session is not this release's.
    Environment,
    /// The `version` of the session transcript's newest entries (every
    /// release writes it; the file may not exist yet at `SessionStart`).
    Transcript,
}

impl std::fmt::Display for ClaudeRelease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (major, minor, patch) = self.version;
        let from = match self.source {
            ReleaseSource::Environment => "AI_AGENT",
            ReleaseSource::Transcript => "its transcript",
        };
        write!(f, "Claude Code {major}.{minor}.{patch} (from {from})")
    }
}

/// How many of a transcript's newest entries are searched for a version.
const TRANSCRIPT_ENTRIES: usize = 16;

impl ClaudeRelease {
    /// The release that runs this hook call: `AI_AGENT` when it belongs to
    /// this session, else the session transcript's `version`; `None` when
    /// neither tells.
    pub fn running(
        env: &Environment,
        session_id: Option<&str>,
        transcript: Option<&Path>,
    ) -> Option<Self> {
        let this_session = session_id
            .is_some_and(|id| !id.is_empty() && env.get("CLAUDE_CODE_SESSION_ID") == Some(id));
        if this_session && let Some(version) = env.get("AI_AGENT").and_then(version_of_ai_agent) {
            return Some(Self {
                version,
                source: ReleaseSource::Environment,
            });
        }
        let version = agentctx_agentmem::transcript_entries(transcript?)
            .ok()?
            .take(TRANSCRIPT_ENTRIES)
            .find_map(|entry| {
                entry
                    .get("version")
                    .and_then(Value::as_str)
                    .and_then(crate::parse_version)
            })?;
        Some(Self {
            version,
            source: ReleaseSource::Transcript,
        })
    }

    /// Whether this release's plugin loads AGENTS.md by default.
    pub fn has_agents_md_loader(&self) -> bool {
        self.version >= CLAUDE_LOADER_SINCE
    }
}

/// `claude-code_2-1-330_harness` → (2, 1, 330).
fn version_of_ai_agent(value: &str) -> Option<(u32, u32, u32)> {
    let rest = value.strip_prefix("claude-code_")?;
    let version = rest.split('_').next()?;
    let mut parts = version.split('-').map(|p| p.parse::<u32>().ok());
    let found = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(found)
}

/// The plugin's key in Claude Code's settings.
pub const CLAUDE_PLUGIN: &str = "agents-md@builtin";
/// The names that make a directory a "Claude project" for the plugin.
const CLAUDE_FILES: [&str; 3] = ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"];

/// What the agent loads itself, from the setting (`auto` works it out,
/// for Claude Code from the release that runs: `release`).
pub fn builtin_loader(
    agent: Agent,
    setting: AgentsMdBodies,
    cwd: &Path,
    root: &Path,
    env: &Environment,
    release: Option<&ClaudeRelease>,
) -> LoaderDecision {
    if setting == AgentsMdBodies::Agentctx {
        return LoaderDecision {
            loader: BuiltinLoader::default(),
            why: "agents_md: agentctx: agentctx gives the AGENTS.md bodies".to_owned(),
        };
    }
    let facts = crate::dialect::LoaderFacts {
        cwd,
        root,
        env,
        setting,
        release,
    };
    crate::dialect::of(agent)
        .loader(&facts)
        .unwrap_or_else(|| LoaderDecision {
            loader: BuiltinLoader::default(),
            why: "agentctx gives the AGENTS.md bodies".to_owned(),
        })
}

/// Claude Code's loader (its dialect's): all of it under
/// `claude_code.agents_md: builtin`, else worked out from the release that
/// runs and the project.
pub(crate) fn claude_loader(facts: &crate::dialect::LoaderFacts<'_>) -> LoaderDecision {
    if facts.setting == AgentsMdBodies::Builtin {
        return LoaderDecision {
            loader: BuiltinLoader {
                initial: true,
                nested_on_read: true,
                nested_tools: &["Read"],
                nested_below_cwd_only: false,
                initial_cwd_only: false,
            },
            why: "claude_code.agents_md: builtin: Claude Code gives the AGENTS.md bodies"
                .to_owned(),
        };
    }
    claude_auto(facts.cwd, facts.root, facts.env, facts.release)
}

fn claude_auto(
    cwd: &Path,
    root: &Path,
    env: &Environment,
    release: Option<&ClaudeRelease>,
) -> LoaderDecision {
    // A CLAUDE.md that imports `@AGENTS.md` (a common setup) brings the
    // body in through Claude Code's own import.
    let imported = claude_md_imports_agents_md(cwd, root);
    let (on, why) = match release {
        None => (
            false,
            "the Claude Code release is unknown (no AI_AGENT of this session, no version in its transcript yet): agentctx gives the AGENTS.md bodies; if this release loads them itself, the model gets a body twice".to_owned(),
        ),
        Some(release) if !release.has_agents_md_loader() => (
            false,
            format!("{release} has no AGENTS.md loader: agentctx gives the bodies"),
        ),
        Some(release) if claude_loads_agents_md(cwd, root, env) => (
            true,
            format!("{release} loads the AGENTS.md chain itself: its bodies are left out"),
        ),
        Some(release) => (
            false,
            format!(
                "{release} has its AGENTS.md loader off here (a CLAUDE.md project, or its instructionFiles option): agentctx gives the bodies"
            ),
        ),
    };
    let why = if imported && !on {
        format!("{why}; a CLAUDE.md imports AGENTS.md, so Claude Code gives the chain at start")
    } else {
        why
    };
    let nested = on
        && !truthy(env.get("CLAUDE_CODE_SIMPLE"))
        && !truthy(env.get("CLAUDE_CODE_DISABLE_ATTACHMENTS"));
    LoaderDecision {
        loader: BuiltinLoader {
            initial: on || imported,
            nested_on_read: nested,
            nested_tools: if nested { &["Read"] } else { &[] },
            nested_below_cwd_only: false,
            initial_cwd_only: false,
        },
        why,
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
        .filter_map(|file| agentctx_fs::read_to_string(&file, crate::PROJECT_FILE_LIMIT).ok())
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

    /// A release with the loader on by default.
    const CURRENT: ClaudeRelease = ClaudeRelease {
        version: (2, 1, 330),
        source: ReleaseSource::Environment,
    };

    fn claude_at(root: &Path, env: &Environment, release: Option<&ClaudeRelease>) -> BuiltinLoader {
        builtin_loader(
            Agent::Claude,
            AgentsMdBodies::Auto,
            &root.join("packages/api"),
            root,
            env,
            release,
        )
        .loader
    }

    fn claude(root: &Path, env: &Environment) -> BuiltinLoader {
        claude_at(root, env, Some(&CURRENT))
    }

    #[test]
    fn claude_loads_agents_md_by_default_in_a_project_without_claude_md() {
        let (_dir, root, env) = project();
        assert_eq!(
            claude(&root, &env),
            BuiltinLoader {
                initial: true,
                nested_on_read: true,
                nested_tools: &["Read"],
                nested_below_cwd_only: false,
                initial_cwd_only: false,
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
        let at = |agent, setting| builtin_loader(agent, setting, &root, &root, &env, None).loader;
        assert_eq!(
            at(Agent::Claude, AgentsMdBodies::Agentctx),
            BuiltinLoader::default()
        );
        assert!(at(Agent::Claude, AgentsMdBodies::Builtin).nested_on_read);
        let codex = at(Agent::Codex, AgentsMdBodies::Auto);
        assert!(codex.initial && !codex.nested_on_read);
    }

    #[test]
    fn releases_before_2_1_281_have_no_loader_and_an_unknown_release_gets_the_chain() {
        let (_dir, root, env) = project();
        for version in [
            (1, 0, 128),
            (2, 0, 30),
            (2, 1, 40),
            (2, 1, 274),
            (2, 1, 280),
        ] {
            let release = ClaudeRelease {
                version,
                source: ReleaseSource::Transcript,
            };
            assert_eq!(
                claude_at(&root, &env, Some(&release)),
                BuiltinLoader::default(),
                "{version:?}"
            );
        }
        let first = ClaudeRelease {
            version: (2, 1, 281),
            source: ReleaseSource::Environment,
        };
        assert!(claude_at(&root, &env, Some(&first)).initial);
        let unknown = builtin_loader(
            Agent::Claude,
            AgentsMdBodies::Auto,
            &root,
            &root,
            &env,
            None,
        );
        assert_eq!(unknown.loader, BuiltinLoader::default());
        assert!(unknown.why.contains("body twice"), "{}", unknown.why);
        // An import in CLAUDE.md is Claude Code's own, in every release.
        std::fs::write(root.join("CLAUDE.md"), "@AGENTS.md\n").unwrap();
        assert!(claude_at(&root, &env, None).initial);
    }

    #[test]
    fn ai_agent_counts_only_for_its_own_session() {
        let env = Environment::from_pairs([
            ("AI_AGENT", "claude-code_2-1-330_harness"),
            ("CLAUDE_CODE_SESSION_ID", "s-1"),
        ]);
        let found = ClaudeRelease::running(&env, Some("s-1"), None).unwrap();
        assert_eq!(found.version, (2, 1, 330));
        assert_eq!(found.source, ReleaseSource::Environment);
        // Inherited from an outer session, or no session id: not this release.
        assert_eq!(ClaudeRelease::running(&env, Some("s-2"), None), None);
        assert_eq!(ClaudeRelease::running(&env, None, None), None);
        let bare = Environment::from_pairs([("AI_AGENT", "claude-code_2-1-330_harness")]);
        assert_eq!(ClaudeRelease::running(&bare, Some("s-1"), None), None);
        for odd in [
            "claude-code_2-1_x",
            "codex_1-2-3",
            "claude-code_2-1-330-4_h",
            "",
        ] {
            assert_eq!(version_of_ai_agent(odd), None, "{odd}");
        }
    }

    #[test]
    fn the_transcript_tells_the_release_when_the_environment_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let transcript = dir.path().join("s.jsonl");
        std::fs::write(
            &transcript,
            concat!(
                r#"{"type":"user","version":"2.0.30","message":{"content":"x"}}"#,
                "\n",
                r#"{"type":"summary","leafUuid":"u"}"#,
                "\n",
            ),
        )
        .unwrap();
        let env = Environment::from_pairs([("HOME", "/nowhere")]);
        let found = ClaudeRelease::running(&env, Some("s"), Some(&transcript)).unwrap();
        assert_eq!(found.version, (2, 0, 30));
        assert_eq!(found.source, ReleaseSource::Transcript);
        assert_eq!(
            found.to_string(),
            "Claude Code 2.0.30 (from its transcript)"
        );
        // Not written yet (SessionStart of a new session): unknown.
        let missing = dir.path().join("new.jsonl");
        assert_eq!(
            ClaudeRelease::running(&env, Some("s"), Some(&missing)),
            None
        );
    }
}
