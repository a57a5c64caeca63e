//! Loading the effective config from every source, with the origin of each value.
//!
//! Sources, lowest precedence first: built-in defaults; the user file
//! `$XDG_CONFIG_HOME/agentctx/config.yaml`; the project file (for a
//! command, the nearest `.agentctx.yaml` at or above the working directory;
//! for a hook, the one at the session's project root only:
//! [`ProjectConfig`]); environment variables; `--set KEY=VALUE` flags.
//! `--config FILE` replaces both files.
//!
//! Every source is validated on its own against [`Config`] before it is
//! merged, so an error names the source that holds the bad value.
//!
//! ```
//! use agentctx_config::{ConfigRequest, Environment, load};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let project = tempfile::tempdir()?;
//! std::fs::write(project.path().join(".agentctx.yaml"), "agents:\n  initial:\n    maxFiles: 4\n")?;
//! let env = Environment::from_pairs([("AGENTMEM_DEBUG", "1")]);
//! let request = ConfigRequest::new(project.path(), &env);
//! let loaded = load(&request)?;
//! assert_eq!(loaded.config.agents.initial.max_files.get(), 4);
//! assert!(loaded.config.agentmem.debug);
//!
//! // A bad value names the file, line, column and key.
//! std::fs::write(project.path().join(".agentctx.yaml"), "agents:\n  initial:\n    maxFiles: 0\n")?;
//! let error = load(&request).unwrap_err();
//! assert!(error.to_string().contains(".agentctx.yaml:3:15: agents.initial.maxFiles"));
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod env;
mod error;
mod layers;
mod state;
mod yaml;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentctx_types::{Config, ConfigEntry, ConfigOrigin};
use serde_json::Value;

pub use env::{Environment, SourceDateEpochError};
pub use error::ConfigError;
use layers::{Leaf, Merged, flatten, leaves_of, nest};
pub use state::{StateLog, state_dir};

/// The name of the project config file looked for above the working directory.
pub const PROJECT_FILE_NAME: &str = ".agentctx.yaml";

/// What the loader needs to know about the invocation.
#[derive(Clone, Copy, Debug)]
pub struct ConfigRequest<'a> {
    /// The working directory (`-C`), absolute.
    pub cwd: &'a Path,
    /// `--config FILE`, already resolved against `cwd`.
    pub config_file: Option<&'a Path>,
    /// `--set KEY=VALUE` arguments, in command-line order.
    pub sets: &'a [String],
    /// The environment to read variables from.
    pub env: &'a Environment,
    /// Which project file is read.
    pub project: ProjectConfig<'a>,
}

/// Which `.agentctx.yaml` a load reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProjectConfig<'a> {
    /// The nearest at or above the working directory (commands a person runs).
    Nearest,
    /// The one at this project root, and no other (a hook: the session's
    /// project was decided at its start, and a file an agent writes below
    /// or above the root must not change its rules).
    AtRoot(&'a Path),
    /// None: the user file, the environment and flags only (what finds
    /// the root a hook then reads the project file of).
    Ignored,
}

impl<'a> ConfigRequest<'a> {
    /// A request for `cwd` with no flags: the nearest project file.
    pub fn new(cwd: &'a Path, env: &'a Environment) -> Self {
        Self {
            cwd,
            config_file: None,
            sets: &[],
            env,
            project: ProjectConfig::Nearest,
        }
    }
}

/// The merged config and where each of its values came from.
#[derive(Debug)]
pub struct LoadedConfig {
    /// The effective config.
    pub config: Config,
    origins: BTreeMap<String, ConfigOrigin>,
    /// The files that were read, in precedence order.
    pub files: Vec<ConfigOrigin>,
}

impl LoadedConfig {
    /// Built-in defaults only, for commands that must run even when the
    /// config is broken (`mem capture` must never disturb the agent).
    pub fn defaults() -> Self {
        Self {
            config: Config::default(),
            origins: BTreeMap::new(),
            files: Vec::new(),
        }
    }

    /// Every effective value with its origin, in the order `agentctx config` prints keys.
    pub fn entries(&self) -> Vec<ConfigEntry> {
        let tree = serde_json::to_value(&self.config).unwrap_or(Value::Null);
        flatten(&tree)
            .into_iter()
            .map(|(key, value)| ConfigEntry {
                origin: self
                    .origins
                    .get(&key)
                    .cloned()
                    .unwrap_or(ConfigOrigin::Default),
                key,
                value,
            })
            .collect()
    }
}

/// Loads, validates and merges every source.
pub fn load(request: &ConfigRequest<'_>) -> Result<LoadedConfig, ConfigError> {
    let mut merged = Merged::default();
    let mut files = Vec::new();

    for (path, origin) in file_sources(request) {
        let Some(text) = read_optional(&path, matches!(origin, ConfigOrigin::ConfigFlag { .. }))?
        else {
            continue;
        };
        for leaf in parse_file(&path, &text, &origin)? {
            if let Some(key) = user_only(&leaf) {
                return Err(ConfigError::UserOnly { path, key });
            }
            if let Some((key, allowed)) = loosens(&leaf) {
                return Err(ConfigError::Loosens { path, key, allowed });
            }
            merged.apply(leaf);
        }
        files.push(origin);
    }
    for leaf in env_leaves(request.env)? {
        merged.apply(leaf);
    }
    for leaf in flag_leaves(request.sets)? {
        merged.apply(leaf);
    }

    let config = serde_path_to_error::deserialize::<_, Config>(Value::Object(merged.tree))
        .map_err(|e| {
            // Each source was valid alone, so this is a combination no single
            // source can be blamed for; name the key and its last setter.
            let key = e.path().to_string();
            let origin = merged.origins.get(&key).map(ToString::to_string);
            ConfigError::Flag {
                arg: origin.unwrap_or_else(|| "merged config".to_owned()),
                key: Some(key),
                message: e.into_inner().to_string(),
            }
        })?;
    Ok(LoadedConfig {
        config,
        origins: merged.origins,
        files,
    })
}

/// The config for the entry points that must run whatever happens (hooks,
/// `mem capture`): when [`load`] fails, every value that is valid on its
/// own is still applied and only the bad ones are dropped, so an error in
/// `agentmem` never drops `project_agent_rules.on_error` or
/// `default_rules`. A file that cannot be parsed at all and mentions
/// `project_agent_rules` may have restricted the agent: its rules are then
/// taken as `on_error: deny_all` (fail closed). Returns the errors met.
pub fn load_salvaging(request: &ConfigRequest<'_>) -> (LoadedConfig, Vec<ConfigError>) {
    match load(request) {
        Ok(loaded) => (loaded, Vec::new()),
        Err(first) => {
            let mut errors = vec![first];
            let mut merged = Merged::default();
            let mut files = Vec::new();
            let mut fail_closed = false;
            for (path, origin) in file_sources(request) {
                let text = match read_optional(&path, false) {
                    Ok(Some(text)) => text,
                    Ok(None) => continue,
                    Err(error) => {
                        errors.push(error);
                        continue;
                    }
                };
                let value = match yaml::parse_value(&text) {
                    Ok(value) => value,
                    Err(_) => {
                        fail_closed |= text.contains("project_agent_rules");
                        continue;
                    }
                };
                for leaf in leaves_of(&value, &origin) {
                    if user_only(&leaf).is_none()
                        && loosens(&leaf).is_none()
                        && validate_alone(&leaf).is_ok()
                    {
                        merged.apply(leaf);
                    }
                }
                files.push(origin);
            }
            if let Ok(leaves) = env_leaves(request.env) {
                for leaf in leaves {
                    merged.apply(leaf);
                }
            }
            for arg in request.sets {
                if let Ok(leaf) = flag_leaf(arg) {
                    merged.apply(leaf);
                }
            }
            let mut config: Config =
                serde_path_to_error::deserialize(Value::Object(merged.tree.clone()))
                    .unwrap_or_default();
            if fail_closed {
                config.project_agent_rules.on_error = agentctx_types::OnRuleError::DenyAll;
            }
            (
                LoadedConfig {
                    config,
                    origins: merged.origins,
                    files,
                },
                errors,
            )
        }
    }
}

fn file_sources(request: &ConfigRequest<'_>) -> Vec<(PathBuf, ConfigOrigin)> {
    let origin_for = |path: &Path, make: fn(String) -> ConfigOrigin| {
        (path.to_path_buf(), make(path.display().to_string()))
    };
    if let Some(path) = request.config_file {
        return vec![origin_for(path, |path| ConfigOrigin::ConfigFlag { path })];
    }
    let mut sources = Vec::new();
    if let Some(dir) = request.env.xdg_dir("XDG_CONFIG_HOME", ".config") {
        let user = dir.join("agentctx").join("config.yaml");
        sources.push(origin_for(&user, |path| ConfigOrigin::UserFile { path }));
    }
    let project = match request.project {
        ProjectConfig::Nearest => nearest_project_file(request.cwd),
        ProjectConfig::AtRoot(root) => Some(root.join(PROJECT_FILE_NAME)).filter(|p| p.is_file()),
        ProjectConfig::Ignored => None,
    };
    if let Some(project) = project {
        sources.push(origin_for(&project, |path| ConfigOrigin::ProjectFile {
            path,
        }));
    }
    sources
}

fn nearest_project_file(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .map(|dir| dir.join(PROJECT_FILE_NAME))
        .find(|candidate| candidate.is_file())
}

fn read_optional(path: &Path, required: bool) -> Result<Option<String>, ConfigError> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| ConfigError::NotUtf8 {
                path: path.to_path_buf(),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => Ok(None),
        Err(source) => Err(ConfigError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn parse_file(path: &Path, text: &str, origin: &ConfigOrigin) -> Result<Vec<Leaf>, ConfigError> {
    let invalid = |p: yaml::YamlProblem| ConfigError::Invalid {
        path: path.to_path_buf(),
        line: p.line,
        column: p.column,
        key: p.key,
        message: p.message,
    };
    let value = yaml::parse_value(text).map_err(invalid)?;
    if value.is_null() {
        return Ok(Vec::new());
    }
    // The typed parse is the validation: it knows every key and limit and
    // reports the position in the file.
    yaml::parse_strict::<Config>(text).map_err(invalid)?;
    Ok(leaves_of(&value, origin))
}

/// Keys a project file may not set (`ConfigError::UserOnly`): which
/// memory a session recalls and where its captures and events go are the
/// user's choice (a repository that named the memory folder would have its
/// own files recalled, and the user's captures written into it), and so
/// are the addresses the network proxy gives names and the secrets passed
/// on to sandboxed commands.
const USER_ONLY_KEYS: &[&str] = &[
    "agentmem.identities",
    "agentmem.recall.also",
    "agentmem.root",
    "agentmem.events_path",
    "agentmem.codex_sessions_dir",
    "agentmem.store",
    "agentmem.store_password_file",
    "project_agent_rules.network_hosts",
    "project_agent_rules.pass_env",
    "project_agent_rules.commands",
    "project_agent_rules.presets",
    "project_agent_rules.home_secrets",
    "project_agent_rules.user_rules",
];

/// Keys a project file may set only to the value that tightens the guard:
/// a repository that turned its rules, agentctx's self-protection or the
/// sandbox off would take the user's rules and home secrets with them.
const TIGHTEN_ONLY: [(&str, &str); 5] = [
    ("project_agent_rules.enabled", "true"),
    ("project_agent_rules.protect_config", "true"),
    ("project_agent_rules.strict", "true"),
    ("project_agent_rules.sandbox", "on"),
    ("project_agent_rules.on_error", "deny_all"),
];

/// The key `leaf` loosens, and the value it may have, when it comes from
/// a project file.
fn loosens(leaf: &Leaf) -> Option<(String, &'static str)> {
    if !matches!(leaf.origin, ConfigOrigin::ProjectFile { .. }) {
        return None;
    }
    let key = leaf.path.join(".");
    let (_, allowed) = TIGHTEN_ONLY.iter().find(|(k, _)| *k == key)?;
    let given = match &leaf.value {
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    (given != *allowed).then_some((key, allowed))
}

/// The user-only key `leaf` sets when it comes from a project file.
fn user_only(leaf: &Leaf) -> Option<String> {
    if !matches!(leaf.origin, ConfigOrigin::ProjectFile { .. }) {
        return None;
    }
    let key = leaf.path.join(".");
    USER_ONLY_KEYS
        .iter()
        .find(|k| key == **k || key.starts_with(&format!("{k}.")))
        .map(|k| (*k).to_owned())
}

fn validate_alone(leaf: &Leaf) -> Result<(), (String, String)> {
    serde_path_to_error::deserialize::<_, Config>(nest(&leaf.path, leaf.value.clone()))
        .map(drop)
        .map_err(|e| {
            let at = e.path().to_string();
            (
                at,
                agentctx_types::wording::plain(&e.into_inner().to_string()),
            )
        })
}

fn env_leaves(env: &Environment) -> Result<Vec<Leaf>, ConfigError> {
    let mut leaves = Vec::new();
    for (var, key, kind) in env::ENV_KEYS {
        let Some(text) = env.get(var) else { continue };
        let fail = |message: String| ConfigError::Env {
            var,
            key: key.to_owned(),
            message,
        };
        let leaf = Leaf {
            path: key.split('.').map(str::to_owned).collect(),
            value: env::env_value(text, kind).map_err(fail)?,
            origin: ConfigOrigin::Env {
                name: var.to_owned(),
            },
        };
        validate_alone(&leaf).map_err(|(_, message)| fail(message))?;
        leaves.push(leaf);
    }
    Ok(leaves)
}

fn flag_leaves(sets: &[String]) -> Result<Vec<Leaf>, ConfigError> {
    sets.iter().map(|arg| flag_leaf(arg)).collect()
}

fn flag_leaf(arg: &str) -> Result<Leaf, ConfigError> {
    let fail = |key: Option<String>, message: String| ConfigError::Flag {
        arg: arg.to_owned(),
        key,
        message,
    };
    let Some((key, text)) = arg.split_once('=') else {
        return Err(fail(None, "expected KEY=VALUE".to_owned()));
    };
    let path: Vec<String> = key.trim().split('.').map(str::to_owned).collect();
    if path.iter().any(String::is_empty) {
        return Err(fail(None, format!("{key:?} is not a dotted key path")));
    }
    // The value is YAML, so `4`, `true`, `[.git, .jj]` and `~` mean what they mean in the file.
    let value = yaml::parse_value(text).map_err(|p| fail(Some(key.to_owned()), p.message))?;
    let leaf = Leaf {
        path,
        value,
        origin: ConfigOrigin::Flag {
            arg: format!("--set {arg}"),
        },
    };
    validate_alone(&leaf).map_err(|(at, message)| fail(Some(at), message))?;
    Ok(leaf)
}

#[cfg(test)]
mod tests;
