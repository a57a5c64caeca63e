//! The rules in force for one project, and their decisions.

use std::path::{Path, PathBuf};

use agentctx_types::{
    DecisionRule, DecisionSubject, ProjectAgentRulesConfig, RuleDecision, RuleFileCapture, RuleSet,
    RulesSource,
};

use agentctx_types::RuleFinding;

use crate::commands::{CommandMatch, CommandRuleOrigin, CommandRules, Invocation, Places};
use crate::doc::{Entry, RuleDoc};
use crate::error::RuleFileError;
use crate::paths::{LinkScanner, OnDisk, normalize_lexically};
use crate::patterns::EntryPatterns;
use crate::tools::ToolList;

/// The rules in force for a project root, compiled once. Build with
/// [`Rules::load`]; decide with [`Rules::check_tool`] and
/// [`Rules::check_file`] (or a [`FileChecker`] for many paths).
#[derive(Debug)]
pub struct Rules {
    root: PathBuf,
    /// The project's main checkout: `root`, or, when `root` is one of the
    /// worktrees Claude Code keeps in `<project>/.claude/worktrees/<name>`,
    /// that project. Paths are judged relative to it.
    main_checkout: PathBuf,
    /// `root` relative to `main_checkout` (empty when they are one).
    root_in_checkout: PathBuf,
    /// `source` as text, formatted once: decisions cite it by the thousand.
    source_label: Option<String>,
    source: RulesSource,
    doc: RuleDoc,
    allowed: Option<ToolList>,
    denied: ToolList,
    include: Option<EntryPatterns>,
    exclude: EntryPatterns,
    /// `exclude` entries written `~/...`: paths in the home directory.
    home_exclude: EntryPatterns,
    home: Option<PathBuf>,
    warnings: Vec<RuleFinding>,
    error: Option<RuleFileError>,
    /// `commands`, the presets, and the user's config's.
    commands: CommandRules,
    /// `project_agent_rules.home_secrets`, in `home_exclude` too.
    home_secrets: Vec<Entry>,
    /// The entries of `project_agent_rules.user_rules`, merged into `doc`.
    user_entries: Vec<Entry>,
}

/// The config's `default_rules` (or its `commands` or `presets`) hold an
/// invalid pattern. This is a config error (the config loader reports it
/// like any other), not a rule-file one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("project_agent_rules.{key}: invalid pattern `{pattern}`: {message}")]
pub struct DefaultRulesError {
    /// The key under `project_agent_rules`.
    pub key: &'static str,
    /// The pattern.
    pub pattern: String,
    /// What is wrong with it.
    pub message: String,
}

impl Rules {
    /// Finds and loads the rule file for `root` (the first of
    /// `config.rule_files` that exists). A broken file never fails the load:
    /// it is kept in [`Rules::error`] and the rules become `default_rules`,
    /// or deny everything under `on_error: deny_all`.
    pub fn load(root: &Path, config: &ProjectAgentRulesConfig) -> Result<Self, DefaultRulesError> {
        let capture = Self::capture(root, config);
        Self::from_capture(root, config, &capture)
    }

    /// Reads the rule file of `root` as it is now, to decide from later
    /// ([`Rules::from_capture`]) whatever the file holds by then: a
    /// session's rules are fixed at its start.
    pub fn capture(root: &Path, config: &ProjectAgentRulesConfig) -> RuleFileCapture {
        let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| normalize_lexically(root));
        if !config.enabled {
            return RuleFileCapture::None;
        }
        let path = config
            .rule_files
            .iter()
            .map(|c| real_root.join(c))
            .find(|p| std::fs::symlink_metadata(p).is_ok());
        let Some(path) = path else {
            return RuleFileCapture::None;
        };
        match crate::source::read_rule_text(&path) {
            Ok(text) => RuleFileCapture::File { path, text },
            Err(error) => RuleFileCapture::Unreadable {
                path,
                message: error.message,
                line: error.line,
            },
        }
    }

    /// The rules of `root` from a captured rule file.
    pub fn from_capture(
        root: &Path,
        config: &ProjectAgentRulesConfig,
        capture: &RuleFileCapture,
    ) -> Result<Self, DefaultRulesError> {
        let mut rules = Self::from_capture_alone(root, config, capture)?;
        if config.enabled && !config.user_rules.is_empty() && !rules.denies_everything() {
            rules = rules.with_user_rules(&config.user_rules)?;
        }
        if config.enabled {
            rules.commands = crate::commands::compile(&rules.doc, config)?;
            rules.add_home_secrets(&config.home_secrets)?;
        }
        Ok(rules)
    }

    /// The user's rules under these: what restricts adds to the project's.
    fn with_user_rules(self, user: &agentctx_types::UserRules) -> Result<Self, DefaultRulesError> {
        let added = RuleDoc::from_rule_set(&user.to_rule_set());
        let mut doc = self.doc.clone();
        doc.system_prompt_extension =
            match (added.system_prompt_extension, doc.system_prompt_extension) {
                (Some(mine), Some(project)) => Some(format!("{mine}\n\n{project}")),
                (mine, project) => mine.or(project),
            };
        doc.denied_tools.extend(added.denied_tools.iter().cloned());
        doc.exclude.extend(added.exclude.iter().cloned());
        doc.commands_deny
            .extend(added.commands_deny.iter().cloned());
        doc.commands_ask.extend(added.commands_ask.iter().cloned());
        doc.presets.extend(added.presets.iter().cloned());
        doc.strict |= added.strict;
        if let Some(network) = &added.network {
            doc.network
                .get_or_insert_with(Default::default)
                .deny
                .extend(network.deny.iter().cloned());
        }
        let user_entries: Vec<Entry> = added
            .denied_tools
            .iter()
            .chain(&added.exclude)
            .chain(&added.commands_deny)
            .chain(&added.commands_ask)
            .cloned()
            .collect();
        let (mut rules, bad) = Self::build(
            &self.root,
            self.source.clone(),
            doc,
            self.warnings.clone(),
            self.error.clone(),
        )?;
        if let Some(bad) = bad {
            return Err(DefaultRulesError {
                key: "user_rules",
                pattern: bad.entry.text,
                message: bad.message,
            });
        }
        rules.user_entries = user_entries;
        Ok(rules)
    }

    /// The home folder's secrets join the `~/...` excludes (rules that
    /// deny everything already deny them).
    fn add_home_secrets(&mut self, secrets: &[String]) -> Result<(), DefaultRulesError> {
        if secrets.is_empty() || self.denies_everything() {
            return Ok(());
        }
        self.home_secrets = secrets.iter().map(|s| Entry::new(s, None)).collect();
        let mut entries: Vec<Entry> = self.doc.exclude.clone();
        entries.extend(self.home_secrets.iter().cloned());
        self.home_exclude =
            EntryPatterns::compile_home(&entries).map_err(|bad| DefaultRulesError {
                key: "home_secrets",
                pattern: bad.entry.text,
                message: bad.message,
            })?;
        Ok(())
    }

    fn from_capture_alone(
        root: &Path,
        config: &ProjectAgentRulesConfig,
        capture: &RuleFileCapture,
    ) -> Result<Self, DefaultRulesError> {
        // Paths are judged against the real root: a root given with `..` or
        // through a symlink would otherwise put every path "outside" it.
        let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| normalize_lexically(root));
        let root = real_root.as_path();
        if !config.enabled {
            return Ok(Self::build(
                root,
                RulesSource::Disabled,
                RuleDoc::default(),
                Vec::new(),
                None,
            )?
            .0);
        }
        let parsed = match capture {
            RuleFileCapture::None => return Self::defaults(root, config, None),
            RuleFileCapture::Unreadable {
                path,
                message,
                line,
            } => {
                let error = RuleFileError {
                    path: path.clone(),
                    line: *line,
                    column: None,
                    message: message.clone(),
                };
                return Self::broken(root, config, error);
            }
            RuleFileCapture::File { path, text } => crate::source::parse_rule_text(path, text),
        };
        match parsed {
            Err(error) => Self::broken(root, config, error),
            Ok(parsed) => {
                let source = RulesSource::File {
                    path: parsed.path.clone(),
                    format: parsed.format,
                };
                let (rules, bad) = Self::build(root, source, parsed.doc, parsed.warnings, None)?;
                match bad {
                    None => Ok(rules),
                    Some(bad) => Self::broken(
                        root,
                        config,
                        RuleFileError {
                            path: parsed.path,
                            line: bad.entry.line,
                            column: None,
                            message: format!(
                                "invalid pattern `{}`: {}",
                                bad.entry.text, bad.message
                            ),
                        },
                    ),
                }
            }
        }
    }

    fn defaults(
        root: &Path,
        config: &ProjectAgentRulesConfig,
        error: Option<RuleFileError>,
    ) -> Result<Self, DefaultRulesError> {
        let doc = RuleDoc::from_rule_set(&config.default_rules);
        let (rules, bad) = Self::build(root, RulesSource::DefaultRules, doc, Vec::new(), error)?;
        match bad {
            None => Ok(rules),
            Some(bad) => Err(DefaultRulesError {
                key: "default_rules",
                pattern: bad.entry.text,
                message: bad.message,
            }),
        }
    }

    fn broken(
        root: &Path,
        config: &ProjectAgentRulesConfig,
        error: RuleFileError,
    ) -> Result<Self, DefaultRulesError> {
        match config.on_error {
            agentctx_types::OnRuleError::DefaultRules => Self::defaults(root, config, Some(error)),
            agentctx_types::OnRuleError::DenyAll => {
                let source = RulesSource::DenyAll {
                    path: error.path.clone(),
                };
                Ok(Self::build(root, source, RuleDoc::default(), Vec::new(), Some(error))?.0)
            }
        }
    }

    fn build(
        root: &Path,
        source: RulesSource,
        doc: RuleDoc,
        warnings: Vec<RuleFinding>,
        error: Option<RuleFileError>,
    ) -> Result<(Self, Option<crate::patterns::BadEntry>), DefaultRulesError> {
        let include = doc
            .include
            .as_deref()
            .map(|e| EntryPatterns::compile(e, false));
        let project_exclude: Vec<Entry> = doc
            .exclude
            .iter()
            .filter(|e| !e.text.starts_with("~/"))
            .cloned()
            .collect();
        let exclude = EntryPatterns::compile(&project_exclude, true);
        let home_exclude = EntryPatterns::compile_home(&doc.exclude);
        let empty = || EntryPatterns::compile(&[], false);
        let (include, exclude, home_exclude, bad) =
            match (include.transpose(), exclude, home_exclude) {
                (Ok(include), Ok(exclude), Ok(home)) => (include, exclude, home, None),
                (Err(bad), _, _) | (_, Err(bad), _) | (_, _, Err(bad)) => {
                    let none = || {
                        empty().map_err(|b| DefaultRulesError {
                            key: "default_rules",
                            pattern: b.entry.text,
                            message: b.message,
                        })
                    };
                    (None, none()?, none()?, Some(bad))
                }
            };
        let main_checkout = main_checkout_of(root);
        let source_label = match &source {
            RulesSource::File { path, .. } => Some(path.display().to_string()),
            RulesSource::DefaultRules => Some("default_rules".to_owned()),
            RulesSource::DenyAll { path } => {
                Some(format!("on_error: deny_all ({} is broken)", path.display()))
            }
            RulesSource::Disabled => None,
        };
        let rules = Self {
            root: root.to_path_buf(),
            main_checkout: main_checkout.clone(),
            root_in_checkout: root
                .strip_prefix(&main_checkout)
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            source_label,
            allowed: doc.allowed_tools.as_deref().map(ToolList::new),
            denied: ToolList::new(&doc.denied_tools),
            include,
            exclude,
            home_exclude,
            home: None,
            source,
            doc,
            warnings,
            error,
            commands: CommandRules::default(),
            home_secrets: Vec::new(),
            user_entries: Vec::new(),
        };
        Ok((rules, bad))
    }

    /// The home directory, for `exclude` entries written `~/...` (without
    /// it, those entries match nothing).
    pub fn with_home(mut self, home: Option<PathBuf>) -> Self {
        self.home = home.map(|h| std::fs::canonicalize(&h).unwrap_or(h));
        self
    }

    /// Where the rules came from.
    pub fn source(&self) -> &RulesSource {
        &self.source
    }

    /// The effective rule set.
    pub fn rule_set(&self) -> RuleSet {
        self.doc.to_rule_set()
    }

    /// The effective rules with the line of every entry.
    pub fn doc(&self) -> &RuleDoc {
        &self.doc
    }

    /// Problems that did not stop the rule file from applying (unknown keys).
    pub fn warnings(&self) -> &[RuleFinding] {
        &self.warnings
    }

    /// Every problem with the rules, as sentences: the broken file and
    /// what replaced it first, then the warnings.
    pub fn problems(&self) -> Vec<String> {
        let mut problems: Vec<String> = self.warnings.iter().map(ToString::to_string).collect();
        if let Some(error) = &self.error {
            let fallback = match self.source {
                RulesSource::DenyAll { .. } => "denying every tool and file (on_error: deny_all)",
                _ => "using default_rules (on_error: default_rules)",
            };
            problems.insert(0, format!("rule file is broken, {fallback}: {error}"));
        }
        problems
    }

    /// What `rules show --json` reports: the effective rules, where they
    /// came from, and [`Rules::problems`].
    pub fn report(&self) -> agentctx_types::RulesReport {
        agentctx_types::RulesReport {
            rules: self.rule_set(),
            source: self.source.clone(),
            warnings: self.problems(),
        }
    }

    /// The rule file's error, when it was broken and replaced.
    pub fn error(&self) -> Option<&RuleFileError> {
        self.error.as_ref()
    }

    /// The prompt extension, if any.
    pub fn prompt_extension(&self) -> Option<&str> {
        self.doc.system_prompt_extension.as_deref()
    }

    /// Whether these rules restrict anything at all: a tool list, a
    /// pattern, or deny-all for a broken file. Input that cannot be read is
    /// denied only when they do.
    pub fn restricts_anything(&self) -> bool {
        self.deny_all_path().is_some()
            || self.doc.allowed_tools.is_some()
            || !self.doc.denied_tools.is_empty()
            || self.doc.include.is_some()
            || !self.doc.exclude.is_empty()
            || self.doc.strict
            || self.doc.network.is_some()
    }

    /// The command rules in force: the rule file's `commands` and
    /// `presets`, the user's config's, and every preset in strict mode.
    pub fn commands(&self) -> &CommandRules {
        &self.commands
    }

    /// The first command rule one of `commands` matches, run in `cwd`
    /// (a denial before any question).
    pub fn check_commands(&self, commands: &[Invocation<'_>], cwd: &Path) -> Option<CommandMatch> {
        let places = Places {
            cwd,
            root: Some(&self.root),
            home: self.home.as_deref(),
        };
        self.commands.check(commands, &places)
    }

    /// Where a command rule is written, for a denial's reason.
    pub fn locate_command_rule(&self, origin: &CommandRuleOrigin) -> String {
        match origin {
            CommandRuleOrigin::Preset(name) => format!("preset `{name}`"),
            CommandRuleOrigin::Entry(entry) if entry.line.is_some() => {
                self.locate(Some(entry)).unwrap_or_default()
            }
            CommandRuleOrigin::Entry(_) => "the user's config (project_agent_rules)".to_owned(),
        }
    }

    /// The project root the rules apply to.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The project's main checkout, which [`Rules::excluded`] and
    /// [`Rules::not_included`] take paths relative to: the root, or, when
    /// the root is one of the worktrees Claude Code keeps in
    /// `<project>/.claude/worktrees/<name>` (`claude --worktree`), that
    /// project. A worktree is a checkout of the same project: every path
    /// in one is judged as the main checkout's path too (see
    /// [`counterparts`]), so the rules hold alike in all of them.
    pub fn main_checkout(&self) -> &Path {
        &self.main_checkout
    }

    /// Whether an exclude pattern matches a path relative to
    /// [`Rules::main_checkout`] as it is (no symlink followed), or its
    /// counterpart in the main checkout when it lies in a worktree: what a
    /// sandbox that walks the project masks.
    pub fn excluded(&self, relative: &Path) -> bool {
        let mut scratch = Vec::new();
        counterparts(relative).any(|path| self.exclude.first_match(path, &mut scratch).is_some())
    }

    /// Whether an include list exists and no include pattern matches a
    /// path relative to [`Rules::main_checkout`], nor its counterpart in
    /// the main checkout when it lies in a worktree.
    pub fn not_included(&self, relative: &Path) -> bool {
        self.include.as_ref().is_some_and(|include| {
            let mut scratch = Vec::new();
            counterparts(relative).all(|path| include.first_match(path, &mut scratch).is_none())
        })
    }

    /// Whether an include list exists.
    pub fn has_include(&self) -> bool {
        self.include.is_some()
    }

    /// The exclude entries written `~/...`, without the `~/` (paths in the
    /// home directory), and the home directory they are taken in.
    pub fn home_excludes(&self) -> (Option<&Path>, Vec<&str>) {
        let entries = self
            .doc
            .exclude
            .iter()
            .chain(&self.home_secrets)
            .filter_map(|e| e.text.strip_prefix("~/"))
            .collect();
        (self.home.as_deref(), entries)
    }

    /// Whether an exclude entry written `~/...` matches a path relative to
    /// the home directory.
    pub fn home_excluded(&self, relative: &Path) -> bool {
        self.home_exclude
            .first_match(relative, &mut Vec::new())
            .is_some()
    }

    /// Whether every file is denied (a broken rule file under `on_error:
    /// deny_all`).
    pub fn denies_everything(&self) -> bool {
        self.deny_all_path().is_some()
    }

    fn deny_all_path(&self) -> Option<&Path> {
        match &self.source {
            RulesSource::DenyAll { path } => Some(path),
            _ => None,
        }
    }

    /// Where an entry is written: `file:line`, `file`, or `default_rules`.
    fn locate(&self, entry: Option<&Entry>) -> Option<String> {
        if let Some(entry) = entry
            && entry.line.is_none()
            && self.home_secrets.contains(entry)
        {
            return Some("project_agent_rules.home_secrets".to_owned());
        }
        if let Some(entry) = entry
            && entry.line.is_none()
            && self.user_entries.contains(entry)
        {
            return Some("the user's rules (project_agent_rules.user_rules)".to_owned());
        }
        let label = self.source_label.as_deref()?;
        match (&self.source, entry.and_then(|e| e.line)) {
            (RulesSource::File { .. }, Some(line)) => Some(format!("{label}:{line}")),
            _ => Some(label.to_owned()),
        }
    }

    /// Whether `tool` (`server/tool` for MCP tools, the bare name for
    /// built-ins) may be called, and why.
    pub fn check_tool(&self, tool: &str) -> RuleDecision {
        let normalized = agentctx_types::normalize_tool_name(tool);
        let tool = normalized.as_str();
        let decide = |allowed: bool, rule: DecisionRule, entry: Option<&Entry>, message: String| {
            RuleDecision {
                subject: DecisionSubject::Tool,
                item: tool.to_owned(),
                allowed,
                rule,
                entry: entry.map(|e| e.text.clone()),
                source: self.locate(entry),
                resolved: None,
                message,
            }
        };
        if matches!(self.source, RulesSource::Disabled) {
            return decide(
                true,
                DecisionRule::RulesDisabled,
                None,
                format!("tool `{tool}` is allowed: project rules are disabled"),
            );
        }
        if let Some(broken) = self.deny_all_path() {
            return decide(
                false,
                DecisionRule::BrokenRuleFile,
                None,
                format!(
                    "tool `{tool}` is denied: the rule file {} is broken and on_error is deny_all",
                    broken.display()
                ),
            );
        }
        if let Some(entry) = self.denied.first_match(tool) {
            let at = self.locate(Some(entry)).unwrap_or_default();
            return decide(
                false,
                DecisionRule::DeniedTools,
                Some(entry),
                format!(
                    "tool `{tool}` is denied by denied_tools entry `{}` ({at})",
                    entry.text
                ),
            );
        }
        match &self.allowed {
            Some(list) => match list.first_match(tool) {
                Some(entry) => {
                    let at = self.locate(Some(entry)).unwrap_or_default();
                    decide(
                        true,
                        DecisionRule::AllowedTools,
                        Some(entry),
                        format!(
                            "tool `{tool}` is allowed by allowed_tools entry `{}` ({at})",
                            entry.text
                        ),
                    )
                }
                None => {
                    let at = self.locate(None).unwrap_or_default();
                    decide(
                        false,
                        DecisionRule::NotInAllowedTools,
                        None,
                        format!("tool `{tool}` is not in allowed_tools ({at})"),
                    )
                }
            },
            None => decide(
                true,
                DecisionRule::NoRestriction,
                None,
                format!("tool `{tool}` is allowed: no rule restricts it"),
            ),
        }
    }

    /// Whether a file-operation tool may touch `path` (absolute, or relative
    /// to the root), and why. For many paths use [`Rules::file_checker`].
    pub fn check_file(&self, path: &Path) -> RuleDecision {
        self.file_checker().check(path)
    }

    /// A checker that remembers directories across calls, for many paths.
    pub fn file_checker(&self) -> FileChecker<'_> {
        FileChecker {
            rules: self,
            links: LinkScanner::default(),
            scratch: Vec::new(),
            typed_cwd: None,
        }
    }

    /// The allowed tools, for telling the model what it may use instead.
    pub fn allowed_tool_entries(&self) -> Option<Vec<&str>> {
        self.allowed
            .as_ref()
            .map(|l| l.entries().map(|e| e.text.as_str()).collect())
    }

    /// The include patterns, for telling the model where it may work.
    pub fn include_entries(&self) -> Option<Vec<&str>> {
        self.doc
            .include
            .as_ref()
            .map(|l| l.iter().map(|e| e.text.as_str()).collect())
    }
}

/// Decides many paths against one [`Rules`], statting each directory once.
#[derive(Debug)]
pub struct FileChecker<'r> {
    rules: &'r Rules,
    links: LinkScanner,
    scratch: Vec<usize>,
    /// The last `cwd` given to [`FileChecker::check_typed`] and whether it
    /// is the root: asked once, not for every path of a long `--stdin`.
    typed_cwd: Option<(PathBuf, bool)>,
}

impl FileChecker<'_> {
    /// [`FileChecker::check`] for `item` as a user typed it in `cwd`:
    /// taken as typed at the root (so the decision quotes it as typed),
    /// else against `cwd`.
    pub fn check_typed(&mut self, cwd: &Path, item: &str) -> RuleDecision {
        let at_root = match &self.typed_cwd {
            Some((known, at_root)) if known == cwd => *at_root,
            _ => {
                let at_root = std::fs::canonicalize(cwd).is_ok_and(|cwd| cwd == self.rules.root());
                self.typed_cwd = Some((cwd.to_path_buf(), at_root));
                at_root
            }
        };
        let mut decision = if at_root {
            self.check(Path::new(item))
        } else {
            self.check(&cwd.join(item))
        };
        decision.item = item.to_owned();
        decision
    }

    /// See [`Rules::check_file`].
    pub fn check(&mut self, path: &Path) -> RuleDecision {
        let rules = self.rules;
        let item = path
            .to_str()
            .map_or_else(|| path.display().to_string(), str::to_owned);
        let decide = |allowed: bool,
                      rule: DecisionRule,
                      entry: Option<&Entry>,
                      resolved: Option<&Path>,
                      message: String| RuleDecision {
            subject: DecisionSubject::File,
            item: item.clone(),
            allowed,
            rule,
            entry: entry.map(|e| e.text.clone()),
            source: rules.locate(entry),
            resolved: resolved.map(|p| p.display().to_string()),
            message,
        };
        if matches!(rules.source, RulesSource::Disabled) {
            return decide(
                true,
                DecisionRule::RulesDisabled,
                None,
                None,
                format!("`{item}` is allowed: project rules are disabled"),
            );
        }
        if let Some(broken) = rules.deny_all_path() {
            return decide(
                false,
                DecisionRule::BrokenRuleFile,
                None,
                None,
                format!(
                    "`{item}` is denied: the rule file {} is broken and on_error is deny_all",
                    broken.display()
                ),
            );
        }
        // An absolute path below the root with no `.` or `..`: the root is
        // canonical, so it is the clean relative path below it (judged with
        // the directory cache: a path typed in a subfolder was resolved from
        // `/` every time, 4.5 `statx` a path).
        let below_root = path
            .strip_prefix(&rules.root)
            .ok()
            .filter(|rest| path.is_absolute() && is_clean_relative(rest));
        if let Some(path) = below_root.or_else(|| is_clean_relative(path).then_some(path)) {
            // Relative to the root, which may be a worktree of the main
            // checkout the patterns are matched from.
            if rules.root_in_checkout.as_os_str().is_empty() {
                return self.check_inside(path, &item, &decide);
            }
            let relative = rules.root_in_checkout.join(path);
            return self.check_inside(&relative, &item, &decide);
        }
        // `..`, `.`, an absolute path: judged as written (normalized) and
        // where the kernel would go (symlinks resolved component by
        // component, so `link/../x` is judged beside the link's target);
        // both must allow.
        let raw = rules.root.join(path);
        let lexical = normalize_lexically(&raw);
        let written = match lexical.strip_prefix(&rules.main_checkout) {
            Ok(relative) => self.check_inside(relative, &item, &decide),
            Err(_) => outside_root(rules, &item, None, &decide),
        };
        if !written.allowed {
            return written;
        }
        match crate::paths::physical_path(&raw) {
            OnDisk::Unresolvable => unresolvable(&item, &decide),
            OnDisk::Resolved(real) if real != lexical => {
                let physical = match real.strip_prefix(&rules.main_checkout) {
                    Ok(relative) => {
                        let (allowed, rule, entry) =
                            match_patterns(rules, relative, &mut self.scratch);
                        (!allowed).then(|| {
                            decide(
                                false,
                                rule,
                                entry,
                                Some(&real),
                                deny_message(&item, rule, entry, Some(&real), rules),
                            )
                        })
                    }
                    Err(_) => Some(outside_root(rules, &item, Some(&real), &decide))
                        .filter(|d| !d.allowed),
                };
                physical.unwrap_or(written)
            }
            _ => written,
        }
    }

    /// A path relative to the main checkout: the patterns on the path as
    /// written, then on where its symlinks lead.
    fn check_inside<F>(&mut self, relative: &Path, item: &str, decide: &F) -> RuleDecision
    where
        F: Fn(bool, DecisionRule, Option<&Entry>, Option<&Path>, String) -> RuleDecision,
    {
        let rules = self.rules;
        // A project that holds the home folder (a session started in it,
        // or above it): its secrets are still the home's.
        if rules
            .home
            .as_ref()
            .is_some_and(|home| home.starts_with(&rules.main_checkout))
        {
            let absolute = rules.main_checkout.join(relative);
            if let Some(denied) = home_denial(rules, &absolute, item, None, decide) {
                return denied;
            }
            if let OnDisk::Resolved(real) = self.links.scan(&rules.main_checkout, relative)
                && let Some(denied) = home_denial(rules, &real, item, Some(&real), decide)
            {
                return denied;
            }
        }
        let written = match_patterns(rules, relative, &mut self.scratch);
        if !written.0 {
            let (_, rule, entry) = written;
            return decide(
                false,
                rule,
                entry,
                None,
                deny_message(item, rule, entry, None, rules),
            );
        }
        match self.links.scan(&rules.main_checkout, relative) {
            OnDisk::Plain => {
                let (_, rule, entry) = written;
                decide(
                    true,
                    rule,
                    entry,
                    None,
                    allow_message(item, rule, entry, rules),
                )
            }
            OnDisk::Unresolvable => unresolvable(item, decide),
            OnDisk::Resolved(real) => {
                let Ok(real_relative) = real.strip_prefix(&rules.main_checkout) else {
                    return outside_root(rules, item, Some(&real), decide);
                };
                let (allowed, rule, entry) =
                    match_patterns(rules, real_relative, &mut self.scratch);
                if allowed {
                    let (_, rule, entry) = written;
                    decide(
                        true,
                        rule,
                        entry,
                        Some(&real),
                        allow_message(item, rule, entry, rules),
                    )
                } else {
                    decide(
                        false,
                        rule,
                        entry,
                        Some(&real),
                        deny_message(item, rule, entry, Some(&real), rules),
                    )
                }
            }
        }
    }
}

/// A link on the path that cannot be followed (dangling, or a loop).
fn unresolvable<F>(item: &str, decide: &F) -> RuleDecision
where
    F: Fn(bool, DecisionRule, Option<&Entry>, Option<&Path>, String) -> RuleDecision,
{
    decide(
        false,
        DecisionRule::UnresolvableLink,
        None,
        None,
        format!("`{item}` is denied: a symlink on it cannot be resolved (dangling or a loop)"),
    )
}

/// The denial of `target` (absolute) by a `~/...` exclude or a home
/// secret, when it is in the home folder and one matches.
fn home_denial<F>(
    rules: &Rules,
    target: &Path,
    item: &str,
    real: Option<&Path>,
    decide: &F,
) -> Option<RuleDecision>
where
    F: Fn(bool, DecisionRule, Option<&Entry>, Option<&Path>, String) -> RuleDecision,
{
    let home = rules.home.as_ref()?;
    if rules.home_exclude.is_empty() {
        return None;
    }
    let relative = target.strip_prefix(home).ok()?;
    let entry = rules.home_exclude.first_match(relative, &mut Vec::new())?;
    let at = rules.locate(Some(entry)).unwrap_or_default();
    Some(decide(
        false,
        DecisionRule::Exclude,
        Some(entry),
        real,
        format!(
            "`{item}` is denied by exclude pattern `{}` ({at})",
            entry.text
        ),
    ))
}

/// A path outside the root. Only `include` speaks about where the agent may
/// work, so only an include list denies it; without one (no rule file at
/// all, or only excludes, which name paths in the project) it is allowed.
fn outside_root<F>(rules: &Rules, item: &str, real: Option<&Path>, decide: &F) -> RuleDecision
where
    F: Fn(bool, DecisionRule, Option<&Entry>, Option<&Path>, String) -> RuleDecision,
{
    let place = match real {
        Some(real) => format!("it is a symlink to {}, outside", real.display()),
        None => "it is outside".to_owned(),
    };
    // `~/...` excludes name paths in the home directory.
    let target = real.map_or_else(
        || normalize_lexically(&rules.root.join(item)),
        Path::to_path_buf,
    );
    if let Some(denied) = home_denial(rules, &target, item, real, decide) {
        return denied;
    }
    if rules.include.is_some() {
        let at = rules.locate(None).unwrap_or_default();
        return decide(
            false,
            DecisionRule::OutsideRoot,
            None,
            real,
            format!(
                "`{item}` is denied: {place} the project root {}, and include lists where the agent may work ({at})",
                rules.root.display()
            ),
        );
    }
    decide(
        true,
        DecisionRule::NoRestriction,
        None,
        real,
        format!(
            "`{item}` is allowed: {place} the project root {}, and no include list restricts where the agent may work",
            rules.root.display()
        ),
    )
}

/// A relative path with nothing to normalize: no `.` or `..` segment, no
/// empty segment. Most paths a tool names are like this, and they skip the
/// component-by-component rebuild.
fn is_clean_relative(path: &Path) -> bool {
    let Some(text) = path.to_str() else {
        return false;
    };
    !text.is_empty()
        && !text.starts_with('/')
        && text
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
}

/// The verdict of the patterns alone on a path relative to the main
/// checkout: denied when it or its main checkout's counterpart is
/// excluded, included when either is.
fn match_patterns<'r>(
    rules: &'r Rules,
    relative: &Path,
    scratch: &mut Vec<usize>,
) -> (bool, DecisionRule, Option<&'r Entry>) {
    for path in counterparts(relative) {
        if let Some(entry) = rules.exclude.first_match(path, scratch) {
            return (false, DecisionRule::Exclude, Some(entry));
        }
    }
    match &rules.include {
        Some(include) => counterparts(relative)
            .find_map(|path| include.first_match(path, scratch))
            .map_or((false, DecisionRule::NotIncluded, None), |entry| {
                (true, DecisionRule::Include, Some(entry))
            }),
        None => (true, DecisionRule::NoRestriction, None),
    }
}

/// Where Claude Code keeps a project's worktrees (`EnterWorktree`,
/// `claude --worktree NAME`, a sub-agent's `isolation: "worktree"`): each a
/// git checkout of the project in `<project>/.claude/worktrees/<name>`.
const WORKTREES: [&str; 2] = [".claude", "worktrees"];

/// `relative` (to a main checkout) and, when it lies inside one of the
/// project's worktrees (`.claude/worktrees/<name>/<rest>`), the path
/// `<rest>` it copies in the main checkout, and so on for a worktree's
/// own worktrees: the rules judge each, so an anchored pattern
/// (`/cfg/prod/`) holds in every checkout. Names compare without case, as
/// a file system that folds case opens them.
pub fn counterparts(relative: &Path) -> impl Iterator<Item = &Path> {
    std::iter::successors(Some(relative), |path| {
        let mut components = path.components();
        let is = |c: Option<std::path::Component<'_>>, name: &str| {
            c.is_some_and(|c| c.as_os_str().eq_ignore_ascii_case(name))
        };
        let in_worktrees = is(components.next(), WORKTREES[0])
            && is(components.next(), WORKTREES[1])
            && components
                .next()
                .is_some_and(|c| matches!(c, std::path::Component::Normal(_)));
        let rest = components.as_path();
        (in_worktrees && !rest.as_os_str().is_empty()).then_some(rest)
    })
}

/// The main checkout of `root`: `root`, or the project whose
/// `.claude/worktrees/<name>` it is when it is a linked checkout there (its
/// `.git` is a file), and that project's when it is one again.
fn main_checkout_of(root: &Path) -> PathBuf {
    let mut checkout = root;
    loop {
        let names: Vec<&std::ffi::OsStr> = checkout
            .components()
            .rev()
            .take(3)
            .map(|c| c.as_os_str())
            .collect();
        let in_worktrees = matches!(names.as_slice(), [_, worktrees, claude]
            if worktrees.eq_ignore_ascii_case(WORKTREES[1]) && claude.eq_ignore_ascii_case(WORKTREES[0]));
        let linked = std::fs::symlink_metadata(checkout.join(".git")).is_ok_and(|m| m.is_file());
        match checkout.ancestors().nth(3) {
            Some(project) if in_worktrees && linked => checkout = project,
            _ => return checkout.to_path_buf(),
        }
    }
}

fn deny_message(
    item: &str,
    rule: DecisionRule,
    entry: Option<&Entry>,
    real: Option<&Path>,
    rules: &Rules,
) -> String {
    let via = real
        .map(|r| format!(" (it resolves to {})", r.display()))
        .unwrap_or_default();
    let at = rules.locate(entry).unwrap_or_default();
    match (rule, entry) {
        (DecisionRule::Exclude, Some(e)) => format!(
            "`{item}`{via} is denied by exclude pattern `{}` ({at})",
            e.text
        ),
        _ => format!("`{item}`{via} is denied: it matches no include pattern ({at})"),
    }
}

fn allow_message(item: &str, rule: DecisionRule, entry: Option<&Entry>, rules: &Rules) -> String {
    match (rule, entry) {
        (DecisionRule::Include, Some(e)) => format!(
            "`{item}` is allowed by include pattern `{}` ({})",
            e.text,
            rules.locate(Some(e)).unwrap_or_default()
        ),
        _ => format!("`{item}` is allowed: no rule restricts it"),
    }
}
