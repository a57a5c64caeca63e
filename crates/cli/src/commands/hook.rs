//! `agentctx hook`: one entry point for Claude Code and Codex hooks. JSON on
//! stdin, the agent's `hookSpecificOutput` JSON on stdout (or nothing), exit
//! 0. A hook must never break the agent: input it cannot use gives no output
//! and a log line; the one refusal it can cause is a rule's.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use agentctx_core::{
    SessionStore, StoredState, render_resolve_paths, render_resume_diff, resume_session,
    start_session,
};
use agentctx_types::HookInput;
use serde_json::{Value, json};

use crate::cli::HookArgs;
use crate::commands::{Invocation, Outcome};

/// What the hook decided to do, for the agent or for `--explain`.
#[derive(Debug, Default)]
struct Plan {
    /// The JSON for the agent, if any.
    output: Option<Value>,
    /// Why, line by line.
    notes: Vec<String>,
}

impl Plan {
    fn note(&mut self, line: impl Into<String>) {
        self.notes.push(line.into());
    }
}

pub fn run(inv: &Invocation, args: &HookArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut raw = String::new();
    let plan = match std::io::stdin().read_to_string(&mut raw) {
        Ok(_) => match serde_json::from_str::<HookInput>(&raw) {
            Ok(input) => handle(inv, &input),
            Err(error) => Plan {
                output: None,
                notes: vec![format!("input is not hook JSON ({error}): doing nothing")],
            },
        },
        Err(error) => Plan {
            output: None,
            notes: vec![format!("cannot read stdin ({error}): doing nothing")],
        },
    };
    let debug = crate::commands::mem::debug_requested(&inv.config.config.agentmem, &inv.env);
    crate::commands::mem::log_to(&inv.env, "hook.log", &plan.notes, debug && !args.explain);
    if args.explain {
        for note in &plan.notes {
            writeln!(out, "- {note}")?;
        }
        match &plan.output {
            Some(output) => writeln!(out, "output:\n{}", serde_json::to_string_pretty(output)?)?,
            None => writeln!(out, "output: none")?,
        }
    } else if let Some(output) = &plan.output {
        serde_json::to_writer(&mut *out, output)?;
        out.write_all(b"\n")?;
    }
    Ok(Outcome::Success)
}

fn handle(inv: &Invocation, input: &HookInput) -> Plan {
    let mut plan = Plan::default();
    let event = input.hook_event_name.as_deref().unwrap_or("");
    let cwd = input
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && p.is_dir())
        .unwrap_or_else(|| inv.cwd.clone());
    plan.note(format!("event {event:?} in {}", cwd.display()));
    match event {
        "SessionStart" => session_start(inv, input, &cwd, &mut plan),
        "PreToolUse" => pre_tool_use(inv, input, &cwd, &mut plan),
        "PostToolUse" => post_tool_use(inv, input, &cwd, &mut plan),
        "SubagentStop" => capture(inv, input, &mut plan),
        "Stop" if inv.config.config.agentmem.capture_on_stop => capture(inv, input, &mut plan),
        "Stop" => plan.note("Stop: capture is off (agentmem.capture_on_stop: false)"),
        other => plan.note(format!("event {other:?} is not handled: doing nothing")),
    }
    plan
}

fn store(inv: &Invocation, input: &HookInput, plan: &mut Plan) -> Option<SessionStore> {
    let Some(id) = input.session_id.as_deref() else {
        plan.note("no session_id: the AGENTS.md state is not kept");
        return None;
    };
    // Agents' session ids are UUIDs; anything else is made file-name safe.
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let dir = crate::commands::agents::sessions_dir(&inv.env)?;
    SessionStore::for_id(&dir, safe.trim_start_matches('.')).ok()
}

fn additional_context(event: &str, text: &str) -> Value {
    json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})
}

fn session_start(inv: &Invocation, input: &HookInput, cwd: &Path, plan: &mut Plan) {
    let source = input.source.as_deref().unwrap_or("startup");
    let agents = &inv.config.config.agents;
    let Some(store) = store(inv, input, plan) else {
        return startup_context(inv, cwd, plan);
    };
    let resumed = matches!(source, "resume" | "compact");
    let result = store.update(|stored| match (resumed, stored) {
        (true, StoredState::Found(state)) => {
            match resume_session(state, cwd, agents, inv.env.home()) {
                Ok((diff, resolver)) => {
                    let mut text = render_resume_diff(&diff);
                    if source == "compact" {
                        // Compaction drops the initial bundle from the context: give it again.
                        let bundle = agentctx_core::InitialChain::load(
                            &resolver.state().root,
                            &resolver.state().cwd,
                            &agents.initial,
                        )
                        .render();
                        text = [bundle, text]
                            .into_iter()
                            .filter(|t| !t.is_empty())
                            .collect::<Vec<_>>()
                            .join("\n");
                    }
                    let write = resolver.is_changed();
                    (Ok(Some(text)), write.then(|| resolver.into_state()))
                }
                Err(error) => (Err(error), None),
            }
        }
        // startup, clear, or nothing to resume: a new session.
        _ => match start_session(cwd, agents, inv.env.home()) {
            Ok(started) => (Ok(None), Some(started.resolver.into_state())),
            Err(error) => (Err(error), None),
        },
    });
    match result {
        Ok(Ok(Some(text))) => {
            plan.note(format!(
                "{source}: session {} resumed",
                store.path().display()
            ));
            if text.is_empty() {
                plan.note("nothing changed since the session last ran");
            } else {
                plan.output = Some(additional_context("SessionStart", &text));
            }
        }
        Ok(Ok(None)) => {
            plan.note(format!(
                "{source}: new session state in {}",
                store.path().display()
            ));
            startup_context(inv, cwd, plan);
        }
        Ok(Err(error)) => plan.note(format!("AGENTS.md state not updated: {error}")),
        Err(error) => plan.note(format!("session state unusable: {error}")),
    }
}

fn startup_context(inv: &Invocation, cwd: &Path, plan: &mut Plan) {
    let composed = crate::commands::context::compose(inv, cwd, false);
    for warning in &composed.warnings {
        plan.note(format!("context: {warning}"));
    }
    let mut parts = composed.system;
    parts.extend(composed.user_prefix);
    let text = crate::commands::context::join(&parts);
    plan.note(format!(
        "initial context: {} parts, {} bytes",
        parts.len(),
        text.len()
    ));
    if !text.is_empty() {
        plan.output = Some(additional_context("SessionStart", &text));
    }
}

/// `mcp__server__tool` → `server/tool`; built-in names as they are.
pub fn normalize_tool(name: &str) -> String {
    match name
        .strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
    {
        Some((server, tool)) => format!("{server}/{tool}"),
        None => name.to_owned(),
    }
}

/// The files a tool call touches, from its input: `file_path` and
/// `notebook_path` (Read, Edit, MultiEdit, Write, NotebookEdit), `path`
/// (Glob, Grep, GitHub MCP `create_or_update_file`), `files[].path`
/// (`push_files`), and the paths of a Codex `apply_patch` patch.
pub fn tool_paths(input: &Value) -> Vec<String> {
    let mut paths = Vec::new();
    for key in ["file_path", "notebook_path", "path"] {
        if let Some(p) = input
            .get(key)
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
        {
            paths.push(p.to_owned());
        }
    }
    if let Some(files) = input.get("files").and_then(Value::as_array) {
        paths.extend(
            files
                .iter()
                .filter_map(|f| f.get("path").and_then(Value::as_str))
                .map(str::to_owned),
        );
    }
    let mut strings = Vec::new();
    collect_strings(input, &mut strings);
    for text in strings
        .into_iter()
        .filter(|t| t.contains("*** Begin Patch"))
    {
        for line in text.lines() {
            for header in [
                "*** Add File: ",
                "*** Update File: ",
                "*** Delete File: ",
                "*** Move to: ",
            ] {
                if let Some(path) = line.strip_prefix(header) {
                    paths.push(path.trim().to_owned());
                }
            }
        }
    }
    paths.dedup();
    paths
}

fn collect_strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

fn deny(reason: &str) -> Value {
    json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}})
}

fn pre_tool_use(inv: &Invocation, input: &HookInput, cwd: &Path, plan: &mut Plan) {
    let Some(name) = input.tool_name.as_deref() else {
        plan.note("no tool_name: doing nothing");
        return;
    };
    let tool = normalize_tool(name);
    let rules = match crate::commands::rules::load_at(inv, cwd) {
        Ok(rules) => rules,
        Err(error) => {
            // The one refusal a hook may cause on its own: a rules error under deny_all.
            if inv.config.config.project_agent_rules.on_error
                == agentctx_types::OnRuleError::DenyAll
            {
                plan.note(format!(
                    "rules cannot be evaluated ({error:#}); on_error: deny_all"
                ));
                plan.output = Some(deny(&format!(
                    "Denied: project rules cannot be evaluated ({error:#}) and on_error is deny_all."
                )));
            } else {
                plan.note(format!("rules cannot be evaluated ({error:#}); allowing"));
            }
            return;
        }
    };
    let decision = rules.check_tool(&tool);
    plan.note(format!("tool {tool}: {}", decision.message));
    if !decision.allowed {
        plan.output = Some(deny(&agentctx_rules::render_permission_decision(
            &decision, &rules,
        )));
        return;
    }
    let mut checker = rules.file_checker();
    for path in tool_paths(input.tool_input.as_ref().unwrap_or(&Value::Null)) {
        let decision = checker.check(&cwd.join(&path));
        plan.note(format!("file {path}: {}", decision.message));
        if !decision.allowed {
            let mut decision = decision;
            decision.item = path;
            plan.output = Some(deny(&agentctx_rules::render_permission_decision(
                &decision, &rules,
            )));
            return;
        }
    }
    // Allowed: no output, so the agent's own permission flow stays in charge.
}

fn post_tool_use(inv: &Invocation, input: &HookInput, cwd: &Path, plan: &mut Plan) {
    let paths = tool_paths(input.tool_input.as_ref().unwrap_or(&Value::Null));
    if paths.is_empty() {
        plan.note("no file paths in the tool input: doing nothing");
        return;
    }
    let targets: Vec<PathBuf> = paths.iter().map(|p| cwd.join(p)).collect();
    let agents = &inv.config.config.agents;
    let found = match store(inv, input, plan) {
        None => start_session(cwd, agents, inv.env.home())
            .map(|mut s| s.resolver.resolve_for_paths(&targets)),
        Some(store) => {
            agentctx_core::resolve_in_store(&store, cwd, agents, inv.env.home(), &targets).map(
                |r| {
                    if let Some(corrupt) = &r.rebuilt {
                        plan.note(corrupt.to_string());
                    }
                    r.found
                },
            )
        }
    };
    match found {
        Ok(found) if found.files.is_empty() => plan.note(format!(
            "no new or changed AGENTS.md for {}",
            paths.join(", ")
        )),
        Ok(found) => {
            plan.note(format!("{} AGENTS.md to report", found.files.len()));
            plan.output = Some(additional_context(
                "PostToolUse",
                &render_resolve_paths(&found),
            ));
        }
        Err(error) => plan.note(format!("AGENTS.md not resolved: {error}")),
    }
}

fn capture(inv: &Invocation, input: &HookInput, plan: &mut Plan) {
    plan.note("capturing the sub-agent output (see agentmem.log)");
    crate::commands::mem::capture_trigger(inv, &agentctx_agentmem::Trigger::Hook(input.clone()));
}
