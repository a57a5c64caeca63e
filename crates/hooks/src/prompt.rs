//! `file_list_context.position: user_message` in the agents: hooks cannot
//! write into the user's message, but `UserPromptSubmit` context travels
//! with it (Claude Code: beside the prompt in the user turn; Codex: a
//! developer message after it; docs/integrations/). So `SessionStart`
//! keeps the user-message parts back and the session's first prompt
//! carries them, once; a compaction or a resume that gives the context
//! again gives them again with the next prompt.

use std::path::{Path, PathBuf};

use agentctx_types::{ComposedContext, FileListPosition};

use agentctx_context::{ChainPart, ComposeParts, compose};
use agentctx_session::Host;

/// Where a session records that its user-message parts were given.
fn marker(sessions: &Path, session: &str) -> PathBuf {
    sessions.join(format!("{session}.user-parts-given"))
}

/// At `SessionStart`: the user-message parts are taken out of `composed`
/// (the next `UserPromptSubmit` gives them) and the session's marker is
/// cleared so that it does. Nothing happens for the system position.
pub(crate) fn defer_user_parts(
    composed: &mut ComposedContext,
    session: Option<(&Path, &str)>,
    notes: &mut Vec<String>,
) {
    if composed.user_prefix.is_empty() {
        return;
    }
    let Some((dir, id)) = session else {
        // Without a session nothing could give them later: they stay.
        notes.push("no session: the user-message parts are given now".to_owned());
        return;
    };
    composed.user_prefix.clear();
    match std::fs::remove_file(marker(dir, id)) {
        Ok(()) => notes.push("the file list goes with the next prompt again".to_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            notes.push("the file list goes with the session's first prompt".to_owned());
        }
        Err(e) => notes.push(format!("the file list marker cannot be cleared: {e}")),
    }
}

/// At `UserPromptSubmit`: the user-message parts when this session has not
/// been given them since its (re)start; `None` otherwise. The first process
/// to create the marker gives them, so two hooks never both do.
pub(crate) fn user_parts_for_prompt(
    host: &Host<'_>,
    cwd: &Path,
    session: Option<(&Path, &str)>,
    notes: &mut Vec<String>,
) -> Option<String> {
    let files = &host.config.file_list_context;
    if !files.enabled || files.position != FileListPosition::UserMessage {
        notes.push(
            "UserPromptSubmit: the file list is not at user_message: nothing to give".to_owned(),
        );
        return None;
    }
    let Some((dir, id)) = session else {
        notes.push("UserPromptSubmit: no session: the file list was given at its start".to_owned());
        return None;
    };
    let file = marker(dir, id);
    if file.exists() {
        notes.push("UserPromptSubmit: the file list was given with an earlier prompt".to_owned());
        return None;
    }
    // Composed before the marker is made: a hook stopped while composing
    // leaves the list to the next prompt instead of losing it.
    let parts = ComposeParts {
        rules: false,
        agents: ChainPart::None,
        files: true,
    };
    let composed = compose(host, cwd, parts);
    for warning in &composed.warnings {
        notes.push(format!("context: {warning}"));
    }
    let created = std::fs::create_dir_all(dir).and_then(|()| {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&file)
    });
    match created {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            notes.push("UserPromptSubmit: another hook gave the file list".to_owned());
            return None;
        }
        Err(e) => {
            notes.push(format!(
                "UserPromptSubmit: {}: {e}: the file list is not given",
                file.display()
            ));
            return None;
        }
    }
    let text = agentctx_types::join_parts(&composed.user_prefix);
    notes.push(format!(
        "UserPromptSubmit: the file list with the prompt ({} bytes)",
        text.len()
    ));
    (!text.is_empty()).then_some(text)
}
