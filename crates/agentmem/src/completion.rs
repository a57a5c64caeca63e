//! The completion message of a sub-agent's output, and its category.

use std::sync::LazyLock;

use regex::Regex;

/// A completion message and the agent type it names, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub text: String,
    pub agent: Option<String>,
}

// `🗣️ Name: text`, the U+FE0F optional, `**` around the name allowed.
static NAMED_VOICE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?m)(?:\*\*)?🗣\x{FE0F}?[ \t]*(?:\*\*)?([A-Za-z0-9_-]+)(?:\*\*)?:(?:\*\*)?[ \t]*(\S[^\n]*)").ok()
});
// `🎯 COMPLETED: [AGENT:type] text`, also bold, also across a line break.
// The `COMPLETED:` head: after 🎯 anywhere (colon optional), or at a
// line's start without the emoji (PAI's own format: `COMPLETED: ...`,
// `**COMPLETED:** ...`).
const COMPLETED_HEAD: &str =
    r"(?:🎯[ \t]*(?:\*\*)?COMPLETED(?:\*\*)?:?|(?m:^)[ \t]*(?:\*\*)?COMPLETED(?:\*\*)?:)(?:\*\*)?";
static TYPED_COMPLETED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"{COMPLETED_HEAD}\s*\[AGENT:([A-Za-z0-9_-]+)\][ \t]*(\S[^\n]*)"
    ))
    .ok()
});
static VOICE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?m)🗣\x{FE0F}?(?:\*\*)?[ \t]*(\S[^\n]*)").ok());
static COMPLETED: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(&format!(r"{COMPLETED_HEAD}[ \t]*(\S[^\n]*)")).ok());

fn clean(text: &str) -> String {
    text.trim().trim_matches('*').trim().to_owned()
}

/// The first match, in this order: `🗣️ Name: text`, `🎯 COMPLETED:
/// [AGENT:type] text`, then a generic `🗣️ text` or `🎯 COMPLETED: text`.
pub fn find_completion(output: &str) -> Option<Completion> {
    let captures = |re: &LazyLock<Option<Regex>>| re.as_ref().and_then(|re| re.captures(output));
    if let Some(c) = captures(&NAMED_VOICE) {
        return Some(Completion {
            text: clean(&c[2]),
            agent: Some(c[1].to_owned()),
        });
    }
    if let Some(c) = captures(&TYPED_COMPLETED) {
        return Some(Completion {
            text: clean(&c[2]),
            agent: Some(c[1].to_owned()),
        });
    }
    for re in [&VOICE, &COMPLETED] {
        if let Some(c) = captures(re) {
            return Some(Completion {
                text: clean(&c[1]),
                agent: None,
            });
        }
    }
    None
}

/// The capture category of an agent type: the first known word it contains.
pub fn category_of(agent_type: &str) -> &'static str {
    let t = agent_type.to_ascii_lowercase();
    [
        ("researcher", "RESEARCH"),
        ("architect", "DECISION"),
        ("engineer", "IMPLEMENTATION"),
        ("designer", "DESIGN"),
        ("pentester", "SECURITY"),
    ]
    .iter()
    .find(|(word, _)| t.contains(word))
    .map_or("RESEARCH", |(_, category)| category)
}

#[cfg(test)]
mod tests {
    /// The patterns are built once and kept as `Option` (a library never
    /// panics); this test is what stops a broken one from turning its
    /// form off silently.
    #[test]
    fn every_completion_pattern_compiles() {
        for (name, regex) in [
            ("NAMED_VOICE", &*super::NAMED_VOICE),
            ("TYPED_COMPLETED", &*super::TYPED_COMPLETED),
            ("VOICE", &*super::VOICE),
            ("COMPLETED", &*super::COMPLETED),
        ] {
            assert!(regex.is_some(), "{name} does not compile");
        }
    }

    use super::*;

    fn found(text: &str) -> (String, Option<String>) {
        let c = find_completion(text).unwrap();
        (c.text, c.agent)
    }

    #[test]
    fn named_voice_with_and_without_variation_selector_and_bold() {
        assert_eq!(
            found("ok\n🗣️ Researcher: found the race"),
            ("found the race".into(), Some("Researcher".into()))
        );
        assert_eq!(
            found("🗣 engineer: fixed it"),
            ("fixed it".into(), Some("engineer".into()))
        );
        assert_eq!(
            found("🗣️ **Architect:** chose SQLite"),
            ("chose SQLite".into(), Some("Architect".into()))
        );
    }

    #[test]
    fn typed_completed_bold_and_across_a_line_break() {
        assert_eq!(
            found("🎯 COMPLETED: [AGENT:engineer] fixed auth race"),
            ("fixed auth race".into(), Some("engineer".into()))
        );
        assert_eq!(
            found("**🎯 COMPLETED:** [AGENT:designer] new header"),
            ("new header".into(), Some("designer".into()))
        );
        assert_eq!(
            found("🎯 COMPLETED:\n[AGENT:pentester] found XSS"),
            ("found XSS".into(), Some("pentester".into()))
        );
        assert_eq!(
            found("🎯 **COMPLETED:** [AGENT:architect] chose REST"),
            ("chose REST".into(), Some("architect".into()))
        );
    }

    #[test]
    fn pai_forms_without_the_emoji_at_a_line_start() {
        assert_eq!(
            found("Done.\nCOMPLETED: migrated the schema"),
            ("migrated the schema".into(), None)
        );
        assert_eq!(
            found("## Summary\n**COMPLETED:** wrote the ADR"),
            ("wrote the ADR".into(), None)
        );
        assert_eq!(
            found("**COMPLETED**: [AGENT:engineer] fixed CI"),
            ("fixed CI".into(), Some("engineer".into()))
        );
        // Not at a line's start and without the emoji: prose, not a marker.
        assert!(find_completion("the job is COMPLETED: yes").is_none());
    }

    #[test]
    fn generic_forms_and_order() {
        assert_eq!(found("🎯 COMPLETED: all done"), ("all done".into(), None));
        assert_eq!(
            found("🗣️ 認証フローを調査しました"),
            ("認証フローを調査しました".into(), None)
        );
        // The named voice wins over an earlier generic COMPLETED.
        assert_eq!(found("🎯 COMPLETED: x\n🗣️ Bob: y").1, Some("Bob".into()));
        assert!(find_completion("no marker here").is_none());
    }

    #[test]
    fn categories() {
        assert_eq!(category_of("perplexity-researcher"), "RESEARCH");
        assert_eq!(category_of("Architect"), "DECISION");
        assert_eq!(category_of("senior-engineer"), "IMPLEMENTATION");
        assert_eq!(category_of("designer"), "DESIGN");
        assert_eq!(category_of("pentester"), "SECURITY");
        assert_eq!(category_of("general-purpose"), "RESEARCH");
    }
}
