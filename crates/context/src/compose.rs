//! The initial context: the rules' prompt extension, the AGENTS.md chain
//! and the file list, composed for a working directory.
//!
//! Byte-stable: the same project gives the same text, so an agent's prompt
//! cache keeps it. Nothing in it depends on the clock.

use std::path::Path;

use agentctx_filelist::{FileListOptions, list_local};
use agentctx_types::{ComposedContext, ContextPart, ContextPartKind};

use agentctx_session::Host;

/// Which parts to compose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComposeParts {
    /// The rules' prompt extension.
    pub rules: bool,
    /// How much of the AGENTS.md chain (none where the agent loads it
    /// itself).
    pub agents: ChainPart,
    /// The file list (when `file_list_context.enabled`).
    pub files: bool,
}

impl ComposeParts {
    /// Everything.
    pub const ALL: Self = Self {
        rules: true,
        agents: ChainPart::Whole,
        files: true,
    };
}

/// How much of the AGENTS.md chain from the root to the cwd to compose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainPart {
    /// None of it: the agent loads it itself.
    None,
    /// All of it.
    Whole,
    /// All but the cwd's own AGENTS.md, which the agent loads itself
    /// (Cline CLI loads that one and no other).
    AboveCwd,
}

/// `composed` with a caller's base system prompt and tool descriptions
/// around the rules' extension, in the spec's order: base, extension,
/// tool descriptions (one `system` part); then the AGENTS.md chain and a
/// system-position file list as they were. Empty parts are dropped.
pub fn with_system_prompt(
    mut composed: ComposedContext,
    base: &str,
    tool_descriptions: &str,
) -> ComposedContext {
    let extension = composed
        .system
        .iter()
        .find(|p| p.kind == ContextPartKind::Rules)
        .map(|p| p.text.clone());
    let head = agentctx_rules::compose_system_prompt(base, extension.as_deref(), tool_descriptions);
    let rest = composed
        .system
        .drain(..)
        .filter(|p| p.kind != ContextPartKind::Rules);
    composed.system = std::iter::once(ContextPart {
        kind: ContextPartKind::System,
        text: head,
    })
    .chain(rest)
    .filter(|p| !p.text.trim().is_empty())
    .collect();
    composed
}

/// Fills `composed.tokens`: o200k tokens per part kind, and `total`.
pub fn count_tokens(composed: &mut ComposedContext) {
    let tokenizer = agentctx_filelist::Tokenizer::O200k;
    let mut tokens = std::collections::BTreeMap::new();
    let mut total = 0;
    for part in composed.parts() {
        let n = tokenizer.count(&part.text) as u64;
        total += n;
        *tokens.entry(part.kind.as_str().to_owned()).or_insert(0) += n;
    }
    tokens.insert("total".to_owned(), total);
    composed.tokens = Some(tokens);
}

/// Where line token counts are kept between runs (a budget then needs no
/// tokenizer on an unchanged tree).
pub fn token_cache(host: &Host<'_>) -> Option<std::path::PathBuf> {
    host.env
        .xdg_dir("XDG_CACHE_HOME", ".cache")
        .map(|d| d.join("agentctx/filelist-tokens"))
}

/// Composes the chosen parts for `cwd`.
pub fn compose(host: &Host<'_>, cwd: &Path, which: ComposeParts) -> ComposedContext {
    let mut composed = ComposedContext::default();
    let rules = match host.rules(cwd) {
        Ok(rules) => {
            if let Some(error) = rules.error() {
                composed.warnings.push(format!("rule file: {error}"));
            }
            if which.rules
                && let Some(text) = rules
                    .prompt_extension()
                    .map(str::trim_end)
                    .filter(|t| !t.is_empty())
            {
                composed.system.push(ContextPart {
                    kind: ContextPartKind::Rules,
                    text: text.to_owned(),
                });
            }
            Some(rules)
        }
        Err(error) => {
            composed.warnings.push(format!("rules left out: {error}"));
            None
        }
    };
    if which.agents != ChainPart::None {
        match agentctx_core::start_session(cwd, &host.config.agents, host.home()) {
            Ok(mut started) => {
                composed
                    .warnings
                    .extend(started.chain.warnings.iter().map(ToString::to_string));
                if which.agents == ChainPart::AboveCwd {
                    let cwd = started.root.cwd.as_path();
                    started
                        .chain
                        .adopted
                        .retain(|a| a.file.path.parent() != Some(cwd));
                }
                let text = started.chain.render();
                if !text.is_empty() {
                    composed.system.push(ContextPart {
                        kind: ContextPartKind::Agents,
                        text,
                    });
                }
            }
            Err(error) => composed
                .warnings
                .push(format!("AGENTS.md left out: {error}")),
        }
    }
    let files_config = &host.config.file_list_context;
    if which.files && files_config.enabled {
        match file_list(host, cwd, rules.as_ref()) {
            Ok(text) => composed.place_file_list(files_config.position, text),
            Err(error) => composed
                .warnings
                .push(format!("file list left out: {error}")),
        }
    }
    composed
}

/// Why the file list was left out.
#[derive(Debug, thiserror::Error)]
enum FileListProblem {
    #[error(transparent)]
    Root(#[from] agentctx_core::CoreError),
    #[error(transparent)]
    List(#[from] agentctx_filelist::FileListError),
}

fn file_list(
    host: &Host<'_>,
    cwd: &Path,
    rules: Option<&agentctx_rules::Rules>,
) -> Result<String, FileListProblem> {
    let (root, options) = file_list_setup(host, cwd, rules)?;
    Ok(list_local(&root, &options)?.text)
}

/// The root a local file list starts at and the options the config and
/// the rule file's `file_list` give (patterns added, depth and format
/// replaced), with line counts kept in [`token_cache`]. The rules know the
/// root; without them (rules that failed to load) it is found again.
/// A root that no marker makes a project's (a home, a scratch folder) is
/// listed `outside_project`. Callers put their own flags on top.
pub fn file_list_setup(
    host: &Host<'_>,
    cwd: &Path,
    rules: Option<&agentctx_rules::Rules>,
) -> Result<(std::path::PathBuf, FileListOptions), agentctx_core::CoreError> {
    let root = match rules {
        Some(rules) => rules.root().to_path_buf(),
        None => host.root(cwd)?.root,
    };
    let overrides = rules.map(|r| r.rule_set().file_list).unwrap_or_default();
    let options = FileListOptions {
        token_cache: token_cache(host),
        outside_project: !is_project_root(host, &root),
        ..FileListOptions::layered(&host.config.file_list_context, &overrides)
    };
    Ok((root, options))
}

/// Whether `root` is a project's root: set by hand, or holding a root
/// marker (never the home folder, which no marker makes a root). The root
/// may come from the session's anchor or the rules, so it is asked again
/// rather than taken from how it was found.
fn is_project_root(host: &Host<'_>, root: &Path) -> bool {
    use agentctx_types::RootSource;
    match host.root(root) {
        Ok(found) => match found.source {
            RootSource::Override => true,
            RootSource::Marker => found.root == root,
            RootSource::Cwd => false,
        },
        Err(_) => false,
    }
}
