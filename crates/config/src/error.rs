//! What can go wrong while loading the config; every variant names its source.

use std::path::PathBuf;

/// A config source that cannot be used. Any of these stops the command (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A config file exists but cannot be read.
    #[error("cannot read config file {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A config file is not UTF-8.
    #[error("config file {path} is not valid UTF-8")]
    NotUtf8 {
        /// The file.
        path: PathBuf,
    },
    /// A config file has a syntax error, an unknown key, a wrong type or a bad value.
    #[error("{path}:{line}:{column}: {}{message}", key_prefix(.key))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 when the parser could not tell).
        line: u64,
        /// 1-based column (0 when the parser could not tell).
        column: u64,
        /// Dotted key path such as `agents.initial.maxFiles`, when known.
        key: Option<String>,
        /// What was wrong.
        message: String,
    },
    /// An environment variable holds a value its key does not accept.
    #[error("environment variable {var} (for {key}): {message}")]
    Env {
        /// The variable.
        var: &'static str,
        /// The config key it sets.
        key: String,
        /// What was wrong.
        message: String,
    },
    /// A `--set KEY=VALUE` flag is malformed or names a bad key or value.
    #[error("flag --set {arg}: {}{message}", key_prefix(.key))]
    Flag {
        /// The flag's argument as given.
        arg: String,
        /// The dotted key, when the flag got that far.
        key: Option<String>,
        /// What was wrong.
        message: String,
    },
    /// A project file sets a key only the user may set: which captures
    /// a session recalls, and where captures go, are the user's choice,
    /// not the repository's.
    #[error(
        "{path}: {key} can be set only in the user config ($XDG_CONFIG_HOME/agentctx/config.yaml) or the environment: a repository must not choose whose memory its sessions read, where captures go, where its network names lead or which of the user's secrets its commands get"
    )]
    UserOnly {
        /// The project file.
        path: PathBuf,
        /// The key.
        key: String,
    },
    /// A project file loosens the guard the user chose (turns the rules
    /// or the sandbox off): a repository may only tighten it.
    #[error(
        "{path}: {key} may be set by a project only to {allowed} (a repository may tighten the guard, never loosen it); set it in the user config ($XDG_CONFIG_HOME/agentctx/config.yaml) or the environment"
    )]
    Loosens {
        /// The project file.
        path: PathBuf,
        /// The key.
        key: String,
        /// The one value a project may give it.
        allowed: &'static str,
    },
}

fn key_prefix(key: &Option<String>) -> String {
    match key {
        Some(k) if !k.is_empty() && k != "." => format!("{k}: "),
        _ => String::new(),
    }
}
