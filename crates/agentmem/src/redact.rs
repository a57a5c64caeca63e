//! Masking secrets before anything is written to memory: our rules first
//! (forms gitleaks leaves alone: `KEY=value` lines whatever the value's
//! entropy, `password:`-style assignments, credentials in URLs), then
//! gitleaks' rule set (`gitleaks.rs`).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

struct Rule {
    kind: &'static str,
    regex: Option<Regex>,
    /// The capture group to mask (0: the whole match).
    group: usize,
}

fn rule(kind: &'static str, pattern: &str, group: usize) -> Rule {
    Rule {
        kind,
        regex: Regex::new(pattern).ok(),
        group,
    }
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        rule(
            "private-key",
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
            0,
        ),
        rule("aws-access-key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", 0),
        rule(
            "github-token",
            r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b",
            0,
        ),
        rule("github-token", r"\bgithub_pat_[A-Za-z0-9_]{20,}\b", 0),
        rule("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{10,}", 0),
        rule(
            "openai-key",
            r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}",
            0,
        ),
        rule("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", 0),
        rule(
            "bearer-token",
            r"(?i)(authorization:\s*bearer\s+)([A-Za-z0-9._~+/=-]{8,})",
            2,
        ),
        rule(
            "env-secret",
            r"(?m)^(\s*(?:export\s+)?[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|API_KEY)\s*[=:]\s*)([^\s\x22'][^\n]*|\x22[^\x22\n]*\x22|'[^'\n]*')",
            2,
        ),
        rule(
            "url-credentials",
            r"(?i)\b[a-z][a-z0-9+.-]{1,20}://[^\s/:@]+:([^\s/@]+)@",
            1,
        ),
        // `password: x`, `client_secret = "x"`, `"api_key": "x"`, any case:
        // a name that holds a secret word, then a quoted value, or an
        // unquoted one of six characters or more with a digit or a symbol
        // (so prose such as `token: the budget` is left alone).
        rule(
            "secret-assignment",
            r#"(?i)((?:^|[^a-z0-9])[a-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)["']?\s*(?::|=|:=|=>)\s*)("[^"\n]+"|'[^'\n]+'|[^\s"',;]*[0-9!@#$%^&*+/=_-][^\s"',;]*)"#,
            2,
        ),
    ]
});

/// `text` with every secret replaced by `[REDACTED:<kind>]`, and how many of
/// each kind were replaced.
pub fn redact(text: &str, counts: &mut BTreeMap<&'static str, usize>) -> String {
    let mut out = text.to_owned();
    for rule in RULES.iter() {
        let Some(regex) = &rule.regex else { continue };
        let mut replaced = 0;
        out = regex
            .replace_all(&out, |c: &regex::Captures<'_>| {
                let whole = c.get(0).map_or("", |m| m.as_str());
                // A value an earlier rule masked is not a second secret.
                if c.get(rule.group)
                    .is_some_and(|m| m.as_str().starts_with("[REDACTED:"))
                {
                    return whole.to_owned();
                }
                replaced += 1;
                match (rule.group, c.get(rule.group)) {
                    (0, _) | (_, None) => format!("[REDACTED:{}]", rule.kind),
                    (_, Some(secret)) => {
                        let start = secret.start() - c.get(0).map_or(0, |m| m.start());
                        format!("{}[REDACTED:{}]", &whole[..start], rule.kind)
                    }
                }
            })
            .into_owned();
        if replaced > 0 {
            *counts.entry(rule.kind).or_default() += replaced;
        }
    }
    let lowercase = out.to_lowercase();
    for rule in &crate::gitleaks::RULE_SET.rules {
        if !rule.may_match(&lowercase) {
            continue;
        }
        let found = rule.secrets(&out);
        if found.is_empty() {
            continue;
        }
        *counts.entry(rule.id.as_str()).or_default() += found.len();
        let mut masked = String::with_capacity(out.len());
        let mut at = 0;
        for range in found {
            masked.push_str(&out[at..range.start]);
            masked.push_str(&format!("[REDACTED:{}]", rule.id));
            at = range.end;
        }
        masked.push_str(&out[at..]);
        out = masked;
    }
    out
}

#[cfg(test)]
mod tests {
    /// A rule whose pattern does not compile would be skipped (a library
    /// never panics): this test is what makes that loud.
    #[test]
    fn every_rule_of_ours_compiles() {
        let broken: Vec<&str> = RULES
            .iter()
            .filter(|r| r.regex.is_none())
            .map(|r| r.kind)
            .collect();
        assert!(
            broken.is_empty(),
            "patterns that do not compile: {broken:?}"
        );
    }

    use super::*;

    fn masked(text: &str) -> (String, usize) {
        let mut counts = BTreeMap::new();
        let out = redact(text, &mut counts);
        (out, counts.values().sum())
    }

    #[test]
    fn every_listed_secret_is_masked() {
        let cases = [
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
                "[REDACTED:private-key]",
            ),
            (
                "key AKIAIOSFODNN7EXAMPLE here",
                "key [REDACTED:aws-access-key] here",
            ),
            (
                "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                "[REDACTED:github-token]",
            ),
            (
                "gho_abcdefghijklmnopqrstuvwxyz0123",
                "[REDACTED:github-token]",
            ),
            (
                "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
                "[REDACTED:github-token]",
            ),
            ("sk-ant-api03-abcdefghijklmnop", "[REDACTED:anthropic-key]"),
            ("sk-proj-abcdefghijklmnopqrstuvwx", "[REDACTED:openai-key]"),
            ("xoxb-123456789012-abcdefghij", "[REDACTED:slack-token]"),
            (
                "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.x",
                "Authorization: Bearer [REDACTED:bearer-token]",
            ),
            (
                "GITHUB_TOKEN=abc123secret",
                "GITHUB_TOKEN=[REDACTED:env-secret]",
            ),
            (
                "export DB_PASSWORD=\"hunter2 x\"",
                "export DB_PASSWORD=[REDACTED:env-secret]",
            ),
            (
                "OPENAI_API_KEY: value",
                "OPENAI_API_KEY: [REDACTED:env-secret]",
            ),
            (
                "CLIENT_SECRET='s3cr3t'",
                "CLIENT_SECRET=[REDACTED:env-secret]",
            ),
        ];
        for (input, expected) in cases {
            let (out, n) = masked(input);
            assert_eq!(out, expected, "{input}");
            assert_eq!(n, 1, "{input}");
        }
    }

    #[test]
    fn a_secret_is_masked_and_counted_once() {
        assert_eq!(
            masked("GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
            ("GITHUB_TOKEN=[REDACTED:github-token]".to_owned(), 1)
        );
    }

    /// fixtures/secrets/corpus.tsv: every example's secret is masked.
    #[test]
    fn the_secrets_corpus_is_fully_masked() {
        let corpus = include_str!("../../../fixtures/secrets/corpus.tsv");
        let mut missed = Vec::new();
        for line in corpus
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let fields: Vec<&str> = line.split('\t').collect();
            let [kind, text, secret] = fields[..] else {
                panic!("corpus line without three fields: {line}");
            };
            let text = text.replace("\\n", "\n");
            let (out, n) = masked(&text);
            if out.contains(secret) || n == 0 {
                missed.push(format!("{kind}: {out}"));
            }
        }
        assert!(missed.is_empty(), "not masked:\n{}", missed.join("\n"));
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in [
            "the token budget is 2000",
            "PASSWORD_MIN_LENGTH is documented",
            "sk-short",
            "risk-free",
            "max_tokens: 2000 is the default",
            "secret: see the vault",
            "password_min_length = 12",
            "Fixed the auth race in token refresh",
            "the key insight: caching",
        ] {
            assert_eq!(masked(text), (text.to_owned(), 0), "{text}");
        }
    }
}

/// One example per gitleaks rule, generated from the rule's own regex (as
/// gitleaks' tests generate theirs): every example the rule itself flags
/// is masked by [`redact`], keyword gating and our rules included.
#[cfg(test)]
mod every_gitleaks_rule {
    use rand::SeedableRng as _;
    use rand::distr::Distribution as _;
    use regex_syntax::hir::{Hir, HirKind};

    use super::redact;
    use crate::gitleaks::{RULE_SET, ascii_classes};

    /// The HIR without assertions (`\b`, `^`, `$`), which a generator
    /// cannot produce: removing them only widens what is generated.
    fn without_looks(hir: &Hir) -> Hir {
        match hir.kind() {
            HirKind::Look(_) => Hir::empty(),
            HirKind::Repetition(r) => Hir::repetition(regex_syntax::hir::Repetition {
                sub: Box::new(without_looks(&r.sub)),
                ..r.clone()
            }),
            HirKind::Capture(c) => Hir::capture(regex_syntax::hir::Capture {
                sub: Box::new(without_looks(&c.sub)),
                ..c.clone()
            }),
            HirKind::Concat(parts) => Hir::concat(parts.iter().map(without_looks).collect()),
            HirKind::Alternation(parts) => {
                Hir::alternation(parts.iter().map(without_looks).collect())
            }
            _ => hir.clone(),
        }
    }

    #[test]
    fn an_example_of_every_rule_is_masked() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x5ec2e7);
        let (mut tried, mut missed, mut no_example) = (0, Vec::new(), Vec::new());
        for rule in &RULE_SET.rules {
            let hir = regex_syntax::ParserBuilder::new()
                .unicode(false)
                .utf8(false)
                .build()
                .parse(&ascii_classes(rule.pattern()))
                .unwrap_or_else(|e| panic!("{}: {e}", rule.id));
            let generator = rand_regex::Regex::with_hir(without_looks(&hir), 40)
                .unwrap_or_else(|e| panic!("{}: {e}", rule.id));
            // The first of 200 samples the rule itself flags (entropy and
            // allowlists reject some random ones).
            let example = (0..200).find_map(|_| {
                let sample: Vec<u8> = generator.sample(&mut rng);
                let sample = String::from_utf8_lossy(&sample);
                // gitleaks runs a rule only on text with one of its
                // keywords; real text names what the secret is for.
                let text = match rule.keywords().first() {
                    Some(k) if !rule.may_match(&sample.to_lowercase()) => {
                        format!("{k}: {sample}\n")
                    }
                    _ => format!("{sample}\n"),
                };
                let secrets: Vec<String> = rule
                    .secrets(&text)
                    .into_iter()
                    .map(|r| text[r].to_owned())
                    .filter(|s| s.len() >= 8)
                    .collect();
                (!secrets.is_empty()).then_some((text, secrets))
            });
            let Some((text, secrets)) = example else {
                no_example.push(rule.id.as_str());
                continue;
            };
            tried += 1;
            let out = redact(&text, &mut Default::default());
            if secrets.iter().any(|s| out.contains(s.as_str())) {
                missed.push(format!("{}: {out}", rule.id));
            }
        }
        assert!(missed.is_empty(), "not masked:\n{}", missed.join("\n"));
        assert!(
            no_example.is_empty(),
            "{tried} rules tried; none for {no_example:?}"
        );
    }
}
