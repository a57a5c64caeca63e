//! One hook call: parse the payload, decide, answer.

mod file_links;
mod pre_tool;
mod session;
mod steering;
mod taint;

use std::path::{Path, PathBuf};

use agentctx_core::{SessionStore, render_resolve_paths_in, start_session};
use agentctx_types::{Agent, HookInput, HookReply, ReminderEnvelope};
use serde_json::Value;

use agentctx_agents::tool_paths;
use agentctx_agents::{LoaderDecision, builtin_loader};
use agentctx_session::Host;
use agentctx_shell::parse_shell;

/// What a hook call decided: the reply for the agent (none means "carry
/// on"), and why, line by line, for the log and `--explain`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookOutcome {
    /// The decision, in the shared (Claude Code) shape.
    pub reply: Option<HookReply>,
    /// The JSON to print for the agent: `reply` in its dialect.
    pub output: Option<Value>,
    /// Why.
    pub notes: Vec<String>,
    /// The agent the payload came from, when it could be read.
    pub agent: Option<Agent>,
}

impl HookOutcome {
    fn note(&mut self, line: impl Into<String>) {
        self.notes.push(line.into());
    }
}

/// Handles one hook call. Never fails: input it cannot use gives no reply
/// and a note; the only refusals are the rules'.
pub fn handle(raw: &[u8], agent: Option<Agent>, host: &Host<'_>) -> HookOutcome {
    handle_event(raw, agent, None, host)
}

/// [`handle`] for a payload whose event the install named (`--event`:
/// Copilot CLI's camelCase payloads carry none). The outcome's `output` is
/// the reply in `agent`'s dialect.
pub fn handle_event(
    raw: &[u8],
    agent: Option<Agent>,
    event: Option<&str>,
    host: &Host<'_>,
) -> HookOutcome {
    let mut outcome = decide(raw, agent, event, host);
    let dialect = agentctx_agents::dialect::of(
        outcome
            .agent
            .or(agent)
            .unwrap_or(agentctx_agents::dialect::UNNAMED),
    );
    outcome.output = outcome.reply.as_ref().map(|reply| dialect.render(reply));
    outcome
}

/// [`handle_event`] for input that was not read whole (too large, never
/// ended: [`crate::read_bounded`]): what arrived is used only to tell
/// whether it is a tool call, which is denied when the project's rules
/// restrict anything (a call that cannot be read is not judged); anything
/// else gets no reply.
pub fn handle_unread(
    received: &[u8],
    why: &crate::ReadError,
    agent: Option<Agent>,
    event: Option<&str>,
    host: &Host<'_>,
) -> HookOutcome {
    let mut outcome = HookOutcome::default();
    outcome.note(format!("input not read whole: {why}"));
    let unread = Unread {
        whole: false,
        event_hint: event,
        why: why.to_string(),
        advice: match why {
            crate::ReadError::TooLarge { .. } => {
                "Retry with a smaller call (less content, fewer paths)."
            }
            _ => "Retry the call.",
        },
    };
    fail_closed(received, &unread, host, &mut outcome);
    let dialect = agentctx_agents::dialect::of(agent.unwrap_or(agentctx_agents::dialect::UNNAMED));
    outcome.output = outcome.reply.as_ref().map(|reply| dialect.render(reply));
    outcome
}

fn decide(
    raw: &[u8],
    agent: Option<Agent>,
    event_hint: Option<&str>,
    host: &Host<'_>,
) -> HookOutcome {
    let mut outcome = HookOutcome::default();
    let mut input: HookInput = match crate::input::parse(raw) {
        Ok(input) => input,
        Err(error) => {
            outcome.note(format!("input is not hook JSON ({error})"));
            let unread = Unread {
                whole: true,
                event_hint,
                why: format!("it is not hook JSON: {error}"),
                advice: "Retry the call with plain input.",
            };
            fail_closed(raw, &unread, host, &mut outcome);
            return outcome;
        }
    };
    let agent = agent.unwrap_or_else(|| agentctx_agents::dialect::detect(&input));
    outcome.agent = Some(agent);
    let dialect = agentctx_agents::dialect::of(agent);
    let native = dialect.normalize(&mut input, event_hint);
    if let Some(own) = &native.tool {
        outcome.note(format!(
            "{agent} tool {own} is {}",
            input.tool_name.as_deref().unwrap_or("")
        ));
    }
    let event = input.hook_event_name.clone().unwrap_or_default();
    // Canonical, so a cwd reached through a symlink is the same project.
    let cwd = input
        .cwd
        .as_deref()
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && p.is_dir())
        .or_else(|| host.process_cwd.map(Path::to_path_buf))
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p));
    let Some(cwd) = cwd else {
        outcome.note(format!(
            "event {event:?}: no usable working directory: doing nothing"
        ));
        return outcome;
    };
    let who = match input.agent_id.as_deref() {
        Some(id) => format!(
            " (sub-agent {id}, {:?})",
            input.agent_type.as_deref().unwrap_or("")
        ),
        None => String::new(),
    };
    outcome.note(format!("{agent} event {event:?} in {}{who}", cwd.display()));
    // What a sandboxed command that never ended (killed by a timeout)
    // created among the protected files is set aside before a new
    // session reads its project's config and rules.
    if event == "SessionStart"
        && let (Ok(root), Some(state)) = (host.root(&cwd), agentctx_config::state_dir(host.env))
    {
        for line in agentctx_exec::sweep_pending(&state.join("sandbox"), &root.root) {
            outcome.note(line);
        }
    }
    // A hook process the project may have steered (a `.env` an agent
    // loaded put `BASH_ENV` or `XDG_CONFIG_HOME` into it) decides nothing
    // with the config it would read, which may be the project's: a tool
    // call is denied, nothing else is given, no anchor is recorded.
    let project = host.root(&cwd).map_or_else(|_| cwd.clone(), |r| r.root);
    if let Some(why) = steering::steered(host.env, &project) {
        outcome.note(format!("the hook's environment is the project's: {why}"));
        if event == "PreToolUse" {
            outcome.reply = Some(HookReply::deny(format!(
                "Denied: every tool call of this session.\nWhy: {why}.\nAsk the user to remove it from the project's .env (or the agent's environment) and start the agent again."
            )));
        }
        return outcome;
    }
    // The session's project, rules and config, fixed at its start.
    let anchor = agentctx_session::session_anchor(host, &input, agent, &cwd, &mut outcome.notes);
    let anchored = Host {
        config: &anchor.config,
        anchor: Some(&anchor),
        ..*host
    };
    let call = Call {
        host: &anchored,
        input: &input,
        agent,
        dialect,
        native: &native,
        cwd: &cwd,
    };
    match event.as_str() {
        "SessionStart" => call.session_start(&mut outcome),
        "SubagentStart" => call.subagent_start(&mut outcome),
        "PreToolUse" => call.pre_tool_use(&mut outcome),
        "PostToolUse" => call.post_tool_use(&mut outcome),
        "UserPromptSubmit" => call.user_prompt_submit(&mut outcome),
        "SubagentStop" | "Stop" => call.capture(&event, &mut outcome),
        other => outcome.note(format!("event {other:?} is not handled: doing nothing")),
    }
    outcome
}

/// Input that cannot be used, and why.
struct Unread<'a> {
    /// All of it arrived (it is not JSON); else only its start did.
    whole: bool,
    /// The event install named (`--event`: Copilot CLI's payloads name none).
    event_hint: Option<&'a str>,
    /// Why, for the denial.
    why: String,
    /// What the model can do about it.
    advice: &'static str,
}

/// Input that cannot be read at all may be a tool call: when it looks like
/// one and the project's rules restrict anything, it is denied (the rules
/// cannot be applied to what cannot be read). Input that did not arrive
/// whole is a tool call unless what arrived names another event.
fn fail_closed(raw: &[u8], unread: &Unread<'_>, host: &Host<'_>, outcome: &mut HookOutcome) {
    let text = String::from_utf8_lossy(raw);
    // Gemini CLI's tool event is `BeforeTool`, Copilot CLI's `preToolUse`.
    let tool_event = |name: &str| {
        name.eq_ignore_ascii_case("PreToolUse") || name.eq_ignore_ascii_case("BeforeTool")
    };
    let tool_call = match unread.event_hint {
        Some(event) => tool_event(event),
        None => {
            text.contains("PreToolUse")
                || text.contains("BeforeTool")
                || (!unread.whole && !text.contains("hook_event_name"))
        }
    };
    if !tool_call {
        outcome.note("not a tool call: doing nothing");
        return;
    }
    let cwd = crate::input::sniff_cwd(&text)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && p.is_dir())
        .or_else(|| host.process_cwd.map(Path::to_path_buf));
    let restricting = match cwd.as_deref().map(|cwd| host.rules(cwd)) {
        Some(Ok(rules)) => {
            rules.restricts_anything() || host.config.project_agent_rules.protect_config
        }
        // No project, or rules that cannot be loaded: as configured.
        _ => host.config.project_agent_rules.on_error == agentctx_types::OnRuleError::DenyAll,
    };
    if restricting {
        outcome.note("an unreadable tool call under rules that restrict: denied");
        outcome.reply = Some(HookReply::deny(format!(
            "Denied: agentctx could not read this tool call ({}), and the project's rules restrict tools and files, so it cannot be allowed. {}",
            unread.why, unread.advice
        )));
    } else {
        outcome.note("an unreadable tool call, and no rule restricts anything: allowed");
    }
}

/// One call's payload and where it runs.
struct Call<'a> {
    host: &'a Host<'a>,
    input: &'a HookInput,
    agent: Agent,
    dialect: &'static dyn agentctx_agents::dialect::Dialect,
    native: &'a agentctx_agents::dialect::Native,
    cwd: &'a Path,
}

impl Call<'_> {
    /// How this agent's reminders are tagged (its dialect's).
    fn envelope(&self) -> ReminderEnvelope {
        self.dialect.envelope()
    }

    /// Who gives AGENTS.md bodies in this call: for Claude Code, decided
    /// from the release that runs it.
    fn loader(&self) -> LoaderDecision {
        let setting = self.dialect.agents_md_setting(self.host.config);
        let root = self
            .host
            .root(self.cwd)
            .map_or_else(|_| self.cwd.to_path_buf(), |r| r.root);
        let release = match setting {
            agentctx_types::AgentsMdBodies::Auto => self.dialect.running_release(
                self.host.env,
                self.input.session_id.as_deref(),
                self.input.transcript_path.as_deref().map(Path::new),
            ),
            _ => None,
        };
        builtin_loader(
            self.agent,
            setting,
            self.cwd,
            &root,
            self.host.env,
            release.as_ref(),
        )
    }

    /// This agent's state: the main agent's, or the sub-agent's own.
    fn store(&self, outcome: &mut HookOutcome) -> Option<SessionStore> {
        let Some(session) = self.input.session_id.as_deref() else {
            outcome.note("no session_id: the AGENTS.md state is not kept");
            return None;
        };
        let Some(dir) = self.host.sessions_dir() else {
            outcome.note(
                "no state folder ($XDG_STATE_HOME or $HOME): the AGENTS.md state is not kept",
            );
            return None;
        };
        let agent = self.input.agent_id.as_deref().filter(|a| !a.is_empty());
        match SessionStore::for_agent(&dir, session, agent) {
            Ok(store) => Some(store),
            Err(error) => {
                outcome.note(format!("{error}: the AGENTS.md state is not kept"));
                None
            }
        }
    }

    /// The rules of the session's project (its anchor: the root and rule
    /// file fixed at its start), whatever directory this call reports.
    fn session_rules(
        &self,
        outcome: &mut HookOutcome,
    ) -> Result<agentctx_rules::Rules, agentctx_session::RulesError> {
        if let Some(anchor) = self.host.anchor
            && !self.cwd.starts_with(&anchor.root)
        {
            outcome.note(format!(
                "the session's project is {} (the cwd {} is outside it)",
                anchor.root.display(),
                self.cwd.display()
            ));
        }
        self.host.rules(self.cwd)
    }

    /// The paths a tool call names: its path fields, and for a shell tool
    /// (Claude Code's and Codex's `Bash`) the files its command line names.
    fn named_paths(&self, outcome: &mut HookOutcome) -> Vec<String> {
        let input = self.input.tool_input.as_ref().unwrap_or(&Value::Null);
        let mut paths = tool_paths(input);
        if let Some(command) = input.get("command").and_then(Value::as_str)
            && self.input.tool_name.as_deref() != Some("apply_patch")
        {
            match parse_shell(command) {
                Ok(script) => paths.extend(script.named_paths()),
                Err(error) => outcome.note(format!("shell command not read: {error}")),
            }
        }
        paths
    }

    /// A path as the tool meant it: `~` is the home directory, relative
    /// paths are taken against the session's directory.
    fn absolute(&self, path: &str) -> PathBuf {
        match (path.strip_prefix("~/"), self.host.home()) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => self.cwd.join(path),
        }
    }

    fn post_tool_use(&self, outcome: &mut HookOutcome) {
        // A foreground sub-agent's result (Claude Code's Task/Agent; the
        // sub-agent tools of the agents with no sub-agent stop event).
        if matches!(self.input.tool_name.as_deref(), Some("Task" | "Agent"))
            && self.dialect.captures_after_agent_tool()
        {
            self.capture("PostToolUse", outcome);
        }
        let paths = self.named_paths(outcome);
        if paths.is_empty() {
            outcome.note("no file paths in the tool input: doing nothing");
            return;
        }
        let targets: Vec<PathBuf> = paths.iter().map(|p| self.absolute(p)).collect();
        let agents = &self.host.config.agents;
        let home = self.host.home();
        let found = match self.store(outcome) {
            None => start_session(self.cwd, agents, home)
                .map(|mut s| s.resolver.resolve_for_paths(&targets)),
            Some(store) => {
                agentctx_core::resolve_in_store(&store, self.cwd, agents, home, &targets).map(|r| {
                    if let Some(corrupt) = &r.rebuilt {
                        outcome.note(corrupt.to_string());
                    }
                    r.found
                })
            }
        };
        let mut found = match found {
            Ok(found) => found,
            Err(error) => {
                outcome.note(format!("AGENTS.md not resolved: {error}"));
                return;
            }
        };
        let tool = self.input.tool_name.as_deref().unwrap_or("");
        let loader = if found.files.is_empty() {
            agentctx_agents::BuiltinLoader::default()
        } else {
            self.loader().loader
        };
        if loader.nested_on_read && loader.nested_tools.contains(&tool) {
            // The agent gave this agent those bodies with the call; only a
            // change is news (its loader never gives a file twice), and
            // what its loader does not reach (opencode: above or beside
            // the cwd).
            let gives = |f: &agentctx_types::ResolvedAgentFile| {
                !f.changed
                    && (!loader.nested_below_cwd_only
                        || f.path.parent().is_some_and(|dir| dir.starts_with(self.cwd)))
            };
            let given: Vec<String> = found
                .files
                .iter()
                .filter(|f| gives(f))
                .map(|f| f.path.display().to_string())
                .collect();
            if !given.is_empty() {
                outcome.note(format!(
                    "{} gave the bodies with the {tool}: {}",
                    self.agent,
                    given.join(", ")
                ));
            }
            found.files.retain(|f| !gives(f));
        }
        if found.files.is_empty() {
            outcome.note(format!(
                "no new or changed AGENTS.md to report for {}",
                paths.join(", ")
            ));
            return;
        }
        outcome.note(format!("{} AGENTS.md to report", found.files.len()));
        outcome.reply = Some(HookReply::context(
            "PostToolUse",
            render_resolve_paths_in(&found, self.envelope()),
        ));
    }

    /// A capture event (`SubagentStop`, `Stop`, the `PostToolUse` of the
    /// sub-agent tool): its own output, then what earlier hooks left
    /// pending (a `SubagentStop` that came before its agent's transcript
    /// was written), so a `Stop` that captures nothing itself still
    /// completes those.
    fn capture(&self, event: &str, outcome: &mut HookOutcome) {
        let config = &self.host.config.agentmem;
        let home = self.host.home();
        let codex_home = self.host.codex_home();
        let cache_home = self.host.env.xdg_dir("XDG_CACHE_HOME", ".cache");
        // Codex's Stop is its turn's answer (what `notify` captured); Claude
        // Code's main answers are kept only when asked for.
        let not_captured =
            if event == "Stop" && !self.dialect.stop_is_answer() && !config.capture_on_stop {
                Some("Stop: capture is off (agentmem.capture_on_stop: false)")
            } else if event == "Stop" && self.input.agent_id.is_some() {
                Some("Stop of a sub-agent: its SubagentStop captures it")
            } else {
                None
            };
        let lines: Vec<String> = match not_captured {
            Some(why) => {
                outcome.note(why);
                agentctx_agentmem::complete_pending_with_config(
                    config,
                    home.as_deref(),
                    codex_home.as_deref(),
                    cache_home.as_deref(),
                )
                .into_iter()
                .map(|report| report.line)
                .collect()
            }
            None => {
                let mut input = self.input.clone();
                input.other.insert(
                    agentctx_agentmem::AGENT_KEY.to_owned(),
                    Value::String(self.agent.to_string()),
                );
                input.other.insert(
                    agentctx_agentmem::SOURCE_KEY.to_owned(),
                    Value::String(self.dialect.capture_source().to_owned()),
                );
                let report = agentctx_agentmem::capture_with_config(
                    &agentctx_agentmem::Trigger::hook(input),
                    config,
                    home.as_deref(),
                    codex_home.as_deref(),
                    cache_home.as_deref(),
                );
                vec![report.line]
            }
        };
        if lines.is_empty() {
            return;
        }
        for line in &lines {
            outcome.note(format!("capture: {line}"));
        }
        if let Some(log) = agentctx_config::StateLog::new(self.host.env, "agentmem.log") {
            log.append(&lines);
        }
    }
}
