//! What agentctx protects from the agent's writes, so it cannot switch its
//! own rules or hooks off (`project_agent_rules.protect_config`): the rule
//! files at the root, every `.agentctx.yaml`, `.claude/`, `.codex/`,
//! `.gemini/`, `.qwen/` and `.opencode/` folder in the project (hook
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
/// `Dialect::project_config_names`): agentctx's config, and what an agent
/// agentctx does not serve yet runs. Cline CLI 3.0.65
/// (docs/integrations/cline-cli.md, measured) runs the hooks of
/// `.clinerules/hooks` and `.cline/hooks` and the plugins of
/// `.cline/plugins` of the git root at its next session, outside any
/// sandbox and without asking, and loads `.clinerules/` and `.cline/rules`
/// into its system prompt.
const OWN_AND_OTHER_NAMES: [&str; 3] = [".agentctx.yaml", ".cline", ".clinerules"];

/// Every name protected wherever it is in the project (without `.env`,
/// which [`protected_names`] adds where an agent loads it).
pub fn always_protected_names() -> Vec<&'static str> {
    let mut names = OWN_AND_OTHER_NAMES.to_vec();
    for agent in agentctx_types::Agent::ALL {
        names.extend(agentctx_agents::dialect::of(agent).project_config_names());
    }
    names
}

/// The folders below `.github` whose files Copilot CLI loads from the
/// folder a session starts in (1.0.102, measured): repository hooks, which
/// it runs, and its settings.
pub const COPILOT_FOLDERS: [&str; 2] = [".github/hooks", ".github/copilot"];

/// Makes Copilot CLI's folders, empty, in `root` and the session's folder
/// `start` (when inside it) where they are missing: Copilot CLI runs the
/// hooks of `.github/hooks/` in the folder a session starts in, and reads
/// its settings from `.github/copilot/`, whether agentctx is installed for
/// it or not; existing, they are kept read-only by the kernel, so no
/// command can make the next Copilot session run its hook. Empty folders
/// are invisible to git. A `.github` that is a link is left alone.
pub fn make_copilot_folders(root: &Path, start: Option<&Path>) {
    let start = start.filter(|s| s.starts_with(root));
    for dir in std::iter::once(root).chain(start) {
        let github = dir.join(".github");
        if std::fs::symlink_metadata(&github).is_ok_and(|m| !m.is_dir()) {
            continue;
        }
        for folder in COPILOT_FOLDERS {
            let path = dir.join(folder);
            if std::fs::symlink_metadata(&path).is_err() {
                let _ = std::fs::create_dir_all(&path);
            }
        }
    }
}

/// The environment file Gemini CLI and Qwen Code load into their own
/// environment from the folder a session starts in, or the nearest folder
/// above it that has one (up to `/`), and that their hook commands
/// inherit: a `BASH_ENV` in it runs code before agentctx's hook, an
/// `XDG_CONFIG_HOME` points it at another config.
pub const LOADED_ENV_FILE: &str = ".env";

/// Whether an agent that loads a project's `.env` into its hooks'
/// environment (Gemini CLI, Qwen Code) is used on this machine: its user
/// folder exists or its program is on `PATH`. Then `.env` is protected
/// wherever the agent would load it.
pub fn env_files_loaded(host: &Host<'_>) -> bool {
    let folders = host
        .home()
        .is_some_and(|home| [".gemini", ".qwen"].iter().any(|d| home.join(d).is_dir()));
    let programs = host.env.get("PATH").is_some_and(|path| {
        std::env::split_paths(path).any(|dir| {
            ["gemini", "qwen"]
                .iter()
                .any(|p| dir.is_absolute() && dir.join(p).is_file())
        })
    });
    folders || programs
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
/// agent started in the project loads: Claude Code's `.mcp.json` (from the
/// session's folder up to `/`, measured with 2.1.330), and where an agent
/// that loads it is used, `.env` with Gemini CLI's and Qwen Code's
/// folders that hold one. `(folder, name)` pairs, whether they exist or not.
pub fn loaded_above_root(host: &Host<'_>, rules: &Rules) -> Vec<PathBuf> {
    let env = env_files_loaded(host);
    rules
        .root()
        .ancestors()
        .skip(1)
        .flat_map(|dir| {
            let mut names = vec![".mcp.json"];
            if env {
                names.extend([LOADED_ENV_FILE, ".gemini", ".qwen"]);
            }
            names.into_iter().map(move |n| dir.join(n))
        })
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
    if let Some(settings) = agentctx_agents::claude_user_settings(host.env) {
        paths.push(settings.with_file_name("settings.local.json"));
        paths.push(settings);
    }
    if let Some(codex) = host.codex_home() {
        paths.push(codex.join("config.toml"));
        paths.push(codex.join("hooks.json"));
    }
    // Copilot CLI's repository hooks and settings, read from the session's
    // folder.
    for folder in COPILOT_FOLDERS {
        paths.push(root.join(folder));
        if let Some(anchor) = host.anchor {
            paths.push(anchor.start_dir.join(folder));
        }
    }
    // What an agent started in the project loads from the folders above
    // it (in a writable folder such as /tmp, a command could make them).
    paths.extend(loaded_above_root(host, rules));
    // The other agents' user settings (hooks, MCP servers) and opencode's
    // user plugins.
    if let Some(home) = host.home() {
        for file in [
            ".gemini/settings.json",
            // Extensions carry hooks and MCP servers (Gemini CLI's docs).
            ".gemini/extensions",
            ".qwen/settings.json",
            ".qwen/extensions",
            ".copilot/settings.json",
            ".copilot/mcp-config.json",
            // Copilot CLI's user hooks.
            ".copilot/hooks",
            // Cline CLI's user hooks, plugins, rules and settings
            // (`$CLINE_DIR`, default `~/.cline`), and the other folders
            // it runs hooks and plugins from.
            ".cline",
            "Documents/Cline",
            ".agents/plugins",
        ] {
            paths.push(home.join(file));
        }
        if env_files_loaded(host) {
            for file in [LOADED_ENV_FILE, ".gemini/.env", ".qwen/.env"] {
                paths.push(home.join(file));
            }
        }
    }
    if let Some(config) = host.env.xdg_dir("XDG_CONFIG_HOME", ".config") {
        paths.push(config.join("opencode"));
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
        // Copilot CLI runs `.github/hooks/` of the folder a session starts
        // in: any of them.
        let names: Vec<String> = inside
            .components()
            .map(|c| c.as_os_str().to_string_lossy().to_lowercase())
            .collect();
        if names
            .windows(2)
            .any(|pair| pair[0] == ".github" && matches!(pair[1].as_str(), "hooks" | "copilot"))
        {
            return Some(format!(
                "it is Copilot CLI's repository hooks or settings ({}); the agent may not change its own rules or hooks (project_agent_rules.protect_config)",
                target.display()
            ));
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
        "opencode" => "opencode's user config and plugins",
        ".cline" | "Cline" | "plugins" => "Cline CLI's user hooks, plugins and rules",
        _ if path.ends_with("agentctx") => "agentctx",
        _ => "what agentctx protects",
    }
}

fn describe_name(name: &str) -> &'static str {
    match name {
        ".agentctx.yaml" => "agentctx's config",
        ".claude" => "Claude Code's project settings and hooks",
        ".gemini" => "Gemini CLI's project settings and hooks",
        ".qwen" => "Qwen Code's project settings and hooks",
        ".opencode" => "opencode's project plugins and settings",
        ".mcp.json" => "the project's MCP servers",
        ".cline" | ".clinerules" => "Cline CLI's project hooks, plugins and rules",
        ".env" => {
            "an environment file Gemini CLI and Qwen Code load into their hooks' environment (a BASH_ENV there runs before agentctx)"
        }
        "opencode.json" | "opencode.jsonc" => "opencode's config (plugins, MCP servers)",
        _ => "Codex's project settings and hooks",
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
