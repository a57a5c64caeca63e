//! The events that give context: a session's start (and its resume or
//! compaction), a sub-agent's start, a prompt (the deferred file list).

use std::path::Path;

use agentctx_core::{render_resume_diff_in, resume_in_store, start_session};
use agentctx_types::HookReply;

use super::{Call, HookOutcome};
use agentctx_context::{ChainPart, ComposeParts, compose};

impl Call<'_> {
    pub(super) fn session_start(&self, outcome: &mut HookOutcome) {
        if self.dialect.keeps_permission_profile() {
            crate::codex_profile::refresh(self.host, &mut outcome.notes);
        }
        let source = self.input.source.as_deref().unwrap_or("startup");
        // Where the agent drops this event's context, the next prompt
        // gives it: a new conversation, a compacted or cleared one has
        // none (a resumed one keeps what its earlier prompts were given).
        if self.dialect.start_may_be_missed()
            && self.input.hook_event_name.as_deref() == Some("SessionStart")
            && source != "resume"
            && let Some(marker) = self.start_marker()
        {
            let _ = std::fs::remove_file(&marker);
            outcome.note(format!(
                "{} drops SessionStart's context: the next prompt gives it",
                self.agent
            ));
        }
        let decision = self.loader();
        outcome.note(decision.why);
        let loader = decision.loader;
        let parts = ComposeParts {
            rules: true,
            agents: self.chain_part(loader),
            files: true,
        };
        let agents = &self.host.config.agents;
        let home = self.host.home();
        let Some(store) = self.store(outcome) else {
            return self.initial_context(parts, "SessionStart", outcome);
        };
        let resumed = matches!(source, "resume" | "compact");
        let result = resume_in_store(&store, self.cwd, agents, home, resumed);
        match result {
            Ok(resume) => match resume.diff {
                Some(diff) => {
                    outcome.note(format!(
                        "{source}: session {} resumed",
                        store.path().display()
                    ));
                    self.continued(source, diff, parts, loader, outcome);
                }
                None => {
                    outcome.note(format!(
                        "{source}: new session state in {}",
                        store.path().display()
                    ));
                    self.initial_context(parts, "SessionStart", outcome);
                }
            },
            Err(error) => outcome.note(format!("AGENTS.md state not updated: {error}")),
        }
    }

    /// A session that continues: what changed since it last ran, and the
    /// whole context again when the model no longer has it: after
    /// `/compact`, and after a resume whose transcript does not hold it
    /// (Claude Code releases that keep SessionStart context only in the
    /// memory of the process that got it: `transcript.rs`).
    pub(super) fn continued(
        &self,
        source: &str,
        mut diff: agentctx_core::ResumeDiff,
        parts: ComposeParts,
        loader: agentctx_agents::BuiltinLoader,
        outcome: &mut HookOutcome,
    ) {
        if loader.initial {
            // A new agent process loads the chain as it is now.
            diff.recheck.clear();
        }
        let mut again = None;
        if source == "compact" {
            outcome.note("compact: the context is given again");
            again = Some(compose(self.host, self.cwd, parts));
        } else if self.dialect.transcript_shows_context() {
            let composed = compose(self.host, self.cwd, parts);
            let needles = crate::transcript::context_needles(&composed);
            let kept =
                self.input.transcript_path.as_deref().is_some_and(|t| {
                    crate::transcript::context_in_transcript(Path::new(t), &needles)
                });
            if kept {
                outcome.note("the transcript still holds the context");
            } else {
                outcome.note("the transcript does not hold the context since its last compaction: it is given again");
                again = Some(composed);
            }
        }
        let text = match again {
            Some(mut composed) => {
                for warning in &composed.warnings {
                    outcome.note(format!("context: {warning}"));
                }
                // The session's own index, the same bytes as at its start.
                self.add_memory(&mut composed, outcome);
                self.defer_user_parts(&mut composed, outcome);
                if parts.agents != ChainPart::None {
                    // The chain given now is the chain as it is now.
                    diff.recheck.clear();
                }
                let diff = render_resume_diff_in(&diff, self.envelope());
                [composed.text(), diff]
                    .into_iter()
                    .filter(|t| !t.is_empty())
                    .collect::<Vec<_>>()
                    .join("\n")
            }
            None => render_resume_diff_in(&diff, self.envelope()),
        };
        if text.trim().is_empty() {
            outcome.note("nothing changed since the session last ran");
        } else {
            outcome.reply = Some(HookReply::context("SessionStart", text));
        }
    }

    pub(super) fn initial_context(
        &self,
        parts: ComposeParts,
        event: &str,
        outcome: &mut HookOutcome,
    ) {
        let mut composed = compose(self.host, self.cwd, parts);
        for warning in &composed.warnings {
            outcome.note(format!("context: {warning}"));
        }
        self.add_memory(&mut composed, outcome);
        if event == "SessionStart" {
            self.defer_user_parts(&mut composed, outcome);
        }
        let mut text = composed.text();
        if event == "SessionStart"
            && let Some(notice) = self.no_sandbox_notice()
        {
            outcome.note(notice.clone());
            text.push_str(&format!("<agentctx_notice>{notice}</agentctx_notice>\n"));
        }
        outcome.note(format!(
            "initial context: {} parts, {} bytes",
            composed.parts().count(),
            text.len()
        ));
        if !text.is_empty() {
            outcome.reply = Some(HookReply::context(event, text));
        }
    }

    /// Said once, at the session's start, where the rules restrict files
    /// and `sandbox: auto` finds no sandbox on this machine: its commands
    /// run as written, judged by their words only.
    fn no_sandbox_notice(&self) -> Option<String> {
        let rules = self.host.rules(self.cwd).ok()?;
        // Inside `agentctx run` the whole agent is in the kernel's sandbox.
        if !rules.restricts_anything() || super::pre_tool::inside_run() {
            return None;
        }
        match agentctx_guard::shell_run(self.host, &rules) {
            agentctx_guard::ShellRun::Plain(why)
                if why.starts_with("the sandbox cannot run here") =>
            {
                Some(format!(
                    "This session runs without agentctx's kernel sandbox: {why}. Shell commands run as written and are judged by their words only; tell the user (the fix: docs/SECURITY.md, \"Under AppArmor, in containers\")."
                ))
            }
            _ => None,
        }
    }

    /// The session's `<memory_index>` as the last part (it changes more
    /// often than the parts before it, which the prompt cache keeps).
    #[cfg(feature = "recall")]
    pub(super) fn add_memory(
        &self,
        composed: &mut agentctx_types::ComposedContext,
        outcome: &mut HookOutcome,
    ) {
        let sub_agent = self
            .input
            .agent_id
            .as_deref()
            .is_some_and(|a| !a.is_empty());
        let files = self.host.session_files(self.input);
        let session = files.as_ref().map(|(d, i)| (d.as_path(), i.as_str()));
        if let Some(text) = agentctx_context::session_memory_index(
            self.host,
            self.cwd,
            session,
            sub_agent,
            &mut outcome.notes,
        ) && !text.is_empty()
        {
            composed.system.push(agentctx_types::ContextPart {
                kind: agentctx_types::ContextPartKind::Memory,
                text,
            });
        }
    }

    #[cfg(not(feature = "recall"))]
    pub(super) fn add_memory(&self, _: &mut agentctx_types::ComposedContext, _: &mut HookOutcome) {}

    /// The first prompt of a session (and the first after it was given its
    /// context again) carries the user-message parts (`prompt.rs`).
    pub(super) fn user_prompt_submit(&self, outcome: &mut HookOutcome) {
        // An agent that drops SessionStart's context (Qwen Code: it fires
        // the event and ignores the answer; in `-p` it does not fire it):
        // the first prompt of a session, and the first after a compaction
        // or `/clear`, gives the initial context (a marker beside the
        // session's state, created exclusively).
        if self.dialect.start_may_be_missed()
            && let Some(marker) = self.start_marker()
        {
            if let Some(dir) = marker.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&marker)
            {
                Ok(_) => {
                    outcome.note(
                        "the session's context is not with the model yet: this prompt gives it",
                    );
                    self.session_start(outcome);
                    if let Some(reply) = outcome.reply.as_mut() {
                        reply.hook_specific_output.hook_event_name = "UserPromptSubmit".to_owned();
                    }
                    return;
                }
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(error) => outcome.note(format!(
                    "{}: {error}: the context is not given with the prompt",
                    marker.display()
                )),
            }
        }
        if !self.dialect.prompt_context_follows_message() {
            return outcome.note("UserPromptSubmit: the file list went with SessionStart");
        }
        let files = self.host.session_files(self.input);
        let session = files.as_ref().map(|(d, i)| (d.as_path(), i.as_str()));
        if let Some(text) =
            crate::prompt::user_parts_for_prompt(self.host, self.cwd, session, &mut outcome.notes)
        {
            outcome.reply = Some(HookReply::context("UserPromptSubmit", text));
        }
    }

    /// The marker of a session whose initial context went with a prompt.
    fn start_marker(&self) -> Option<std::path::PathBuf> {
        let (dir, stem) = self.host.session_files(self.input)?;
        Some(dir.join(format!("{stem}.start-context")))
    }

    /// [`crate::prompt::defer_user_parts`] for this call's session, for
    /// the agents whose prompt hook places text after the user's message
    /// (Codex); Claude Code puts either hook's context in a `system`
    /// message, so its file list stays with SessionStart.
    pub(super) fn defer_user_parts(
        &self,
        composed: &mut agentctx_types::ComposedContext,
        outcome: &mut HookOutcome,
    ) {
        if !self.dialect.prompt_context_follows_message() {
            if !composed.user_prefix.is_empty() {
                outcome.note("file_list_context.position: user_message cannot be honoured for this agent (its hooks' context is a system message): the file list goes with SessionStart");
            }
            return;
        }
        let files = self.host.session_files(self.input);
        let session = files.as_ref().map(|(d, i)| (d.as_path(), i.as_str()));
        crate::prompt::defer_user_parts(composed, session, &mut outcome.notes);
    }

    /// How much of the AGENTS.md chain agentctx gives, beside what the
    /// agent's own loader gives.
    fn chain_part(&self, loader: agentctx_agents::BuiltinLoader) -> ChainPart {
        if loader.initial {
            ChainPart::None
        } else if loader.initial_cwd_only {
            ChainPart::AboveCwd
        } else {
            ChainPart::Whole
        }
    }

    /// A sub-agent starts with a context of its own: it gets the rules'
    /// extension and, where the agent does not load it, the AGENTS.md
    /// chain; its resolver state starts from that chain.
    pub(super) fn subagent_start(&self, outcome: &mut HookOutcome) {
        let decision = self.loader();
        outcome.note(decision.why);
        let loader = decision.loader;
        let parts = ComposeParts {
            rules: true,
            agents: self.chain_part(loader),
            files: false,
        };
        if let Some(store) = self.store(outcome) {
            let agents = &self.host.config.agents;
            let started =
                store.update(
                    |_| match start_session(self.cwd, agents, self.host.home()) {
                        Ok(started) => (Ok(()), Some(started.resolver.into_state())),
                        Err(error) => (Err(error), None),
                    },
                );
            match started {
                Ok(Ok(())) => {
                    outcome.note(format!("sub-agent state in {}", store.path().display()))
                }
                Ok(Err(error)) => outcome.note(format!("sub-agent state not started: {error}")),
                Err(error) => outcome.note(format!("sub-agent state unusable: {error}")),
            }
        }
        self.initial_context(parts, "SubagentStart", outcome);
    }
}
