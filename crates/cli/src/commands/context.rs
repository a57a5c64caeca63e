//! `agentctx context`: the initial context, composed by `agentctx_hooks::compose`.

use std::io::Write;

use agentctx_hooks::{ComposeParts, Host, Part, PartKind, compose, join};

use crate::cli::ContextArgs;
use crate::commands::{Invocation, Outcome, write_json};

pub fn run(inv: &Invocation, args: &ContextArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let host = Host {
        config: &inv.config.config,
        env: &inv.env,
        process_cwd: Some(&inv.cwd),
    };
    let remote = match (&args.github, &args.gitlab) {
        (Some(spec), _) => Some((agentctx_filelist::Platform::GitHub, spec)),
        (_, Some(spec)) => Some((agentctx_filelist::Platform::GitLab, spec)),
        _ => None,
    };
    let mut composed = match remote {
        Some((platform, spec)) => {
            let repo =
                agentctx_filelist::RemoteRepo::parse(platform, spec, args.api_url.as_deref());
            agentctx_hooks::compose_remote(&host, &repo, args.refresh)
        }
        None => compose(&host, &inv.cwd, ComposeParts::ALL),
    };
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
            .find(|p| p.kind == PartKind::Rules)
            .map(|p| p.text.clone());
        // The spec's order: base, extension, tool descriptions; then the
        // AGENTS.md bundle and a system-position file list.
        let head = agentctx_rules::compose_system_prompt(&base, extension.as_deref(), &tools);
        let mut system = vec![Part {
            kind: PartKind::System,
            text: head,
        }];
        system.extend(
            composed
                .system
                .drain(..)
                .filter(|p| p.kind != PartKind::Rules),
        );
        composed.system = system
            .into_iter()
            .filter(|p| !p.text.trim().is_empty())
            .collect();
    }
    if inv.json {
        let tokenizer = agentctx_filelist::Tokenizer::O200k;
        let mut tokens = serde_json::Map::new();
        let mut total = 0;
        for part in composed.parts() {
            let n = tokenizer.count(&part.text);
            total += n;
            let key = serde_json::to_value(part.kind)?
                .as_str()
                .unwrap_or_default()
                .to_owned();
            tokens.insert(key, serde_json::Value::from(n));
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
