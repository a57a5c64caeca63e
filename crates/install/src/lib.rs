//! `agentctx install` and `uninstall`: agentctx's hooks (and, with
//! `--mcp`, its MCP server) written into each agent's own settings, and
//! taken out again exactly.
//!
//! ```
//! use agentctx_install::{hook_command, is_agentctx_command};
//! use agentctx_types::Agent;
//!
//! let command = hook_command("/usr/local/bin/agentctx", Agent::Codex, "Stop");
//! assert_eq!(command, "'/usr/local/bin/agentctx' hook --agent codex");
//! assert!(is_agentctx_command(&command));
//! ```
//!
//!
//! - **Where**: Claude Code reads a project's `.claude/settings.json` only
//!   when a session starts at the project root, but the root's
//!   `.claude/settings.local.json` in every subdirectory (measured with
//!   2.1.330), so a project install writes `settings.local.json` (personal;
//!   `--shared` writes `settings.json` for the team). A user install writes
//!   `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`).
//! - **What runs**: the hook command names the agentctx binary by absolute
//!   path (quoted for `/bin/sh`), so it runs whatever PATH the agent has;
//!   the PreToolUse entry ends in a guard that blocks the tool call with a
//!   message when the binary cannot run, instead of letting Claude Code
//!   carry on after exit 127.
//! - **Undo**: before the first change to a file, its exact bytes and mode
//!   are kept in a manifest in the state folder (never next to the file,
//!   never overwritten by a later install). Uninstall restores them exactly
//!   when the file is as install left it, and otherwise removes only what
//!   install added, keeping the user's later edits.
#![deny(missing_docs)]

mod agent;
mod claude;
mod cline;
mod codex;
mod command;
mod copilot;
mod entries;
mod gemini;
mod manifest;
mod mcp;
mod opencode;
mod qwen;
mod setup;
mod targets;
mod write;

use std::path::{Path, PathBuf};

use agentctx_types::Agent;

pub use agentctx_fs::replace_file;
pub use claude::CLAUDE_ROOT_SETTINGS_FROM_SUBDIRECTORIES;
pub use claude::{AGENTS_MD_PLUGIN_OFF, edit_claude_settings};
pub use codex::{
    codex_trust_entries, codex_trust_hash, edit_codex_hooks, edit_codex_profile, edit_codex_toml,
    edit_codex_trust,
};
pub use command::{hook_command, is_agentctx_command};
pub use manifest::{Manifest, ManifestError};
pub use mcp::McpConfigs;
pub use setup::{ProgramError, advice, hook_program, installed_agent_version};
use targets::{FileKind, Target, targets};
pub use write::apply;

/// Which settings an install writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// This project, for you: Claude Code's `.claude/settings.local.json`
    /// at the root; Codex's `.codex/` at the root.
    Project,
    /// This project, for everyone who clones it: `.claude/settings.json`
    /// (Claude Code reads it only in sessions started at the root).
    Shared,
    /// Every project: the agent's user settings.
    User,
}

/// What install adds to a settings file, so uninstall removes exactly that.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Parts {
    /// agentctx's hook entries.
    pub hooks: bool,
    /// Claude Code's built-in AGENTS.md loader switched off.
    pub agents_md_plugin_off: bool,
    /// Codex: `notify` set to `agentctx mem capture`.
    pub notify: bool,
    /// Codex: agentctx's hooks recorded as trusted in the user config.
    #[serde(default)]
    pub codex_trust: bool,
    /// Codex: the project's `.codex/config.toml` makes Codex's own sandbox
    /// refuse what the rules mask (permission profile `agentctx`).
    #[serde(default)]
    pub codex_profile: bool,
    /// `agentctx mcp` registered as an MCP server (`agentctx` in the
    /// project's `.mcp.json`, or `[mcp_servers.agentctx]` in Codex's config).
    #[serde(default)]
    pub mcp: bool,
    /// Gemini CLI: `context.fileName` names AGENTS.md.
    #[serde(default)]
    pub context_file_name: bool,
}

impl Parts {
    fn any(self) -> bool {
        self.hooks
            || self.agents_md_plugin_off
            || self.notify
            || self.codex_trust
            || self.codex_profile
            || self.mcp
            || self.context_file_name
    }

    fn without(self, other: Self) -> Self {
        Self {
            hooks: self.hooks && !other.hooks,
            agents_md_plugin_off: self.agents_md_plugin_off && !other.agents_md_plugin_off,
            notify: self.notify && !other.notify,
            codex_trust: self.codex_trust && !other.codex_trust,
            codex_profile: self.codex_profile && !other.codex_profile,
            mcp: self.mcp && !other.mcp,
            context_file_name: self.context_file_name && !other.context_file_name,
        }
    }

    fn with(self, other: Self) -> Self {
        Self {
            hooks: self.hooks || other.hooks,
            agents_md_plugin_off: self.agents_md_plugin_off || other.agents_md_plugin_off,
            notify: self.notify || other.notify,
            codex_trust: self.codex_trust || other.codex_trust,
            codex_profile: self.codex_profile || other.codex_profile,
            mcp: self.mcp || other.mcp,
            context_file_name: self.context_file_name || other.context_file_name,
        }
    }
}

/// An install or uninstall request.
#[derive(Clone, Debug)]
pub struct Request {
    /// Which agent.
    pub agent: Agent,
    /// Which settings.
    pub scope: Scope,
    /// The hook command's program: an absolute path to agentctx (see
    /// [`hook_program`]).
    pub program: String,
    /// Claude Code: also switch its built-in AGENTS.md loader off in the
    /// user settings (agentctx then gives the chain and path reminders).
    pub agents_md_plugin_off: bool,
    /// Codex: record agentctx's hooks as trusted in the user config, with
    /// the hash Codex computes, as its TUI does when you trust them.
    pub codex_trust: bool,
    /// The agent's version, when known (`claude --version`): events it does
    /// not know are left out, because Claude Code before 2.0.44 ignores a
    /// hooks object with an unknown event.
    pub agent_version: Option<(u32, u32, u32)>,
    /// Codex, project scope: the entries of the permission profile that
    /// makes Codex's own sandbox refuse what the rules mask
    /// ([`agentctx_guard::codex_permissions`]); `None` writes none.
    pub codex_profile: Option<Vec<(&'static str, String, &'static str)>>,
    /// Also register `agentctx mcp` as an MCP server with the agent.
    pub mcp: bool,
}

/// Where things are.
#[derive(Clone, Debug)]
pub struct Places {
    /// The project root (project and shared scopes).
    pub root: PathBuf,
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// Claude Code's user settings file.
    pub claude_user_settings: Option<PathBuf>,
    /// Codex's home (`$CODEX_HOME`, else `~/.codex`).
    pub codex_home: Option<PathBuf>,
    /// The user config file of each agent that gets only the MCP server
    /// (Gemini CLI, Copilot CLI, opencode, Qwen Code); `None` when unknown.
    pub mcp_configs: mcp::McpConfigs,
    /// The folder for install manifests.
    pub manifests: PathBuf,
}

/// One file install or uninstall would change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    /// The file (a symlink's target, so the link stays a link).
    pub path: PathBuf,
    /// Its text now (`None`: it does not exist).
    pub before: Option<String>,
    /// Its text after (`None`: it is removed).
    pub after: Option<String>,
    /// How this change is made.
    pub how: ChangeKind,
    /// The parts this file holds after the change.
    parts_after: Parts,
    /// The manifest as it is (uninstall) or will be (install).
    manifest: Option<Manifest>,
}

/// How a file is changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// Nothing to do.
    Unchanged,
    /// Nothing to do: the file is not there (an uninstall of what was
    /// never installed, or removed since).
    Absent,
    /// agentctx's entries added or updated.
    Installed,
    /// The file as it was before install: bytes and mode.
    Restored,
    /// agentctx's entries removed; the user's later edits kept.
    Removed,
}

impl std::fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Unchanged => "unchanged",
            Self::Absent => "not there (nothing to remove)",
            Self::Installed => "installed",
            Self::Restored => "restored as it was before install",
            Self::Removed => "agentctx's entries removed (your later edits kept)",
        })
    }
}

impl FileChange {
    /// `true` when the file stays as it is (or stays absent).
    pub fn is_unchanged(&self) -> bool {
        matches!(self.how, ChangeKind::Unchanged | ChangeKind::Absent)
    }

    /// A unified diff of the change.
    pub fn diff(&self) -> String {
        let before = self.before.as_deref().unwrap_or("");
        let after = self.after.as_deref().unwrap_or("");
        similar::TextDiff::from_lines(before, after)
            .unified_diff()
            .header(
                &format!("{} (now)", self.path.display()),
                &format!("{} (after)", self.path.display()),
            )
            .to_string()
    }
}

/// What is wrong with the content of a settings file; install leaves such
/// a file as it is.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// Not UTF-8 text.
    #[error("not UTF-8")]
    NotUtf8,
    /// Not JSON (or it cannot be written back as JSON).
    #[error("not valid JSON ({0})")]
    Json(#[source] serde_json::Error),
    /// Not TOML.
    #[error("not valid TOML ({0})")]
    Toml(#[source] toml_edit::TomlError),
    /// A symbolic link to a file outside the place it belongs to.
    #[error("is a symbolic link to {}, outside {}; not following it", .target.display(), .base.display())]
    LinkOutside {
        /// Where it points.
        target: PathBuf,
        /// The folder it must stay in.
        base: PathBuf,
    },
    /// A file of agentctx's name that agentctx did not write.
    #[error("is not agentctx's (it lacks the header install writes); not replacing it")]
    NotOurs,
    /// JSON whose top level is not an object.
    #[error("does not hold a JSON object")]
    NotAnObject,
    /// A key holds another kind of value than the agent reads there.
    #[error("`{key}` is not {expected}")]
    Shape {
        /// The dotted key.
        key: String,
        /// `an object`, `a list`, `a table`.
        expected: &'static str,
    },
}

impl SettingsError {
    pub(crate) fn shape(key: impl Into<String>, expected: &'static str) -> Self {
        Self::Shape {
            key: key.into(),
            expected,
        }
    }
}

/// Why install or uninstall cannot go on; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// A settings file cannot be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A settings file is not valid JSON or TOML, or not shaped as the agent
    /// reads it; it is left as it is.
    #[error("{}: {source}; not touching it", .path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: SettingsError,
    },
    /// A location is unknown (no `$HOME`).
    #[error("{0}")]
    Unplaced(String),
    /// The manifest of an earlier install cannot be used.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The running agentctx cannot be named in hook commands.
    #[error(transparent)]
    Program(#[from] ProgramError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> InstallError + '_ {
    move |source| InstallError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A settings file's real location: a symlink is followed, so that the
/// link (a dotfiles setup) stays a link, but only to a file in the same
/// place: the project's own files stay in the project, the user's in the
/// home folder (a cloned repository's `.opencode/plugin/agentctx.js ->
/// ~/.bashrc` must not have install write the user's startup file).
fn real_path(path: &Path, places: &Places) -> Result<PathBuf, InstallError> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(path.to_path_buf());
    };
    if !meta.file_type().is_symlink() {
        return Ok(path.to_path_buf());
    }
    let Ok(target) = std::fs::canonicalize(path) else {
        // A dangling link is replaced, not followed.
        return Ok(path.to_path_buf());
    };
    let root = std::fs::canonicalize(&places.root).unwrap_or_else(|_| places.root.clone());
    let home = places
        .home
        .as_ref()
        .map(|h| std::fs::canonicalize(h).unwrap_or_else(|_| h.clone()));
    let within = if path.starts_with(&places.root) {
        Some(root)
    } else {
        home.filter(|_| places.home.as_ref().is_some_and(|h| path.starts_with(h)))
    };
    match within {
        Some(base) if !target.starts_with(&base) => Err(InstallError::Invalid {
            path: path.to_path_buf(),
            source: SettingsError::LinkOutside { target, base },
        }),
        _ => Ok(target),
    }
}

fn read(path: &Path) -> Result<Option<String>, InstallError> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| InstallError::Invalid {
                path: path.to_path_buf(),
                source: SettingsError::NotUtf8,
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path)(e)),
    }
}

/// Codex's trust entries for agentctx's handlers: those of the hooks.json
/// as install leaves it (installing), or as it is now (uninstalling).
type TrustEntries = Vec<(String, String)>;

/// Edits `text` of the file at `path` (a `kind` of file) to hold
/// (`adding`) or not hold `parts`.
fn edit(
    request: &Request,
    (path, kind): (&Path, FileKind),
    text: Option<&str>,
    parts: Parts,
    adding: bool,
    trust: &TrustEntries,
) -> Result<String, InstallError> {
    let invalid = |source: SettingsError| InstallError::Invalid {
        path: path.to_path_buf(),
        source,
    };
    let original = text.unwrap_or_default();
    let edited = match kind {
        FileKind::ClaudeSettings => {
            edit_claude_settings(text, &request.program, parts, adding, request.agent_version)
        }
        FileKind::CodexHooks if parts.hooks => edit_codex_hooks(text, &request.program, adding),
        FileKind::CodexConfig if parts.codex_trust || parts.mcp => {
            let trusted = if parts.codex_trust {
                edit_codex_trust(text, trust, adding)
            } else {
                Ok(original.to_owned())
            };
            match trusted {
                Ok(t) if parts.mcp => mcp::edit_codex_mcp(Some(&t), &request.program, adding),
                other => other,
            }
        }
        FileKind::McpJson if parts.mcp => mcp::edit_mcp_json(text, &request.program, adding),
        FileKind::McpServers(agent) if parts.mcp => {
            mcp::edit_agent_mcp(agent, text, &request.program, adding)
        }
        FileKind::McpJson | FileKind::McpServers(_) => Ok(original.to_owned()),
        // Gemini CLI's and Qwen Code's user settings hold their MCP
        // servers too.
        FileKind::Settings(file) => match (file.edit)(text, &request.program, parts, adding) {
            Ok(t) if parts.mcp => {
                mcp::edit_agent_mcp(file.agent, Some(&t), &request.program, adding)
            }
            other => other,
        },
        FileKind::CopilotSettings | FileKind::CopilotHooksFile => copilot::edit_copilot_hooks(
            text,
            &request.program,
            parts,
            adding,
            kind == FileKind::CopilotHooksFile,
        ),
        // A file of that name that is not agentctx's is left alone.
        FileKind::Owned(file) => match text {
            Some(t) if !(file.is_ours)(t) && adding => Err(SettingsError::NotOurs),
            Some(t) if !(file.is_ours)(t) => Ok(t.to_owned()),
            _ => Ok((file.text)(&request.program, path, parts.hooks && adding)),
        },
        FileKind::CodexProjectConfig if parts.codex_profile => {
            let entries = request.codex_profile.as_deref().unwrap_or_default();
            codex::edit_codex_profile(text, entries, adding)
        }
        FileKind::CodexHooks | FileKind::CodexConfig | FileKind::CodexProjectConfig => {
            Ok(original.to_owned())
        }
    };
    match edited {
        // A file that holds nothing of agentctx's needs nothing from an
        // uninstall, even when it cannot be read as its agent's format
        // (a one-line TOML config, JSON with comments): it never stops
        // the uninstall of the other files.
        Err(_) if !adding && !mentions_agentctx(kind, original, parts, trust) => {
            Ok(original.to_owned())
        }
        edited => edited.map_err(invalid),
    }
}

/// Whether `text` may hold something of `parts`: agentctx's hook commands,
/// the loader option install sets, or the trust keys of its Codex hooks.
fn mentions_agentctx(kind: FileKind, text: &str, parts: Parts, trust: &TrustEntries) -> bool {
    match kind {
        FileKind::ClaudeSettings => {
            (parts.hooks && text.contains("agentctx"))
                || (parts.agents_md_plugin_off && text.contains("instructionFiles"))
        }
        FileKind::CodexHooks => text.contains("agentctx"),
        FileKind::CodexConfig => trust.iter().any(|(key, _)| text.contains(key.as_str())),
        FileKind::CodexProjectConfig => text.contains("agentctx"),
        FileKind::McpJson
        | FileKind::McpServers(_)
        | FileKind::Settings(_)
        | FileKind::CopilotSettings
        | FileKind::CopilotHooksFile
        | FileKind::Owned(_) => text.contains("agentctx"),
    }
}

/// Who an install in `request`'s scope is, in a manifest's owners:
/// `user`, or `project <root>` (the project and shared scopes of one
/// project are one owner: they share `.codex/` and `.mcp.json`).
fn owner(request: &Request, places: &Places) -> String {
    match request.scope {
        Scope::User => "user".to_owned(),
        Scope::Project | Scope::Shared => format!("project {}", places.root.display()),
    }
}

/// The owner of the scope `path` belongs to: a file outside the project
/// (a user config that holds the MCP server of every scope) is the user's.
fn home_owner(path: &Path, request: &Request, places: &Places) -> String {
    if request.scope != Scope::User && !path.starts_with(&places.root) {
        "user".to_owned()
    } else {
        owner(request, places)
    }
}

/// What install would change.
pub fn plan_install(request: &Request, places: &Places) -> Result<Vec<FileChange>, InstallError> {
    let mut changes: Vec<FileChange> = Vec::new();
    let mut trust = TrustEntries::new();
    for Target { path, kind, parts } in targets(request, places, true)? {
        let path = real_path(&path, places)?;
        let before = read(&path)?;
        // What the file already holds as the user's own (Gemini CLI's
        // `context.fileName` naming AGENTS.md): uninstall must not take it out.
        let parts = match kind {
            FileKind::Settings(file) => (file.users_own)(before.as_deref(), parts),
            _ => parts,
        };
        let after = edit(
            request,
            (&path, kind),
            before.as_deref(),
            parts,
            true,
            &trust,
        )?;
        if kind == FileKind::CodexHooks {
            trust = codex_trust_entries(&path, &after);
        }
        let existing = Manifest::load(&places.manifests, &path)?;
        let unchanged = before.as_deref() == Some(after.as_str());
        let parts_after = existing.as_ref().map_or(parts, |m| m.parts.with(parts));
        let mut manifest = match existing {
            Some(mut manifest) => {
                manifest.parts = parts_after;
                manifest.installed_sha256 = manifest::sha256(&after);
                Some(manifest)
            }
            None if unchanged => None,
            None => Some(Manifest::new(&path, before.as_deref(), parts_after, &after)),
        };
        if let Some(manifest) = &mut manifest {
            let who = owner(request, places);
            let theirs = manifest.parts_of(&who, &home_owner(&path, request, places));
            manifest.owners.insert(who, theirs.with(parts));
        }
        changes.push(FileChange {
            how: if unchanged {
                ChangeKind::Unchanged
            } else {
                ChangeKind::Installed
            },
            path,
            before,
            after: Some(after),
            parts_after,
            manifest,
        });
    }
    Ok(changes)
}

/// What uninstall would change.
pub fn plan_uninstall(request: &Request, places: &Places) -> Result<Vec<FileChange>, InstallError> {
    let mut changes = Vec::new();
    let mut trust = TrustEntries::new();
    for Target { path, kind, parts } in targets(request, places, false)? {
        let path = real_path(&path, places)?;
        let before = read(&path)?;
        if kind == FileKind::CodexHooks {
            trust = codex_trust_entries(&path, before.as_deref().unwrap_or(""));
        }
        let manifest = Manifest::load(&places.manifests, &path)?;
        let who = owner(request, places);
        let home = home_owner(&path, request, places);
        // The trust Codex keeps for this scope's hooks (install or its TUI
        // wrote it) is this scope's: its keys name this scope's hooks.json.
        let trust_only = Parts {
            codex_trust: parts.codex_trust,
            ..Parts::default()
        };
        // Without a manifest only the hooks, and the trust Codex keeps for
        // them, are ours for sure; in another scope's file, only the trust.
        // With one, only what this scope put there and no other scope
        // still asks for.
        let removing = match &manifest {
            Some(m) => {
                let asked = Parts {
                    hooks: parts.hooks && m.parts.hooks,
                    agents_md_plugin_off: m.parts.agents_md_plugin_off
                        && (parts.agents_md_plugin_off || parts.hooks),
                    notify: m.parts.notify,
                    codex_trust: false,
                    codex_profile: parts.codex_profile,
                    mcp: parts.mcp && m.parts.mcp,
                    context_file_name: parts.context_file_name && m.parts.context_file_name,
                };
                let not_mine = m.parts.without(m.parts_of(&who, &home));
                asked
                    .without(not_mine)
                    .without(m.parts_of_others(&who, &home))
                    .with(trust_only)
            }
            None if home != who => trust_only,
            None => Parts {
                hooks: parts.hooks,
                codex_trust: parts.codex_trust,
                codex_profile: parts.codex_profile,
                mcp: parts.mcp,
                ..Parts::default()
            },
        };
        let remaining = manifest
            .as_ref()
            .map_or(Parts::default(), |m| m.parts.without(removing));
        // The original bytes come back when nobody edited the file since
        // install, and the original held nothing of agentctx's (an entry
        // from an earlier install must not come back).
        let untouched = manifest.as_ref().is_some_and(|m| {
            before.as_deref().map(manifest::sha256) == Some(m.installed_sha256.clone())
                && match m.original.as_deref() {
                    None => true,
                    Some(original) => edit(
                        request,
                        (&path, kind),
                        Some(original),
                        removing,
                        false,
                        &trust,
                    )
                    .is_ok_and(|cleaned| cleaned == original),
                }
        });
        let (after, how) = match (&manifest, before.as_deref()) {
            (Some(m), _) if untouched && !remaining.any() => {
                (m.original.clone(), ChangeKind::Restored)
            }
            (_, None) => (None, ChangeKind::Absent),
            (_, Some(text)) => {
                let edited = edit(request, (&path, kind), Some(text), removing, false, &trust)?;
                if edited.is_empty() && kind.owned_whole() {
                    (None, ChangeKind::Removed)
                } else if edited == text {
                    (Some(edited), ChangeKind::Unchanged)
                } else {
                    (Some(edited), ChangeKind::Removed)
                }
            }
        };
        let how = match (how, &before) {
            (ChangeKind::Restored, None) if after.is_none() => ChangeKind::Absent,
            (ChangeKind::Restored, _) if after == before => ChangeKind::Unchanged,
            _ => how,
        };
        let manifest = manifest.map(|mut m| {
            m.parts = remaining;
            m.owners.remove(&who);
            if let Some(after) = &after {
                m.installed_sha256 = manifest::sha256(after);
            }
            m
        });
        changes.push(FileChange {
            path,
            before,
            after,
            how,
            parts_after: remaining,
            manifest,
        });
    }
    Ok(changes)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_agents;
