//! What install knows of each agent, behind one interface: the files a
//! request concerns, where the agent reads its MCP servers and how an entry
//! for `agentctx mcp` looks there, what to tell the user afterwards. Each
//! agent's module implements it; [`of`] is the one place that names them
//! all.

use std::path::PathBuf;

use agentctx_config::Environment;
use agentctx_types::Agent;
use serde_json::{Value, json};

use super::targets::{FileKind, Target};
use super::{InstallError, Parts, Places, Request};

/// One agent's install.
pub(crate) trait AgentInstall: Sync {
    /// The files `request` concerns for this agent, with the parts each
    /// gets; an uninstall (`adding` false) names every file an install
    /// could have changed.
    fn targets(
        &self,
        request: &Request,
        places: &Places,
        adding: bool,
        out: &mut Vec<Target>,
    ) -> Result<(), InstallError>;

    /// The user config where the agent reads its MCP servers, when
    /// `agentctx mcp` goes into a file of its own (`None`: it goes with
    /// the hooks' files, or the place is unknown).
    fn mcp_config(&self, _env: &Environment) -> Option<PathBuf> {
        None
    }

    /// The key of the MCP servers' object in that config and the entry of
    /// `agentctx mcp` in it.
    fn mcp_entry(&self, program: &str) -> (&'static str, Value) {
        ("mcpServers", json!({"command": program, "args": ["mcp"]}))
    }

    /// What the user needs to know after installing, if anything.
    fn advice(&self, _request: &Request) -> Option<String> {
        None
    }

    /// Its installed release changes what install writes: `install` asks
    /// the agent's program for its `--version`.
    fn version_matters(&self) -> bool {
        false
    }
}

/// The install of `agent`.
pub(crate) fn of(agent: Agent) -> &'static dyn AgentInstall {
    match agent {
        Agent::Claude => &super::claude::Claude,
        Agent::Codex => &super::codex::Codex,
        Agent::Gemini => &super::gemini::GEMINI,
        Agent::Copilot => &super::copilot::Copilot,
        Agent::Opencode => &super::opencode::Opencode,
        Agent::Qwen => &super::qwen::QWEN,
        Agent::Cline => &super::cline::Cline,
    }
}

/// The parts of a file that holds only agentctx's hooks.
pub(super) const HOOKS: Parts = Parts {
    hooks: true,
    agents_md_plugin_off: false,
    notify: false,
    codex_trust: false,
    codex_profile: false,
    mcp: false,
    context_file_name: false,
};

/// The parts of a file that holds only the MCP server.
pub(super) const MCP: Parts = Parts {
    hooks: false,
    mcp: true,
    ..HOOKS
};

/// The error of a place that needs `$HOME`.
pub(super) fn unplaced(request: &Request, what: &str) -> InstallError {
    InstallError::Unplaced(format!("no $HOME: {}'s {what} is unknown", request.agent))
}

/// The agent's own MCP config as a target, when the request concerns the
/// MCP server (always for an uninstall): the user config whatever the
/// scope, since it serves every project.
pub(super) fn mcp_target(
    request: &Request,
    places: &Places,
    adding: bool,
    out: &mut Vec<Target>,
) -> Result<(), InstallError> {
    if adding && !request.mcp {
        return Ok(());
    }
    match places.mcp_configs.of(request.agent) {
        Some(path) => out.push(Target {
            path,
            kind: FileKind::McpServers(request.agent),
            parts: MCP,
        }),
        None if adding => return Err(unplaced(request, "user config")),
        None => {}
    }
    Ok(())
}

/// The agent's own MCP config, or the error that says it is unknown.
pub(super) fn user_config(request: &Request, places: &Places) -> Result<PathBuf, InstallError> {
    places
        .mcp_configs
        .of(request.agent)
        .ok_or_else(|| unplaced(request, "user config"))
}

/// The install of an agent whose hooks live in a settings file: the
/// project's `project` below the root, or, for the user, the config that
/// also holds its MCP servers (Gemini CLI and Qwen Code, its fork, whose
/// `trust` keeps them from asking before each call of agentctx's tools,
/// which never change the project).
pub(super) struct SettingsInstall {
    /// The settings file below a project's root.
    pub project: &'static str,
    /// What the file is.
    pub kind: FileKind,
    /// The parts install writes into it.
    pub parts: Parts,
    /// Where the agent reads its user settings (its MCP servers too).
    pub user: fn(&Environment) -> Option<PathBuf>,
    /// What the user needs to know after installing.
    pub advice: fn(&Request) -> String,
}

impl AgentInstall for SettingsInstall {
    fn targets(
        &self,
        request: &Request,
        places: &Places,
        adding: bool,
        out: &mut Vec<Target>,
    ) -> Result<(), InstallError> {
        let path = match request.scope {
            super::Scope::User => user_config(request, places)?,
            _ => places.root.join(self.project),
        };
        out.push(Target {
            path,
            kind: self.kind,
            parts: self.parts,
        });
        mcp_target(request, places, adding, out)
    }

    fn mcp_config(&self, env: &Environment) -> Option<PathBuf> {
        (self.user)(env)
    }

    fn mcp_entry(&self, program: &str) -> (&'static str, Value) {
        (
            "mcpServers",
            json!({"command": program, "args": ["mcp"], "trust": true}),
        )
    }

    fn advice(&self, request: &Request) -> Option<String> {
        Some((self.advice)(request))
    }
}

/// A JavaScript plugin's text from its `template`, each `__AGENTCTX_<NAME>__`
/// of `values` replaced by the value as a JavaScript string literal (a JSON
/// string is one: any path quotes safely).
pub(super) fn fill_plugin(template: &str, values: &[(&str, &str)]) -> String {
    let mut text = template.to_owned();
    for (name, value) in values {
        let literal = serde_json::to_string(value).unwrap_or_else(|_| "\"\"".to_owned());
        text = text.replace(&format!("__AGENTCTX_{name}__"), &literal);
    }
    text
}
