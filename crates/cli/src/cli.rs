//! The command line, as clap sees it.

use std::path::PathBuf;

use clap::{ArgAction, Args, Parser, Subcommand};

/// Assemble and guard the context of a coding agent.
#[derive(Debug, Parser)]
#[command(name = "agentctx", version, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Run as if started in DIR; relative paths in other flags are relative to it.
    #[arg(short = 'C', long = "cwd", value_name = "DIR", global = true)]
    pub cwd: Option<PathBuf>,
    /// Read only this config file (replaces the user and project files).
    #[arg(long, value_name = "FILE", global = true)]
    pub config: Option<PathBuf>,
    /// Set a config value for this run; VALUE is YAML (e.g. -c agents.initial.maxFiles=4).
    #[arg(short = 'c', long = "set", value_name = "KEY=VALUE", global = true)]
    pub set: Vec<String>,
    /// Print one JSON document on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// More logging on stderr (-v info, -vv debug, -vvv trace); AGENTCTX_LOG overrides.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Only errors on stderr.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the effective config (defaults, files, environment, flags merged).
    Config(ConfigArgs),
    /// Print a JSON Schema generated from agentctx's types.
    Schema(SchemaArgs),
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
