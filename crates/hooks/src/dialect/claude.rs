//! Claude Code: the shared shape is its own. It escapes `<system-reminder`
//! in hook context, so reminders travel as `<agentctx-reminder>`.

use agentctx_types::{HookInput, ReminderEnvelope};

use super::{Dialect, LoaderFacts, Native};
use crate::agents_md::LoaderDecision;

pub(super) struct Claude;

impl Dialect for Claude {
    fn normalize(&self, _: &mut HookInput, _: Option<&str>) -> Native {
        Native::default()
    }

    fn envelope(&self) -> ReminderEnvelope {
        ReminderEnvelope::AgentctxReminder
    }

    /// Decided from `claude_code.agents_md` and the release (`agents_md.rs`).
    fn loader(&self, _: &LoaderFacts<'_>) -> Option<LoaderDecision> {
        None
    }

    fn start_dir_env(&self) -> Option<&'static str> {
        Some("CLAUDE_PROJECT_DIR")
    }
}
