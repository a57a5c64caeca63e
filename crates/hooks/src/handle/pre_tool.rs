//! PreToolUse: the guard's verdict on a tool call, and a shell command
//! rewritten to run in the session's sandbox where the agent takes it.

use agentctx_types::HookReply;
use serde_json::Value;

use super::{Call, HookOutcome};

impl Call<'_> {
    pub(super) fn pre_tool_use(&self, outcome: &mut HookOutcome) {
        let rules = match self.session_rules(outcome) {
            Ok(rules) => rules,
            Err(error) => {
                // The one refusal a hook may cause on its own: a rules error under deny_all.
                if self.host.config.project_agent_rules.on_error
                    == agentctx_types::OnRuleError::DenyAll
                {
                    outcome.note(format!(
                        "rules cannot be evaluated ({error}); on_error: deny_all"
                    ));
                    outcome.reply = Some(HookReply::deny(format!(
                        "Denied: project rules cannot be evaluated ({error}) and on_error is deny_all."
                    )));
                } else {
                    outcome.note(format!("rules cannot be evaluated ({error}); allowing"));
                }
                return;
            }
        };
        for warning in rules.warnings() {
            outcome.note(format!("rules: {warning}"));
        }
        let restricting =
            rules.restricts_anything() || self.host.config.project_agent_rules.protect_config;
        let Some(name) = self.input.tool_name.as_deref() else {
            if restricting {
                outcome.note("no tool_name, and rules restrict tools and files: denied");
                outcome.reply = Some(HookReply::deny(
                    "Denied: agentctx could not tell which tool this call is (no tool_name), and the project's rules restrict tools and files.",
                ));
            } else {
                outcome.note("no tool_name: doing nothing");
            }
            return;
        };
        if let Some(why) = &self.native.unjudgeable
            && restricting
        {
            outcome.note(format!("the call cannot be judged: {why}"));
            outcome.reply = Some(HookReply::deny(agentctx_types::system_reminder(
                agentctx_types::SystemReminderType::PermissionDecision,
                &format!("Denied: this call.\nWhy: {why}."),
            )));
            return;
        }
        let input = self.input.tool_input.clone().unwrap_or(Value::Null);
        // The agents' shell tools (Claude Code's Bash and Monitor; Codex's
        // exec_command, which its hooks name Bash) run in the sandbox when
        // it applies, and so does any tool whose input holds a `command`
        // line (an MCP server's, one added to an agent next week): every
        // tool that runs a command is a shell. Whether the session's
        // commands run in the sandbox decides for every tool what must
        // stay as the sandbox keeps it.
        let has_command = input.get("command").is_some_and(Value::is_string);
        let unknown_command_tool = has_command
            && name != "Bash"
            && !agentctx_agents::dialect::COMMAND_FIELD_NOT_A_COMMAND.contains(&name);
        let shell = has_command && (name == "Bash" || unknown_command_tool);
        if unknown_command_tool {
            outcome.note(format!(
                "{name} carries a command: judged and run as the shell tool is"
            ));
        }
        // A command in a language that is not the shell's (PowerShell): its
        // words cannot be read and `agentctx exec` cannot run it.
        if let Some(language) = self.native.foreign_shell.filter(|_| shell)
            && restricting
        {
            outcome.note(format!("{language} command: denied"));
            outcome.reply = Some(HookReply::deny(format!(
                "Denied: this {language} command.\nWhy: agentctx can neither read a {language} command's words nor run it in its sandbox, and the project's rules restrict files and tools.\nUse the Bash tool (its commands run where the rules hold)."
            )));
            return;
        }
        let run = agentctx_guard::shell_run(self.host, &rules);
        // Where the agent asks the user before a command, a rewritten
        // command would either skip that (allow) or be asked about every
        // time (the agent cannot tell which of them it would have allowed):
        // `sandbox: auto` leaves such sessions to the agent's prompts and
        // the command-line checks; `on` and strict mode ask. An agent that
        // runs no changed command gets the words-only check in every mode:
        // its prompts skip what it takes for read-only (Qwen Code runs
        // `sort`, `wc`, `find`, `git` without asking).
        let mode = self
            .input
            .other
            .get("permission_mode")
            .and_then(Value::as_str);
        let asks = !self.dialect.never_asks(mode);
        // What the agent's own rules would do with the command before
        // asking (Claude Code: its settings and read-only commands).
        let own = input
            .get("command")
            .and_then(Value::as_str)
            .filter(|_| asks)
            .and_then(|c| self.dialect.own_verdict(c, rules.root(), self.host.env));
        let run = match run {
            // A command the agent would run without a question runs in the
            // sandbox without one: nothing the user sees changes.
            agentctx_guard::ShellRun::Sandboxed(_)
                if asks
                    && self.dialect.rewrites_input()
                    && agentctx_guard::sandbox_optional(self.host, &rules)
                    && own != Some(agentctx_agents::OwnVerdict::Runs) =>
            {
                agentctx_guard::ShellRun::Plain(format!(
                    "{} asks before commands here (permission_mode {}); sandbox: auto leaves them to it",
                    self.agent,
                    mode.unwrap_or("unknown")
                ))
            }
            run => run,
        };
        // An agent that does not take a changed command cannot run it in
        // the sandbox: as written where the sandbox is optional, else not.
        // Nor one whose own per-command rules (opencode's `permission.bash`)
        // would then judge the wrapper instead of the command, unless the
        // wrapped line reaches the agent's shell with the command kept.
        let unwrappable = match &run {
            agentctx_guard::ShellRun::Sandboxed(_) if !self.dialect.rewrites_input() => {
                Some(format!(
                    "{} does not run a command a hook changed, so it cannot be wrapped in the sandbox",
                    self.agent
                ))
            }
            agentctx_guard::ShellRun::Sandboxed(_) if !self.native.command_kept => {
                self.dialect.own_command_rules(self.cwd, self.host.env)
            }
            _ => None,
        };
        let mut words_only = None;
        let run = match (run, unwrappable) {
            (_, Some(why)) => {
                if agentctx_guard::sandbox_optional(self.host, &rules) {
                    let run = agentctx_guard::ShellRun::Plain(format!(
                        "{why}; sandbox: auto checks it by its words, denying what they cannot show"
                    ));
                    words_only = Some(why);
                    run
                } else {
                    agentctx_guard::ShellRun::Refused(why)
                }
            }
            (run, None) => run,
        };
        if shell {
            match &run {
                agentctx_guard::ShellRun::Plain(why) => {
                    outcome.note(format!("shell command runs as written: {why}"))
                }
                agentctx_guard::ShellRun::Sandboxed(bwrap) => outcome.note(format!(
                    "shell command runs in the sandbox ({})",
                    bwrap.path.display()
                )),
                agentctx_guard::ShellRun::Refused(why) => {
                    outcome.note(format!("shell command refused: {why}"))
                }
            }
        }
        let session_sandboxed = matches!(run, agentctx_guard::ShellRun::Sandboxed(_));
        let run = if shell {
            run
        } else {
            agentctx_guard::ShellRun::Plain(String::new())
        };
        // A shell call that names its folder: its command line's relative
        // paths are that folder's.
        let command_dir = self.native.command_dir.as_deref().map(|dir| {
            let dir = if self.dialect.expands_tilde() {
                self.absolute(dir)
            } else {
                self.cwd.join(dir)
            };
            std::fs::canonicalize(&dir).unwrap_or(dir)
        });
        if let Some(dir) = &command_dir {
            outcome.note(format!("the command runs in {}", dir.display()));
        }
        // A tool that runs a command is `Bash` to the rules too: a rule that
        // denies the shell holds for it (an allow-list naming `Bash` does
        // not allow it: it is not the shell).
        if unknown_command_tool {
            let shell_rule = rules.check_tool("Bash");
            if !shell_rule.allowed
                && shell_rule.rule != agentctx_types::DecisionRule::NotInAllowedTools
            {
                outcome.note(format!(
                    "{name} runs a command and Bash is denied: {}",
                    shell_rule.message
                ));
                outcome.reply = Some(HookReply::deny(agentctx_rules::render_permission_decision(
                    &shell_rule,
                    &rules,
                )));
                return;
            }
        }
        let aliases = self.native.aliases.clone();
        let in_run = inside_run();
        if in_run {
            outcome.note("inside agentctx run: the run's sandbox holds every command");
        }
        let guard = agentctx_guard::Guard {
            host: self.host,
            rules: &rules,
            cwd: command_dir.as_deref().unwrap_or(self.cwd),
            sandboxed: in_run || matches!(run, agentctx_guard::ShellRun::Sandboxed(_)),
            session_sandboxed,
            native_tool: self.native.tool.as_deref(),
            aliases: &aliases,
            // Every tool of such a session: what runs outside later is kept.
            words_only: words_only.as_deref(),
        };
        let verdict = guard.decide(name, &input, &mut outcome.notes);
        let verdict = self.taint(verdict, name, &input, &rules, asks, outcome);
        match verdict {
            agentctx_guard::Verdict::Deny(reason) => outcome.reply = Some(HookReply::deny(reason)),
            agentctx_guard::Verdict::SearchWithout {
                scope,
                left_out,
                denial,
            } => {
                let tool = self.native.tool.as_deref().unwrap_or(name);
                match self.dialect.narrow_search(tool, &input, &left_out) {
                    Some(narrowed) => {
                        let shown: Vec<String> =
                            left_out.iter().map(|p| p.display().to_string()).collect();
                        outcome.note(format!(
                            "search of {} narrowed: {} left out",
                            scope.display(),
                            shown.join(", ")
                        ));
                        // Inside the project the agent reads without asking;
                        // elsewhere it asks as it would have.
                        let decision = if scope.starts_with(rules.root()) {
                            agentctx_types::PermissionDecision::Allow
                        } else {
                            self.dialect.rewrite_decision(asks)
                        };
                        let mut reply = HookReply::rewrite(narrowed, decision);
                        reply.hook_specific_output.permission_decision_reason = Some(format!(
                            "agentctx left out what the project's rules deny: {}",
                            shown.join(", ")
                        ));
                        outcome.reply = Some(reply);
                    }
                    None => outcome.reply = Some(HookReply::deny(denial)),
                }
            }
            // A question only the agent can put to the user; an agent that
            // cannot be made to ask, or a session nobody answers, denies.
            agentctx_guard::Verdict::Ask(reason) if asks && self.dialect.asks_through_hook() => {
                outcome.reply = Some(HookReply::ask(reason));
            }
            agentctx_guard::Verdict::Ask(reason) => {
                outcome.note("a command rule asks, and nobody can be asked here: denied");
                outcome.reply = Some(HookReply::deny(agentctx_types::system_reminder(
                    agentctx_types::SystemReminderType::PermissionDecision,
                    &format!(
                        "Denied: {reason} {} cannot be made to ask the user here, so agentctx denies it.\nIf it is needed, ask the user to run it themselves.",
                        self.agent
                    ),
                )));
            }
            agentctx_guard::Verdict::Allow => match run {
                agentctx_guard::ShellRun::Plain(_) if !shell && restricting => {
                    self.pin_file_paths(&input, asks, outcome);
                }
                agentctx_guard::ShellRun::Plain(_) => {
                    // No output: the agent's own permission flow stays in charge.
                }
                agentctx_guard::ShellRun::Refused(why) => {
                    outcome.reply = Some(HookReply::deny(sandbox_refusal(&why)));
                }
                agentctx_guard::ShellRun::Sandboxed(_) => {
                    // The changed input can no longer meet the agent's own
                    // rules: where the agent would ask, its user's answers
                    // are kept here (Claude Code: what its settings allow
                    // and its read-only commands run, sandboxed, without a
                    // question; what they deny is denied).
                    if let Some(agentctx_agents::OwnVerdict::Denied(rule)) = &own {
                        outcome.note(format!("{}'s own settings deny it ({rule})", self.agent));
                        outcome.reply = Some(HookReply::deny(format!(
                            "Denied: this shell command: your {} settings deny it (`{rule}`).",
                            self.agent
                        )));
                        return;
                    }
                    let call = self.input.tool_use_id.as_deref().unwrap_or("call");
                    let wrapped = match (self.host.program, self.input.session_id.as_deref()) {
                        (Some(program), Some(session)) => {
                            // The agent's shell keeps its folder: the
                            // command's last one is carried back to it.
                            let keeps = name == "Bash"
                                && self
                                    .dialect
                                    .shell_keeps_cwd(self.native.tool.as_deref(), self.cwd);
                            let script = keeps
                                .then(|| agentctx_exec::cwd_script_path(self.host, session, call))
                                .flatten();
                            agentctx_exec::wrapped_input(
                                &program.to_string_lossy(),
                                self.agent,
                                session,
                                &input,
                                !agentctx_guard::sandbox_optional(self.host, &rules),
                                script.as_deref(),
                            )
                        }
                        _ => None,
                    };
                    match wrapped {
                        Some(wrapped) => {
                            let decision = match own {
                                Some(agentctx_agents::OwnVerdict::Runs) => {
                                    outcome.note(format!(
                                        "{} would run it without asking: allowed in the sandbox",
                                        self.agent
                                    ));
                                    agentctx_types::PermissionDecision::Allow
                                }
                                _ => self.dialect.rewrite_decision(asks),
                            };
                            outcome.reply = Some(HookReply::rewrite(wrapped, decision));
                        }
                        None => {
                            outcome.note("no session id to run the sandbox for: denied");
                            outcome.reply = Some(HookReply::deny(sandbox_refusal(
                                "the call names no session, so its sandbox cannot be built",
                            )));
                        }
                    }
                }
            },
        }
    }
}

impl Call<'_> {
    /// Session taint (`taint.rs`): a denial of a file the rules exclude
    /// marks the session; in a marked session, what would leave the
    /// machine is asked about.
    fn taint(
        &self,
        verdict: agentctx_guard::Verdict,
        name: &str,
        input: &Value,
        rules: &agentctx_rules::Rules,
        asks: bool,
        outcome: &mut HookOutcome,
    ) -> agentctx_guard::Verdict {
        let (Some(state), Some(session)) = (
            agentctx_config::state_dir(self.host.env),
            self.input.session_id.as_deref(),
        ) else {
            return verdict;
        };
        if matches!(verdict, agentctx_guard::Verdict::Deny(_)) {
            let mut checker = rules.file_checker();
            let excluded = self
                .named_paths(outcome)
                .iter()
                .map(|p| self.absolute(p))
                .find(|p| !checker.check(p).allowed);
            if let Some(path) = excluded {
                match super::taint::mark(&state, session, &path) {
                    Ok(()) => outcome.note(format!(
                        "session taint: it tried {}; what leaves the machine is asked about from now on",
                        path.display()
                    )),
                    Err(error) => outcome.note(format!("session taint not kept: {error}")),
                }
            }
            return verdict;
        }
        // The marker first: a file's absence is cheaper than reading the
        // call's line again, and most sessions are not tainted.
        let Some(tried) = super::taint::tainted(&state, session) else {
            return verdict;
        };
        let normalized = agentctx_agents::normalize_tool(name);
        let Some(what) = super::taint::egress(&normalized, input) else {
            return verdict;
        };
        if matches!(verdict, agentctx_guard::Verdict::Ask(_)) {
            return verdict;
        }
        // A question, never a refusal: where nobody can be asked (a mode
        // that never asks, an agent a hook cannot make ask), one denied
        // `cat .env` would cut the session off the network; the network
        // rules bound where it goes there.
        if !(asks && self.dialect.asks_through_hook()) {
            outcome.note(format!(
                "session taint ({tried}): {what} would be asked about; nobody can be asked here"
            ));
            return verdict;
        }
        outcome.note(format!("session taint ({tried}): {what} is asked about"));
        agentctx_guard::Verdict::Ask(format!(
            "agentctx asks before {what}: earlier in this session the agent tried to read `{tried}`, which the project's rules keep from it, so what it sends out now may carry what it was told to take."
        ))
    }
}

/// Whether this hook runs inside `agentctx run`, where every command is in
/// the run's sandbox whatever runs it: its marker and a network namespace
/// with only loopback. Not proof: the marker set by hand in a namespace
/// with only loopback passes too (a named gap, docs/SECURITY.md; asking
/// the kernel about the session's masks, as `agentctx exec` does, refused
/// inside real runs and was not finished).
pub(super) fn inside_run() -> bool {
    agentctx_exec::net::inside_run(true)
}

/// The reason the model reads when a shell command must run in the
/// sandbox and cannot: what will work instead.
fn sandbox_refusal(why: &str) -> String {
    agentctx_types::system_reminder(
        agentctx_types::SystemReminderType::PermissionDecision,
        &format!(
            "Denied: this shell command.\nWhy: {why}.\nUse the file tools (Read, Edit, Write) on paths the rules allow, or ask the user to install bubblewrap or relax project_agent_rules.sandbox."
        ),
    )
}

impl Call<'_> {
    /// A file tool's path through a link a command could change: the tool
    /// opens the resolved path the guard judged (a rewritten input), or,
    /// where the agent does not run a changed input, the call is denied
    /// naming it. Otherwise no output: the agent's own permission flow
    /// stays in charge.
    fn pin_file_paths(&self, input: &Value, asks: bool, outcome: &mut HookOutcome) {
        let links = super::file_links::changeable_links(input, |p| self.absolute(p));
        if links.is_empty() {
            return;
        }
        for link in &links {
            outcome.note(format!(
                "{} goes through the link {}: the tool is given {}",
                link.given,
                link.link.display(),
                link.resolved.display()
            ));
        }
        match self.dialect.pin_file_paths(asks) {
            agentctx_agents::dialect::PinPaths::Rewrite(decision) => {
                let mut reply = HookReply::rewrite(
                    super::file_links::pinned_input(input, &links),
                    agentctx_types::PermissionDecision::Allow,
                );
                // `None`: the agent's own permission flow judges the
                // changed input.
                reply.hook_specific_output.permission_decision = decision;
                outcome.reply = Some(reply);
            }
            agentctx_agents::dialect::PinPaths::Deny => {
                outcome.note("the agent runs no changed input: denied");
                outcome.reply = Some(HookReply::deny(super::file_links::denial(&links)));
            }
        }
    }
}
