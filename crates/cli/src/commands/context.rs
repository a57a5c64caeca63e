//! `agentctx context`: the initial context, composed.

use std::io::Write;
use std::path::Path;

use agentctx_filelist::list_local;
use agentctx_types::FileListPosition;
use serde::Serialize;

use crate::cli::{ContextArgs, FilesArgs};
use crate::commands::{Invocation, Outcome, write_json};

/// One composed part.
#[derive(Clone, Debug, Serialize)]
pub struct Part {
    /// `rules`, `agents` or `files`.
    pub kind: &'static str,
    pub text: String,
}

/// The composed context: the system part, the user-message prefix, and what
/// went wrong on the way (each failing part is left out, never the whole).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Composed {
    pub system: Vec<Part>,
    pub user_prefix: Vec<Part>,
    pub warnings: Vec<String>,
}

/// Composes rules' extension, the initial AGENTS.md bundle and the file list
/// for the working directory.
pub fn compose(inv: &Invocation, cwd: &Path, no_timestamp: bool) -> Composed {
    let mut composed = Composed::default();
    let rules = match crate::commands::rules::load_at(inv, cwd) {
        Ok(rules) => {
            if let Some(error) = rules.error() {
                composed.warnings.push(format!("rule file: {error}"));
            }
            if let Some(text) = rules
                .prompt_extension()
                .map(str::trim_end)
                .filter(|t| !t.is_empty())
            {
                composed.system.push(Part {
                    kind: "rules",
                    text: text.to_owned(),
                });
            }
            Some(rules)
        }
        Err(error) => {
            composed.warnings.push(format!("rules left out: {error:#}"));
            None
        }
    };
    match agentctx_core::start_session(cwd, &inv.config.config.agents, inv.env.home()) {
        Ok(started) => {
            composed
                .warnings
                .extend(started.chain.warnings.iter().map(ToString::to_string));
            let text = started.chain.render();
            if !text.is_empty() {
                composed.system.push(Part {
                    kind: "agents",
                    text,
                });
            }
        }
        Err(error) => composed
            .warnings
            .push(format!("AGENTS.md left out: {error}")),
    }
    let files_config = &inv.config.config.file_list_context;
    if files_config.enabled {
        match file_list(inv, cwd, rules.as_ref(), no_timestamp) {
            Ok(text) => {
                let part = Part {
                    kind: "files",
                    text,
                };
                match files_config.position {
                    FileListPosition::SystemPrompt => composed.system.push(part),
                    FileListPosition::UserMessage => composed.user_prefix.push(part),
                }
            }
            Err(error) => composed
                .warnings
                .push(format!("file list left out: {error:#}")),
        }
    }
    composed
}

fn file_list(
    inv: &Invocation,
    cwd: &Path,
    rules: Option<&agentctx_rules::Rules>,
    no_timestamp: bool,
) -> anyhow::Result<String> {
    let root = match rules {
        Some(rules) => rules.root().to_path_buf(),
        None => crate::commands::project_root(inv, cwd)?.root,
    };
    let overrides = rules.map(|r| r.rule_set().file_list).unwrap_or_default();
    let args = FilesArgs {
        format: None,
        max_depth: None,
        max_files: None,
        exclude: Vec::new(),
        include: Vec::new(),
        no_default_excludes: false,
        sizes: false,
        mtime: false,
        follow: false,
        token_budget: None,
        tokenizer: "o200k".to_owned(),
        no_group: false,
        no_timestamp,
        threads: 0,
        github: None,
        gitlab: None,
        api_url: None,
        from_json: None,
        platform: None,
        no_cache: false,
        refresh: false,
    };
    let mut options = crate::commands::files::options(
        inv,
        &inv.config.config.file_list_context,
        &overrides,
        &args,
    )?;
    options.count_tokens = false;
    Ok(list_local(&root, &options)?.text)
}

/// The parts joined with one blank line between them.
pub fn join(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|p| p.text.trim_end())
        .collect::<Vec<_>>()
        .join("\n\n")
        + if parts.is_empty() { "" } else { "\n" }
}

pub fn run(inv: &Invocation, args: &ContextArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut composed = compose(inv, &inv.cwd, args.no_timestamp);
    for warning in &composed.warnings {
        tracing::warn!("{warning}");
    }
    if args.system_prompt.is_some() || args.tool_descriptions.is_some() {
        let read = |path: &Option<std::path::PathBuf>| -> anyhow::Result<String> {
            match path {
                Some(p) => std::fs::read_to_string(inv.cwd.join(p))
                    .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display())),
                None => Ok(String::new()),
            }
        };
        let base = read(&args.system_prompt)?;
        let tools = read(&args.tool_descriptions)?;
        let extension = composed
            .system
            .iter()
            .find(|p| p.kind == "rules")
            .map(|p| p.text.clone());
        // The spec's order: base, extension, tool descriptions; then the
        // AGENTS.md bundle and a system-position file list.
        let head = agentctx_rules::compose_system_prompt(&base, extension.as_deref(), &tools);
        let mut system = vec![Part {
            kind: "system",
            text: head,
        }];
        system.extend(composed.system.drain(..).filter(|p| p.kind != "rules"));
        composed.system = system
            .into_iter()
            .filter(|p| !p.text.trim().is_empty())
            .collect();
    }
    if inv.json {
        let tokenizer = agentctx_filelist::Tokenizer::O200k;
        let mut tokens = serde_json::Map::new();
        let mut total = 0;
        for part in composed.system.iter().chain(&composed.user_prefix) {
            let n = tokenizer.count(&part.text)?;
            total += n;
            *tokens
                .entry(part.kind)
                .or_insert(serde_json::Value::from(0)) = serde_json::Value::from(n);
        }
        tokens.insert("total".into(), serde_json::Value::from(total));
        let mut value = serde_json::to_value(&composed)?;
        value["tokens"] = serde_json::Value::Object(tokens);
        write_json(out, &value)?;
    } else {
        out.write_all(join(&composed.system).as_bytes())?;
        if !composed.user_prefix.is_empty() {
            out.write_all(b"--- user message prefix ---\n")?;
            out.write_all(join(&composed.user_prefix).as_bytes())?;
        }
    }
    Ok(Outcome::Success)
}
