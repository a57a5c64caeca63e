//! `agentctx files`: the project's file list.

use std::io::Write;

use agentctx_filelist::{FileListOptions, list_local};

use crate::cli::FilesArgs;
use crate::commands::{Invocation, Outcome, write_json};

pub fn run(inv: &Invocation, args: &FilesArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    if args.github.is_some() || args.gitlab.is_some() || args.from_json.is_some() {
        return remote(inv, args, out);
    }
    let rules = crate::commands::rules::load(inv).ok();
    let (root, mut options) =
        agentctx_context::file_list_setup(&inv.host(), &inv.cwd, rules.as_ref())?;
    with_flags(inv, &mut options, args)?;
    let list = list_local(&root, &options)?;
    if inv.json {
        write_json(out, &list)?;
    } else {
        out.write_all(list.text.as_bytes())?;
    }
    Ok(Outcome::Success)
}

/// The flags on top of what the config and the rule file give.
fn with_flags(
    inv: &Invocation,
    options: &mut FileListOptions,
    args: &FilesArgs,
) -> anyhow::Result<()> {
    let to_usize = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    if let Some(format) = args.format {
        options.format = format;
    }
    if let Some(depth) = args.max_depth {
        options.max_depth = Some(to_usize(depth));
    }
    if let Some(files) = args.max_files {
        options.max_files = Some(to_usize(files));
    }
    options.exclude.extend(args.exclude.iter().cloned());
    options.include.extend(args.include.iter().cloned());
    options.group = !args.no_group;
    options.sizes |= args.sizes;
    options.mtimes |= args.mtime;
    options.follow_links = args.follow;
    options.threads = args.threads;
    options.default_excludes = !args.no_default_excludes;
    options.generated = if args.no_timestamp {
        None
    } else {
        Some(inv.env.generated_at()?)
    };
    if args.token_budget.is_some() {
        options.token_budget = args.token_budget;
    }
    // `--json` reports the count; a budget alone counts only when byte
    // lengths do not decide.
    options.count_tokens = inv.json;
    options.tokenizer = args.tokenizer;
    Ok(())
}

/// `--github`, `--gitlab`, `--from-json`: the same listing from a hosting
/// API. Config and flags apply; a local rule file does not (it belongs to
/// another project).
fn remote(inv: &Invocation, args: &FilesArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    use agentctx_filelist::{Platform, remote};
    let mut options = FileListOptions {
        token_cache: agentctx_context::token_cache(&inv.host()),
        ..FileListOptions::layered(&inv.config.config.file_list_context, &Default::default())
    };
    with_flags(inv, &mut options, args)?;
    let listing = if let Some(source) = &args.from_json {
        let platform = args.platform.unwrap_or(Platform::GitHub);
        let text = if source == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)?;
            text
        } else {
            std::fs::read_to_string(inv.cwd.join(source))
                .map_err(|e| anyhow::anyhow!("cannot read {source}: {e}"))?
        };
        let name = if source == "-" {
            "stdin".to_owned()
        } else {
            source.clone()
        };
        remote::from_json(platform, &text, &name, &name)?
    } else {
        let github = args.github.as_deref();
        let repo =
            crate::commands::remote_repo(github, args.gitlab.as_deref(), args.api_url.as_deref())
                .ok_or_else(|| anyhow::anyhow!("--github or --gitlab is needed"))?;
        let remote_options = agentctx_context::remote_options(
            &inv.host(),
            repo.platform,
            &options,
            args.refresh,
            !args.no_cache,
        );
        remote::fetch(&repo, &remote_options)?
    };
    let list = agentctx_filelist::render_remote(&listing, &options)?;
    if inv.json {
        write_json(out, &list)?;
    } else {
        out.write_all(list.text.as_bytes())?;
    }
    Ok(Outcome::Success)
}
