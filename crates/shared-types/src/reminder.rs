//! The envelope of every reminder agentctx sends to the model.

use crate::SystemReminderType;

/// How a reminder is wrapped for the agent that carries it.
///
/// `<system-reminder type="...">` is the form the model is told about in
/// agentctx's own output. Claude Code escapes `<system-reminder` inside hook
/// context (it wraps hook text in its own system reminder), so for it the
/// same reminder is written as `<agentctx-reminder type="...">`: the type
/// stays recognisable and nothing reaches the model escaped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReminderEnvelope {
    /// `<system-reminder type="...">...</system-reminder>`.
    #[default]
    SystemReminder,
    /// `<agentctx-reminder type="...">...</agentctx-reminder>`.
    AgentctxReminder,
}

impl ReminderEnvelope {
    /// The tag name.
    pub const fn tag(self) -> &'static str {
        match self {
            Self::SystemReminder => "system-reminder",
            Self::AgentctxReminder => "agentctx-reminder",
        }
    }

    /// Wraps `body` in this envelope with `type="kind"`; the body is written
    /// as given between the tags, each on its own line, and a trailing
    /// newline in `body` is not doubled.
    ///
    /// ```
    /// use agentctx_types::{ReminderEnvelope, SystemReminderType};
    /// let block = ReminderEnvelope::AgentctxReminder.wrap(SystemReminderType::AgentsResolvePaths, "x");
    /// assert_eq!(block, "<agentctx-reminder type=\"agents.resolve.paths\">\nx\n</agentctx-reminder>\n");
    /// ```
    pub fn wrap(self, kind: SystemReminderType, body: &str) -> String {
        let body = body.strip_suffix('\n').unwrap_or(body);
        let tag = self.tag();
        format!("<{tag} type=\"{kind}\">\n{body}\n</{tag}>\n")
    }
}

/// Wraps `body` in a `<system-reminder type="...">` block.
///
/// The body is written as given between the opening and closing tags, each on
/// its own line; a trailing newline in `body` is not doubled.
///
/// ```
/// use agentctx_types::{SystemReminderType, system_reminder};
/// let block = system_reminder(SystemReminderType::ToolOutputTrimmed, "Removed 10 bytes.");
/// assert_eq!(
///     block,
///     "<system-reminder type=\"tool.output.trimmed\">\nRemoved 10 bytes.\n</system-reminder>\n"
/// );
/// ```
pub fn system_reminder(kind: SystemReminderType, body: &str) -> String {
    ReminderEnvelope::SystemReminder.wrap(kind, body)
}
