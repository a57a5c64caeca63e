//! A session's project, fixed at its start: the root, the effective config
//! and the rule file, decided once (at `SessionStart`, or at the session's
//! first hook when that event never came) and used by every later call of
//! the session and of its sub-agents, whatever directory a call reports.
//!
//! What decides the root is what the agent started in, never what the
//! model can change: for Claude Code `CLAUDE_PROJECT_DIR` (the directory
//! the session was started in; a `cd` does not move it), for Codex the
//! hook process's directory (the session's; a call's `workdir` only moves
//! the payload's `cwd`), else the payload's `cwd`. The config is the
//! user's file, the root's `.agentctx.yaml` (no other: a file the model
//! writes below or above the root is never read), the environment and the
//! hook command's flags. The anchor is written once to
//! `<state>/anchors/<session>.json`; a new session decides anew
//! (docs/SECURITY.md).

use std::path::{Path, PathBuf};

use agentctx_types::{Agent, Config, HookInput, SESSION_ANCHOR_VERSION, SessionAnchor};

use crate::host::{ConfigSource, Host};

/// The anchor of the session `input` belongs to, and what was done to get
/// it (for the log).
pub fn session_anchor(
    host: &Host<'_>,
    input: &HookInput,
    agent: Agent,
    cwd: &Path,
    notes: &mut Vec<String>,
) -> SessionAnchor {
    let event = input.hook_event_name.as_deref().unwrap_or("a hook");
    let file = anchor_file(host, input.session_id.as_deref());
    if let Some(file) = &file {
        match read(file) {
            Ok(Some(anchor)) => return anchor,
            Ok(None) => {}
            Err(problem) => notes.push(format!(
                "session anchor {}: {problem}: decided again",
                file.display()
            )),
        }
    }
    let anchor = decide(host, agent, cwd, event);
    notes.push(format!(
        "session project decided at {event}: root {} (from {}), rules {}",
        anchor.root.display(),
        anchor.start_dir.display(),
        describe(&anchor.rule_file)
    ));
    match &file {
        Some(file) => match write_once(file, &anchor) {
            Ok(None) => {}
            // Another hook of the session decided first: its anchor holds.
            Ok(Some(theirs)) => return theirs,
            Err(error) => notes.push(format!(
                "session anchor not kept ({}: {error}): each call decides again",
                file.display()
            )),
        },
        None => notes.push(
            "no session id or no state folder: the session's project is decided at every call"
                .to_owned(),
        ),
    }
    anchor
}

fn describe(capture: &agentctx_types::RuleFileCapture) -> String {
    match capture {
        agentctx_types::RuleFileCapture::None => "none".to_owned(),
        agentctx_types::RuleFileCapture::File { path, .. } => path.display().to_string(),
        agentctx_types::RuleFileCapture::Unreadable { path, message, .. } => {
            format!("{} (unreadable: {message})", path.display())
        }
    }
}

/// `<state>/anchors/<session>.json`, when the session id can name a file.
fn anchor_file(host: &Host<'_>, session: Option<&str>) -> Option<PathBuf> {
    let state = agentctx_config::state_dir(host.env)?;
    anchor_path(&state, session?)
}

/// Where the anchor of `session` is kept under the state folder `state`;
/// `None` for an id that cannot name a file.
pub fn anchor_path(state: &Path, session: &str) -> Option<PathBuf> {
    agentctx_core::is_session_id(session)
        .then(|| state.join("anchors").join(format!("{session}.json")))
}

/// Why the anchor of a session cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum AnchorError {
    /// The id cannot name a session.
    #[error("session {session}: not a session id")]
    NotAnId {
        /// The id.
        session: String,
    },
    /// The anchor is not there (its hooks never ran, or it was removed).
    #[error("session {session}: its rules were not recorded ({}); run the command through the agent's hook", .path.display())]
    Missing {
        /// The session.
        session: String,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The anchor cannot be used.
    #[error("session {session}: {}: {message}", .path.display())]
    Unusable {
        /// The session.
        session: String,
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// The anchor a session's hooks recorded under the state folder `state`.
///
/// # Errors
/// The id cannot name a session, or its anchor is missing or unusable.
pub fn read_anchor(state: &Path, session: &str) -> Result<SessionAnchor, AnchorError> {
    let path = anchor_path(state, session).ok_or_else(|| AnchorError::NotAnId {
        session: session.to_owned(),
    })?;
    match read(&path) {
        Ok(Some(anchor)) => Ok(anchor),
        Ok(None) => Err(AnchorError::Missing {
            session: session.to_owned(),
            path,
        }),
        Err(message) => Err(AnchorError::Unusable {
            session: session.to_owned(),
            path,
            message,
        }),
    }
}

fn read(file: &Path) -> Result<Option<SessionAnchor>, String> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let anchor: SessionAnchor = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if anchor.version != SESSION_ANCHOR_VERSION {
        return Err(format!("version {}", anchor.version));
    }
    if !anchor.root.is_dir() {
        return Err(format!("its root {} is gone", anchor.root.display()));
    }
    Ok(Some(anchor))
}

/// Writes `anchor` unless an anchor is there already; returns that one.
fn write_once(file: &Path, anchor: &SessionAnchor) -> std::io::Result<Option<SessionAnchor>> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let text = serde_json::to_string_pretty(anchor).map_err(std::io::Error::other)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".anchor-")
        .tempfile_in(dir)?;
    std::io::Write::write_all(&mut temp, text.as_bytes())?;
    temp.as_file().sync_all()?;
    // A hard link never replaces: the first writer wins, atomically. A
    // file there that cannot be used (corrupt, old) is replaced.
    match std::fs::hard_link(temp.path(), file) {
        Ok(()) => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => match read(file) {
            Ok(Some(theirs)) => Ok(Some(theirs)),
            _ => {
                temp.persist(file).map_err(|e| e.error)?;
                Ok(None)
            }
        },
        Err(e) => Err(e),
    }
}

/// Decides the anchor now.
fn decide(host: &Host<'_>, agent: Agent, cwd: &Path, event: &str) -> SessionAnchor {
    let start_dir = start_dir(host, agent, cwd);
    let (base, root) = match host.config_source {
        ConfigSource::Given => {
            let root = find_root(host.config, host, &start_dir);
            (host.config.clone(), root)
        }
        ConfigSource::Files { config_file, sets } => {
            let request = |project| agentctx_config::ConfigRequest {
                cwd: &start_dir,
                config_file,
                sets,
                env: host.env,
                project,
            };
            let (without, _) =
                agentctx_config::load_salvaging(&request(agentctx_config::ProjectConfig::Ignored));
            let root = find_root(&without.config, host, &start_dir);
            let (with_root, _) = agentctx_config::load_salvaging(&request(
                agentctx_config::ProjectConfig::AtRoot(&root),
            ));
            (with_root.config, root)
        }
    };
    let rule_file = agentctx_rules::Rules::capture(&root, &base.project_agent_rules);
    SessionAnchor {
        version: SESSION_ANCHOR_VERSION,
        start_dir,
        root,
        config: base,
        rule_file,
        decided_at: event.to_owned(),
    }
}

/// The directory the agent started the session in.
fn start_dir(host: &Host<'_>, agent: Agent, cwd: &Path) -> PathBuf {
    let usable = |p: &Path| p.is_absolute() && p.is_dir();
    // The agent's own variable (Claude Code's CLAUDE_PROJECT_DIR, ...);
    // Codex and opencode's plugin run the hook in the session's folder.
    let from = match agentctx_agents::dialect::of(agent).start_dir_env() {
        Some(variable) => host
            .env
            .get(variable)
            .map(PathBuf::from)
            .filter(|p| usable(p)),
        None => host
            .process_cwd
            .map(Path::to_path_buf)
            .filter(|p| usable(p)),
    };
    let dir = from.unwrap_or_else(|| cwd.to_path_buf());
    std::fs::canonicalize(&dir).unwrap_or(dir)
}

fn find_root(config: &Config, host: &Host<'_>, dir: &Path) -> PathBuf {
    let options = agentctx_core::RootOptions::from_config(&config.agents, host.home());
    agentctx_core::find_root(dir, &options).map_or_else(|_| dir.to_path_buf(), |info| info.root)
}
