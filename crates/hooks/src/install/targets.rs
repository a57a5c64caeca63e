//! Which files an install or uninstall concerns, per agent and scope, and
//! what each is (`FileKind`).

use std::path::PathBuf;

use agentctx_types::{Agent, HookAgent};

use super::{InstallError, Parts, Places, Request, Scope, opencode};

/// Which of the agents' files a target is: what its text is and how it
/// is edited (never guessed from the parts a change removes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FileKind {
    /// A Claude Code `settings.json` (hooks; the loader option).
    ClaudeSettings,
    /// A Codex `hooks.json`.
    CodexHooks,
    /// Codex's user `config.toml` (hook trust).
    CodexConfig,
    /// A project's `.codex/config.toml` (the permission profile).
    CodexProjectConfig,
    /// A project's `.mcp.json` (Claude Code's project MCP servers).
    McpJson,
    /// The user config where Gemini CLI, Copilot CLI, opencode or Qwen
    /// Code reads its MCP servers.
    McpServers(Agent),
    /// A Gemini CLI `settings.json` (hooks, `context.fileName`).
    GeminiSettings,
    /// A Qwen Code `settings.json` (hooks).
    QwenSettings,
    /// Copilot CLI's user `settings.json` (hooks).
    CopilotSettings,
    /// A project's `.github/hooks/agentctx.json`: agentctx's own.
    CopilotHooksFile,
    /// agentctx's opencode plugin: agentctx's own.
    OpencodePlugin,
    /// The shell agentctx's opencode plugin makes opencode's: agentctx's own.
    OpencodeShell,
}

impl FileKind {
    /// A file agentctx writes whole: removed when nothing of it is left.
    pub(super) fn owned_whole(self) -> bool {
        matches!(
            self,
            Self::CopilotHooksFile | Self::OpencodePlugin | Self::OpencodeShell
        )
    }
}

/// One file install or uninstall concerns.
pub(super) struct Target {
    pub path: PathBuf,
    pub kind: FileKind,
    pub parts: Parts,
}

/// The settings files `request` concerns, with the parts each gets. An
/// uninstall also looks at Claude Code's user settings for the loader
/// option, which it takes out only when its record says install set it,
/// and at Codex's user config for the trust of agentctx's hooks, which it
/// takes out whoever recorded it (install or Codex's TUI).
pub(super) fn targets(
    request: &Request,
    places: &Places,
    adding: bool,
) -> Result<Vec<Target>, InstallError> {
    let hooks = Parts {
        hooks: true,
        ..Parts::default()
    };
    let mut targets = Vec::new();
    let target = |path: PathBuf, kind, parts| Target { path, kind, parts };
    let hook_agent = match request.agent.hook_dialect() {
        Some(agent) => agent,
        None => return Err(InstallError::NoHooks(request.agent)),
    };
    let unplaced = |what: &str| {
        InstallError::Unplaced(format!("no $HOME: {}'s {what} is unknown", request.agent))
    };
    let project = |relative: &str| places.root.join(relative);
    let user_mcp = || {
        places
            .mcp_configs
            .of(request.agent)
            .ok_or_else(|| unplaced("user config"))
    };
    match hook_agent {
        HookAgent::Claude => {
            let user = || {
                places.claude_user_settings.clone().ok_or_else(|| {
                    InstallError::Unplaced(
                        "no $HOME: Claude Code's user settings are unknown".into(),
                    )
                })
            };
            let settings = match request.scope {
                Scope::Project => places.root.join(".claude/settings.local.json"),
                Scope::Shared => places.root.join(".claude/settings.json"),
                Scope::User => user()?,
            };
            targets.push(target(settings, FileKind::ClaudeSettings, hooks));
            // The MCP server: the project's `.mcp.json` (Claude Code asks
            // once before it starts a project's server).
            if request.mcp || !adding {
                targets.push(target(
                    places.root.join(".mcp.json"),
                    FileKind::McpJson,
                    Parts {
                        mcp: true,
                        ..Parts::default()
                    },
                ));
            }
            let undo_option = !adding && places.claude_user_settings.is_some();
            if request.agents_md_plugin_off || undo_option {
                // Claude Code reads plugin options from the user settings only.
                targets.push(target(
                    user()?,
                    FileKind::ClaudeSettings,
                    Parts {
                        agents_md_plugin_off: true,
                        ..Parts::default()
                    },
                ));
            }
        }
        HookAgent::Gemini | HookAgent::Qwen | HookAgent::Copilot | HookAgent::Opencode => {
            let (path, kind) = match (hook_agent, request.scope) {
                (HookAgent::Gemini, Scope::User) => (user_mcp()?, FileKind::GeminiSettings),
                (HookAgent::Gemini, _) => {
                    (project(".gemini/settings.json"), FileKind::GeminiSettings)
                }
                (HookAgent::Qwen, Scope::User) => (user_mcp()?, FileKind::QwenSettings),
                (HookAgent::Qwen, _) => (project(".qwen/settings.json"), FileKind::QwenSettings),
                (HookAgent::Copilot, Scope::User) => (
                    user_mcp()?.with_file_name("settings.json"),
                    FileKind::CopilotSettings,
                ),
                (HookAgent::Copilot, _) => (
                    project(".github/hooks/agentctx.json"),
                    FileKind::CopilotHooksFile,
                ),
                (_, Scope::User) => (
                    user_mcp()?
                        .with_file_name("plugin")
                        .join(opencode::PLUGIN_FILE),
                    FileKind::OpencodePlugin,
                ),
                (_, _) => (
                    project(".opencode/plugin").join(opencode::PLUGIN_FILE),
                    FileKind::OpencodePlugin,
                ),
            };
            let parts = Parts {
                hooks: true,
                context_file_name: hook_agent == HookAgent::Gemini,
                ..Parts::default()
            };
            if kind == FileKind::OpencodePlugin {
                let shell = opencode::shell_path(&path);
                targets.push(target(path, kind, parts));
                targets.push(target(shell, FileKind::OpencodeShell, parts));
            } else {
                targets.push(target(path, kind, parts));
            }
            // The MCP server: the user config whatever the scope (it serves
            // every project).
            if request.mcp || !adding {
                let mcp = Parts {
                    mcp: true,
                    ..Parts::default()
                };
                match places.mcp_configs.of(request.agent) {
                    Some(path) => {
                        targets.push(target(path, FileKind::McpServers(request.agent), mcp))
                    }
                    None if adding => return Err(unplaced("user config")),
                    None => {}
                }
            }
        }
        HookAgent::Codex => {
            let base = match request.scope {
                Scope::User => places.codex_home.clone().ok_or_else(|| {
                    InstallError::Unplaced(
                        "no $HOME or $CODEX_HOME: Codex's home is unknown".into(),
                    )
                })?,
                Scope::Project | Scope::Shared => places.root.join(".codex"),
            };
            targets.push(target(base.join("hooks.json"), FileKind::CodexHooks, hooks));
            // The permission profile is the project's (its paths are);
            // an uninstall takes it out wherever install put it.
            let profile = request.codex_profile.is_some() || !adding;
            if profile && request.scope != Scope::User {
                targets.push(target(
                    places.root.join(".codex/config.toml"),
                    FileKind::CodexProjectConfig,
                    Parts {
                        codex_profile: true,
                        ..Parts::default()
                    },
                ));
            }
            // MCP servers live in the user config whatever the scope.
            if (request.mcp || !adding)
                && let Some(home) = places.codex_home.clone()
            {
                targets.push(target(
                    home.join("config.toml"),
                    FileKind::CodexConfig,
                    Parts {
                        mcp: true,
                        ..Parts::default()
                    },
                ));
            }
            // Hook trust lives in the user config whatever the scope.
            let undo_trust = !adding && places.codex_home.is_some();
            if request.codex_trust || undo_trust {
                let home = places.codex_home.clone().ok_or_else(|| {
                    InstallError::Unplaced(
                        "no $HOME or $CODEX_HOME: Codex's home is unknown".into(),
                    )
                })?;
                targets.push(target(
                    home.join("config.toml"),
                    FileKind::CodexConfig,
                    Parts {
                        codex_trust: true,
                        ..Parts::default()
                    },
                ));
            }
        }
    }
    // Two parts in one file (a user install with the plugin option) are one change.
    let mut merged: Vec<Target> = Vec::new();
    for t in targets {
        match merged.iter_mut().find(|m| m.path == t.path) {
            Some(existing) => existing.parts = existing.parts.with(t.parts),
            None => merged.push(t),
        }
    }
    Ok(merged)
}
