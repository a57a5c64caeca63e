//! JSON printed by CLI commands.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One effective config value and where it came from (`agentctx config --origins --json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ConfigEntry {
    /// Dotted key path, e.g. `agents.initial.maxFiles`.
    pub key: String,
    /// The effective value.
    pub value: serde_json::Value,
    /// The source that set it.
    pub origin: ConfigOrigin,
}

/// Where a config value came from, lowest precedence first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ConfigOrigin {
    /// Built into agentctx.
    Default,
    /// `$XDG_CONFIG_HOME/agentctx/config.yaml`.
    UserFile {
        /// The file.
        path: String,
    },
    /// The nearest `.agentctx.yaml` above the working directory.
    ProjectFile {
        /// The file.
        path: String,
    },
    /// The file named by `--config`, which replaces the user and project files.
    ConfigFlag {
        /// The file.
        path: String,
    },
    /// An environment variable.
    Env {
        /// The variable's name.
        name: String,
    },
    /// A command-line flag.
    Flag {
        /// The flag as given, e.g. `--set agents.enabled=false`.
        arg: String,
    },
}

impl std::fmt::Display for ConfigOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Default => f.write_str("default"),
            Self::UserFile { path } => write!(f, "user-file:{path}"),
            Self::ProjectFile { path } => write!(f, "project-file:{path}"),
            Self::ConfigFlag { path } => write!(f, "config-file:{path}"),
            Self::Env { name } => write!(f, "env:{name}"),
            Self::Flag { arg } => write!(f, "flag:{arg}"),
        }
    }
}
