//! The guard: may this tool call run? The tool by name, then every path
//! it can touch (`targets.rs`): the file tools' fields, a Codex patch's
//! headers (as Codex reads them: lines trimmed, `~` expanded), the files a
//! shell command line names and what it does with them (agentctx-shell),
//! every path an MCP tool's arguments name; each judged where the kernel
//! would open it, writes against what agentctx protects (`protect.rs`,
//! `escape.rs`), searches by every entry they can reach. Input that cannot
//! be read is denied when anything is restricted. Strict mode denies what
//! it cannot verify, and what a shell command does beyond its words is the
//! sandbox's to refuse: [`plan_for`] is what the kernel masks and keeps
//! read-only. docs/SECURITY.md has the table of what each agent's tools
//! get.
//!
//! ```
//! use agentctx_config::Environment;
//! use agentctx_guard::{Guard, Verdict};
//! use agentctx_session::Host;
//! use agentctx_types::Config;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let repo = tempfile::tempdir()?;
//! std::fs::create_dir_all(repo.path().join(".git"))?;
//! std::fs::write(repo.path().join(".git/HEAD"), "ref: refs/heads/main\n")?;
//! std::fs::write(repo.path().join(".coding-agent-rules.yaml"), "file_patterns:\n  exclude: [secrets/]\n")?;
//! std::fs::create_dir(repo.path().join("secrets"))?;
//! std::fs::write(repo.path().join("secrets/key"), "hunter2\n")?;
//! let (config, env) = (Config::default(), Environment::default());
//! let host = Host::new(&config, &env, None);
//! let rules = host.rules(repo.path())?;
//! let cwd = std::fs::canonicalize(repo.path())?;
//! let guard = Guard::new(&host, &rules, &cwd);
//! let mut notes = Vec::new();
//! let read = serde_json::json!({"file_path": "secrets/key"});
//! assert!(matches!(guard.decide("Read", &read, &mut notes), Verdict::Deny(_)));
//! let shell = serde_json::json!({"command": "grep -r token . | head"});
//! assert!(matches!(guard.decide("Bash", &shell, &mut notes), Verdict::Deny(_)));
//! let fine = serde_json::json!({"command": "cat README.md"});
//! assert_eq!(guard.decide("Bash", &fine, &mut notes), Verdict::Allow);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

pub mod commands;
pub mod escape;
mod hard_links;
pub mod network;
mod plan;
pub mod protect;
mod reach;
mod targets;
mod words;

use std::path::{Path, PathBuf};

use agentctx_rules::Rules;
use agentctx_types::RuleDecision;
use serde_json::Value;

use agentctx_session::Host;
use agentctx_shell::{Access, NamedPath, ShellWord, parse_shell};
pub use plan::{
    INIT_PROGRAM, PlanError, ShellRun, codex_permissions, init_program, plan_for, plan_for_run,
    sandbox_optional, sandbox_state, shell_run,
};
use targets::{Target, Targets};

/// The outcome: allowed, or denied with the text the model reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The call may run (the agent's own permission flow stays in charge).
    Allow,
    /// The call does not run; the reason goes to the model.
    Deny(String),
    /// The user is asked (a command rule's `ask`); where the agent cannot
    /// ask, the call is denied with the reason.
    Ask(String),
    /// A search tool's scope holds entries the rules deny: it may run
    /// without them, where the agent's search can be told to leave them
    /// out (Claude Code's `Grep` takes exclusion globs); elsewhere it is
    /// denied with `denial`.
    SearchWithout {
        /// The folder searched.
        scope: PathBuf,
        /// The denied entries, relative to `scope` (folders not walked
        /// into), in walk order.
        left_out: Vec<PathBuf>,
        /// The reason the model reads when the search cannot be narrowed.
        denial: String,
    },
}

/// `path` with `.` and `..` taken by text, as `path.resolve` takes them.
fn lexical_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// How many denied entries a narrowed search leaves out at most; a scope
/// with more is denied (a long exclusion list is a search of the wrong
/// folder).
const MAX_LEFT_OUT: usize = 32;

/// agentctx's MCP tools (server `agentctx`, as `install --mcp` names it)
/// whose path arguments are questions: they open no file they name.
const OWN_QUESTIONS: [&str; 2] = ["agentctx/rules_check", "agentctx/agents_resolve"];

/// How many files a glob pattern may match before it is judged as a
/// search of the folder it starts in.
const MAX_GLOB_MATCHES: usize = 4_096;

/// Everything the decision needs besides the call.
pub struct Guard<'a> {
    /// The invocation.
    pub host: &'a Host<'a>,
    /// The project's rules (of the session's project).
    pub rules: &'a Rules,
    /// The session's directory (canonical).
    pub cwd: &'a Path,
    /// A shell command of this call runs in agentctx's sandbox: what the
    /// kernel refuses is not guessed from its words.
    pub sandboxed: bool,
    /// The session's shell commands run in the sandbox: every tool is
    /// kept from writing what the sandbox keeps read-only (git's config
    /// and hooks, shell startup files), which would run outside it.
    pub session_sandboxed: bool,
    /// The agent's own name for the tool, when its dialect gave it a
    /// shared one (`read_file` for `Read`), and the other names an MCP
    /// tool's may stand for (`a-b-c` is `a/b-c` or `a-b/c`): rules may
    /// name any of them.
    pub native_tool: Option<&'a str>,
    /// See `native_tool`.
    pub aliases: &'a [String],
    /// Why this session's shell commands cannot run in the sandbox that
    /// `sandbox: auto` would have put them in (the agent does not run a
    /// changed command): under rules that restrict files, a command must
    /// be one whose files its words show (`ShellScript::check_words`),
    /// since no kernel catches what they do not; and every tool is kept
    /// from writing what those programs run or read by themselves.
    pub words_only: Option<&'a str>,
}

impl<'a> Guard<'a> {
    /// The guard of a call in `cwd` (canonical) under `rules`, outside any
    /// sandbox, for a tool by its shared name: the fields a hook knows
    /// more about are set on the value returned.
    pub fn new(host: &'a Host<'a>, rules: &'a Rules, cwd: &'a Path) -> Self {
        Self {
            host,
            rules,
            cwd,
            sandboxed: false,
            session_sandboxed: false,
            native_tool: None,
            aliases: &[],
            words_only: None,
        }
    }
}

impl Guard<'_> {
    fn strict(&self) -> bool {
        self.rules.doc().strict || self.host.config.project_agent_rules.strict
    }

    /// Whether this session's commands run as written and are judged by
    /// their words under rules that restrict files (words-only mode, strict
    /// mode with `sandbox: off`).
    fn words_session(&self) -> bool {
        let unsandboxed_strict = self.strict()
            && self.host.config.project_agent_rules.sandbox == agentctx_types::SandboxMode::Off;
        self.rules.restricts_anything() && (self.words_only.is_some() || unsandboxed_strict)
    }

    /// Whether anything is restricted: a rule, or agentctx's own protection.
    pub fn restricting(&self) -> bool {
        self.rules.restricts_anything() || self.host.config.project_agent_rules.protect_config
    }

    /// A path as the tool means it: `~` is the home directory, relative
    /// paths are taken against the session's directory.
    pub fn absolute(&self, path: &str) -> PathBuf {
        match (path.strip_prefix("~/"), self.host.home()) {
            (Some(rest), Some(home)) => home.join(rest),
            _ if path == "~" => self.host.home().unwrap_or_else(|| self.cwd.join(path)),
            _ if path == "." => self.cwd.to_path_buf(),
            _ => self.cwd.join(path.strip_prefix("./").unwrap_or(path)),
        }
    }

    /// Decides the call; `notes` says why, step by step.
    pub fn decide(&self, tool: &str, input: &Value, notes: &mut Vec<String>) -> Verdict {
        let normalized = agentctx_agents::normalize_tool(tool);
        let decision = self.check_tool(&normalized);
        notes.push(format!("tool {normalized}: {}", decision.message));
        if !decision.allowed {
            return self.deny(&decision);
        }
        // agentctx's own MCP tools that answer about a path without opening
        // it (what the rules say, which AGENTS.md apply): a question about
        // an excluded file is not a read of it.
        if OWN_QUESTIONS.contains(&normalized.as_str()) {
            notes.push(format!("{normalized} reads no file it names"));
            return Verdict::Allow;
        }
        // A URL the call fetches (WebFetch, an MCP argument): where it
        // leads, by the network rules.
        let urls = network::urls_in(&normalized, input);
        if !urls.is_empty() {
            let policy = match network::network_policy(self.host, self.rules, &[]) {
                Ok(policy) => policy,
                Err(error) => {
                    return Verdict::Deny(format!(
                        "agentctx denied this call: the network rules cannot be read ({error}); ask the user to fix them."
                    ));
                }
            };
            for url in &urls {
                if let Err(reason) = network::judge_url(policy.as_ref(), url) {
                    notes.push(format!("url {reason}"));
                    return Verdict::Deny(format!(
                        "agentctx denied this call by the network rules: {reason}. Do not try to reach it another way; ask the user to add the host to `network.allow` in the rule file if it is needed."
                    ));
                }
                notes.push(format!("url {url}: allowed"));
            }
        }
        if let Some(problem) = targets::unreadable_shape(input) {
            notes.push(format!("tool input not read: {problem}"));
            if self.restricting() {
                return Verdict::Deny(unreadable_reminder(&problem));
            }
            return Verdict::Allow;
        }
        let strict = self.strict();
        let mut found = Targets::default();
        targets::tool_fields(tool, input, &mut found);
        // Shell command lines (Claude Code's and Codex's `Bash`); a patch
        // is a patch only for the patch tool.
        if tool != "apply_patch"
            && let Some(command) = input.get("command").and_then(Value::as_str)
        {
            match self.shell_targets(command, strict, notes) {
                Ok(named) => targets::shell(named, &mut found),
                Err(verdict) => return verdict,
            }
        }
        // MCP tools: every argument that names a path, whatever its name.
        if normalized.contains('/') {
            targets::mcp_arguments(&normalized, input, self.cwd, &mut found);
        }
        let mut checker = self.rules.file_checker();
        for target in &found.list {
            for (absolute, access) in self.expand(target, notes) {
                let verdict = self.judge(target, &absolute, access, &mut checker, strict, notes);
                if let Some(verdict) = verdict {
                    return verdict;
                }
            }
        }
        Verdict::Allow
    }

    /// The absolute paths a target names: a pattern's matches (or, past
    /// [`MAX_GLOB_MATCHES`], a search of the folder it starts in).
    fn expand(&self, target: &Target, notes: &mut Vec<String>) -> Vec<(PathBuf, Access)> {
        if !target.pattern {
            let absolute = if target.from_root {
                self.rules.root().join(&target.path)
            } else {
                self.absolute(&target.path)
            };
            // `~` is the home folder to a shell and to Claude Code's tools,
            // a folder named `~` to Gemini CLI's and opencode's
            // (`path.resolve`): both are judged.
            let mut paths = vec![(absolute, target.access)];
            if target.path.starts_with('~') && !target.from_root {
                paths.push((self.cwd.join(&target.path), target.access));
            }
            return paths;
        }
        let (base, pattern) = match target.path.strip_prefix("~/") {
            Some(rest) => (
                self.host.home().unwrap_or_else(|| self.cwd.to_path_buf()),
                rest.to_owned(),
            ),
            None => (self.cwd.to_path_buf(), target.path.clone()),
        };
        match agentctx_shell::expand_pattern(&base, &pattern, MAX_GLOB_MATCHES) {
            Ok(matches) => {
                notes.push(format!(
                    "pattern {}: {} matches",
                    target.path,
                    matches.len()
                ));
                matches.into_iter().map(|m| (m, target.access)).collect()
            }
            Err(dir) => {
                notes.push(format!(
                    "pattern {} matches more than {MAX_GLOB_MATCHES}: judged as a search of {}",
                    target.path,
                    dir.display()
                ));
                vec![(dir, Access::Search)]
            }
        }
    }

    /// One path: the rules, agentctx's protection for writes, a search's
    /// scope, strict mode's own checks.
    fn judge(
        &self,
        target: &Target,
        absolute: &Path,
        access: Access,
        checker: &mut agentctx_rules::FileChecker<'_>,
        strict: bool,
        notes: &mut Vec<String>,
    ) -> Option<Verdict> {
        // A search's folder is judged by what it holds (an include list may
        // name `src/**` and not `src` itself); a file is judged as itself.
        let folder_search = access == Access::Search && absolute.is_dir();
        if !folder_search {
            let mut decision = checker.check(absolute);
            notes.push(format!("file {}: {}", target.path, decision.message));
            if !decision.allowed {
                decision.item = target.path.clone();
                return Some(self.deny(&decision));
            }
            if let Some(verdict) = self.judge_other_names(&target.path, absolute, strict, notes) {
                return Some(verdict);
            }
        }
        if access == Access::Write {
            // A file tool given a folder would replace it whole.
            let destructive = crate::protect::DESTRUCTIVE.contains(&target.by.as_str())
                || (targets::WRITE_TOOLS.contains(&target.by.as_str()) && absolute.is_dir());
            let reason =
                crate::protect::why_protected(self.host, self.rules, absolute, destructive)
                    .or_else(|| {
                        // In a sandboxed session what runs outside it stays as it is.
                        (self.sandboxed || self.session_sandboxed)
                            .then(|| crate::escape::why_escape(self.host, self.rules, absolute))
                            .flatten()
                    })
                    .or_else(|| {
                        // Where commands run as written, so does what the
                        // allowed programs run or read by themselves.
                        self.words_session()
                            .then(|| words::why_write(self.host, self.rules, absolute))
                            .flatten()
                    });
            if let Some(reason) = reason {
                notes.push(format!("file {}: {reason}", target.path));
                return Some(Verdict::Deny(protection_reminder(&target.path, &reason)));
            }
            // Outside the sandbox nothing keeps it: the user is asked.
            if !self.sandboxed
                && !self.session_sandboxed
                && let Some(reason) = crate::escape::why_lasting(self.host, self.rules, absolute)
            {
                notes.push(format!("file {}: {reason}", target.path));
                return Some(Verdict::Ask(format!(
                    "agentctx asks before this: {reason}."
                )));
            }
        }
        // A shell search in the sandbox reads what the kernel lets it: the
        // excluded entries of its scope are unreadable there.
        let tool_search = targets::SEARCH_TOOLS.contains(&target.by.as_str());
        // `LINK/..` is the link's parent folder to the kernel and the
        // folder holding the link to an agent that resolves `..` by text
        // (Claude Code's `path.resolve`): both are walked, and a search
        // whose two folders differ is not narrowed (what it leaves out is
        // named relative to one of them).
        let lexical = lexical_normal(absolute);
        let two_folders = lexical != absolute && lexical.is_dir();
        if access == Access::Search
            && (tool_search || !self.sandboxed)
            && two_folders
            && let Some(verdict) = self.search_scope(&lexical, false, notes)
        {
            return Some(verdict);
        }
        if access == Access::Search
            && (tool_search || !self.sandboxed)
            && let Some(verdict) = self.search_scope(absolute, tool_search && !two_folders, notes)
        {
            // A narrowed search is still one of strict mode's files.
            if matches!(verdict, Verdict::SearchWithout { .. })
                && strict
                && let Some(reason) = self.strict_file(absolute)
            {
                notes.push(format!("file {}: {reason}", target.path));
                return Some(Verdict::Deny(strict_reminder(&target.path, &reason)));
            }
            return Some(verdict);
        }
        if strict && let Some(reason) = self.strict_file(absolute) {
            notes.push(format!("file {}: {reason}", target.path));
            return Some(Verdict::Deny(strict_reminder(&target.path, &reason)));
        }
        None
    }

    /// The tool's decision under both its names: denied when `denied_tools`
    /// names either, allowed when `allowed_tools` names either.
    fn check_tool(&self, shared: &str) -> RuleDecision {
        let decision = self.rules.check_tool(shared);
        let others: Vec<RuleDecision> = self
            .native_tool
            .into_iter()
            .chain(self.aliases.iter().map(String::as_str))
            .filter(|name| *name != shared)
            .map(|name| self.rules.check_tool(name))
            .collect();
        let explicit = |d: &RuleDecision| {
            !d.allowed && d.rule != agentctx_types::DecisionRule::NotInAllowedTools
        };
        if explicit(&decision) {
            return decision;
        }
        if let Some(denied) = others.iter().find(|d| explicit(d)) {
            return denied.clone();
        }
        match others.into_iter().find(|d| d.allowed) {
            Some(allowed) if !decision.allowed => allowed,
            _ => decision,
        }
    }

    fn deny(&self, decision: &RuleDecision) -> Verdict {
        Verdict::Deny(agentctx_rules::render_permission_decision(
            decision, self.rules,
        ))
    }

    /// The files a command line names, with what it does with them; in
    /// strict mode without the sandbox, `Err` when the line cannot be
    /// verified from its words.
    fn shell_targets(
        &self,
        command: &str,
        strict: bool,
        notes: &mut Vec<String>,
    ) -> Result<Vec<NamedPath>, Verdict> {
        let words_only = self
            .words_only
            .filter(|_| self.rules.restricts_anything() && !self.sandboxed);
        let verify = (strict && !self.sandboxed) || words_only.is_some();
        let strict_reminder = |item: &str, reason: &str| match words_only {
            Some(why) if !strict => words_reminder(item, reason, why),
            _ => strict_reminder(item, reason),
        };
        let script = match parse_shell(command) {
            Ok(script) => script,
            Err(error) if verify => {
                return Err(Verdict::Deny(strict_reminder(
                    command,
                    &format!("the command line cannot be read: {error}"),
                )));
            }
            // A line that cannot be read may run any command.
            Err(error) if !self.rules.commands().is_empty() => {
                notes.push(format!("shell command not read: {error}"));
                return Err(Verdict::Deny(commands::unreadable(&error.to_string())));
            }
            Err(error) => {
                notes.push(format!("shell command not read (best effort): {error}"));
                return Ok(Vec::new());
            }
        };
        if verify {
            if let Some(what) = script.opaque.first() {
                return Err(Verdict::Deny(strict_reminder(
                    command,
                    &format!("it holds {what}, whose files cannot be known before it runs"),
                )));
            }
            for shell_command in &script.commands {
                let dynamic = shell_command
                    .words
                    .iter()
                    .chain(shell_command.redirects.iter().map(|r| &r.target))
                    .find(|w| matches!(w, ShellWord::Dynamic(_)));
                if let Some(ShellWord::Dynamic(word)) = dynamic {
                    return Err(Verdict::Deny(strict_reminder(
                        command,
                        &format!("`{word}` is only known when the shell runs it"),
                    )));
                }
            }
        }
        let mut named = script.named();
        named.extend(commands::code_paths(&script));
        if verify {
            // Every program must be one whose files its words show.
            let unsandboxed = &self.host.config.project_agent_rules.unsandboxed_programs;
            let checked = script
                .check_words(unsandboxed)
                .map_err(|found| Verdict::Deny(strict_reminder(command, &unverifiable(&found))))?;
            if checked.runs_git
                && let Some(hook) = words::git_hooks(self.host, self.rules.root())
            {
                return Err(Verdict::Deny(strict_reminder(
                    command,
                    &format!(
                        "git runs the repository's hooks ({}), which can open any file; project_agent_rules.unsandboxed_programs can name `git` to run it as written",
                        hook.display()
                    ),
                )));
            }
            named.extend(checked.extra);
        }
        if let Some(verdict) = commands::judge(self.rules, &script, self.cwd, notes) {
            return Err(verdict);
        }
        // Outside the sandbox the command sees the agent's secrets, sets
        // what later commands load, and reaches any host.
        let unsandboxed = (!self.sandboxed).then(|| {
            commands::secrets_revealed(self.host, command, &script)
                .or_else(|| commands::poisons_environment(&script))
                .or_else(|| commands::refused_hosts(self.host, self.rules, &script))
                .or_else(|| commands::hidden_commands(&script))
        });
        if let Some(Some(what)) = unsandboxed {
            notes.push(format!("shell command runs as written and {what}"));
            return Err(Verdict::Ask(format!(
                "agentctx asks before this command: {what}, and it runs outside agentctx's sandbox here."
            )));
        }
        notes.push(format!(
            "shell command: {} paths named ({}{})",
            named.len(),
            if self.sandboxed {
                "the sandbox decides the rest"
            } else {
                "checked as written"
            },
            if strict { ", strict" } else { "" }
        ));
        Ok(named)
    }

    /// Strict mode's own file checks: outside the root only the agents'
    /// state folders; no hard-linked file (one of its other names may be
    /// excluded, and finding them all is not possible in a hook's time).
    fn strict_file(&self, path: &Path) -> Option<String> {
        let target = crate::protect::real_or_lexical(path);
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
    fn search_scope(
        &self,
        scope: &Path,
        narrowable: bool,
        notes: &mut Vec<String>,
    ) -> Option<Verdict> {
        const BUDGET: usize = 20_000;
        let mut checker = self.rules.file_checker();
        // A folder an exclude pattern names is denied whole: leaving out
        // what it holds now would miss what is added before the search.
        let itself = checker.check(scope);
        if !itself.allowed && itself.rule != agentctx_types::DecisionRule::NotIncluded {
            notes.push(format!(
                "search scope {}: {}",
                scope.display(),
                itself.message
            ));
            return Some(Verdict::Deny(search_reminder(
                scope,
                scope,
                &itself.message,
            )));
        }
        let mut stack = vec![scope.to_path_buf()];
        let mut seen = 0;
        // The denied entries found, each left out of a narrowed search.
        let mut denied: Vec<(PathBuf, String)> = Vec::new();
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut children: Vec<_> = entries.flatten().map(|e| e.path()).collect();
            children.sort();
            for child in children {
                seen += 1;
                if seen > BUDGET {
                    return self.large_scope(scope, notes);
                }
                let decision = checker.check(&child);
                if !decision.allowed {
                    notes.push(format!(
                        "search scope {} holds {}: {}",
                        scope.display(),
                        child.display(),
                        decision.message
                    ));
                    if !narrowable || denied.len() >= MAX_LEFT_OUT {
                        return Some(Verdict::Deny(search_reminder(
                            scope,
                            &child,
                            &decision.message,
                        )));
                    }
                    // Not walked into: the narrowed search leaves it whole.
                    denied.push((child, decision.message));
                    continue;
                }
                let meta = std::fs::symlink_metadata(&child);
                if meta.as_ref().is_ok_and(|m| m.is_dir()) {
                    stack.push(child);
                } else if meta.is_ok_and(|m| m.is_file() && hard_links::more_than_one_name(&m)) {
                    let shown = child.display().to_string();
                    if let Some(verdict) =
                        self.judge_other_names(&shown, &child, self.strict(), notes)
                    {
                        notes.push(format!(
                            "search scope {} holds {}",
                            scope.display(),
                            child.display()
                        ));
                        return Some(verdict);
                    }
                }
            }
        }
        if let Some((first, why)) = denied.first() {
            let left_out = denied
                .iter()
                .filter_map(|(path, _)| path.strip_prefix(scope).ok().map(Path::to_path_buf))
                .collect();
            notes.push(format!(
                "search scope {}: searched without the {} entries the rules deny",
                scope.display(),
                denied.len()
            ));
            return Some(Verdict::SearchWithout {
                scope: scope.to_path_buf(),
                left_out,
                denial: search_reminder(scope, first, why),
            });
        }
        notes.push(format!(
            "search scope {}: nothing denied in it",
            scope.display()
        ));
        None
    }
}

impl Guard<'_> {
    /// A search scope too large to walk in a hook's time: judged by the
    /// project's excluded paths as the sandbox's walk found them (kept
    /// between calls, walked again only where a folder changed); a scope
    /// that holds one is denied, and so is one that cannot be judged
    /// (failing open would let a command fill a folder to pass).
    fn large_scope(&self, scope: &Path, notes: &mut Vec<String>) -> Option<Verdict> {
        // The walk's paths are real ones: so is the scope compared with them
        // (`sub/../cfg`, a link to `cfg`).
        let real = std::fs::canonicalize(scope).unwrap_or_else(|_| scope.to_path_buf());
        let scope = real.as_path();
        let state = crate::plan::sandbox_state(self.host);
        let kept = state.as_deref().map(|s| (s, "search-scope"));
        match crate::plan::plan_for(self.host, self.rules, false, kept) {
            Ok(plan) => {
                let hidden = plan
                    .mounts
                    .hidden_dirs
                    .iter()
                    .chain(&plan.mounts.hidden_files)
                    .find(|h| h.starts_with(scope) || scope.starts_with(h));
                match hidden {
                    Some(path) => {
                        notes.push(format!(
                            "search scope {} holds {} (the project's walk)",
                            scope.display(),
                            path.display()
                        ));
                        Some(Verdict::Deny(search_reminder(
                            scope,
                            path,
                            "excluded by the project's rules",
                        )))
                    }
                    None => {
                        notes.push(format!(
                            "search scope {}: large, and nothing excluded in it (the project's walk)",
                            scope.display()
                        ));
                        None
                    }
                }
            }
            Err(error) => {
                let note = format!(
                    "search scope {} is too large to verify ({error})",
                    scope.display()
                );
                notes.push(note);
                Some(Verdict::Deny(agentctx_types::system_reminder(
                    agentctx_types::SystemReminderType::PermissionDecision,
                    &format!(
                        "Denied: a search of `{}`.\nWhy: it is too large for agentctx to tell whether it holds files the rules deny ({error}).\nSearch a smaller directory.",
                        scope.display()
                    ),
                )))
            }
        }
    }
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

fn words_reminder(item: &str, reason: &str, why: &str) -> String {
    agentctx_types::system_reminder(
        agentctx_types::SystemReminderType::PermissionDecision,
        &format!(
            "Denied: `{item}`.\nWhy: this command cannot run in agentctx's sandbox ({why}), so the project's rules are checked on its words alone, and {reason}.\nUse a file tool, or commands of the programs whose files agentctx knows from their words ({}), on paths the rules allow; or ask the user.",
            words::KNOWN_EXAMPLES
        ),
    )
}

/// Why a command's words cannot show its files, and what the user can do.
fn unverifiable(found: &agentctx_shell::Unverifiable) -> String {
    match &found.program {
        Some(program) => format!(
            "{found}; the user can let `{program}` run as written by naming it in project_agent_rules.unsandboxed_programs"
        ),
        None => found.to_string(),
    }
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

fn unreadable_reminder(problem: &str) -> String {
    agentctx_types::system_reminder(
        agentctx_types::SystemReminderType::PermissionDecision,
        &format!(
            "Denied: agentctx could not read this tool call ({problem}), and the project's rules restrict tools and files, so it cannot be allowed.\nRetry the call with plain input."
        ),
    )
}
