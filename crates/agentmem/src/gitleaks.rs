//! gitleaks' rule set as data: `rules/gitleaks.toml`, vendored unchanged
//! from gitleaks/gitleaks (commit b58d3f1, MIT, `rules/LICENSE-gitleaks`).
//! Updating it is replacing the file; `redact.rs` runs these after our
//! own rules.
//!
//! What is used: each rule's `regex`, `secretGroup` (else the first
//! non-empty group, as gitleaks does), `entropy` (Shannon, over the
//! secret), `keywords` (a rule runs only when one is in the text, so a
//! rule's regex is compiled only when it can match), and the global and
//! per-rule allowlists' `regexes` (against the secret, the match or the
//! line, per `regexTarget`) and `stopwords`. Path rules and allowlist
//! criteria that need a file path do not apply: a capture has none.

use std::sync::{LazyLock, OnceLock};

use regex::Regex;
use serde::Deserialize;

#[derive(Deserialize)]
struct Config {
    #[serde(default)]
    allowlist: AllowDef,
    #[serde(default)]
    rules: Vec<RuleDef>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RuleDef {
    id: String,
    regex: Option<String>,
    secret_group: Option<usize>,
    entropy: Option<f64>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    allowlists: Vec<AllowDef>,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AllowDef {
    #[serde(default)]
    regexes: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    regex_target: Option<String>,
    condition: Option<String>,
}

/// What an allowlist regex is matched against.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Secret,
    Match,
    Line,
}

struct Allow {
    regexes: Vec<Regex>,
    stopwords: Vec<String>,
    target: Target,
    /// `condition = "AND"`: every criterion must hold.
    all: bool,
}

impl Allow {
    /// `None` when the allowlist cannot apply to text without a path.
    fn compile(def: &AllowDef) -> Option<Self> {
        let all = def.condition.as_deref() == Some("AND");
        if all && !def.paths.is_empty() {
            return None;
        }
        let target = match def.regex_target.as_deref() {
            Some("match") => Target::Match,
            Some("line") => Target::Line,
            _ => Target::Secret,
        };
        let allow = Self {
            regexes: def
                .regexes
                .iter()
                .filter_map(|r| Regex::new(&ascii_classes(r)).ok())
                .collect(),
            stopwords: def.stopwords.iter().map(|s| s.to_lowercase()).collect(),
            target,
            all,
        };
        (!allow.regexes.is_empty() || !allow.stopwords.is_empty()).then_some(allow)
    }

    fn allows(&self, secret: &str, whole: &str, line: &str) -> bool {
        let subject = match self.target {
            Target::Secret => secret,
            Target::Match => whole,
            Target::Line => line,
        };
        let lower = secret.to_lowercase();
        let by_regex = self.regexes.iter().any(|r| r.is_match(subject));
        let by_stopword = self.stopwords.iter().any(|w| lower.contains(w.as_str()));
        if self.all {
            (self.regexes.is_empty() || by_regex) && (self.stopwords.is_empty() || by_stopword)
        } else {
            by_regex || by_stopword
        }
    }
}

/// One gitleaks rule.
pub struct Rule {
    /// The rule's id, the `<kind>` of `[REDACTED:<kind>]`.
    pub id: String,
    pattern: String,
    secret_group: Option<usize>,
    entropy: Option<f64>,
    keywords: Vec<String>,
    allow_defs: Vec<AllowDef>,
    compiled: OnceLock<Option<(Regex, Vec<Allow>)>>,
}

/// The rule set: its rules, in the file's order, and its global allowlist.
pub struct RuleSet {
    /// The rules.
    pub rules: Vec<Rule>,
    global: Option<Allow>,
}

/// The vendored rules, parsed once (empty if the file does not parse: a
/// test makes sure it does).
pub static RULE_SET: LazyLock<RuleSet> = LazyLock::new(|| {
    let config: Config =
        toml_edit::de::from_str(include_str!("../rules/gitleaks.toml")).unwrap_or(Config {
            allowlist: AllowDef::default(),
            rules: Vec::new(),
        });
    RuleSet {
        global: Allow::compile(&config.allowlist),
        rules: config
            .rules
            .into_iter()
            .filter_map(|r| {
                Some(Rule {
                    id: r.id,
                    pattern: r.regex?,
                    secret_group: r.secret_group,
                    entropy: r.entropy,
                    keywords: r.keywords.iter().map(|k| k.to_lowercase()).collect(),
                    allow_defs: r.allowlists,
                    compiled: OnceLock::new(),
                })
            })
            .collect(),
    }
});

/// Shannon entropy of `text`'s bytes, in bits per byte.
pub fn entropy(text: &str) -> f64 {
    let mut counts = [0usize; 256];
    for b in text.bytes() {
        counts[usize::from(b)] += 1;
    }
    #[allow(clippy::cast_precision_loss, reason = "lengths far below 2^52")]
    let len = text.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            #[allow(clippy::cast_precision_loss, reason = "counts far below 2^52")]
            let p = c as f64 / len;
            -p * p.log2()
        })
        .sum()
}

/// `pattern` (Go RE2 syntax) with RE2's meaning of `\w`, `\d`, `\s`
/// and `\b`, which are ASCII there and Unicode in the `regex` crate
/// (besides matching more, the Unicode forms make counted repetitions
/// such as `[\w.-]{10,150}` exceed the compiled size limit).
pub fn ascii_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    let mut class_start = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push(c);
                    break;
                };
                let (inside, outside) = match next {
                    'w' => ("0-9A-Za-z_", "[0-9A-Za-z_]"),
                    'd' => ("0-9", "[0-9]"),
                    's' => ("\\t\\n\\x0C\\r ", "[\\t\\n\\x0C\\r ]"),
                    'b' if !in_class => ("", "(?-u:\\b)"),
                    _ => {
                        out.push(c);
                        out.push(next);
                        class_start = false;
                        continue;
                    }
                };
                out.push_str(if in_class { inside } else { outside });
                class_start = false;
            }
            '[' if !in_class => {
                in_class = true;
                class_start = true;
                out.push(c);
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
            }
            '[' if chars.peek() == Some(&':') => {
                // A POSIX class inside a class: copied through its `:]`.
                out.push(c);
                for d in chars.by_ref() {
                    out.push(d);
                    if d == ']' {
                        break;
                    }
                }
                class_start = false;
            }
            ']' if in_class && !class_start => {
                in_class = false;
                out.push(c);
            }
            // RE2 takes a `{` that does not open a repetition (`{n}`,
            // `{n,}`, `{n,m}`) as a literal; the `regex` crate rejects it.
            '{' if !in_class && !opens_repetition(chars.clone()) => {
                out.push_str("\\{");
                class_start = false;
            }
            _ => {
                out.push(c);
                class_start = false;
            }
        }
    }
    out
}

/// Bytes below which a rule's first group (without `secretGroup`) is taken
/// for a repetition's group rather than the secret.
const MIN_GROUP_SECRET: usize = 8;

/// Whether the text after a `{` is a repetition's `n}`, `n,}` or `n,m}`.
fn opens_repetition(mut rest: impl Iterator<Item = char>) -> bool {
    let mut digits = 0;
    let mut comma = false;
    for c in rest.by_ref() {
        match c {
            '0'..='9' => digits += 1,
            ',' if !comma && digits > 0 => comma = true,
            '}' => return digits > 0,
            _ => return false,
        }
    }
    false
}

impl Rule {
    /// Whether the rule can match `lowercase` (the text, lowercased).
    pub fn may_match(&self, lowercase: &str) -> bool {
        self.keywords.is_empty() || self.keywords.iter().any(|k| lowercase.contains(k.as_str()))
    }

    fn compiled(&self) -> Option<&(Regex, Vec<Allow>)> {
        self.compiled
            .get_or_init(|| {
                let regex = Regex::new(&ascii_classes(&self.pattern)).ok()?;
                let allows = self.allow_defs.iter().filter_map(Allow::compile).collect();
                Some((regex, allows))
            })
            .as_ref()
    }

    /// The rule's regex as the file gives it (RE2 syntax).
    #[cfg(test)]
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The rule's keywords, lowercased.
    #[cfg(test)]
    pub fn keywords(&self) -> &[String] {
        &self.keywords
    }

    /// Whether the pattern compiles with the `regex` crate.
    #[cfg(test)]
    pub fn compiles(&self) -> bool {
        self.compiled().is_some()
    }

    /// The byte ranges of the secrets this rule finds in `text`.
    pub fn secrets(&self, text: &str) -> Vec<std::ops::Range<usize>> {
        let Some((regex, allows)) = self.compiled() else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for caps in regex.captures_iter(text) {
            let Some(whole) = caps.get(0) else { continue };
            let secret = match self.secret_group {
                Some(group) if group > 0 => caps.get(group),
                // gitleaks takes the first non-empty group; a short one is
                // a repetition's group (`([a-z0-9]{4}-){3}` in
                // microsoft-teams-webhook), not the secret: the whole match
                // is masked instead.
                _ => caps
                    .iter()
                    .skip(1)
                    .flatten()
                    .find(|m| !m.as_str().is_empty())
                    .filter(|m| m.len() >= MIN_GROUP_SECRET),
            }
            .unwrap_or(whole);
            let value = secret.as_str();
            if value.contains("[REDACTED:") || value.is_empty() {
                continue;
            }
            if self.entropy.is_some_and(|min| entropy(value) < min) {
                continue;
            }
            let line_start = text[..whole.start()].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[whole.end()..]
                .find('\n')
                .map_or(text.len(), |i| whole.end() + i);
            let line = &text[line_start..line_end];
            let allowed = RULE_SET
                .global
                .iter()
                .chain(allows.iter())
                .any(|a| a.allows(value, whole.as_str(), line));
            if !allowed {
                found.push(secret.range());
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vendored_rules_parse_and_compile() {
        let rules = &RULE_SET.rules;
        assert!(rules.len() > 200, "{} rules", rules.len());
        let broken: Vec<&str> = rules
            .iter()
            .filter(|r| !r.compiles())
            .map(|r| r.id.as_str())
            .collect();
        assert!(
            broken.is_empty(),
            "rules the regex crate rejects: {broken:?}"
        );
    }

    /// Allowlist regexes that do not compile would be dropped (an
    /// allowlist is then narrower, never a rule off): none may.
    #[test]
    fn every_allowlist_regex_compiles() {
        let config: Config =
            toml_edit::de::from_str(include_str!("../rules/gitleaks.toml")).unwrap();
        let mut broken = Vec::new();
        for def in std::iter::once(&config.allowlist)
            .chain(config.rules.iter().flat_map(|r| r.allowlists.iter()))
        {
            for r in &def.regexes {
                if Regex::new(&ascii_classes(r)).is_err() {
                    broken.push(r.clone());
                }
            }
        }
        assert!(broken.is_empty(), "{broken:?}");
    }

    #[test]
    fn re2_classes_become_ascii_inside_and_outside_brackets() {
        assert_eq!(
            ascii_classes(r"\b[\w.-]{3}\d"),
            r"(?-u:\b)[0-9A-Za-z_.-]{3}[0-9]"
        );
        assert_eq!(
            ascii_classes(r"[^\s'][[:alpha:]\]]\."),
            r"[^\t\n\x0C\r '][[:alpha:]\]]\."
        );
        assert_eq!(ascii_classes(r"[]a]\w"), r"[]a][0-9A-Za-z_]");
        // A `{` that opens no repetition is a literal in RE2.
        assert_eq!(
            ascii_classes(r"^\$(?:\d+|{\d+})$"),
            r"^\$(?:[0-9]+|\{[0-9]+})$"
        );
        assert_eq!(
            ascii_classes(r"a{2,}b{1,3}c{4}{{x}}"),
            r"a{2,}b{1,3}c{4}\{\{x}}"
        );
    }

    #[test]
    fn entropy_of_simple_strings() {
        assert!(entropy("aaaa") < 0.001);
        assert!((entropy("abcd") - 2.0).abs() < 1e-9);
    }
}
