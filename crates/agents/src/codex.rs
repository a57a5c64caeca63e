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
            config_key_vars: provider_key_vars(env),
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

/// The variables the providers of the user's `config.toml` read their key
/// from (`[model_providers.NAME] env_key = "..."`). Only the user's file:
/// a project's config does not choose which of the user's variables reach
/// the agent.
fn provider_key_vars(env: &agentctx_config::Environment) -> Vec<String> {
    let Some(file) = env.codex_home().map(|h| h.join("config.toml")) else {
        return Vec::new();
    };
    let Ok(text) = agentctx_fs::read_to_string(&file, 1024 * 1024) else {
        return Vec::new();
    };
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return Vec::new();
    };
    let mut vars: Vec<String> = doc
        .get("model_providers")
        .and_then(toml_edit::Item::as_table_like)
        .map(|providers| {
            providers
                .iter()
                .filter_map(|(_, provider)| provider.get("env_key")?.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    vars.sort();
    vars.dedup();
    vars
}
