//! The one ranking of recall (`<memory_index>`) and `mem context`: how
//! useful a capture is likely to be now. Recall has no query, so its
//! relevance is 1; `mem context` multiplies in the search's relevance.
//!
//! usefulness = relevance × kind weight × 1 / (1 + age in days / 30)
//!
//! A decision outlives research (it says what was chosen and why); a
//! month-old capture counts half as much as today's, never nothing.

/// Weights of the categories the capture names (`completion.rs`); any
/// other category weighs [`OTHER_WEIGHT`].
pub(crate) const KIND_WEIGHTS: &[(&str, f64)] = &[
    ("DECISION", 1.0),
    ("IMPLEMENTATION", 0.9),
    ("RESEARCH", 0.8),
];
pub(crate) const OTHER_WEIGHT: f64 = 0.7;
/// Days after which a capture counts half.
pub(crate) const HALF_AFTER_DAYS: f64 = 30.0;

fn weight(category: &str) -> f64 {
    KIND_WEIGHTS
        .iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(category))
        .map_or(OTHER_WEIGHT, |(_, w)| *w)
}

/// Whole days from `time` (`YYYY-MM-DD ...`) to `today`, 0 when unknown or
/// in the future.
fn age_days(time: &str, today: jiff::civil::Date) -> f64 {
    time.get(..10)
        .and_then(|d| d.parse::<jiff::civil::Date>().ok())
        .and_then(|d| today.since(d).ok())
        .map_or(0.0, |span| f64::from(span.get_days().max(0)))
}

/// A capture's usefulness on `today` for a search relevance in (0, 1]
/// (1 for recall).
pub fn usefulness(category: &str, time: &str, today: jiff::civil::Date, relevance: f64) -> f64 {
    relevance * weight(category) / (1.0 + age_days(time, today) / HALF_AFTER_DAYS)
}

/// [`usefulness`] with relevance 1 as an SQL expression over the
/// `captures` row `c`, with `today` bound as `today_slot` (`?3`): the
/// index ranks 20,000 captures without reading them into memory.
pub fn usefulness_sql(today_slot: &str) -> String {
    let cases: String = KIND_WEIGHTS
        .iter()
        .map(|(c, w)| format!(" WHEN '{c}' THEN {w:?}"))
        .collect();
    format!(
        "((CASE upper(c.category){cases} ELSE {OTHER_WEIGHT:?} END) / (1.0 + max(0, coalesce(julianday({today_slot}) - julianday(substr(c.time, 1, 10)), 0)) / {HALF_AFTER_DAYS:?}))"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(d: &str) -> jiff::civil::Date {
        d.parse().unwrap()
    }

    #[test]
    fn decisions_outrank_research_and_age_halves_at_thirty_days() {
        let today = day("2026-11-25");
        let fresh = usefulness("DECISION", "2026-11-25 09:00:00", today, 1.0);
        let month = usefulness("DECISION", "2026-10-26 09:00:00", today, 1.0);
        assert!((fresh - 1.0).abs() < 1e-9);
        assert!((month - 0.5).abs() < 1e-9, "{month}");
        assert!(
            usefulness("RESEARCH", "2026-11-25", today, 1.0)
                < usefulness("decision", "2026-11-25", today, 1.0)
        );
        assert!((usefulness("NOTES", "bad time", today, 0.5) - 0.35).abs() < 1e-9);
    }

    #[test]
    fn the_sql_ranks_as_the_function_does() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE c (category TEXT, time TEXT);")
            .unwrap();
        let today = day("2026-11-25");
        for (category, time) in [
            ("DECISION", "2026-10-26 09:00:00"),
            ("RESEARCH", "2026-11-25 10:00:00"),
            ("notes", "2025-01-01 00:00:00"),
            ("IMPLEMENTATION", "2026-12-01 00:00:00"),
            ("RESEARCH", "garbage"),
        ] {
            let sql = format!(
                "SELECT {} FROM (SELECT ?1 AS category, ?2 AS time) c",
                usefulness_sql("?3")
            );
            let got: f64 = conn
                .query_row(&sql, rusqlite::params![category, time, "2026-11-25"], |r| {
                    r.get(0)
                })
                .unwrap();
            let want = usefulness(category, time, today, 1.0);
            assert!(
                (got - want).abs() < 1e-9,
                "{category} {time}: {got} vs {want}"
            );
        }
    }
}
