//! `.coding-agent-rules.yaml`.

use std::path::Path;

use agentctx_types::{FileListFormat, FileListOverrides, PositiveInt};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_saphyr::Spanned;

use agentctx_types::RuleFinding;

use crate::doc::{Entry, NetworkDoc, RuleDoc};
use crate::error::RuleFileError;

#[derive(Deserialize, Default)]
#[serde(default)]
struct YamlRules {
    system_prompt_extension: Option<String>,
    allowed_tools: Option<Vec<Spanned<String>>>,
    denied_tools: Vec<Spanned<String>>,
    file_patterns: YamlPatterns,
    file_list: YamlFileList,
    strict: bool,
    network: Option<YamlNetwork>,
    commands: YamlCommands,
    presets: Vec<Spanned<String>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct YamlCommands {
    deny: Vec<Spanned<String>>,
    ask: Vec<Spanned<String>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct YamlNetwork {
    allow: Vec<Spanned<String>>,
    deny: Vec<Spanned<String>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct YamlPatterns {
    include: Option<Vec<Spanned<String>>>,
    exclude: Vec<Spanned<String>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct YamlFileList {
    exclude_patterns: Vec<String>,
    include_patterns: Vec<String>,
    max_depth: Option<PositiveInt>,
    format: Option<FileListFormat>,
}

/// The same shape with every value ignored: parsed through serde_ignored
/// to find unknown keys, which are warnings, not errors.
#[derive(Deserialize)]
#[allow(dead_code, reason = "fields exist so that serde knows the keys")]
struct KnownKeys {
    system_prompt_extension: Option<IgnoredAny>,
    allowed_tools: Option<IgnoredAny>,
    denied_tools: Option<IgnoredAny>,
    file_patterns: Option<KnownPatternKeys>,
    file_list: Option<KnownFileListKeys>,
    strict: Option<IgnoredAny>,
    network: Option<KnownNetworkKeys>,
    commands: Option<KnownCommandKeys>,
    presets: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[allow(dead_code, reason = "fields exist so that serde knows the keys")]
struct KnownCommandKeys {
    deny: Option<IgnoredAny>,
    ask: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[allow(dead_code, reason = "fields exist so that serde knows the keys")]
struct KnownNetworkKeys {
    allow: Option<IgnoredAny>,
    deny: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[allow(dead_code, reason = "fields exist so that serde knows the keys")]
struct KnownPatternKeys {
    include: Option<IgnoredAny>,
    exclude: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[allow(dead_code, reason = "fields exist so that serde knows the keys")]
struct KnownFileListKeys {
    exclude_patterns: Option<IgnoredAny>,
    include_patterns: Option<IgnoredAny>,
    max_depth: Option<IgnoredAny>,
    format: Option<IgnoredAny>,
}

fn options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
        merge_keys: serde_saphyr::MergeKeyPolicy::Error,
        strict_booleans: true,
        with_snippet: false,
    }
}

fn entries(list: Vec<Spanned<String>>) -> Vec<Entry> {
    list.into_iter()
        .map(|s| Entry::new(&s.value, Some(s.referenced.line())))
        .collect()
}

/// Parses a YAML rule file; unknown keys become warnings.
pub fn parse(path: &Path, text: &str) -> Result<(RuleDoc, Vec<RuleFinding>), RuleFileError> {
    let fail = |error: serde_saphyr::Error| {
        let location = error.location();
        let (line, column) = location.map_or((0, 0), |l| (l.line(), l.column()));
        let message = message_of(&error, text, line, column);
        RuleFileError {
            path: path.to_path_buf(),
            line: location.map(|l| l.line()),
            column: location.map(|l| l.column()),
            message: match key_at(text, line, column) {
                Some(key) => format!("{key}: {message}"),
                None => message,
            },
        }
    };
    if text.trim().is_empty() {
        return Ok((RuleDoc::default(), Vec::new()));
    }
    let parsed: Option<YamlRules> =
        serde_saphyr::from_str_with_options(text, options()).map_err(fail)?;
    let parsed = parsed.unwrap_or_default();

    let mut unknown = Vec::new();
    let _ = serde_saphyr::with_deserializer_from_str_with_options(text, options(), |de| {
        serde_ignored::deserialize(de, |key| unknown.push(key.to_string()))
            .map(|_: Option<KnownKeys>| ())
    });
    // serde_ignored also reports the values of the `IgnoredAny` fields
    // (paths ending in `?`, the marker of an unnamed step such as an
    // `Option`); an unknown key is a path that ends in a name.
    let warnings = unknown
        .into_iter()
        .filter(|path| !path.ends_with('?'))
        .map(|path| {
            path.split('.')
                .filter(|s| *s != "?")
                .collect::<Vec<_>>()
                .join(".")
        })
        .map(|key| RuleFinding {
            path: path.to_path_buf(),
            line: line_of_key(text, &key),
            message: format!("unknown key `{key}` is ignored (the known keys still apply)"),
        })
        .collect();

    let network = parsed.network.map(|n| NetworkDoc {
        allow: entries(n.allow),
        deny: entries(n.deny),
    });
    let doc = RuleDoc {
        system_prompt_extension: parsed.system_prompt_extension,
        allowed_tools: parsed.allowed_tools.map(entries),
        denied_tools: entries(parsed.denied_tools),
        include: parsed.file_patterns.include.map(entries),
        exclude: entries(parsed.file_patterns.exclude),
        file_list: FileListOverrides {
            exclude_patterns: parsed.file_list.exclude_patterns,
            include_patterns: parsed.file_list.include_patterns,
            max_depth: parsed.file_list.max_depth,
            format: parsed.file_list.format,
        },
        strict: parsed.strict,
        network,
        commands_deny: entries(parsed.commands.deny),
        commands_ask: entries(parsed.commands.ask),
        presets: entries(parsed.presets),
    };
    Ok((doc, warnings))
}

/// serde-saphyr's message for `error` in the words of the person editing
/// the rule file, with the value found at `line` and `column`
/// (`agentctx_types::wording`, as the config's errors are worded).
fn message_of(error: &serde_saphyr::Error, text: &str, line: u64, column: u64) -> String {
    use agentctx_types::wording;
    match wording::innermost_yaml_error(error) {
        serde_saphyr::Error::DuplicateMappingKey { key, .. } => format!(
            "duplicate key `{}` (each key may appear once)",
            key.as_deref().unwrap_or_default()
        ),
        inner => wording::yaml_message(inner, text, line, column)
            .unwrap_or_else(|| wording::yaml_fallback(inner)),
    }
}

/// The dotted key whose value is at 1-based `line` and `column` of a
/// block-style rule file: the key on that line when the column is in its
/// value, under the keys of the less indented lines above it
/// (`file_patterns.exclude`); `None` when no key is found.
fn key_at(text: &str, line: u64, column: u64) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let at = usize::try_from(line).ok()?.checked_sub(1)?;
    let row = lines.get(at)?;
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut path = Vec::new();
    if let Some((name, value_column)) = key_of(row)
        && column >= value_column
    {
        path.push(name);
    }
    let mut limit = indent(row);
    for above in lines[..at].iter().rev() {
        let trimmed = above.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') || indent(above) >= limit {
            continue;
        }
        limit = indent(above);
        if let Some((name, _)) = key_of(above) {
            path.push(name);
        }
        if limit == 0 {
            break;
        }
    }
    path.reverse();
    (!path.is_empty()).then(|| path.join("."))
}

/// The key a line starts (after indentation and a list's `- `) and the
/// 1-based column where its value begins.
fn key_of(line: &str) -> Option<(&str, u64)> {
    let body = line.trim_start();
    let body = body.strip_prefix("- ").unwrap_or(body);
    let start = line.len() - body.len();
    let colon = body.find(':')?;
    let name = &body[..colon];
    let after = &body[colon + 1..];
    if name.is_empty()
        || name.contains([' ', '"', '\'', '[', '{'])
        || !(after.is_empty() || after.starts_with(' '))
    {
        return None;
    }
    let value = start + colon + 1 + (after.len() - after.trim_start().len());
    Some((name, u64::try_from(line[..value].chars().count() + 1).ok()?))
}

/// The first line that starts (after indentation) with the key's last
/// segment and a colon. Good enough for a warning; the parse itself does
/// not depend on it.
fn line_of_key(text: &str, dotted: &str) -> Option<u64> {
    let name = dotted.rsplit('.').next().unwrap_or(dotted);
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix(name).unwrap_or("");
            line.trim_start().starts_with(':') && !name.is_empty()
        })
        .and_then(|i| u64::try_from(i + 1).ok())
}
