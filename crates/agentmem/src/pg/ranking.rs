//! How the shared store ranks, apart from the SQL that runs it: the
//! `tsquery` a search becomes, recall's usefulness in PostgreSQL, and the
//! age beyond which no capture can reach a given usefulness.

/// The age in whole days beyond which no capture reaches `least`
/// usefulness (with relevance 1), whatever its kind: recall ranks only
/// captures younger than that once it has `limit` candidates at least
/// that useful. One day more than the bound, so rounding never excludes
/// one that could reach it.
pub(super) fn oldest_that_can_reach(least: f64) -> i64 {
    let heaviest = crate::rank::KIND_WEIGHTS
        .iter()
        .map(|(_, w)| *w)
        .fold(crate::rank::OTHER_WEIGHT, f64::max);
    let days = crate::rank::HALF_AFTER_DAYS * (heaviest / least - 1.0);
    if days.is_finite() {
        // Bounded: a span of more than ~20,000 years is an error in jiff.
        (days.ceil() as i64).clamp(0, 3_000_000) + 1
    } else {
        3_000_000
    }
}

/// [`crate::rank::usefulness`] with relevance 1 over the row `c`, in
/// PostgreSQL (`c.day` is the capture's date, NULL when its time does not
/// start with one: age 0, as locally).
pub(super) fn usefulness_sql(today: &str) -> String {
    let cases: String = crate::rank::KIND_WEIGHTS
        .iter()
        .map(|(c, w)| format!(" WHEN '{c}' THEN {w:?}"))
        .collect();
    format!(
        "((CASE upper(c.category){cases} ELSE {:?} END) / (1.0 + greatest(0, coalesce({today} - c.day, 0)) / {:?}))",
        crate::rank::OTHER_WEIGHT,
        crate::rank::HALF_AFTER_DAYS
    )
}

/// The `tsquery` text of the parsed terms, ANDed; `None` without terms.
/// Built from letters and digits only (everything else separates words),
/// so no input is ever tsquery syntax. A term's words are a phrase
/// (`<->`); a prefix term's last word matches as a prefix; each CJK run
/// is the phrase of its bigrams (one character: a prefix).
pub(super) fn tsquery(parts: &[(String, bool)]) -> Option<String> {
    let mut terms = Vec::new();
    for (text, prefix) in parts {
        let mut pieces = Vec::new();
        for run in crate::cjk::runs(text) {
            let chars: Vec<char> = run.chars().collect();
            if chars.len() == 1 {
                pieces.push(format!("'{run}':*"));
            } else {
                let grams: Vec<String> = chars
                    .windows(2)
                    .map(|w| format!("'{}'", w.iter().collect::<String>()))
                    .collect();
                pieces.push(grams.join(" <-> "));
            }
        }
        let latin: String = text
            .chars()
            .map(|c| {
                if c.is_alphanumeric() && !crate::cjk::is_cjk(c) {
                    c.to_lowercase().next().unwrap_or(c)
                } else {
                    ' '
                }
            })
            .collect();
        let words: Vec<&str> = latin.split_whitespace().collect();
        if let Some((last, first)) = words.split_last() {
            let mut phrase: Vec<String> = first.iter().map(|w| format!("'{w}'")).collect();
            phrase.push(format!("'{last}'{}", if *prefix { ":*" } else { "" }));
            pieces.push(phrase.join(" <-> "));
        }
        if !pieces.is_empty() {
            terms.push(format!("({})", pieces.join(" & ")));
        }
    }
    (!terms.is_empty()).then(|| terms.join(" & "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_older_than_the_bound_reaches_the_least_useful() {
        let today = jiff::civil::date(2026, 11, 25);
        for least in [1.0, 0.9, 0.5, 0.31, 0.07, 0.001] {
            let days = oldest_that_can_reach(least);
            let beyond = today.checked_sub(jiff::Span::new().days(days + 1)).unwrap();
            let time = format!("{beyond} 00:00:00");
            for kind in ["DECISION", "IMPLEMENTATION", "RESEARCH", "NOTES"] {
                assert!(
                    crate::rank::usefulness(kind, &time, today, 1.0) < least,
                    "{kind} {least} {days}"
                );
            }
        }
        assert_eq!(oldest_that_can_reach(1.0), 1);
    }

    #[test]
    fn queries_are_words_phrases_prefixes_and_bigram_phrases() {
        let q = |parts: &[(&str, bool)]| {
            tsquery(
                &parts
                    .iter()
                    .map(|(t, p)| ((*t).to_owned(), *p))
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(q(&[("Auth", false)]).unwrap(), "('auth')");
        assert_eq!(
            q(&[("token refresh", false), ("sess", true)]).unwrap(),
            "('token' <-> 'refresh') & ('sess':*)"
        );
        assert_eq!(
            q(&[("認証フロー", false)]).unwrap(),
            "('認証' <-> '証フ' <-> 'フロ' <-> 'ロー')"
        );
        assert_eq!(q(&[("認", false)]).unwrap(), "('認':*)");
        // Quotes, backslashes and operators never reach the tsquery.
        assert_eq!(
            q(&[("a'b\\c & !d", false)]).unwrap(),
            "('a' <-> 'b' <-> 'c' <-> 'd')"
        );
        assert_eq!(q(&[("--", false)]), None);
    }
}
