//! Project agent rules: the config section and the rule set a rule file holds.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{FileListFormat, PositiveInt};

/// The `project_agent_rules` section of the config.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct ProjectAgentRulesConfig {
    /// `false`: no rules at all, whatever rule files exist.
    pub enabled: bool,
    /// Rule files looked for at the project root; the first that exists wins.
    pub rule_files: Vec<String>,
    /// The rules used when no rule file exists (empty: no restriction).
    pub default_rules: RuleSet,
    /// What a rule file that cannot be read or parsed means.
    pub on_error: OnRuleError,
    /// Strict mode for every project (a rule file can also ask for it with
    /// `strict: true`): what cannot be verified is denied. docs/SECURITY.md.
    pub strict: bool,
    /// Deny writes to the rule files, agentctx's config and the agents' hook
    /// settings, so an agent cannot switch its own rules off.
    pub protect_config: bool,
    /// In strict mode, paths outside the project root that stay allowed:
    /// the agents' own state folders (patterns; `~/` is the home directory).
    pub strict_allowed_outside: Vec<String>,
    /// Whether shell commands run in agentctx's kernel sandbox
    /// (`agentctx exec`), where the kernel refuses excluded paths for
    /// reading and protected ones for writing. Strict mode is always `on`.
    pub sandbox: SandboxMode,
    /// What a sandboxed command may write besides the project and the
    /// temporary folders: everything else is read-only in the sandbox, so
    /// nothing a command leaves behind runs later outside it (a startup
    /// file, a tool's config, a program on `PATH`). Folders (`~/` is the
    /// home directory); the ones that do not exist are left out. The
    /// default is the package managers' download caches.
    pub sandbox_writable: Vec<String>,
    /// Programs whose commands run as written where a command cannot run
    /// in the sandbox (Qwen Code; strict mode with `sandbox: off`) under
    /// rules that restrict files: there only programs whose files
    /// agentctx knows from their words run, and build tools, which run
    /// the project's code, are denied. An entry is a program (`cargo`)
    /// or a program and its subcommand (`cargo test`, `git push`); what
    /// it opens beyond the files its words name is then not checked.
    pub unsandboxed_programs: Vec<String>,
    /// The network rules of every project (merged with a rule file's
    /// `network`: both allow lists and both deny lists apply). Present:
    /// sandboxed commands reach only what they allow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkRules>,
    /// Names the network proxy resolves to these addresses instead of
    /// asking the system (a test server, a name only this machine knows):
    /// `{"api.test": ["127.0.0.2"]}`. Only in the user's config.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub network_hosts: std::collections::BTreeMap<String, Vec<String>>,
    /// Environment variables that hold secrets, besides the built-in list
    /// (`*_API_KEY`, `*_TOKEN`, `AWS_SECRET_ACCESS_KEY`, values such as
    /// `sk-...` or `ghp_...`): names or `*` globs, left out of every
    /// sandboxed command's environment.
    pub secret_env: Vec<String>,
    /// Environment variables passed on to sandboxed commands even though
    /// they look like secrets (names or `*` globs). Only in the user's
    /// config: a project cannot ask for the user's secrets.
    pub pass_env: Vec<String>,
    /// The user's command rules, in every session besides the rule
    /// file's (both apply). Only in the user's config: a project adds its
    /// own in its rule file and cannot take the user's away.
    #[serde(skip_serializing_if = "CommandRuleSet::is_empty")]
    pub commands: CommandRuleSet,
    /// Command presets on in every session (strict mode turns on all of
    /// them). Only in the user's config, as `commands`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub presets: Vec<String>,
    /// Secrets in the home folder kept from every agent in every session,
    /// as `exclude` entries written `~/...` are (denied to the tools,
    /// masked in the sandbox), whatever the project's rules say. Only in
    /// the user's config: a project cannot take them away.
    pub home_secrets: Vec<String>,
    /// The user's rules, in every session (also one where no project is
    /// found), under the project's: denied tools, excluded files, command
    /// rules, presets, denied hosts and strict mode add to the project's;
    /// the prompt extension comes before the project's. Only what
    /// restricts: an allow list here is an unknown key. Only in the user's
    /// config (docs/rules.md "The user's rules").
    #[serde(skip_serializing_if = "UserRules::is_empty")]
    pub user_rules: UserRules,
}

/// `project_agent_rules.user_rules`: the rule-file keys that restrict.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct UserRules {
    /// Put before the project's prompt extension.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt_extension: Option<String>,
    /// Denied in every project.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub denied_tools: Vec<String>,
    /// `exclude` only: excluded in every project.
    pub file_patterns: UserFilePatterns,
    /// Command rules of every project.
    #[serde(skip_serializing_if = "CommandRuleSet::is_empty")]
    pub commands: CommandRuleSet,
    /// Presets on in every project.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub presets: Vec<String>,
    /// Strict mode in every project.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
    /// `deny` only: hosts refused in every project.
    pub network: UserNetwork,
}

/// `user_rules.file_patterns`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct UserFilePatterns {
    /// Matching paths are denied in every project (`~/...`: in the home).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

/// `user_rules.network`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct UserNetwork {
    /// Hosts refused wherever a network section confines the network.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
}

impl UserRules {
    /// Whether it says nothing.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// The same as a rule set.
    pub fn to_rule_set(&self) -> RuleSet {
        RuleSet {
            system_prompt_extension: self.system_prompt_extension.clone(),
            denied_tools: self.denied_tools.clone(),
            file_patterns: FilePatterns {
                include: None,
                exclude: self.file_patterns.exclude.clone(),
            },
            commands: self.commands.clone(),
            presets: self.presets.clone(),
            strict: self.strict,
            network: (!self.network.deny.is_empty()).then(|| NetworkRules {
                allow: Vec::new(),
                deny: self.network.deny.clone(),
            }),
            ..RuleSet::default()
        }
    }
}

/// `network` in a rule file or the config: where a sandboxed command (or
/// the agent under `agentctx run`) may connect. Entries are hosts:
/// `example.com`, `*.example.com` (the names below it), `*` (every name),
/// an address or range (`10.0.0.0/8`), each with an optional `:port`.
/// Deny wins; what no allow entry names is refused; a loopback, private,
/// link-local or cloud metadata address only when an entry names it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct NetworkRules {
    /// Hosts that may be reached.
    pub allow: Vec<String>,
    /// Hosts that may not, whatever `allow` says.
    pub deny: Vec<String>,
}

/// When shell commands run in agentctx's sandbox.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SandboxMode {
    /// When the rules restrict files (or agentctx protects its own) and
    /// the sandbox can run here; otherwise the command line is checked as
    /// it is written.
    #[default]
    Auto,
    /// Always; a command that cannot be sandboxed is denied.
    On,
    /// Never: command lines are checked as they are written.
    Off,
}

/// What a broken rule file (unreadable, invalid YAML, wrong types, invalid
/// glob) means. It is reported either way, never silently ignored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum OnRuleError {
    /// Use `default_rules`, as the spec says; the doors the file meant to close stay open.
    #[default]
    DefaultRules,
    /// Deny every tool and file until the file is fixed.
    DenyAll,
}

/// What a sandboxed command may write by default besides the project and
/// the temporary folders: download caches, which hold what a build
/// fetched, not what runs at a shell's start.
pub const DEFAULT_SANDBOX_WRITABLE: [&str; 9] = [
    "~/.cache",
    "~/.cargo/registry",
    "~/.cargo/git",
    "~/.npm",
    "~/.m2/repository",
    "~/.gradle/caches",
    "~/go/pkg/mod",
    "~/.local/share/pnpm/store",
    "~/.bun/install/cache",
];

/// The secrets in the home folder agentctx keeps from every agent by
/// default, in every session (`project_agent_rules.home_secrets`): keys,
/// cloud credentials, git's stored passwords, shell history. Tokens that
/// tools the agents run need (`gh`, `npm`, `docker`, `kubectl`) are left to
/// the user to add (docs/config.md).
pub const DEFAULT_HOME_SECRETS: [&str; 12] = [
    "~/.ssh/",
    "~/.gnupg/",
    "~/.aws/",
    "~/.azure/",
    "~/.config/gcloud/",
    "~/.netrc",
    "~/.git-credentials",
    "~/.config/git/credentials",
    "~/.bash_history",
    "~/.zsh_history",
    "~/.python_history",
    "~/.local/share/fish/fish_history",
];

/// The rule files looked for, in order, when the config names none.
pub const DEFAULT_RULE_FILES: [&str; 3] = [
    ".coding-agent-rules.yaml",
    ".coding-agent-rules.md",
    ".github/AGENTS.md",
];

impl Default for ProjectAgentRulesConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            rule_files: DEFAULT_RULE_FILES.iter().map(|f| (*f).to_owned()).collect(),
            default_rules: RuleSet::default(),
            on_error: OnRuleError::DefaultRules,
            strict: false,
            protect_config: true,
            strict_allowed_outside: vec!["~/.claude/projects/*/memory/**".to_owned()],
            sandbox: SandboxMode::Auto,
            sandbox_writable: DEFAULT_SANDBOX_WRITABLE
                .iter()
                .map(|p| (*p).to_owned())
                .collect(),
            unsandboxed_programs: Vec::new(),
            network: None,
            network_hosts: std::collections::BTreeMap::new(),
            secret_env: Vec::new(),
            pass_env: Vec::new(),
            commands: CommandRuleSet::default(),
            presets: Vec::new(),
            home_secrets: DEFAULT_HOME_SECRETS
                .iter()
                .map(|p| (*p).to_owned())
                .collect(),
            user_rules: UserRules::default(),
        }
    }
}

/// What a rule file says: prompt extension, tool lists, file patterns and
/// file-list overrides. Keys are snake_case, as in the rule files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct RuleSet {
    /// Text appended to the system prompt, after the base prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt_extension: Option<String>,
    /// Absent: every tool passes. Present: only matching tools pass (an empty list passes none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<Vec<String>>,
    /// Matching tools are denied, whatever `allowed_tools` says.
    pub denied_tools: Vec<String>,
    /// Which files file-operation tools may touch.
    pub file_patterns: FilePatterns,
    /// Overrides for the project file list.
    pub file_list: FileListOverrides,
    /// Strict mode: what cannot be verified (a shell command with
    /// expansions, a path outside the root, a hard-linked file) is denied.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
    /// Where sandboxed commands may connect; absent: the network is not
    /// confined (unless the config has a `network` or strict mode is on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkRules>,
    /// Command patterns denied or asked about, on every command a shell
    /// line runs (docs/rules.md, "Commands").
    #[serde(skip_serializing_if = "CommandRuleSet::is_empty")]
    pub commands: CommandRuleSet,
    /// Shipped command presets switched on by name (`destructive`,
    /// `supply-chain`, `publishing`, `history-rewriting`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub presets: Vec<String>,
}

/// `commands`: patterns of commands (`git push --force*`, `rm -r
/// {outside}`, `curl | *sh`). Deny wins over ask.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct CommandRuleSet {
    /// Matching commands do not run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
    /// The user is asked before a matching command runs (denied where
    /// the agent cannot ask).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ask: Vec<String>,
}

impl CommandRuleSet {
    /// Whether no pattern is set.
    pub fn is_empty(&self) -> bool {
        self.deny.is_empty() && self.ask.is_empty()
    }
}

/// `file_patterns`: gitignore-like globs relative to the project root.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct FilePatterns {
    /// Absent: every path inside the root passes. Present: a path must match one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<String>>,
    /// A matching path is denied, whatever `include` says (matched case-insensitively).
    pub exclude: Vec<String>,
}

/// `file_list` in a rule file: overrides of `file_list_context` for this project.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields, default)]
pub struct FileListOverrides {
    /// Added to the configured exclude patterns.
    pub exclude_patterns: Vec<String>,
    /// Added to the configured include patterns.
    pub include_patterns: Vec<String>,
    /// Replaces the configured depth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<PositiveInt>,
    /// Replaces the configured format.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<FileListFormat>,
}

/// The rule file of a project as it was read once, at a session's start:
/// every later decision of the session is made from these bytes, whatever
/// the file holds by then.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RuleFileCapture {
    /// No rule file existed (or the rules were disabled).
    None,
    /// The first candidate that existed, and its text.
    File {
        /// The file.
        path: std::path::PathBuf,
        /// Its text (UTF-8, byte-order mark removed).
        text: String,
    },
    /// A candidate existed and could not be used (unreadable, not UTF-8,
    /// a link leading outside the project): the rules follow `on_error`.
    Unreadable {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        message: String,
        /// The line, when the problem has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<u64>,
    },
}

/// Where the effective rules came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RulesSource {
    /// A rule file at the project root.
    File {
        /// The file.
        path: std::path::PathBuf,
        /// Its form.
        format: RuleFileFormat,
    },
    /// `project_agent_rules.default_rules` (no rule file, or a broken one under `on_error: default_rules`).
    DefaultRules,
    /// A broken rule file under `on_error: deny_all`.
    DenyAll {
        /// The broken file.
        path: std::path::PathBuf,
    },
    /// `project_agent_rules.enabled: false`.
    Disabled,
}

impl std::fmt::Display for RulesSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::File { path, format } => write!(f, "{} ({})", path.display(), format.as_str()),
            Self::DefaultRules => f.write_str("default_rules from the config"),
            Self::DenyAll { path } => write!(f, "deny all: {} is broken", path.display()),
            Self::Disabled => f.write_str("disabled"),
        }
    }
}

/// `prompt rules --json`, `prompt agents-guidance --json`: a prompt text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PromptText {
    /// The text, without a trailing line break (empty when there is none).
    pub text: String,
}

/// The form of a rule file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RuleFileFormat {
    /// `.coding-agent-rules.yaml`.
    Yaml,
    /// `.coding-agent-rules.md`, `.github/AGENTS.md`.
    Markdown,
}

impl RuleFileFormat {
    /// The name as serialized: `yaml` or `markdown`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Yaml => "yaml",
            Self::Markdown => "markdown",
        }
    }
}

/// `agentctx rules show --json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RulesReport {
    /// The effective rules.
    pub rules: RuleSet,
    /// Where they came from.
    pub source: RulesSource,
    /// Problems found while loading (unknown keys, a broken file that was replaced).
    pub warnings: Vec<String>,
}

/// What a decision is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DecisionSubject {
    /// A tool call.
    Tool,
    /// A file a file-operation tool would touch.
    File,
}

/// Which rule decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DecisionRule {
    /// No rule restricts this (no allow list or include list, nothing denied).
    NoRestriction,
    /// Rules are disabled in the config.
    RulesDisabled,
    /// Matched an `allowed_tools` entry.
    AllowedTools,
    /// `allowed_tools` exists and nothing in it matches.
    NotInAllowedTools,
    /// Matched a `denied_tools` entry.
    DeniedTools,
    /// Matched a `file_patterns.include` pattern.
    Include,
    /// `file_patterns.include` exists and nothing in it matches.
    NotIncluded,
    /// Matched a `file_patterns.exclude` pattern.
    Exclude,
    /// The path is outside the project root.
    OutsideRoot,
    /// A symlink on the path cannot be resolved (loop, or dangling).
    UnresolvableLink,
    /// The rule file is broken and `on_error` is `deny_all`.
    BrokenRuleFile,
}

/// One allow or deny, with everything needed to say why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RuleDecision {
    /// Tool or file.
    pub subject: DecisionSubject,
    /// The tool name or the path, as given.
    pub item: String,
    /// The verdict.
    pub allowed: bool,
    /// The rule that decided.
    pub rule: DecisionRule,
    /// The entry or pattern that matched, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// Where that rule is written: `path:line`, `default_rules` or `on_error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// For files reached through a symlink: the resolved path that was also decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    /// One sentence for people and models.
    pub message: String,
}

/// A tool's name in the rules' language: MCP tools as `server/tool`,
/// built-ins as they are. Claude Code spells MCP tools
/// `mcp__server__tool`; rules, `check-tool` and the hooks all accept both
/// spellings and compare this form.
///
/// ```
/// use agentctx_types::normalize_tool_name;
/// assert_eq!(normalize_tool_name("mcp__github__delete_file"), "github/delete_file");
/// assert_eq!(normalize_tool_name("github/delete_file"), "github/delete_file");
/// assert_eq!(normalize_tool_name(" Read "), "Read");
/// ```
pub fn normalize_tool_name(name: &str) -> String {
    let name = name.trim();
    match name
        .strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
    {
        Some((server, tool)) if !server.is_empty() && !tool.is_empty() => {
            format!("{server}/{tool}")
        }
        _ => name.to_owned(),
    }
}

/// A problem at a place in a rule file: a warning when the rules load (the
/// file still applies), a finding of `rules lint`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RuleFinding {
    /// The rule file.
    pub path: std::path::PathBuf,
    /// 1-based line, when known.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for RuleFinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

/// `rules lint --json`: what was checked and everything wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct LintReport {
    /// The rule file checked; `None` when the project has none.
    pub file: Option<std::path::PathBuf>,
    /// Every problem, in file order where lines are known.
    pub findings: Vec<RuleFinding>,
}
