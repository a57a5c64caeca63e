//! `.coding-agent-rules.yaml`.

use std::path::Path;

use agentctx_types::{FileListFormat, FileListOverrides, PositiveInt};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_saphyr::Spanned;

use agentctx_types::RuleFinding;

use crate::doc::{Entry, RuleDoc};
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
        let rendered = error.without_snippet().to_string();
        let message = match rendered.rfind(" at line ") {
            Some(at) => rendered[..at].trim().to_owned(),
            None => rendered.trim().to_owned(),
        };
        RuleFileError {
            path: path.to_path_buf(),
            line: location.map(|l| l.line()),
            column: location.map(|l| l.column()),
            message,
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
    };
    Ok((doc, warnings))
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
