//! `agentctx mem ...`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use agentctx_agentmem::{
    CaptureEvent, CaptureOutcome, CaptureSettings, Trigger, append_event, capture as run_capture,
    expand_home, zoned_stamp,
};
use agentctx_types::{AgentMemConfig, CodexNotify, HookInput};

use crate::cli::CaptureArgs;
use crate::commands::{Invocation, Outcome};
use agentctx_config::Environment;

const LOG_LIMIT: u64 = 1024 * 1024;

/// The memory folder: config/`AGENTMEM_ROOT`, else `~/.agent-kit/MEMORY`.
pub fn memory_root(config: &AgentMemConfig, env: &Environment) -> Option<PathBuf> {
    let home = env.home();
    match &config.root {
        Some(root) => Some(expand_home(&root.to_string_lossy(), home.as_deref())),
        None => home.map(|h| h.join(".agent-kit/MEMORY")),
    }
}

/// `AGENTMEM_DEBUG` read directly too: it must work when the config that
/// would carry it is broken.
pub fn debug_requested(config: &AgentMemConfig, env: &Environment) -> bool {
    config.debug
        || env.get("AGENTMEM_DEBUG").is_some_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        })
}

/// Appends a line to `$XDG_STATE_HOME/agentctx/agentmem.log` (rotated to
/// `agentmem.log.1` past 1 MiB), and to stderr when `debug`. Never fails:
/// there is nowhere left to report a failure to.
pub fn log_line(env: &Environment, message: &str, debug: bool) {
    log_to(env, "agentmem.log", &[message], debug);
}

/// Appends `lines` to `$XDG_STATE_HOME/agentctx/NAME` with one write
/// (rotating past 1 MiB), and to stderr when `debug`. Hooks call this on
/// every tool call, so the folder is only created when the file cannot be
/// opened.
pub fn log_to<S: AsRef<str>>(env: &Environment, name: &str, lines: &[S], debug: bool) {
    if lines.is_empty() {
        return;
    }
    let prefix = name.trim_end_matches(".log");
    if debug {
        let mut stderr = std::io::stderr().lock();
        for line in lines {
            let _ = writeln!(stderr, "{prefix}: {}", line.as_ref());
        }
    }
    let Some(dir) = env
        .xdg_dir("XDG_STATE_HOME", ".local/state")
        .map(|d| d.join("agentctx"))
    else {
        return;
    };
    let log = dir.join(name);
    if std::fs::metadata(&log).is_ok_and(|m| m.len() > LOG_LIMIT) {
        let _ = std::fs::rename(&log, dir.join(format!("{name}.1")));
    }
    let stamp = jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let text: String = lines
        .iter()
        .map(|line| format!("{stamp} {}\n", line.as_ref()))
        .collect();
    let open = || {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
    };
    let file = open().or_else(|_| {
        std::fs::create_dir_all(&dir)?;
        open()
    });
    if let Ok(mut file) = file {
        let _ = file.write_all(text.as_bytes());
    }
}

/// `agentctx mem capture`: always exit 0, nothing on stdout.
pub fn capture(
    inv: &Invocation,
    args: &CaptureArgs,
    _out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    match read_trigger(args) {
        Ok(trigger) => capture_trigger(inv, &trigger),
        Err(error) => {
            let debug = debug_requested(&inv.config.config.agentmem, &inv.env);
            log_line(
                &inv.env,
                &format!("failed: cannot read the hook input: {error}"),
                debug,
            );
        }
    }
    Ok(Outcome::Success)
}

/// Captures and logs; never fails (the agent must not notice).
pub fn capture_trigger(inv: &Invocation, trigger: &Trigger) {
    let config = &inv.config.config.agentmem;
    let debug = debug_requested(config, &inv.env);
    let log = |message: &str| log_line(&inv.env, message, debug);
    let origin = trigger.origin();
    let home = inv.env.home();
    let Some(root) = memory_root(config, &inv.env) else {
        log("failed: no memory folder (set AGENTMEM_ROOT or HOME)");
        return;
    };
    let now = jiff::Zoned::now();
    let settings = CaptureSettings {
        root,
        codex_sessions: config
            .codex_sessions_dir
            .as_ref()
            .map(|d| expand_home(&d.to_string_lossy(), home.as_deref()))
            .or_else(|| home.as_ref().map(|h| h.join(".codex/sessions")))
            .unwrap_or_default(),
        retries: config.retries,
        retry_delay: Duration::from_millis(config.retry_delay_ms),
        redact: config.redact,
        now: now.clone(),
    };
    let result = run_capture(trigger, &settings, home.as_deref());
    let mut event = CaptureEvent {
        timestamp: zoned_stamp(&now),
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
    match &result {
        Ok(CaptureOutcome::Captured {
            path,
            category,
            agent_type,
        }) => {
            event.outcome = "captured".into();
            event.capture_path = Some(path.display().to_string());
            event.category = Some(category.clone());
            event.agent_type = Some(agent_type.clone());
            log(&format!("captured {} ({})", path.display(), origin.source));
        }
        Ok(CaptureOutcome::Duplicate { key }) => {
            event.outcome = "duplicate".into();
            log(&format!(
                "duplicate {key} ({}): nothing written",
                origin.source
            ));
        }
        Ok(CaptureOutcome::Skipped { reason }) => {
            event.outcome = "skipped".into();
            event.error = Some(reason.clone());
            log(&format!("skipped ({}): {reason}", origin.source));
        }
        Err(error) => {
            event.outcome = "failed".into();
            event.error = Some(error.to_string());
            log(&format!("failed ({}): {error}", origin.source));
        }
    }
    if let Some(events) = &config.events_path {
        let path = expand_home(&events.to_string_lossy(), home.as_deref());
        if let Err(error) = append_event(&path, &event) {
            log(&format!(
                "cannot append to the events file {}: {error}",
                path.display()
            ));
        }
    }
}

fn read_trigger(args: &CaptureArgs) -> anyhow::Result<Trigger> {
    if let Some(payload) = &args.payload {
        let notify: CodexNotify = serde_json::from_str(payload)?;
        return Ok(Trigger::CodexNotify(notify));
    }
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input)?;
    let hook: HookInput = serde_json::from_str(&input)?;
    Ok(Trigger::Hook(hook))
}
