//! What agentctx protects from the agent's writes, so it cannot switch its
//! own rules or hooks off (`project_agent_rules.protect_config`): the rule
//! files at the root, every `.agentctx.yaml`, and every name an agent's
//! profile says it loads or runs from a project (`.claude/`, `.codex/`,
//! `.gemini/`, `.qwen/`, `.opencode/`, `.cline/`, `.clinerules/`: hook
//! settings, hook scripts, plugins, agent definitions), the root's and the
//! session folder's `.github/hooks` (Copilot CLI's),
//! agentctx's user config and state, the agents' user settings, and the
//! agentctx program itself. Writing, moving or deleting one of them, or a
//! folder that holds one, is denied by the hook; in the sandbox they are
//! read-only.

use std::path::{Path, PathBuf};

use agentctx_rules::Rules;

use agentctx_session::Host;

/// Names protected wherever they are in the project besides the agents'
/// own (each agent's profile names what it loads or runs:
/// `Dialect::project_config_names`): agentctx's config.
const OWN_NAMES: [&str; 1] = [".agentctx.yaml"];

/// Every name protected wherever it is in the project (without `.env`,
/// which [`protected_names`] adds where an agent loads it).
pub fn always_protected_names() -> Vec<&'static str> {
    let mut names = OWN_NAMES.to_vec();
    for agent in agentctx_types::Agent::ALL {
        names.extend(agentctx_agents::dialect::of(agent).project_config_names());
    }
    names
}

/// The folders, relative to a session's start folder, whose files an
/// agent loads or runs from there (each profile's `start_folder_config`:
/// Copilot CLI's `.github/hooks` and `.github/copilot`).
pub fn start_folder_configs() -> Vec<&'static str> {
    agentctx_types::Agent::ALL
        .into_iter()
        .flat_map(|agent| agentctx_agents::dialect::of(agent).start_folder_config())
        .copied()
        .collect()
}

/// Makes [`start_folder_configs`], empty, in `root` and the session's
/// folder `start` (when inside it) where they are missing: an agent loads
/// them from the folder a session starts in whether agentctx is installed
/// for it or not; existing, they are kept read-only by the kernel, so no
/// command can make the next session run its hook. Empty folders are
/// invisible to git. A folder on the way that is not a folder (a link) is
/// left alone.
pub fn make_start_folder_configs(root: &Path, start: Option<&Path>) {
    let start = start.filter(|s| s.starts_with(root));
    for dir in std::iter::once(root).chain(start) {
        for folder in start_folder_configs() {
            let path = dir.join(folder);
            let linked = Path::new(folder)
                .ancestors()
                .skip(1)
                .filter(|a| !a.as_os_str().is_empty())
                .any(|a| std::fs::symlink_metadata(dir.join(a)).is_ok_and(|m| !m.is_dir()));
            if !linked && std::fs::symlink_metadata(&path).is_err() {
                let _ = std::fs::create_dir_all(&path);
            }
        }
    }
}

/// The environment file an agent loads into its own environment from the
/// folder a session starts in, or the nearest folder above it that has one
/// (up to `/`), and that its hook commands inherit: a `BASH_ENV` in it
/// runs code before agentctx's hook, an `XDG_CONFIG_HOME` points it at
/// another config.
pub const LOADED_ENV_FILE: &str = ".env";

/// The user folders (below the home) of every agent that loads a
/// project's `.env` into its hooks' environment, when any of them is used
/// on this machine (its folder exists or its program is on `PATH`); empty:
/// `.env` is not protected. All of them, not only the one in use: a file
/// planted for an agent installed later would steer it then.
pub fn env_file_loaders(host: &Host<'_>) -> Vec<&'static str> {
    let home = host.home();
    let path = host.env.get("PATH");
    let loaders: Vec<(&'static str, &'static str)> = agentctx_types::Agent::ALL
        .into_iter()
        .filter_map(|agent| agentctx_agents::dialect::of(agent).loads_env_file())
        .collect();
    let used = loaders.iter().any(|(folder, program)| {
        let used_folder = home.as_ref().is_some_and(|h| h.join(folder).is_dir());
        let on_path = path.is_some_and(|path| {
            std::env::split_paths(path).any(|dir| dir.is_absolute() && dir.join(program).is_file())
        });
        used_folder || on_path
    });
    if used {
        loaders.into_iter().map(|(folder, _)| folder).collect()
    } else {
        Vec::new()
    }
}

/// Whether an agent that loads a project's `.env` into its hooks'
/// environment is used on this machine ([`env_file_loaders`]). Then
/// `.env` is protected wherever the agent would load it.
pub fn env_files_loaded(host: &Host<'_>) -> bool {
    !env_file_loaders(host).is_empty()
}

/// The names protected wherever they are in the project:
/// [`always_protected_names`], and `.env` where an agent on this machine
/// loads it.
pub fn protected_names(host: &Host<'_>) -> Vec<&'static str> {
    let mut names = always_protected_names();
    if env_files_loaded(host) {
        names.push(LOADED_ENV_FILE);
    }
    names
}

/// The folders above the project's root (up to `/`) whose agent files an
/// agent started in the project loads: each profile's
/// `config_names_above_root` (Claude Code's `.mcp.json`), and where an
/// agent that loads it is used, `.env` and that agent's folder, which may
/// hold one. Whether they exist or not.
pub fn loaded_above_root(host: &Host<'_>, rules: &Rules) -> Vec<PathBuf> {
    let mut names: Vec<&str> = agentctx_types::Agent::ALL
        .into_iter()
        .flat_map(|agent| agentctx_agents::dialect::of(agent).config_names_above_root())
        .copied()
        .collect();
    let loaders = env_file_loaders(host);
    if !loaders.is_empty() {
        names.push(LOADED_ENV_FILE);
        names.extend(loaders);
    }
    rules
        .root()
        .ancestors()
        .skip(1)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .collect()
}

/// The protected paths outside the project's names, absolute.
pub fn protected_paths(host: &Host<'_>, rules: &Rules) -> Vec<PathBuf> {
    let root = rules.root();
    let mut paths: Vec<PathBuf> = host
        .config
        .project_agent_rules
        .rule_files
        .iter()
        .map(|f| root.join(f))
        .collect();
    // The agents' user settings (hooks, MCP servers, extensions, plugins).
    for agent in agentctx_types::Agent::ALL {
        paths.extend(agentctx_agents::dialect::of(agent).user_config_paths(host.env));
    }
    // What an agent loads or runs from the folder a session starts in
    // (Copilot CLI's repository hooks and settings).
    for folder in start_folder_configs() {
        paths.push(root.join(folder));
        if let Some(anchor) = host.anchor {
            paths.push(anchor.start_dir.join(folder));
        }
    }
    // What an agent started in the project loads from the folders above
    // it (in a writable folder such as /tmp, a command could make them).
    paths.extend(loaded_above_root(host, rules));
    if let Some(home) = host.home() {
        let loaders = env_file_loaders(host);
        if !loaders.is_empty() {
            paths.push(home.join(LOADED_ENV_FILE));
            for folder in loaders {
                paths.push(home.join(folder).join(LOADED_ENV_FILE));
            }
        }
    }
    if let Some(dir) = host.env.xdg_dir("XDG_CONFIG_HOME", ".config") {
        paths.push(dir.join("agentctx"));
    }
    if let Some(state) = agentctx_config::state_dir(host.env) {
        paths.push(state);
    }
    // The program the hooks run: replaced by one that answers nothing,
    // every hook would allow.
    if let Ok(exe) = std::env::current_exe() {
        let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
        paths.push(exe.with_file_name(crate::INIT_PROGRAM));
        paths.push(exe);
    }
    paths
}

/// The protection the sandbox is given.
pub fn protection(host: &Host<'_>, rules: &Rules) -> agentctx_sandbox::Protection {
    agentctx_sandbox::Protection {
        names: protected_names(host)
            .iter()
            .map(|n| (*n).to_owned())
            .collect(),
        paths: protected_paths(host, rules),
        ..agentctx_sandbox::Protection::default()
    }
}

/// Programs that delete, move or re-permission what they name: naming a
/// folder that holds a protected path takes that path along.
pub const DESTRUCTIVE: [&str; 12] = [
    "rm", "rmdir", "mv", "unlink", "shred", "find", "rsync", "git", "chmod", "chown", "chattr",
    "setfacl",
];

/// Why writing `path` (absolute) is denied, if it is: it is protected, it
/// is inside a protected folder, or (`destructive`: a delete, a move, a
/// change of mode) it is a folder that holds a protected path.
pub fn why_protected(
    host: &Host<'_>,
    rules: &Rules,
    path: &Path,
    destructive: bool,
) -> Option<String> {
    if !host.config.project_agent_rules.protect_config {
        return None;
    }
    let target = real_or_lexical(path);
    let root = rules.root();
    for protected in protected_paths(host, rules) {
        let protected = real_or_lexical(&protected);
        if same(&target, &protected) || starts_with_ci(&target, &protected) {
            return Some(describe(&protected));
        }
        if destructive && starts_with_ci(&protected, &target) {
            return Some(format!(
                "it holds {} ({}), which the agent may not change",
                describe_short(&protected),
                protected.display()
            ));
        }
    }
    // A protected name anywhere in the project, on the path or at it; in
    // one of the worktrees Claude Code keeps in `.claude/worktrees/`, as in
    // the project (the worktree's own `.claude/` is protected, the folder
    // that holds the worktree is not its settings).
    let main = rules.main_checkout();
    if let Ok(relative) = target.strip_prefix(main) {
        let (checkout, inside) = innermost_checkout(main, relative);
        // What an agent loads from the folder a session starts in (Copilot
        // CLI's `.github/hooks`): any of them, in whichever folder.
        let names: Vec<String> = inside
            .components()
            .map(|c| c.as_os_str().to_string_lossy().to_lowercase())
            .collect();
        for folder in start_folder_configs() {
            let parts: Vec<String> = folder.split('/').map(str::to_lowercase).collect();
            if names.windows(parts.len()).any(|w| w == parts.as_slice()) {
                let what = agentctx_types::Agent::ALL
                    .into_iter()
                    .find_map(|agent| agentctx_agents::dialect::of(agent).describe_config(folder))
                    .unwrap_or("an agent's settings it loads from a session's folder");
                return Some(format!(
                    "it is {what} ({}); the agent may not change its own rules or hooks (project_agent_rules.protect_config)",
                    target.display()
                ));
            }
        }
        let names_here = protected_names(host);
        let hit = inside.components().find_map(|c| {
            let name = c.as_os_str().to_string_lossy();
            names_here
                .iter()
                .find(|p| p.eq_ignore_ascii_case(&name))
                .copied()
        });
        if let Some(name) = hit {
            return Some(format!(
                "it is {} ({}); the agent may not change its own rules or hooks (project_agent_rules.protect_config)",
                describe_name(name),
                target.display()
            ));
        }
        // The rule file of every checkout (a session in a worktree reads
        // the worktree's, one in the project the project's), and a
        // worktree's `.git` (a file naming the git folder whose config git
        // then reads).
        let rule_file = host
            .config
            .project_agent_rules
            .rule_files
            .iter()
            .any(|f| f.eq_ignore_ascii_case(&inside.to_string_lossy()));
        let git_link = checkout != main && inside == Path::new(".git");
        if rule_file || git_link {
            return Some(format!(
                "it is {} of {} ({}); the agent may not change its own rules or hooks (project_agent_rules.protect_config)",
                if rule_file {
                    "the project rule file"
                } else {
                    "the link to the git folder"
                },
                checkout.display(),
                target.display()
            ));
        }
        // A folder of the project that holds the root's protected entries
        // (the root itself, `.github` for `.github/AGENTS.md`).
        for name in names_here.iter().filter(|_| destructive) {
            for checkout in [root, main] {
                if std::fs::symlink_metadata(checkout.join(name)).is_ok()
                    && checkout.join(name).starts_with(&target)
                {
                    return Some(format!(
                        "it holds {} ({}), which the agent may not change",
                        describe_name(name),
                        checkout.join(name).display()
                    ));
                }
            }
        }
    }
    None
}

/// The checkout `relative` (to the main checkout `main`) lies in, and the
/// path inside it: the main checkout, or the innermost of the worktrees
/// Claude Code keeps in `.claude/worktrees/<name>`, each of them a checkout
/// (its `.git` is a file).
fn innermost_checkout<'p>(main: &Path, relative: &'p Path) -> (PathBuf, &'p Path) {
    let depth = relative.components().count();
    agentctx_rules::counterparts(relative)
        .skip(1)
        .map(|inside| {
            let prefix: PathBuf = relative
                .components()
                .take(depth - inside.components().count())
                .collect();
            (main.join(prefix), inside)
        })
        .take_while(|(checkout, _)| {
            std::fs::symlink_metadata(checkout.join(".git")).is_ok_and(|m| m.is_file())
        })
        .last()
        .unwrap_or_else(|| (main.to_path_buf(), relative))
}

fn describe(path: &Path) -> String {
    format!(
        "{} ({}); the agent may not change its own rules or hooks (project_agent_rules.protect_config)",
        describe_short(path),
        path.display()
    )
}

fn describe_short(path: &Path) -> &'static str {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match name {
        ".coding-agent-rules.yaml" | ".coding-agent-rules.md" | "AGENTS.md" => {
            "a project rule file"
        }
        ".agentctx.yaml" | "config.yaml" | "agentctx" => "agentctx's config",
        "state" => "agentctx's state",
        "settings.json"
        | "settings.local.json"
        | "hooks.json"
        | "config.toml"
        | "hooks"
        | "mcp-config.json" => "an agent's hook settings",
        _ if path.ends_with("agentctx") => "agentctx",
        _ => agentctx_types::Agent::ALL
            .into_iter()
            .find_map(|agent| agentctx_agents::dialect::of(agent).describe_config(name))
            .unwrap_or("what agentctx protects"),
    }
}

fn describe_name(name: &str) -> &'static str {
    match name {
        ".agentctx.yaml" => "agentctx's config",
        ".env" => {
            // Which agents load it is their profiles' (`loads_env_file`).
            "an environment file an agent loads into its hooks' environment (a BASH_ENV there runs before agentctx)"
        }
        _ => agentctx_types::Agent::ALL
            .into_iter()
            .find_map(|agent| agentctx_agents::dialect::of(agent).describe_config(name))
            .unwrap_or("an agent's project settings"),
    }
}

fn same(a: &Path, b: &Path) -> bool {
    a == b || a.to_string_lossy().to_lowercase() == b.to_string_lossy().to_lowercase()
}

/// `path` is `base` or below it, comparing case-insensitively (a
/// case-insensitive file system opens `.CLAUDE` as `.claude`).
fn starts_with_ci(path: &Path, base: &Path) -> bool {
    let path = path.to_string_lossy().to_lowercase();
    let base = base.to_string_lossy().to_lowercase();
    path == base || path.starts_with(&format!("{}/", base.trim_end_matches('/')))
}

/// Where the kernel would open `path`: symlinks resolved as far as they
/// exist, else the path normalized.
pub fn real_or_lexical(path: &Path) -> PathBuf {
    match agentctx_rules::physical_path(path) {
        agentctx_rules::OnDisk::Resolved(real) => real,
        agentctx_rules::OnDisk::Plain | agentctx_rules::OnDisk::Unresolvable => {
            agentctx_types::normalize_lexically(path)
        }
    }
}
