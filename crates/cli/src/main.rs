//! `agentctx`: the command-line front end. The only crate that talks to the terminal.

mod cli;
mod commands;

use std::io::{IsTerminal as _, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use tracing_subscriber::EnvFilter;

use crate::cli::{
    AgentsCommand, Cli, Command, GlobalArgs, MemCommand, PromptCommand, SessionCommand,
};
use crate::commands::{Invocation, Outcome};
use agentctx_config::{self as config, ConfigRequest, Environment, ProjectConfig};

/// Exit code for bad usage, bad config or bad input (and any other error).
const EXIT_ERROR: u8 = 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(error),
    };
    let env = Environment::from_process();
    init_logging(&cli.global, &env);
    // Not locked for the whole run: `agentctx mcp` writes the protocol
    // through the async runtime's stdout, which takes the lock per write.
    let mut out = std::io::stdout();
    let result = run(cli, env, &mut out).and_then(|outcome| {
        out.flush()?;
        Ok(outcome)
    });
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Negative) => ExitCode::from(1),
        Ok(Outcome::Status(code)) => ExitCode::from(code),
        Err(error) => {
            report(&error);
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// Bad arguments exit 2, except for the entry points agents run: for
/// `hook` and `mem capture`, exit 2 would block a tool call or show the
/// user an error, so they log the problem and exit 0.
fn usage_error(error: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = error.print();
        return ExitCode::SUCCESS;
    }
    let words: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let agent_entry = match words.first().map(String::as_str) {
        Some("hook") => Some("hook.log"),
        Some("mem") if words.get(1).map(String::as_str) == Some("capture") => Some("agentmem.log"),
        _ => None,
    };
    match agent_entry {
        Some(log) => {
            let env = Environment::from_process();
            let message = error.render().to_string();
            let first = message.lines().next().unwrap_or_default();
            commands::mem::log_in(
                &env,
                &Default::default(),
                log,
                &[format!("bad arguments, doing nothing: {first}")],
                true,
            );
            ExitCode::SUCCESS
        }
        None => {
            let _ = error.print();
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn run(cli: Cli, env: Environment, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    // `hook` and `mem capture` never fail the agent; they log instead.
    let agent_log = match &cli.command {
        Command::Hook(_) | Command::Exec(_) => Some("hook.log"),
        Command::Mem(MemCommand::Capture(_)) => Some("agentmem.log"),
        _ => None,
    };
    let cwd = match working_directory(cli.global.cwd.as_deref()) {
        Ok(cwd) => cwd,
        // A hook started from a directory deleted since still runs: its
        // payload names the session's directory.
        Err(_) if agent_log.is_some() => PathBuf::new(),
        Err(error) => return Err(error),
    };
    let config_file = cli.global.config.as_ref().map(|f| cwd.join(f));
    let request = ConfigRequest {
        cwd: &cwd,
        config_file: config_file.as_deref(),
        sets: &cli.global.set,
        env: &env,
        project: ProjectConfig::Nearest,
    };
    let config = if let Some(log) = agent_log {
        // A hook must never break the agent: it runs on every value that is
        // valid (the rules' policy included) and logs the problem instead
        // of exiting 2.
        let (salvaged, errors) = config::load_salvaging(&request);
        if let Some(error) = errors.first() {
            let line = format!("config error, bad values dropped: {error}");
            commands::mem::log_in(&env, &salvaged.config.agentmem, log, &[line], true);
        }
        salvaged
    } else {
        config::load(&request)?
    };
    let inv = Invocation {
        cwd,
        env,
        config,
        config_file,
        sets: cli.global.set.clone(),
        program: std::env::current_exe()
            .ok()
            .and_then(|p| std::fs::canonicalize(p).ok())
            .filter(|p| !p.to_string_lossy().ends_with(" (deleted)")),
        json: cli.global.json,
        quiet: cli.global.quiet,
    };
    log_setup(&inv);
    match &cli.command {
        Command::Context(args) => commands::context::run(&inv, args, out),
        Command::Hook(args) => commands::hook::run(&inv, args, out),
        Command::Install(args) => commands::install::install(&inv, args, out),
        Command::Uninstall(args) => commands::install::uninstall(&inv, args, out),
        Command::Root => commands::agents::root(&inv, out),
        Command::Agents(AgentsCommand::Init(args)) => commands::agents::init(&inv, args, out),
        Command::Agents(AgentsCommand::Resolve(args)) => commands::agents::resolve(&inv, args, out),
        Command::Session(SessionCommand::Resume(args)) => commands::agents::resume(&inv, args, out),
        Command::Files(args) => commands::files::run(&inv, args, out),
        Command::Mem(command) => commands::memstore::run(&inv, command, out),
        Command::Rules(command) => commands::rules::run(&inv, command, out),
        Command::Trim(args) => commands::text::trim(&inv, args, out),
        Command::Output(cli::OutputCommand::Get(args)) => {
            commands::text::output_get(&inv, args, out)
        }
        Command::Prompt(PromptCommand::Rules) => commands::rules::prompt(&inv, out),
        Command::Prompt(which) => commands::text::prompt(&inv, which, out),
        Command::Config(args) => commands::config::run(&inv, args, out),
        Command::Schema(args) => commands::schema::run(&inv, args, out),
        Command::Exec(args) => commands::exec::run(&inv, args),
        Command::Run(args) => commands::run::run(&inv, args),
        Command::Mcp(args) => commands::mcp::run(&inv, args),
    }
}

/// What `-v` shows on stderr before the command runs: the config files
/// read, the project root and how it was found, the rule file; `-vv` adds
/// every config value that is not a default, with its source.
fn log_setup(inv: &Invocation) {
    if !tracing::enabled!(tracing::Level::INFO) {
        return;
    }
    if inv.config.files.is_empty() {
        tracing::info!("config: no config file read (built-in defaults, environment, flags)");
    }
    for file in &inv.config.files {
        tracing::info!("config read from {file}");
    }
    if tracing::enabled!(tracing::Level::DEBUG) {
        for entry in inv.config.entries() {
            if entry.origin != agentctx_types::ConfigOrigin::Default {
                tracing::debug!("config {} = {} ({})", entry.key, entry.value, entry.origin);
            }
        }
    }
    let Some(cwd) = inv.cwd_if_exists() else {
        return;
    };
    let host = inv.host();
    match host.root(cwd) {
        Ok(info) => {
            let how = serde_json::to_value(info.source)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let marker = info.marker.map(|m| format!(" {m}")).unwrap_or_default();
            tracing::info!(
                "project root: {} (found by {how}{marker}, from {})",
                info.root.display(),
                info.cwd.display()
            );
        }
        Err(error) => tracing::info!("no project root: {error}"),
    }
    match host.rules(cwd) {
        Ok(rules) => tracing::info!("rules: {}", rules.source()),
        Err(error) => tracing::info!("rules: {error}"),
    }
}

/// `-C DIR` made absolute (against the process's directory), or the process's directory.
fn working_directory(flag: Option<&Path>) -> anyhow::Result<PathBuf> {
    let process_dir = std::env::current_dir().context("cannot read the current directory")?;
    let Some(dir) = flag else {
        return Ok(process_dir);
    };
    let dir = process_dir.join(dir);
    if !dir.is_dir() {
        anyhow::bail!(
            "working directory {} does not exist or is not a directory",
            dir.display()
        );
    }
    Ok(dir)
}

fn init_logging(global: &GlobalArgs, env: &Environment) {
    let default_level = match (global.quiet, global.verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        (false, _) => "trace",
    };
    let filter = env
        .get("AGENTCTX_LOG")
        .and_then(|spec| EnvFilter::try_new(spec).ok())
        .unwrap_or_else(|| EnvFilter::new(default_level));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .without_time()
        .with_target(false)
        .init();
}

fn report(error: &anyhow::Error) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "error: {error}");
    for cause in error.chain().skip(1) {
        let _ = writeln!(stderr, "  caused by: {cause}");
    }
}
