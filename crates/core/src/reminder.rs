//! The reminders the AGENTS.md work sends to the model. Paths, versions and
//! differences only, never file bodies.

use std::fmt::Write as _;
use std::path::PathBuf;

use agentctx_types::{
    ReminderEnvelope, ResolvedAgentFile, ResolvedAgents, SystemReminderType, system_reminder,
};

/// `agents.resolve.paths`: empty when there is nothing new.
///
/// ```
/// use agentctx_types::{ResolvedAgentFile, ResolvedAgents};
/// let found = ResolvedAgents {
///     files: vec![ResolvedAgentFile {
///         path: "/repo/feature/AGENTS.md".into(),
///         mtime_ms: 1738970000000,
///         size_bytes: 120,
///         changed: false,
///         unreadable: None,
///     }],
/// };
/// let text = agentctx_core::render_resolve_paths(&found);
/// assert!(text.contains("- /repo/feature/AGENTS.md (mtime: 1738970000000)\n"));
/// assert_eq!(agentctx_core::render_resolve_paths(&Default::default()), "");
/// ```
pub fn render_resolve_paths(found: &ResolvedAgents) -> String {
    render_resolve_paths_in(found, ReminderEnvelope::SystemReminder)
}

/// [`render_resolve_paths`] in the envelope an agent needs (Claude Code's
/// hooks need [`ReminderEnvelope::AgentctxReminder`]).
pub fn render_resolve_paths_in(found: &ResolvedAgents, envelope: ReminderEnvelope) -> String {
    if found.files.is_empty() {
        return String::new();
    }
    let mut body = String::from("Additional AGENTS.md may apply for this path:\n");
    push_file_lines(&mut body, &found.files);
    body.push_str("Read and apply these files before editing files in this scope.");
    envelope.wrap(SystemReminderType::AgentsResolvePaths, &body)
}

fn push_file_lines(body: &mut String, files: &[ResolvedAgentFile]) {
    for file in files {
        let _ = write!(body, "- {} (mtime: {})", file.path.display(), file.mtime_ms);
        match &file.unreadable {
            Some(why) => {
                let _ = writeln!(
                    body,
                    " cannot be read ({why}): its instructions are unknown; tell the user"
                );
            }
            None => body.push('\n'),
        }
    }
}

/// What changed between a session's last run and now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResumeDiff {
    /// `(before, after)` when the working directory changed.
    pub cwd: Option<(PathBuf, PathBuf)>,
    /// `(before, after)` when the root changed.
    pub root: Option<(PathBuf, PathBuf)>,
    /// `(before, after)` when the markers changed.
    pub markers: Option<(Vec<String>, Vec<String>)>,
    /// AGENTS.md files on the new chain that are new, changed or not loaded.
    pub recheck: Vec<ResolvedAgentFile>,
}

impl ResumeDiff {
    /// The diff as `session resume --json` reports it, with its reminder.
    pub fn report(&self) -> agentctx_types::ResumeReport {
        agentctx_types::ResumeReport {
            cwd: self.cwd.clone().map(|(a, b)| [a, b]),
            root: self.root.clone().map(|(a, b)| [a, b]),
            markers: self.markers.clone().map(|(a, b)| [a, b]),
            recheck: self.recheck.clone(),
            text: render_resume_diff(self),
        }
    }

    /// `true` when nothing differs.
    pub fn is_empty(&self) -> bool {
        self.cwd.is_none()
            && self.root.is_none()
            && self.markers.is_none()
            && self.recheck.is_empty()
    }
}

/// `session.resume.diff`: empty when nothing differs.
pub fn render_resume_diff(diff: &ResumeDiff) -> String {
    render_resume_diff_in(diff, ReminderEnvelope::SystemReminder)
}

/// [`render_resume_diff`] in the envelope an agent needs.
pub fn render_resume_diff_in(diff: &ResumeDiff, envelope: ReminderEnvelope) -> String {
    if diff.is_empty() {
        return String::new();
    }
    let mut body = String::new();
    if let Some((before, after)) = &diff.cwd {
        let _ = writeln!(body, "- cwd: {} -> {}", before.display(), after.display());
    }
    if let Some((before, after)) = &diff.root {
        let _ = writeln!(body, "- root: {} -> {}", before.display(), after.display());
    }
    if let Some((before, after)) = &diff.markers {
        let json = |m: &Vec<String>| serde_json::to_string(m).unwrap_or_default();
        let _ = writeln!(body, "- markers: {} -> {}", json(before), json(after));
    }
    if !diff.recheck.is_empty() {
        body.push_str("Re-check AGENTS.md for current scope:\n");
        push_file_lines(&mut body, &diff.recheck);
    }
    envelope.wrap(SystemReminderType::SessionResumeDiff, &body)
}

/// `tool.output.trimmed`; with `id`, where the removed part is kept.
pub fn render_trimmed(
    removed_bytes: usize,
    removed_lines: usize,
    max_bytes: usize,
    id: Option<&str>,
) -> String {
    let lines = if removed_lines == 1 { "line" } else { "lines" };
    let rest = match id {
        Some(id) => format!(
            "The output above is incomplete; the rest is kept as {id}: `agentctx output get {id}` (or the MCP tool output_get) returns it, in parts."
        ),
        None => "The output above is incomplete; narrow the command or read the rest in parts if you need it.".to_owned(),
    };
    let body = format!(
        "Tool output trimmed to its first {max_bytes} bytes: {removed_bytes} bytes ({removed_lines} {lines}) were removed.\n{rest}"
    );
    system_reminder(SystemReminderType::ToolOutputTrimmed, &body)
}
