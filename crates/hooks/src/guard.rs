//! The PreToolUse decision: may this tool call run? The tool by name, then
//! every path it can touch: the known path fields, a Codex patch's headers
//! (as Codex reads them: lines trimmed, `~` expanded), the files a shell
//! command line names, every path-like argument of an MCP tool, the scope
//! of a search; then the files agentctx's own protection covers. Strict
//! mode denies what cannot be verified. docs/SECURITY.md has the table of
//! what each agent's tools get.

use std::path::{Path, PathBuf};

use agentctx_rules::Rules;
use agentctx_types::{HookAgent, RuleDecision};
use serde_json::Value;

use crate::tools::collect_strings;
use crate::{Host, ShellWord, parse_shell, tool_paths};

/// The outcome: allowed, or denied with the text the model reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The call may run (the agent's own permission flow stays in charge).
    Allow,
    /// The call does not run; the reason goes to the model.
    Deny(String),
}

/// Claude Code's tools that change the files they name.
const WRITE_TOOLS: [&str; 5] = ["Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch"];
/// Search tools: they read whatever their scope holds.
const SEARCH_TOOLS: [&str; 3] = ["Grep", "Glob", "LS"];
/// Programs that only read the files they name.
const READERS: [&str; 22] = [
    "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag", "ack", "wc", "ls",
    "stat", "file", "diff", "nl", "bat", "sed", "awk", "find", "tree",
];
/// Programs that run other code from their arguments: strict mode cannot
/// know what that code touches.
const RUNNERS: [&str; 14] = [
    "eval", "source", ".", "sh", "bash", "zsh", "dash", "xargs", "python", "python3", "perl",
    "ruby", "node", "exec",
];

/// Everything the decision needs besides the call.
pub struct Guard<'a> {
    /// The invocation.
    pub host: &'a Host<'a>,
    /// The project's rules (of the session's project).
    pub rules: &'a Rules,
    /// The session's directory (canonical).
    pub cwd: &'a Path,
    /// Which agent.
    pub agent: HookAgent,
}

impl Guard<'_> {
    fn strict(&self) -> bool {
        self.rules.doc().strict || self.host.config.project_agent_rules.strict
    }

    /// A path as the tool means it: `~` is the home directory, relative
    /// paths are taken against the session's directory.
    pub fn absolute(&self, path: &str) -> PathBuf {
        match (path.strip_prefix("~/"), self.host.home()) {
            (Some(rest), Some(home)) => home.join(rest),
            _ if path == "~" => self.host.home().unwrap_or_else(|| self.cwd.join(path)),
            _ => self.cwd.join(path),
        }
    }

    /// Decides the call; `notes` says why, step by step.
    pub fn decide(&self, tool: &str, input: &Value, notes: &mut Vec<String>) -> Verdict {
        let normalized = crate::normalize_tool(tool);
        let decision = self.rules.check_tool(&normalized);
        notes.push(format!("tool {normalized}: {}", decision.message));
        if !decision.allowed {
            return self.deny(&decision);
        }
        let strict = self.strict();
        let mut paths: Vec<(String, bool)> = Vec::new(); // (path, written by the call)
        let writes = WRITE_TOOLS.contains(&tool);
        let search = SEARCH_TOOLS.contains(&tool);
        let scope = input.get("path").and_then(Value::as_str);
        for path in tool_paths(input) {
            // A search's scope is judged by what it holds (below), not as a file.
            if search && Some(path.as_str()) == scope {
                continue;
            }
            paths.push((path, writes));
        }
        // Shell command lines (Claude Code's and Codex's `Bash`).
        if let Some(command) = input.get("command").and_then(Value::as_str)
            && !command.contains("*** Begin Patch")
        {
            match self.shell_paths(command, strict, notes) {
                Ok(found) => paths.extend(found),
                Err(reason) => return Verdict::Deny(reason),
            }
        }
        // MCP tools: every argument that looks like a path, whatever its name.
        if normalized.contains('/') {
            let mut strings = Vec::new();
            collect_strings(input, &mut strings);
            for text in strings {
                if looks_like_path(text) && !paths.iter().any(|(p, _)| p == text) {
                    paths.push((text.to_owned(), false));
                }
            }
        }
        let mut checker = self.rules.file_checker();
        for (path, written) in &paths {
            let absolute = self.absolute(path);
            let mut decision = checker.check(&absolute);
            notes.push(format!("file {path}: {}", decision.message));
            if !decision.allowed {
                decision.item = path.clone();
                return self.deny(&decision);
            }
            if *written && let Some(reason) = self.protected(&absolute) {
                notes.push(format!("file {path}: {reason}"));
                return Verdict::Deny(protection_reminder(path, &reason));
            }
            if strict && let Some(reason) = self.strict_file(&absolute) {
                notes.push(format!("file {path}: {reason}"));
                return Verdict::Deny(strict_reminder(path, &reason));
            }
        }
        if search {
            let scope = scope
                .filter(|p| !p.is_empty())
                .map_or_else(|| self.cwd.to_path_buf(), |p| self.absolute(p));
            if let Some(verdict) = self.search_scope(&scope, strict, notes) {
                return verdict;
            }
        }
        Verdict::Allow
    }

    fn deny(&self, decision: &RuleDecision) -> Verdict {
        Verdict::Deny(agentctx_rules::render_permission_decision(
            decision, self.rules,
        ))
    }

    /// The files a command line names, each with whether the command may
    /// write it; in strict mode, `Err` when the line cannot be verified.
    fn shell_paths(
        &self,
        command: &str,
        strict: bool,
        notes: &mut Vec<String>,
    ) -> Result<Vec<(String, bool)>, String> {
        let script = match parse_shell(command) {
            Ok(script) => script,
            Err(error) if strict => {
                return Err(strict_reminder(
                    command,
                    &format!("the command line cannot be read: {error}"),
                ));
            }
            Err(error) => {
                notes.push(format!("shell command not read (best effort): {error}"));
                return Ok(Vec::new());
            }
        };
        if strict {
            if let Some(what) = script.opaque.first() {
                return Err(strict_reminder(
                    command,
                    &format!("it holds {what}, whose files cannot be known before it runs"),
                ));
            }
            for shell_command in &script.commands {
                let dynamic = shell_command
                    .words
                    .iter()
                    .chain(&shell_command.redirects)
                    .find(|w| matches!(w, ShellWord::Dynamic(_)));
                if let Some(ShellWord::Dynamic(word)) = dynamic {
                    return Err(strict_reminder(
                        command,
                        &format!("`{word}` is only known when the shell runs it"),
                    ));
                }
                let program = shell_command
                    .words
                    .first()
                    .and_then(ShellWord::literal)
                    .map(|w| w.rsplit('/').next().unwrap_or(w).to_owned());
                if let Some(program) = program.filter(|p| RUNNERS.contains(&p.as_str())) {
                    return Err(strict_reminder(
                        command,
                        &format!("`{program}` runs code whose files cannot be known"),
                    ));
                }
            }
        }
        let mut paths = Vec::new();
        for named in script.named() {
            let in_place = script.commands.iter().any(|c| {
                c.words
                    .iter()
                    .filter_map(ShellWord::literal)
                    .any(|w| w == "-i" || w.starts_with("--in-place"))
            });
            let reader = READERS.contains(&named.program.as_str()) && !in_place;
            paths.push((named.path, named.redirect || !reader));
        }
        notes.push(format!(
            "shell command: {} paths named (checked best effort{})",
            paths.len(),
            if strict { ", strict" } else { "" }
        ));
        Ok(paths)
    }

    /// Why `path` is one of the files agentctx protects from the agent (its
    /// rules, its config, the agents' hook settings), if it is.
    fn protected(&self, path: &Path) -> Option<String> {
        if !self.host.config.project_agent_rules.protect_config {
            return None;
        }
        let root = self.rules.root();
        let mut protected: Vec<PathBuf> = self
            .host
            .config
            .project_agent_rules
            .rule_files
            .iter()
            .map(|f| root.join(f))
            .collect();
        for name in [
            ".agentctx.yaml",
            ".claude/settings.json",
            ".claude/settings.local.json",
            ".codex/hooks.json",
            ".codex/config.toml",
        ] {
            protected.push(root.join(name));
        }
        protected.extend(crate::claude_user_settings(self.host.env));
        if let Some(codex) = self.host.codex_home() {
            protected.push(codex.join("config.toml"));
            protected.push(codex.join("hooks.json"));
        }
        if let Some(dir) = self.host.env.xdg_dir("XDG_CONFIG_HOME", ".config") {
            protected.push(dir.join("agentctx/config.yaml"));
        }
        let target = real_or_lexical(path);
        let state = agentctx_config::state_dir(self.host.env).map(|d| real_or_lexical(&d));
        if let Some(state) = state.filter(|s| target.starts_with(s)) {
            return Some(format!(
                "it is agentctx's state ({}), which the agent may not change",
                state.display()
            ));
        }
        protected
            .iter()
            .map(|p| real_or_lexical(p))
            .find(|p| *p == target || eq_ignore_case(p, &target))
            .map(|p| {
                format!(
                    "it is {} ({}); the agent may not change its own rules or hooks (project_agent_rules.protect_config)",
                    describe_protected(&p),
                    p.display()
                )
            })
    }

    /// Strict mode's own file checks: outside the root only the agents'
    /// state folders; no hard-linked file (one of its other names may be
    /// excluded, and finding them all is not possible in a hook's time).
    fn strict_file(&self, path: &Path) -> Option<String> {
        let target = real_or_lexical(path);
        if !target.starts_with(self.rules.root()) {
            let allowed = &self.host.config.project_agent_rules.strict_allowed_outside;
            let home = self.host.home();
            let expanded: Vec<String> = allowed
                .iter()
                .map(|p| match (p.strip_prefix("~/"), &home) {
                    (Some(rest), Some(home)) => home.join(rest).display().to_string(),
                    _ => p.clone(),
                })
                .collect();
            let allowed_here = expanded.iter().any(|pattern| {
                globset::GlobBuilder::new(pattern)
                    .literal_separator(true)
                    .build()
                    .is_ok_and(|g| g.compile_matcher().is_match(&target))
            });
            if !allowed_here {
                return Some(format!(
                    "it is outside the project root {} and not in project_agent_rules.strict_allowed_outside",
                    self.rules.root().display()
                ));
            }
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            if let Ok(meta) = std::fs::metadata(&target)
                && meta.is_file()
                && meta.nlink() > 1
            {
                return Some(format!(
                    "it has {} hard links; strict mode cannot tell whether another of its names is excluded",
                    meta.nlink()
                ));
            }
        }
        None
    }

    /// A search reads every file in its scope: denied when the scope holds
    /// a file the rules deny (the first found is named). The scope is
    /// walked with a budget; past it, strict mode denies and default mode
    /// allows with a note.
    fn search_scope(&self, scope: &Path, strict: bool, notes: &mut Vec<String>) -> Option<Verdict> {
        const BUDGET: usize = 20_000;
        let mut checker = self.rules.file_checker();
        let mut stack = vec![scope.to_path_buf()];
        let mut seen = 0;
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut children: Vec<_> = entries.flatten().map(|e| e.path()).collect();
            children.sort();
            for child in children {
                seen += 1;
                if seen > BUDGET {
                    let note = format!(
                        "search scope {} has more than {BUDGET} entries: not verified",
                        scope.display()
                    );
                    notes.push(note.clone());
                    return strict.then(|| {
                        Verdict::Deny(strict_reminder(&scope.display().to_string(), &note))
                    });
                }
                let decision = checker.check(&child);
                if !decision.allowed {
                    notes.push(format!(
                        "search scope {} holds {}: {}",
                        scope.display(),
                        child.display(),
                        decision.message
                    ));
                    return Some(Verdict::Deny(search_reminder(
                        scope,
                        &child,
                        &decision.message,
                    )));
                }
                if std::fs::symlink_metadata(&child).is_ok_and(|m| m.is_dir()) {
                    stack.push(child);
                }
            }
        }
        notes.push(format!(
            "search scope {}: nothing denied in it",
            scope.display()
        ));
        None
    }
}

fn real_or_lexical(path: &Path) -> PathBuf {
    match agentctx_rules::physical_path(path) {
        agentctx_rules::OnDisk::Resolved(real) => real,
        agentctx_rules::OnDisk::Plain | agentctx_rules::OnDisk::Unresolvable => {
            agentctx_types::normalize_lexically(path)
        }
    }
}

fn eq_ignore_case(a: &Path, b: &Path) -> bool {
    a.to_string_lossy().to_lowercase() == b.to_string_lossy().to_lowercase()
}

fn describe_protected(path: &Path) -> &'static str {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match name {
        ".coding-agent-rules.yaml" | ".coding-agent-rules.md" | "AGENTS.md" => {
            "a project rule file"
        }
        ".agentctx.yaml" | "config.yaml" => "agentctx's config",
        _ => "an agent's hook settings",
    }
}

fn looks_like_path(text: &str) -> bool {
    !text.is_empty()
        && text.len() < 4096
        && !text.contains('\n')
        && (text.starts_with('/')
            || text.starts_with("~/")
            || text.starts_with("./")
            || text.starts_with("../")
            || (text.contains('/') && !text.contains(char::is_whitespace) && !text.contains("://")))
}

fn protection_reminder(path: &str, reason: &str) -> String {
    agentctx_types::system_reminder(
        agentctx_types::SystemReminderType::PermissionDecision,
        &format!(
            "Denied: writing `{path}`.\nWhy: {reason}.\nDo not retry; ask the user to change it."
        ),
    )
}

fn strict_reminder(item: &str, reason: &str) -> String {
    agentctx_types::system_reminder(
        agentctx_types::SystemReminderType::PermissionDecision,
        &format!(
            "Denied: `{item}`.\nWhy: strict mode denies what cannot be verified: {reason}.\nUse a plain command or a file tool on paths the rules allow, or ask the user."
        ),
    )
}

fn search_reminder(scope: &Path, denied: &Path, why: &str) -> String {
    agentctx_types::system_reminder(
        agentctx_types::SystemReminderType::PermissionDecision,
        &format!(
            "Denied: a search of `{}`.\nWhy: it would read `{}`, which the rules deny ({why}).\nSearch inside allowed directories instead.",
            scope.display(),
            denied.display()
        ),
    )
}
