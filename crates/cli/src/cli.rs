//! The command line, as clap sees it.

use std::path::PathBuf;

use agentctx_filelist::{Platform, Tokenizer};
use agentctx_types::{Agent, FileListFormat};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{ArgAction, Args, Parser, Subcommand};

/// Assemble and guard the context of a coding agent.
#[derive(Debug, Parser)]
// The version line names the commit and the features built in (build.rs):
// a bug report then says which build it is about.
#[command(
    name = "agentctx",
    version = env!("AGENTCTX_LONG_VERSION"),
    propagate_version = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The help heading of the flags every command takes, shown apart from
/// each command's own.
const GLOBAL: &str = "Global options";

/// Flags every command takes.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Run as if started in DIR; relative paths in other flags are relative to it.
    #[arg(short = 'C', long = "cwd", value_name = "DIR", global = true, help_heading = GLOBAL)]
    pub cwd: Option<PathBuf>,
    /// Read only this config file (replaces the user and project files).
    #[arg(long, value_name = "FILE", global = true, help_heading = GLOBAL)]
    pub config: Option<PathBuf>,
    /// Set a config value for this run; VALUE is YAML (e.g. -c agents.initial.maxFiles=4).
    #[arg(short = 'c', long = "set", value_name = "KEY=VALUE", global = true, help_heading = GLOBAL)]
    pub set: Vec<String>,
    /// Print one JSON document on stdout instead of text.
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub json: bool,
    /// More on stderr: -v the config files, project root and rule file
    /// used; -vv also each config value set and what was read; -vvv trace.
    /// AGENTCTX_LOG overrides.
    #[arg(short, long, action = ArgAction::Count, global = true, help_heading = GLOBAL)]
    pub verbose: u8,
    /// Only errors on stderr.
    #[arg(short, long, global = true, conflicts_with = "verbose", help_heading = GLOBAL)]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compose the initial context: rules, AGENTS.md bundle, file list.
    Context(ContextArgs),
    /// One hook entry point for every agent (its hook JSON on stdin).
    Hook(HookArgs),
    /// Write the hook configuration for an agent.
    Install(InstallArgs),
    /// Remove exactly what `install` added.
    Uninstall(InstallArgs),
    /// Print the project root and how it was found.
    Root,
    /// The AGENTS.md hierarchy: the initial bundle and the lazy resolver.
    #[command(subcommand)]
    Agents(AgentsCommand),
    /// Session state shared by hook processes.
    #[command(subcommand)]
    Session(SessionCommand),
    /// The project's file list for the initial context.
    Files(Box<FilesArgs>),
    /// Project rules: the prompt extension, tool and file decisions.
    #[command(subcommand)]
    Rules(RulesCommand),
    /// Trim a tool output (stdin) to a byte budget, keeping its trailing reminders.
    Trim(TrimArgs),
    /// Tool output parts `trim` kept.
    #[command(subcommand)]
    Output(OutputCommand),
    /// Print instructions meant for the model.
    #[command(subcommand)]
    Prompt(PromptCommand),
    /// AgentMem: sub-agent outputs saved as Markdown.
    #[command(subcommand)]
    Mem(MemCommand),
    /// Print the effective config (defaults, files, environment, flags merged).
    Config(ConfigArgs),
    /// Print a JSON Schema generated from agentctx's types.
    Schema(SchemaArgs),
    /// Run a shell command in a session's sandbox (the hook rewrites the
    /// agents' shell commands to this); exits with the command's status.
    Exec(ExecArgs),
    /// Start an agent inside the sandbox built from its project's rules:
    /// its own tools, MCP servers and commands under the kernel's masks,
    /// its network through the rules' proxy (`agentctx run -- claude`).
    Run(RunArgs),
    /// Serve the context, rules checks, file list and memory as MCP tools over stdio.
    Mcp(McpArgs),
}

#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// Print the initial AGENTS.md bundle for the working directory (and record it in a session).
    Init(SessionArgs),
    /// Print a reminder for AGENTS.md files that are new or changed for these paths.
    Resolve(ResolveArgs),
}

#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// Paths the agent touches (files or directories; they need not exist yet).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub session: SessionArgs,
}

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// Print what changed since the session last ran (cwd, root, markers, AGENTS.md), and move it here.
    Resume(RequiredSessionArgs),
}

/// Which session's state to use; without one, a fresh in-memory session.
#[derive(Debug, Args)]
pub struct SessionArgs {
    /// The session state file.
    #[arg(long, value_name = "FILE", conflicts_with = "session_id")]
    pub session: Option<PathBuf>,
    /// A session id; its state is $XDG_STATE_HOME/agentctx/sessions/ID.json.
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
}

#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct RequiredSessionArgs {
    /// The session state file.
    #[arg(long, value_name = "FILE")]
    pub session: Option<PathBuf>,
    /// A session id; its state is $XDG_STATE_HOME/agentctx/sessions/ID.json.
    #[arg(long, value_name = "ID")]
    pub session_id: Option<String>,
}

#[derive(Debug, Args)]
pub struct TrimArgs {
    /// Keep at most this many bytes of the output (its trailing reminders are always kept).
    #[arg(long, value_name = "N")]
    pub max_bytes: usize,
    /// Do not keep the cut part (the reminder then names no id).
    #[arg(long)]
    pub no_keep: bool,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Only these tools (comma-separated; default: AGENTCTX_MCP_TOOLS, else all).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub tools: Option<Vec<String>>,
    /// Serve streamable HTTP on 127.0.0.1 instead of stdio (prints the address).
    #[arg(long)]
    pub http: bool,
    /// The HTTP port (0 picks a free one).
    #[arg(long, default_value_t = 0, requires = "http")]
    pub port: u16,
    /// API base for github:/gitlab: remotes (GitHub Enterprise, self-hosted GitLab).
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum OutputCommand {
    /// Print a part of a tool output `agentctx trim` cut, by the id its reminder names.
    Get(OutputGetArgs),
}

#[derive(Debug, Args)]
pub struct OutputGetArgs {
    /// The id (12 hex digits).
    pub id: String,
    /// Start at this byte (the `next` a page before gave).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// At most this many bytes, whole lines where one fits.
    #[arg(long, value_name = "N", default_value_t = 32_768)]
    pub max_bytes: usize,
}

#[derive(Debug, Subcommand)]
pub enum PromptCommand {
    /// How the model should use the AGENTS.md context and reminders.
    AgentsGuidance,
    /// The project rules' extension of the system prompt.
    Rules,
}

#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Print the effective rules and where they came from.
    Show,
    /// Decide whether tools may be called (exit 1 when any is denied).
    CheckTool(CheckArgs),
    /// Decide whether files may be touched (exit 1 when any is denied).
    CheckFile(CheckArgs),
    /// What the command rules and presets say about shell lines, as the
    /// hook judges them (exit 1 when any is denied or asked about).
    CheckCommand(CheckArgs),
    /// Validate the rule file (exit 1 on any problem).
    Lint,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Tool names, paths (relative to the working directory) or shell lines.
    #[arg(value_name = "ITEM", required_unless_present = "stdin")]
    pub items: Vec<String>,
    /// Also read items from stdin, one per line.
    #[arg(long)]
    pub stdin: bool,
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Show, for every value, the source it came from.
    #[arg(long)]
    pub origins: bool,
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Which schema; without it, the names are listed.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(agentctx_types::SCHEMA_NAMES))]
    pub name: Option<String>,
}

#[derive(Debug, Args)]
pub struct FilesArgs {
    /// tree, flat or compact (default from file_list_context.format, or the rule file).
    #[arg(long, value_parser = one_of::<FileListFormat>(["tree", "flat", "compact"]))]
    pub format: Option<FileListFormat>,
    /// Deepest level shown; the root's children are depth 1.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_depth: Option<u64>,
    /// Entries shown at most (files, directories and grouped runs).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_files: Option<u64>,
    /// Another exclude pattern (gitignore-like); repeatable.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// List only matching files; repeatable.
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Drop the built-in exclude list.
    #[arg(long)]
    pub no_default_excludes: bool,
    /// Sizes in bytes after file names.
    #[arg(long)]
    pub sizes: bool,
    /// Modification dates (UTC) after file names.
    #[arg(long)]
    pub mtime: bool,
    /// Follow symlinks (with loop detection).
    #[arg(long)]
    pub follow: bool,
    /// Fit the listing into N tokens (lower depth, then fewer files, then compact).
    #[arg(long, value_name = "N")]
    pub token_budget: Option<usize>,
    /// Tokenizer for --token-budget and the JSON token count.
    #[arg(long, value_parser = one_of::<Tokenizer>(["o200k", "cl100k"]), default_value = "o200k")]
    pub tokenizer: Tokenizer,
    /// Do not group runs of numbered files.
    #[arg(long)]
    pub no_group: bool,
    /// Leave `generated=` out of the header (byte-stable output).
    #[arg(long)]
    pub no_timestamp: bool,
    /// Walking threads (0: one per core); the output does not depend on it.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// List a GitHub repository instead (token: GITHUB_TOKEN or GH_TOKEN).
    #[arg(long, value_name = "OWNER/REPO[@REF]", conflicts_with_all = ["gitlab", "from_json"])]
    pub github: Option<String>,
    /// List a GitLab project instead (token: GITLAB_TOKEN).
    #[arg(long, value_name = "GROUP/PROJECT[@REF]", conflicts_with = "from_json")]
    pub gitlab: Option<String>,
    /// API base for --github/--gitlab (GitHub Enterprise, self-hosted GitLab).
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,
    /// Saved API responses to list (FILE, or - for stdin); needs --platform.
    #[arg(long, value_name = "FILE", requires = "platform")]
    pub from_json: Option<String>,
    /// The platform of --from-json.
    #[arg(long, value_parser = one_of::<Platform>(["github", "gitlab"]))]
    pub platform: Option<Platform>,
    /// Neither read nor write the remote-listing cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Fetch again and rewrite the cache entry.
    #[arg(long)]
    pub refresh: bool,
}

#[derive(Debug, Subcommand)]
pub enum MemCommand {
    /// Capture a finished sub-agent's output (Claude Code/Codex hook JSON on
    /// stdin, or Codex notify's JSON argument). Always exits 0, prints nothing.
    Capture(CaptureArgs),
    /// Captures, newest first.
    List(MemFilterArgs),
    /// Captures ranked for a query (words, "phrases", prefix*, category:X).
    Search(SearchArgs),
    /// Print one capture (a path, a file name without .md, or a unique prefix).
    Show(ShowArgs),
    /// The best matches for a query as one block for a prompt.
    Context(MemContextArgs),
    /// The <memory_index> a session in the working directory starts with.
    Index(MemIndexArgs),
    /// The working directory's project identity (what memory belongs to).
    Identity,
    /// Counts per category, agent and month; index size.
    Stats,
    /// Rebuild the index from the files.
    Reindex,
    /// A read-only web viewer of captures and events on 127.0.0.1.
    #[cfg(feature = "viewer")]
    Serve(ServeArgs),
    /// Create or upgrade agentctx's schema in the shared PostgreSQL store
    /// (`agentmem.store`); safe from several machines at once.
    #[cfg(feature = "postgres")]
    Migrate,
    /// Send the captures waiting in the memory folder's outbox to the
    /// shared store (sending twice adds nothing).
    #[cfg(feature = "postgres")]
    Sync(SyncArgs),
}

#[cfg(feature = "viewer")]
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port (0 picks a free one; the address is printed).
    #[arg(long, default_value_t = 7878)]
    pub port: u16,
    /// Listen on another address than 127.0.0.1 (explicitly only).
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<String>,
}

#[derive(Debug, Args)]
#[cfg(feature = "postgres")]
pub struct SyncArgs {
    /// Also send every capture of the memory folder the store does not
    /// have by name (those written before the store was set).
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct MemFilterArgs {
    /// Only this category (repeatable).
    #[arg(long = "category", value_name = "C")]
    pub categories: Vec<String>,
    /// Only this agent type.
    #[arg(long, value_name = "T")]
    pub agent: Option<String>,
    /// Only this source (claude-hook, codex-notify, codex-hook).
    #[arg(long, value_name = "S")]
    pub source: Option<String>,
    /// Only captures made in this directory or below it.
    #[arg(long, value_name = "DIR")]
    pub project: Option<String>,
    /// On or after this date (YYYY-MM-DD[ HH:MM]).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// On or before this date.
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
    /// At most N.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Only captures of the working directory's project (the repository,
    /// in any clone or worktree: what recall shows).
    #[arg(long)]
    pub this_project: bool,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The query.
    pub query: String,
    #[command(flatten)]
    pub filter: MemFilterArgs,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A path, a file name without .md, or a unique prefix of one.
    pub id: String,
}

#[derive(Debug, Args)]
pub struct MemContextArgs {
    /// The query.
    pub query: String,
    /// Token budget for the block (o200k_base).
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub max_tokens: usize,
    /// Only captures made in this directory or below it.
    #[arg(long, value_name = "DIR")]
    pub project: Option<String>,
    /// Only captures of the working directory's project.
    #[arg(long)]
    pub this_project: bool,
}

#[derive(Debug, Args)]
pub struct MemIndexArgs {
    /// Token budget (default: agentmem.recall.max_tokens).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
}

#[derive(Debug, Args)]
pub struct CaptureArgs {
    /// Codex `notify` payload; without it, a hook's JSON is read from stdin.
    #[arg(value_name = "JSON")]
    pub payload: Option<String>,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The base system prompt: print the whole system prompt in the spec's order.
    #[arg(long, value_name = "FILE")]
    pub system_prompt: Option<PathBuf>,
    /// Tool descriptions, placed after the rules' extension.
    #[arg(long, value_name = "FILE")]
    pub tool_descriptions: Option<PathBuf>,
    /// Does nothing: the context never holds a timestamp (accepted for
    /// scripts written for older releases).
    #[arg(long)]
    pub no_timestamp: bool,
    /// Compose for a GitHub repository that is not cloned: its file list
    /// and its root AGENTS.md (local rules and AGENTS.md left out).
    #[arg(long, value_name = "OWNER/REPO[@REF]", conflicts_with = "gitlab")]
    pub github: Option<String>,
    /// The same for GitLab.
    #[arg(long, value_name = "GROUP/PROJECT[@REF]")]
    pub gitlab: Option<String>,
    /// API base for --github/--gitlab (GitHub Enterprise, self-hosted GitLab).
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,
    /// Ignore a cached remote listing.
    #[arg(long)]
    pub refresh: bool,
    /// Leave the <memory_index> of past captures out.
    #[arg(long)]
    pub no_memory: bool,
}

/// One of `names`, parsed into the type they name.
fn one_of<T>(names: impl IntoIterator<Item = &'static str>) -> impl TypedValueParser<Value = T>
where
    T: std::str::FromStr<Err = agentctx_types::UnknownName> + Clone + Send + Sync + 'static,
{
    PossibleValuesParser::new(names.into_iter().collect::<Vec<_>>())
        .try_map(|name| name.parse::<T>())
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// Print what the hook would do and why, instead of the agent's JSON.
    #[arg(long)]
    pub explain: bool,
    /// The agent that runs the hook (install writes it); without it, told from the payload.
    #[arg(long, value_parser = one_of::<Agent>(agent_names()))]
    pub agent: Option<Agent>,
    /// The event, for payloads that do not name theirs (Copilot CLI's
    /// camelCase `sessionStart`, `subagentStart`; install writes it).
    #[arg(long)]
    pub event: Option<String>,
}

/// The agents `--agent` names: every agent.
fn agent_names() -> [&'static str; Agent::ALL.len()] {
    Agent::ALL.map(Agent::as_str)
}

#[derive(Debug, Args)]
pub struct ExecArgs {
    /// The session whose rules apply (its hooks recorded them).
    #[arg(long)]
    pub session: String,
    /// The agent whose shell runs the command.
    #[arg(long, value_parser = one_of::<Agent>(agent_names()), default_value = "claude")]
    pub agent: Agent,
    /// Write the folder the command ended in here (Claude Code's shell keeps
    /// it; the form of hook replies before 2026-11-27).
    #[arg(long, conflicts_with = "cwd_script")]
    pub cwd_file: Option<PathBuf>,
    /// Write a script here that the agent's shell sources after this
    /// command: a `cd` to the folder the command ended in and its status.
    #[arg(long)]
    pub cwd_script: Option<PathBuf>,
    /// The sandbox is required (strict mode, `sandbox: on`): without one
    /// that refuses what the rules mask, the command does not run.
    #[arg(long)]
    pub required: bool,
    /// The command line (one word: run by a shell as written; several: a
    /// program and its arguments).
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Whose profile applies (its folders, hosts and credentials); by
    /// default the program's name (claude, codex, gemini, copilot,
    /// opencode, qwen, cline).
    #[arg(long, value_parser = one_of::<Agent>(agent_names()))]
    pub agent: Option<Agent>,
    /// A host the agent and its commands may also reach in this run
    /// (`example.com`, `*.example.com`, `localhost:3000`); repeatable.
    #[arg(long = "allow", value_name = "HOST")]
    pub allow: Vec<String>,
    /// The agent and its arguments.
    #[arg(last = true, required = true)]
    pub command: Vec<std::ffi::OsString>,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// claude, codex, gemini, copilot, opencode, qwen or cline (its hooks; opencode and cline: agentctx's plugin).
    #[arg(value_parser = one_of::<Agent>(agent_names()))]
    pub agent: Agent,
    /// This project, for you (default): Claude Code's .claude/settings.local.json at the root.
    #[arg(long, conflicts_with_all = ["user", "shared"])]
    pub project: bool,
    /// This project, for everyone: .claude/settings.json (read only in sessions started at the root).
    #[arg(long, conflicts_with = "user")]
    pub shared: bool,
    /// The user's settings in the home directory.
    #[arg(long)]
    pub user: bool,
    /// Print the changes as a diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The agentctx the hooks run: an absolute path, or `agentctx` to find
    /// it on the agent's PATH (default: this binary by its absolute path;
    /// needed when this one is in a temporary folder such as /tmp).
    #[arg(long, value_name = "PATH")]
    pub program: Option<String>,
    /// Claude Code: switch its built-in AGENTS.md loader off (user settings);
    /// agentctx then gives the chain at start and path-only reminders.
    #[arg(long)]
    pub replace_agents_md_loader: bool,
    /// Also register `agentctx mcp` as an MCP server: Claude Code's project
    /// `.mcp.json`, Codex's `[mcp_servers.agentctx]` in $CODEX_HOME/config.toml;
    /// the user config of Gemini CLI, Copilot CLI, opencode and Qwen Code.
    #[arg(long)]
    pub mcp: bool,
    /// Codex: record agentctx's hooks as trusted in $CODEX_HOME/config.toml
    /// (what trusting them in Codex's TUI does); without it, trust them there.
    #[arg(long)]
    pub trust: bool,
    /// The agent's version (default: `claude --version` from PATH); events it
    /// does not know are left out.
    #[arg(long, value_name = "X.Y.Z")]
    pub agent_version: Option<String>,
}
