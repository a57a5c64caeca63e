//! Environment variables that set config keys.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

/// `SOURCE_DATE_EPOCH` is set to something else than whole seconds.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("SOURCE_DATE_EPOCH must be whole seconds since the epoch, got {text:?}")]
pub struct SourceDateEpochError {
    /// The value found.
    pub text: String,
}

/// A snapshot of the environment. Commands read variables through this so
/// tests can give each run its own environment.
#[derive(Clone, Debug, Default)]
pub struct Environment {
    vars: BTreeMap<String, String>,
}

impl Environment {
    /// The process environment; variables that are not UTF-8 are ignored.
    pub fn from_process() -> Self {
        Self {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        }
    }

    /// An environment holding exactly these variables.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Self {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        }
    }

    /// Codex's home: `$CODEX_HOME` when absolute, else `~/.codex`.
    pub fn codex_home(&self) -> Option<PathBuf> {
        self.get("CODEX_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| self.home().map(|h| h.join(".codex")))
    }

    /// The time a generated text is stamped with, in seconds since the
    /// epoch: `SOURCE_DATE_EPOCH` when set (the reproducible-builds
    /// convention), else now.
    pub fn generated_at(&self) -> Result<i64, SourceDateEpochError> {
        if let Some(text) = self.get("SOURCE_DATE_EPOCH") {
            return text
                .trim()
                .parse::<i64>()
                .map_err(|_| SourceDateEpochError {
                    text: text.to_owned(),
                });
        }
        Ok(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
            .unwrap_or(0))
    }

    /// The variable's value; an empty value counts as unset.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// `$HOME`, when set to an absolute path.
    pub fn home(&self) -> Option<PathBuf> {
        self.get("HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    }

    /// An XDG base directory: `$VAR` when absolute, else `$HOME/fallback`.
    pub fn xdg_dir(&self, var: &str, fallback: &str) -> Option<PathBuf> {
        match self.get(var).map(PathBuf::from) {
            Some(dir) if dir.is_absolute() => Some(dir),
            _ => self.home().map(|home| home.join(fallback)),
        }
    }
}

/// How a variable's text becomes a config value.
#[derive(Clone, Copy, Debug)]
pub enum EnvKind {
    Bool,
    Integer,
    Text,
    CommaList,
}

/// Every variable that sets a config key, with that key's path.
pub const ENV_KEYS: [(&str, &str, EnvKind); 12] = [
    ("CODELIA_AGENTS_ENABLED", "agents.enabled", EnvKind::Bool),
    (
        "CODELIA_AGENTS_ROOT",
        "agents.root.projectRootOverride",
        EnvKind::Text,
    ),
    (
        "CODELIA_AGENTS_MARKERS",
        "agents.root.markers",
        EnvKind::CommaList,
    ),
    (
        "CODELIA_AGENTS_INITIAL_MAX_FILES",
        "agents.initial.maxFiles",
        EnvKind::Integer,
    ),
    (
        "CODELIA_AGENTS_INITIAL_MAX_BYTES",
        "agents.initial.maxBytes",
        EnvKind::Integer,
    ),
    (
        "CODELIA_AGENTS_RESOLVER_ENABLED",
        "agents.resolver.enabled",
        EnvKind::Bool,
    ),
    (
        "CODELIA_AGENTS_MAX_FILES_PER_RESOLVE",
        "agents.resolver.maxFilesPerResolve",
        EnvKind::Integer,
    ),
    ("AGENTMEM_ROOT", "agentmem.root", EnvKind::Text),
    (
        "AGENTMEM_EVENTS_PATH",
        "agentmem.events_path",
        EnvKind::Text,
    ),
    ("AGENTMEM_DEBUG", "agentmem.debug", EnvKind::Bool),
    ("AGENTMEM_STORE", "agentmem.store", EnvKind::Text),
    (
        "CODEX_SESSIONS_DIR",
        "agentmem.codex_sessions_dir",
        EnvKind::Text,
    ),
];

/// Converts a variable's text; `Err` holds a message for the user.
pub fn env_value(text: &str, kind: EnvKind) -> Result<Value, String> {
    match kind {
        EnvKind::Bool => match text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => Ok(Value::Bool(true)),
            "0" | "false" | "no" | "off" => Ok(Value::Bool(false)),
            _ => Err(format!(
                "expected a boolean (true/false, 1/0, yes/no, on/off), got {text:?}"
            )),
        },
        // Numbers are handed on as numbers, floats included, so that the one
        // validation in the types says what is wrong with them.
        EnvKind::Integer => {
            let t = text.trim();
            if let Ok(i) = t.parse::<i64>() {
                Ok(Value::from(i))
            } else if let Ok(u) = t.parse::<u64>() {
                Ok(Value::from(u))
            } else if let Some(f) = t.parse::<f64>().ok().filter(|f| f.is_finite()) {
                Ok(Value::from(f))
            } else {
                Ok(Value::String(text.to_owned()))
            }
        }
        EnvKind::Text => Ok(Value::String(text.to_owned())),
        EnvKind::CommaList => Ok(Value::Array(
            text.split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty())
                .map(|item| Value::String(item.to_owned()))
                .collect(),
        )),
    }
}

#[cfg(test)]
mod generated_tests {
    use super::Environment;

    #[test]
    fn source_date_epoch_stamps_generated_texts_and_must_be_whole_seconds() {
        let env = Environment::from_pairs([("SOURCE_DATE_EPOCH", " 1700000000 ")]);
        assert_eq!(env.generated_at(), Ok(1_700_000_000));
        let env = Environment::from_pairs([("SOURCE_DATE_EPOCH", "1.5")]);
        let error = env.generated_at().unwrap_err();
        assert_eq!(error.text, "1.5");
        assert!(
            Environment::from_pairs([])
                .generated_at()
                .is_ok_and(|t| t > 1_700_000_000)
        );
    }
}
