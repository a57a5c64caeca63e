//! A capture as a hook runs it: settings from the config, the attempt
//! recorded in the events file, one line for the log.

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentctx_types::{AgentMemConfig, CaptureEvent};

use crate::capture::{
    CaptureError, CaptureOutcome, CaptureSettings, Origin, Trigger, capture, complete_pending,
    expand_home, zoned_stamp,
};
use crate::events::append_event;
#[cfg(feature = "store")]
use crate::local::{MemoryStore, Reconciled};
#[cfg(feature = "store")]
use crate::store::StoreError;

/// How a configured capture ended: the outcome, and the log line that says
/// so (`captured ... (claude-hook; from the agent transcript)`,
/// `duplicate ...`, `pending ...`, `skipped (...): why`, `failed ...`), with
/// the pending captures of earlier hooks it completed after `; also `.
#[derive(Debug)]
pub struct CaptureReport {
    /// The outcome, or why it failed.
    pub outcome: Result<CaptureOutcome, CaptureFailure>,
    /// One line for `agentmem.log`.
    pub line: String,
}

/// Where a configured memory store lives: its folder, and where its index
/// goes when the folder cannot hold one (a read-only medium).
#[cfg(feature = "store")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreLocation {
    /// The memory folder ([`memory_root`]).
    pub root: PathBuf,
    /// `$XDG_CACHE_HOME/agentctx/agentmem`, for an index the folder cannot hold.
    pub index_fallback: Option<PathBuf>,
}

#[cfg(feature = "store")]
impl StoreLocation {
    /// The configured store; `None` without `agentmem.root` or a home.
    pub fn from_config(
        config: &AgentMemConfig,
        home: Option<&Path>,
        cache_home: Option<&Path>,
    ) -> Option<Self> {
        Some(Self {
            root: memory_root(config, home)?,
            index_fallback: cache_home.map(|c| c.join("agentctx/agentmem")),
        })
    }

    /// The store, reconciled with its folder (what every reader does
    /// first), and what reconciling found. A folder nothing can be written
    /// for (no index beside it, none in the fallback) is indexed in memory
    /// ([`MemoryStore::in_memory`] says why): still searchable.
    ///
    /// # Errors
    /// The folder cannot be read.
    pub fn open(&self) -> Result<(MemoryStore, Reconciled), StoreError> {
        let mut store = self.open_unreconciled()?;
        let report = store.reconcile()?;
        Ok((store, report))
    }

    /// The store as its index last saw the folder: for a reader that can
    /// tell when that is not enough (a lookup by id whose file is there
    /// needs no reconcile; one that fails reconciles and looks again).
    ///
    /// # Errors
    /// As [`StoreLocation::open`].
    pub fn open_unreconciled(&self) -> Result<MemoryStore, StoreError> {
        let opened = match &self.index_fallback {
            Some(fallback) => MemoryStore::open_or_elsewhere(&self.root, fallback),
            None => MemoryStore::open(&self.root),
        };
        match opened {
            Ok(store) => Ok(store),
            Err(error) if self.root.is_dir() => MemoryStore::open_in_memory(
                &self.root,
                format!("the index is kept in memory for this run: {error}"),
            ),
            Err(error) => Err(error),
        }
    }
}

/// How projects are identified under `config`: its rules, and root commits
/// kept in `$XDG_CACHE_HOME/agentctx/identities`.
pub fn identity_options(
    config: &AgentMemConfig,
    cache_home: Option<&Path>,
) -> crate::IdentityOptions {
    crate::IdentityOptions {
        rules: config.identities.clone(),
        cache: cache_home.map(|c| c.join("agentctx/identities")),
    }
}

/// Why a configured capture failed.
#[derive(Debug, thiserror::Error)]
pub enum CaptureFailure {
    /// Neither `agentmem.root` nor a home directory says where captures go.
    #[error("no memory folder (set AGENTMEM_ROOT or HOME)")]
    NoMemoryFolder,
    /// The capture itself failed.
    #[error(transparent)]
    Capture(#[from] CaptureError),
}

/// The events file: `agentmem.events_path` with `~` expanded, when set.
pub fn events_path(config: &AgentMemConfig, home: Option<&Path>) -> Option<PathBuf> {
    config
        .events_path
        .as_ref()
        .map(|events| expand_home(&events.to_string_lossy(), home))
}

/// The memory folder: `agentmem.root` (`~` expanded), else `~/.agent-kit/MEMORY`.
pub fn memory_root(config: &AgentMemConfig, home: Option<&Path>) -> Option<PathBuf> {
    match &config.root {
        Some(root) => Some(expand_home(&root.to_string_lossy(), home)),
        None => home.map(|h| h.join(".agent-kit/MEMORY")),
    }
}

/// The capture settings of `config`; `None` without a memory folder.
fn settings_of(
    config: &AgentMemConfig,
    home: Option<&Path>,
    codex_home: Option<&Path>,
    cache_home: Option<&Path>,
    now: &jiff::Zoned,
) -> Option<CaptureSettings> {
    Some(CaptureSettings {
        root: memory_root(config, home)?,
        codex_sessions: config
            .codex_sessions_dir
            .as_ref()
            .map(|d| expand_home(&d.to_string_lossy(), home))
            .or_else(|| codex_home.map(|c| c.join("sessions")))
            .or_else(|| home.map(|h| h.join(".codex/sessions")))
            .unwrap_or_default(),
        retries: config.retries,
        retry_delay: Duration::from_millis(config.retry_delay_ms),
        redact: config.redact,
        now: now.clone(),
        identity: identity_options(config, cache_home),
    })
}

/// Captures what `trigger` points at with the settings of `config`
/// (`codex_home` is `$CODEX_HOME`, whose `sessions` folder holds Codex's
/// rollouts unless `codex_sessions_dir` says otherwise; `cache_home` is
/// `$XDG_CACHE_HOME`, where root commits found once are kept), then what
/// earlier hooks left pending and is readable now ([`complete_pending`]),
/// appends each attempt to `agentmem.events_path` when set, and never
/// fails: every problem ends in the report.
///
/// The agents' internal helpers (a Claude Code `SubagentStop` with an empty
/// `agent_type`: the `/compact` summary, session recaps, prompt
/// suggestions) are skipped unless `capture_internal_agents` is set.
pub fn capture_with_config(
    trigger: &Trigger,
    config: &AgentMemConfig,
    home: Option<&Path>,
    codex_home: Option<&Path>,
    cache_home: Option<&Path>,
) -> CaptureReport {
    let origin = trigger.origin();
    let now = jiff::Zoned::now();
    let settings = settings_of(config, home, codex_home, cache_home, &now);
    let internal = match trigger {
        Trigger::Hook(h) => h.agent_id.is_some() && h.agent_type.as_deref() == Some(""),
        Trigger::CodexNotify(_) => false,
    };
    let outcome = if internal && !config.capture_internal_agents {
        Ok(CaptureOutcome::Skipped {
            reason: "an internal agent of the agent (agent_type is empty); set agentmem.capture_internal_agents to keep these".to_owned(),
        })
    } else {
        match &settings {
            None => Err(CaptureFailure::NoMemoryFolder),
            Some(settings) => capture(trigger, settings, home).map_err(CaptureFailure::from),
        }
    };
    let mut report = report_of(&origin, outcome, &now, config, home);
    if let Some(settings) = &settings {
        for completed in completed_reports(settings, config, home) {
            report.line.push_str("; also ");
            report.line.push_str(&completed.line);
        }
    }
    report
}

/// [`complete_pending`] with the settings of `config` (for a hook that
/// captures nothing itself, such as Claude Code's `Stop` without
/// `capture_on_stop`): a report for each capture it made or dropped as
/// lost, each appended to the events file.
pub fn complete_pending_with_config(
    config: &AgentMemConfig,
    home: Option<&Path>,
    codex_home: Option<&Path>,
    cache_home: Option<&Path>,
) -> Vec<CaptureReport> {
    let now = jiff::Zoned::now();
    match settings_of(config, home, codex_home, cache_home, &now) {
        Some(settings) => completed_reports(&settings, config, home),
        None => Vec::new(),
    }
}

fn completed_reports(
    settings: &CaptureSettings,
    config: &AgentMemConfig,
    home: Option<&Path>,
) -> Vec<CaptureReport> {
    complete_pending(settings, home)
        .into_iter()
        .map(|attempt| {
            report_of(
                &attempt.origin,
                attempt.outcome.map_err(CaptureFailure::from),
                &settings.now,
                config,
                home,
            )
        })
        .collect()
}

/// One attempt's report: its log line, its event appended, a new capture
/// sent to the shared store.
fn report_of(
    origin: &Origin,
    outcome: Result<CaptureOutcome, CaptureFailure>,
    now: &jiff::Zoned,
    config: &AgentMemConfig,
    home: Option<&Path>,
) -> CaptureReport {
    let mut event = CaptureEvent {
        timestamp: zoned_stamp(now),
        source_app: origin.source_app.to_owned(),
        source: origin.source.to_owned(),
        session_id: origin.session_id.clone(),
        hook_event_type: origin.event.clone(),
        outcome: String::new(),
        capture_path: None,
        category: None,
        agent_type: None,
        error: None,
    };
    let line = match &outcome {
        Ok(CaptureOutcome::Captured {
            path,
            category,
            agent_type,
            provenance,
            ..
        }) => {
            event.outcome = "captured".into();
            event.capture_path = Some(path.display().to_string());
            event.category = Some(category.clone());
            event.agent_type = Some(agent_type.clone());
            format!(
                "captured {} ({}; {provenance})",
                path.display(),
                origin.source
            )
        }
        Ok(CaptureOutcome::Duplicate { key }) => {
            event.outcome = "duplicate".into();
            format!("duplicate {key} ({}): nothing written", origin.source)
        }
        Ok(CaptureOutcome::Pending { key, reason }) => {
            event.outcome = "pending".into();
            event.error = Some(reason.clone());
            format!("pending {key} ({}): {reason}", origin.source)
        }
        Ok(CaptureOutcome::Skipped { reason }) => {
            event.outcome = "skipped".into();
            event.error = Some(reason.clone());
            format!("skipped ({}): {reason}", origin.source)
        }
        Err(error) => {
            event.outcome = "failed".into();
            event.error = Some(error.to_string());
            format!("failed ({}): {error}", origin.source)
        }
    };
    let mut line = line;
    #[cfg(feature = "postgres")]
    if let Ok(CaptureOutcome::Captured { path, key, .. }) = &outcome {
        line.push_str(&share(config, home, path, key));
    }
    if let Some(path) = events_path(config, home)
        && let Err(error) = append_event(&path, &event)
    {
        line.push_str(&format!(
            "; cannot append to the events file {}: {error}",
            path.display()
        ));
    }
    CaptureReport { outcome, line }
}

/// Sends a new capture to the shared store when `agentmem.store` names
/// one (its password from this process's environment); the log line's
/// end says what became of it. Never fails the capture.
#[cfg(feature = "postgres")]
fn share(config: &AgentMemConfig, home: Option<&Path>, path: &Path, key: &str) -> String {
    use crate::pg::{DeliveryReport, PgSettings, deliver};
    let settings = match PgSettings::from_config(config, &|name| std::env::var(name).ok(), home) {
        Ok(Some(settings)) => settings,
        Ok(None) => return String::new(),
        Err(error) => return format!("; not sent to the shared store: {error}"),
    };
    let Some(root) = memory_root(config, home) else {
        return String::new();
    };
    match deliver(&settings, &root, path, key) {
        Ok(DeliveryReport::Sent) => format!("; sent to {}", settings.target()),
        Ok(DeliveryReport::AlreadyThere) => format!("; {} had it already", settings.target()),
        Ok(DeliveryReport::Queued(why)) => {
            format!(
                "; queued for {} (agentctx mem sync): {why}",
                settings.target()
            )
        }
        Err(error) => format!("; not sent to the shared store: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_events_path_expands_the_home_directory_for_writer_and_reader() {
        let config = AgentMemConfig {
            events_path: Some(PathBuf::from("~/logs/events.jsonl")),
            ..AgentMemConfig::default()
        };
        assert_eq!(
            events_path(&config, Some(Path::new("/home/u"))),
            Some(PathBuf::from("/home/u/logs/events.jsonl"))
        );
        assert_eq!(events_path(&AgentMemConfig::default(), None), None);
    }

    #[test]
    fn without_a_memory_folder_the_failure_says_so_and_is_logged() {
        let hook = agentctx_types::HookInput {
            hook_event_name: Some("SubagentStop".into()),
            agent_id: Some("a1".into()),
            agent_type: Some("engineer".into()),
            ..agentctx_types::HookInput::default()
        };
        let report = capture_with_config(
            &Trigger::hook(hook),
            &AgentMemConfig::default(),
            None,
            None,
            None,
        );
        assert!(matches!(
            report.outcome,
            Err(CaptureFailure::NoMemoryFolder)
        ));
        assert!(
            report
                .line
                .starts_with("failed (claude-hook): no memory folder"),
            "{}",
            report.line
        );
    }
}
