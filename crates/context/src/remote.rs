//! The initial context for a repository that is not cloned
//! (`agentctx context --github OWNER/REPO[@REF]`): a task on an issue or
//! pull request of a remote repository.
//!
//! The file list comes from the hosting API (cached, one deadline, the
//! commit named in its header); AGENTS.md is the remote's own, at the root
//! of that commit, when it has one. The local project's rules and AGENTS.md
//! chain are left out: they belong to another project. The remote's rule
//! files are not applied either: rules guard the tools of a local session,
//! and a repository someone else controls does not get to extend this
//! session's system prompt.

use std::time::Duration;

use agentctx_filelist::{
    FileListOptions, Platform, RemoteError, RemoteOptions, RemoteRepo, remote,
};
use agentctx_types::{ComposedContext, ContextPart, ContextPartKind, FileListOverrides};

use agentctx_session::Host;

/// How to fetch a remote listing rendered with `options`: the platform's
/// token from the environment, the config's time limit and cache (none
/// when `use_cache` is false or `cache_ttl_secs` is 0), and the depth a
/// truncated tree is completed to. `agentctx files` and `agentctx
/// context` both fetch with it.
pub fn remote_options(
    host: &Host<'_>,
    platform: Platform,
    options: &FileListOptions,
    refresh: bool,
    use_cache: bool,
) -> RemoteOptions {
    let config = &host.config.file_list_context;
    RemoteOptions {
        token: platform
            .token_vars()
            .iter()
            .find_map(|v| host.env.get(v))
            .map(str::to_owned),
        timeout: options.timeout,
        max_depth: remote::completion_depth(options),
        cache_dir: (use_cache && config.cache_ttl_secs > 0)
            .then(|| match config.cache_dir.as_deref() {
                Some(dir) => match (dir.strip_prefix("~/"), host.home()) {
                    (Some(rest), Some(home)) => Some(home.join(rest)),
                    _ => Some(std::path::PathBuf::from(dir)),
                },
                None => host
                    .env
                    .xdg_dir("XDG_CACHE_HOME", ".cache")
                    .map(|d| d.join("agentctx/filelist")),
            })
            .flatten(),
        cache_ttl: Duration::from_secs(config.cache_ttl_secs),
        refresh,
    }
}

/// Composes the context of `repo` (file list and the remote's root
/// AGENTS.md). A repository that cannot be listed (a name that cannot be
/// one, no network, not found, rate limited, ...) is an error: a context
/// without the repository it is about is no context for it. Its AGENTS.md
/// failing is left out with a warning.
pub fn compose_remote(
    host: &Host<'_>,
    repo: &RemoteRepo,
    refresh: bool,
) -> Result<ComposedContext, RemoteError> {
    let mut composed = ComposedContext::default();
    let config = &host.config.file_list_context;
    let options = FileListOptions {
        token_cache: crate::compose::token_cache(host),
        ..FileListOptions::layered(config, &FileListOverrides::default())
    };
    let remote_options = remote_options(host, repo.platform, &options, refresh, true);
    let listing = remote::fetch(repo, &remote_options)?;
    let has_agents_md = listing
        .entries
        .iter()
        .any(|e| !e.is_dir && e.path == "AGENTS.md");
    if let (true, Some(commit)) = (has_agents_md, &listing.commit) {
        match remote::fetch_file(repo, commit, "AGENTS.md", &remote_options) {
            Ok(Some(text)) => composed.system.push(ContextPart {
                kind: ContextPartKind::Agents,
                text: agentctx_core::render_initial_block([(
                    format!("{}@{commit}:AGENTS.md", repo.repo),
                    text.trim_end(),
                )]),
            }),
            Ok(None) => composed
                .warnings
                .push("AGENTS.md left out: missing or larger than 256 KiB".to_owned()),
            Err(error) => composed
                .warnings
                .push(format!("AGENTS.md left out: {error}")),
        }
    }
    if !config.enabled {
        return Ok(composed);
    }
    match agentctx_filelist::render_remote(&listing, &options) {
        Ok(list) => composed.place_file_list(config.position, list.text),
        Err(error) => composed
            .warnings
            .push(format!("file list left out: {error}")),
    }
    Ok(composed)
}
