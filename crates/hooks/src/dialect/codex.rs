//! Codex: Claude Code's payload shape with its own `turn_id`; a hook runs
//! in the session's folder; its `Stop` is the turn's answer.

use agentctx_types::HookInput;

use super::{Dialect, LoaderFacts, Native};
use crate::agents_md::LoaderDecision;

pub(super) struct Codex;

impl Dialect for Codex {
    fn normalize(&self, _: &mut HookInput, _: Option<&str>) -> Native {
        Native::default()
    }

    /// Decided from `codex.agents_md` (`agents_md.rs`).
    fn loader(&self, _: &LoaderFacts<'_>) -> Option<LoaderDecision> {
        None
    }

    fn stop_is_answer(&self) -> bool {
        true
    }
}
