//! A session whose commands run as written and are judged by their words
//! (words-only mode, strict mode with `sandbox: off`): what the allowed
//! programs run or read by themselves must stay as the user left it. git
//! runs the repository's hooks; git, curl and jq read configuration the
//! agent could otherwise write first (`.git/config` of any repository in
//! the project, `~/.curlrc`, `~/.jq`); a shell reads its startup files.

use std::path::{Path, PathBuf};

use agentctx_rules::Rules;

use agentctx_session::Host;

/// The programs the model is pointed to when a command is denied.
pub(super) const KNOWN_EXAMPLES: &str =
    "cat, head, tail, grep, rg, ls, find, wc, sort, sed, diff, git status/diff/log/show/add/commit";

/// The user's files the allowed programs read as their own configuration,
/// relative to the home folder (git's and the shells' are
/// `escape::why_escape`'s).
const PROGRAM_CONFIGS: [&str; 3] = [".curlrc", ".config/.curlrc", ".jq"];

/// How much of a git config file is read to look for `core.hooksPath`.
const CONFIG_LIMIT: u64 = 1024 * 1024;

/// The first of the repository's hooks git would run, or the config file
/// that points git at hooks elsewhere (`core.hooksPath`); `None` when git
/// runs no hook here.
pub(super) fn git_hooks(host: &Host<'_>, root: &Path) -> Option<PathBuf> {
    let dirs = git_dirs(root);
    for dir in &dirs {
        let Ok(entries) = std::fs::read_dir(dir.join("hooks")) else {
            continue;
        };
        let mut hooks: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().ends_with(".sample"))
            })
            .collect();
        hooks.sort();
        if let Some(hook) = hooks.into_iter().next() {
            return Some(hook);
        }
    }
    let home = host.home();
    let configs = dirs
        .iter()
        .flat_map(|d| [d.join("config"), d.join("config.worktree")])
        .chain(home.iter().map(|h| h.join(".gitconfig")))
        .chain(
            host.env
                .xdg_dir("XDG_CONFIG_HOME", ".config")
                .map(|d| d.join("git/config")),
        )
        .chain([PathBuf::from("/etc/gitconfig")]);
    configs.into_iter().find(|config| {
        agentctx_fs::read_to_string(config, CONFIG_LIMIT)
            .is_ok_and(|text| text.to_ascii_lowercase().contains("hookspath"))
    })
}

/// The project's git folders: `.git`, or the folder a `.git` file names
/// and its common folder.
fn git_dirs(root: &Path) -> Vec<PathBuf> {
    let dot_git = root.join(".git");
    if dot_git.is_dir() {
        return vec![dot_git];
    }
    let Ok(text) = agentctx_fs::read_to_string(&dot_git, 64 * 1024) else {
        return Vec::new();
    };
    let Some(target) = text.lines().find_map(|l| l.strip_prefix("gitdir:")) else {
        return Vec::new();
    };
    let git = root.join(target.trim());
    let mut dirs = vec![git.clone()];
    if let Ok(common) = agentctx_fs::read_to_string(&git.join("commondir"), 64 * 1024) {
        dirs.push(git.join(common.trim()));
    }
    dirs
}

/// Why a write to `path` is refused in such a session: what runs outside
/// any sandbox later reads it.
pub(super) fn why_write(host: &Host<'_>, rules: &Rules, path: &Path) -> Option<String> {
    if let Some(reason) = crate::escape::why_escape(host, rules, path) {
        return Some(reason);
    }
    if !host.config.project_agent_rules.protect_config {
        return None;
    }
    let target = crate::protect::real_or_lexical(path);
    if let Some(git) = target
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".git"))
    {
        return Some(format!(
            "{} is a git folder, whose configuration and hooks git runs outside any sandbox here",
            git.display()
        ));
    }
    let home = host.home()?;
    PROGRAM_CONFIGS
        .iter()
        .map(|c| home.join(c))
        .find(|c| target.starts_with(c))
        .map(|c| {
            format!(
                "{} configures a program that runs outside any sandbox here",
                c.display()
            )
        })
}
