//! Codex: Claude Code's payload shape with its own `turn_id`; a hook runs
//! in the session's folder; its `Stop` is the turn's answer.

use agentctx_types::HookInput;

use crate::dialect::{Dialect, LoaderFacts, Native};
use crate::loader::LoaderDecision;

/// The name of the permission profile agentctx writes into a project's
/// `.codex/config.toml`.
pub const CODEX_PROFILE: &str = "agentctx";

pub(super) struct Codex;

impl Dialect for Codex {
    fn settings_vars(&self) -> &'static [&'static str] {
        &["CODEX_HOME"]
    }

    fn capture_source(&self) -> &'static str {
        "codex-hook"
    }

    fn describe_config(&self, name: &str) -> Option<&'static str> {
        Some(match name {
            ".codex" => "Codex's project settings and hooks",
            _ => return None,
        })
    }

    fn project_config_names(&self) -> &'static [&'static str] {
        // Its project settings and hooks.
        &[".codex"]
    }

    fn project_settings_folder(&self) -> Option<&'static str> {
        Some(".codex")
    }

    fn user_config_paths(&self, env: &agentctx_config::Environment) -> Vec<std::path::PathBuf> {
        env.codex_home()
            .map(|home| vec![home.join("config.toml"), home.join("hooks.json")])
            .unwrap_or_default()
    }

    fn run_needs(&self, env: &agentctx_config::Environment) -> crate::RunNeeds {
        crate::RunNeeds {
            writable: env.codex_home().into_iter().collect(),
            read_only: Vec::new(),
            project: &[],
            hosts: &["api.openai.com", "chatgpt.com", "auth.openai.com"],
            base_url_vars: &["OPENAI_BASE_URL"],
            key_vars: &["OPENAI_API_KEY", "CODEX_API_KEY"],
        }
    }

    fn user_folder(&self, env: &agentctx_config::Environment) -> Option<std::path::PathBuf> {
        env.codex_home()
    }

    fn keeps_permission_profile(&self) -> bool {
        true
    }

    fn agents_md_setting(&self, config: &agentctx_types::Config) -> agentctx_types::AgentsMdBodies {
        config.codex.agents_md
    }

    fn normalize(&self, _: &mut HookInput, _: Option<&str>) -> Native {
        Native::default()
    }

    /// Decided from `codex.agents_md` (`agents_md.rs`).
    /// Codex gives the chain at start; nested files are agentctx's.
    fn loader(&self, _: &LoaderFacts<'_>) -> Option<LoaderDecision> {
        Some(LoaderDecision {
            loader: crate::loader::BuiltinLoader {
                initial: true,
                ..crate::loader::BuiltinLoader::default()
            },
            why: "codex loads the AGENTS.md chain itself: its bodies are left out".to_owned(),
        })
    }

    fn stop_is_answer(&self) -> bool {
        true
    }
}
