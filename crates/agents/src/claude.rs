//! Claude Code: the shared shape is its own. It escapes `<system-reminder`
//! in hook context, so reminders travel as `<agentctx-reminder>`.

#[path = "claude_permissions.rs"]
mod permissions;

pub use permissions::OwnVerdict;

use agentctx_types::{HookInput, ReminderEnvelope};

use crate::dialect::{Dialect, LoaderFacts, Native, PinPaths, rename_tool};
use crate::loader::LoaderDecision;

pub(super) struct Claude;

/// Its tools that run a command beside `Bash` (2.1.330's tool table:
/// `Monitor` runs a command in the background and streams its lines, on by
/// default on Linux; `PowerShell` with `CLAUDE_CODE_USE_POWERSHELL_TOOL`):
/// each is `Bash` to the rules, so a rule about `Bash` holds for them.
const TOOLS: [(&str, &str); 2] = [("Monitor", "Bash"), ("PowerShell", "Bash")];

impl Dialect for Claude {
    fn settings_vars(&self) -> &'static [&'static str] {
        &["CLAUDE_CONFIG_DIR"]
    }

    fn capture_source(&self) -> &'static str {
        "claude-hook"
    }

    fn describe_config(&self, name: &str) -> Option<&'static str> {
        Some(match name {
            ".claude" => "Claude Code's project settings and hooks",
            ".mcp.json" => "the project's MCP servers",
            _ => return None,
        })
    }

    fn project_config_names(&self) -> &'static [&'static str] {
        // Its settings and hooks; the MCP servers a `.mcp.json` names, which
        // it starts outside any sandbox (an approved server's changed command
        // runs without a new question).
        &[".claude", ".mcp.json"]
    }

    fn asks_through_hook(&self) -> bool {
        true
    }

    fn own_verdict(
        &self,
        command: &str,
        root: &std::path::Path,
        env: &agentctx_config::Environment,
    ) -> Option<crate::OwnVerdict> {
        let script = agentctx_shell::parse_shell(command).ok()?;
        Some(permissions::judge(&script, root, env))
    }

    fn narrow_search(
        &self,
        tool: &str,
        input: &serde_json::Value,
        left_out: &[std::path::PathBuf],
    ) -> Option<serde_json::Value> {
        // `Grep` runs ripgrep with each word of `glob` (split on white
        // space, and on commas outside braces) as a `--glob`; a later `!`
        // glob wins, and `**/` matches the entry at any depth of the
        // search (2.1.40's cli.js; 2.1.330 behaves alike in the e2e test).
        if tool != "Grep" || left_out.is_empty() {
            return None;
        }
        let mut globs = Vec::with_capacity(left_out.len());
        for path in left_out {
            let text = path.to_str()?;
            // A name ripgrep would read as a pattern, or Claude Code would
            // split, cannot be left out exactly: the search is denied.
            // Non-ASCII too: JavaScript's `\s` splits on U+FEFF and other
            // spaces Rust does not call white space.
            let plain = !text.is_empty()
                && text.is_ascii()
                && !text.contains(|c: char| {
                    c.is_whitespace()
                        || matches!(c, ',' | '{' | '}' | '[' | ']' | '*' | '?' | '\\' | '!')
                });
            if !plain {
                return None;
            }
            globs.push(format!("!**/{text}"));
        }
        let mut changed = input.clone();
        let object = changed.as_object_mut()?;
        let glob = match object.get("glob").and_then(serde_json::Value::as_str) {
            Some(own) if !own.trim().is_empty() => format!("{own} {}", globs.join(" ")),
            _ => globs.join(" "),
        };
        object.insert("glob".to_owned(), serde_json::Value::String(glob));
        Some(changed)
    }

    fn rewrite_decision(&self, asks: bool) -> agentctx_types::PermissionDecision {
        // It asks about the wrapped command as it would have asked about
        // the command.
        if asks {
            agentctx_types::PermissionDecision::Ask
        } else {
            agentctx_types::PermissionDecision::Allow
        }
    }

    fn project_settings_folder(&self) -> Option<&'static str> {
        Some(".claude")
    }

    fn config_names_above_root(&self) -> &'static [&'static str] {
        // From the session's folder up to `/` (2.1.330, measured).
        &[".mcp.json"]
    }

    fn user_config_paths(&self, env: &agentctx_config::Environment) -> Vec<std::path::PathBuf> {
        crate::claude_user_settings(env)
            .map(|settings| vec![settings.with_file_name("settings.local.json"), settings])
            .unwrap_or_default()
    }

    fn run_needs(&self, env: &agentctx_config::Environment) -> crate::RunNeeds {
        // Its folder holds its sessions, transcripts and credentials; what
        // in it runs or instructs later sessions (plugins, hooks, skills,
        // agents, commands, the user's CLAUDE.md) stays read-only, beside
        // the settings files, which are protected paths. `~/.claude.json`
        // (its state) is written through a temporary file in the home
        // folder, which stays read-only: not saved under `run` unless
        // `CLAUDE_CONFIG_DIR` puts it in the folder (docs/integrations/run.md).
        let folder = self.user_folder(env);
        let read_only = folder
            .iter()
            .flat_map(|f| {
                [
                    "plugins/cache",
                    "plugins/marketplaces",
                    "plugins/installed_plugins.json",
                    "plugins/known_marketplaces.json",
                    "hooks",
                    "skills",
                    "agents",
                    "commands",
                    "output-styles",
                    "CLAUDE.md",
                ]
                .map(|p| f.join(p))
            })
            .collect();
        crate::RunNeeds {
            writable: folder.into_iter().collect(),
            read_only,
            project: &[],
            hosts: &[
                "api.anthropic.com",
                "statsig.anthropic.com",
                "console.anthropic.com",
                "platform.claude.com",
                "claude.ai",
                "mcp-proxy.anthropic.com",
            ],
            base_url_vars: &["ANTHROPIC_BASE_URL"],
            key_vars: &[
                "ANTHROPIC_API_KEY",
                "ANTHROPIC_AUTH_TOKEN",
                "CLAUDE_CODE_OAUTH_TOKEN",
            ],
            config_key_vars: Vec::new(),
        }
    }

    fn user_folder(&self, env: &agentctx_config::Environment) -> Option<std::path::PathBuf> {
        crate::claude_user_settings(env).and_then(|s| s.parent().map(std::path::Path::to_path_buf))
    }

    fn transcript_shows_context(&self) -> bool {
        true
    }

    fn prompt_context_follows_message(&self) -> bool {
        // Either hook's context is a `system` message.
        false
    }

    fn agents_md_setting(&self, config: &agentctx_types::Config) -> agentctx_types::AgentsMdBodies {
        config.claude_code.agents_md
    }

    fn running_release(
        &self,
        env: &agentctx_config::Environment,
        session: Option<&str>,
        transcript: Option<&std::path::Path>,
    ) -> Option<crate::ClaudeRelease> {
        crate::ClaudeRelease::running(env, session, transcript)
    }

    fn normalize(&self, input: &mut HookInput, _: Option<&str>) -> Native {
        let mut native = Native::default();
        rename_tool(input, &TOOLS, &mut native);
        if native.tool.as_deref() == Some("PowerShell") {
            native.foreign_shell = Some("PowerShell");
        }
        native
    }

    /// Its file tools run a changed `file_path`/`path` (the input must be
    /// whole: fields left out are dropped, measured with 2.1.330). Without
    /// a decision its own permission check judges the changed input, as
    /// the user's settings say (an `ask` is a denial in `-p`); where it
    /// never asks, `allow`.
    fn pin_file_paths(&self, asks: bool) -> PinPaths {
        PinPaths::Rewrite((!asks).then_some(agentctx_types::PermissionDecision::Allow))
    }

    /// Its `Bash` tool keeps the folder a command `cd`s to; `Monitor`
    /// starts each command afresh. In one of its worktrees
    /// (`.claude/worktrees/<name>`) its own guard refuses a line that names
    /// git and sources or substitutes anything (2.1.330, measured: `. FILE`
    /// and `$(...)` both), so there the wrapped command carries no folder
    /// back (a `cd` lasts for its own command).
    fn shell_keeps_cwd(&self, native: Option<&str>, cwd: &std::path::Path) -> bool {
        let names: Vec<&std::ffi::OsStr> = cwd.components().map(|c| c.as_os_str()).collect();
        let in_worktree = names
            .windows(2)
            .any(|pair| pair[0] == ".claude" && pair[1] == "worktrees");
        native.is_none() && !in_worktree
    }

    fn envelope(&self) -> ReminderEnvelope {
        ReminderEnvelope::AgentctxReminder
    }

    /// Decided from `claude_code.agents_md` and the release (`agents_md.rs`).
    fn loader(&self, facts: &LoaderFacts<'_>) -> Option<LoaderDecision> {
        Some(crate::loader::claude_loader(facts))
    }

    fn start_dir_env(&self) -> Option<&'static str> {
        Some("CLAUDE_PROJECT_DIR")
    }
}
