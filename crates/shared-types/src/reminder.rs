//! The `<system-reminder>` envelope shared by every feature that talks to the model.

use crate::SystemReminderType;

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
    let body = body.strip_suffix('\n').unwrap_or(body);
    format!("<system-reminder type=\"{kind}\">\n{body}\n</system-reminder>\n")
}
