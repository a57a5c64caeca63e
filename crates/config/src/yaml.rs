//! YAML parsing for config files, hardened and precise about errors.
//!
//! serde-saphyr is used because serde_yaml is deprecated upstream and
//! serde-saphyr is panic-free, budgets alias expansion and rejects duplicate
//! keys. YAML never leaves this module: callers get typed values or JSON.

use serde::de::DeserializeOwned;

/// A parse or validation failure with its position and key path.
#[derive(Debug)]
pub struct YamlProblem {
    /// 1-based line, 0 if unknown.
    pub line: u64,
    /// 1-based column, 0 if unknown.
    pub column: u64,
    /// Dotted key path, when the failure happened inside a mapping.
    pub key: Option<String>,
    /// The parser's message, without position or snippet.
    pub message: String,
}

fn options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
        merge_keys: serde_saphyr::MergeKeyPolicy::Error,
        strict_booleans: true,
        with_snippet: false,
    }
}

/// Parses `text` into `T`, tracking the key path so that an error can say
/// `agents.initial.maxFiles` and not only a line number.
pub fn parse_strict<T: DeserializeOwned>(text: &str) -> Result<T, YamlProblem> {
    let mut failed_at: Option<String> = None;
    let result = serde_saphyr::with_deserializer_from_str_with_options(text, options(), |de| {
        let mut track = serde_path_to_error::Track::new();
        let tracked = serde_path_to_error::Deserializer::new(de, &mut track);
        let value = T::deserialize(tracked);
        if value.is_err() {
            failed_at = Some(track.path().to_string());
        }
        value
    });
    result.map_err(|error| problem(&error, failed_at, text))
}

/// Parses `text` into a JSON tree (`null` for an empty document).
pub fn parse_value(text: &str) -> Result<serde_json::Value, YamlProblem> {
    parse_strict::<Option<serde_json::Value>>(text).map(|v| v.unwrap_or(serde_json::Value::Null))
}

fn problem(error: &serde_saphyr::Error, key: Option<String>, text: &str) -> YamlProblem {
    use agentctx_types::wording;
    let (line, column) = error
        .location()
        .map(|at| (at.line(), at.column()))
        .unwrap_or((0, 0));
    let mut key = key.filter(|k| !k.is_empty() && k != ".");
    // serde-saphyr words these for library authors; say them for the
    // person editing the file, with the value found there, and put a
    // duplicate key in the path where the tracker could only see `?`.
    let message = match wording::innermost_yaml_error(error) {
        serde_saphyr::Error::DuplicateMappingKey { key: name, .. } => {
            let name = name.clone().unwrap_or_default();
            key = Some(match key.as_deref().and_then(|k| k.strip_suffix('?')) {
                Some(parent) => format!("{parent}{name}"),
                None => name.clone(),
            });
            format!("duplicate key `{name}` (each key may appear once)")
        }
        inner => match wording::yaml_message(inner, text, line, column) {
            Some(message) => message,
            None => wording::yaml_fallback(error),
        },
    };
    YamlProblem {
        line,
        column,
        key,
        message,
    }
}
