//! Reading the store: the same filters, query language and records as the
//! local index (`store.rs`), in PostgreSQL's SQL. Full-text search is a
//! `tsvector` (configuration `simple`) of completion (weight A),
//! description (B) and body (C), each followed by the bigrams of its CJK
//! runs (`cjk.rs`), so Japanese and Chinese words are found inside longer
//! runs as in the local store, without extensions.

use std::path::PathBuf;

use agentctx_types::{CaptureRecord, MemoryStats, SearchHit};

use super::{PgError, PgSettings, connect, schema};
use crate::store::{Filter, where_clause};

/// The record columns, named as in the local index (its filters apply).
const COLUMNS: &str = "c.name, c.category, c.agent, c.source, c.session, c.project, c.time, c.completion, c.description, c.remote, c.root_commit, c.pname, c.top, c.package";
const COLUMN_COUNT: usize = 14;

/// A connection to the store, checked to be at this build's schema.
pub struct PgStore {
    client: postgres::Client,
    target: String,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("target", &self.target)
            .finish()
    }
}

impl PgStore {
    /// Connects and checks the schema version.
    ///
    /// # Errors
    /// The store cannot be reached, or is not migrated.
    pub fn open(settings: &PgSettings) -> Result<Self, PgError> {
        let mut client = connect(settings)?;
        let target = settings.target();
        schema::require_current(&mut client, &target)?;
        Ok(Self { client, target })
    }

    fn err(&self) -> impl Fn(postgres::Error) -> PgError + use<> {
        let target = self.target.clone();
        move |source| PgError::Postgres {
            target: target.clone(),
            source,
        }
    }

    /// The record of a row that starts with [`COLUMNS`]; its `path` names
    /// the store (`postgres:<host:port/db>/<name>`), there is no file.
    fn record(&self, row: &postgres::Row) -> CaptureRecord {
        let name: String = row.get(0);
        CaptureRecord {
            path: PathBuf::from(format!("postgres:{}/{name}", self.target)),
            id: name,
            category: row.get(1),
            agent: row.get(2),
            source: row.get(3),
            session: row.get(4),
            project: row.get(5),
            time: row.get(6),
            completion: row.get(7),
            description: row.get(8),
            identity: agentctx_types::ProjectIdentity {
                remote: row.get(9),
                root_commit: row.get(10),
                name: row.get(11),
                top: PathBuf::from(row.get::<_, String>(12)),
                package: row.get(13),
            },
        }
    }

    /// Captures that `filter` keeps, newest first.
    ///
    /// # Errors
    /// A statement fails.
    pub fn list(&mut self, filter: &Filter) -> Result<Vec<CaptureRecord>, PgError> {
        let (clause, values) = pg_where(filter, 0);
        let limit = limit_sql(filter.limit);
        let sql = format!(
            "SELECT {COLUMNS} FROM agentmem_captures c WHERE {clause} ORDER BY c.time DESC, c.name DESC {limit}"
        );
        let rows = self
            .client
            .query(&sql, &params(&values))
            .map_err(self.err())?;
        Ok(rows.iter().map(|r| self.record(r)).collect())
    }

    /// Ranked matches for `query` (the local store's language: words,
    /// "phrases", prefix*, category:X, agent:X, source:X); `score` is the
    /// negated `ts_rank` (lower is better, as bm25 locally).
    ///
    /// # Errors
    /// The query is malformed, or a statement fails.
    pub fn search(&mut self, query: &str, filter: &Filter) -> Result<Vec<SearchHit>, PgError> {
        let (parsed, filter) = crate::query::parse_with_filter(query, filter)?;
        let limit = if filter.limit == 0 { 50 } else { filter.limit };
        let Some(tsquery) = tsquery(&parsed.parts) else {
            return Ok(self
                .list(&Filter { limit, ..filter })?
                .into_iter()
                .map(|record| SearchHit {
                    record,
                    snippet: String::new(),
                    score: 0.0,
                })
                .collect());
        };
        let (clause, mut values) = pg_where(&filter, 1);
        values.insert(0, tsquery);
        let sql = format!(
            "SELECT {COLUMNS}, c.body, ts_rank(c.search, q)::float8 AS score
             FROM agentmem_captures c, to_tsquery('simple', $1) q
             WHERE c.search @@ q AND {clause}
             ORDER BY score DESC, c.time DESC LIMIT {limit}"
        );
        let rows = self
            .client
            .query(&sql, &params(&values))
            .map_err(self.err())?;
        Ok(rows
            .iter()
            .map(|row| {
                let body: String = row.get(COLUMN_COUNT);
                let score: f64 = row.get(COLUMN_COUNT + 1);
                SearchHit {
                    record: self.record(row),
                    snippet: crate::query::snippet(&body, &parsed.terms),
                    score: -score,
                }
            })
            .collect())
    }

    /// How many captures `query` (empty: all) and `filter` match, whatever
    /// its limit.
    ///
    /// # Errors
    /// The query is malformed, or a statement fails.
    pub fn count(&mut self, query: &str, filter: &Filter) -> Result<u64, PgError> {
        let (parsed, filter) = crate::query::parse_with_filter(query, filter)?;
        let (sql, values) = match tsquery(&parsed.parts) {
            None => {
                let (clause, values) = pg_where(&filter, 0);
                (
                    format!("SELECT count(*) FROM agentmem_captures c WHERE {clause}"),
                    values,
                )
            }
            Some(q) => {
                let (clause, mut values) = pg_where(&filter, 1);
                values.insert(0, q);
                (
                    format!(
                        "SELECT count(*) FROM agentmem_captures c WHERE c.search @@ to_tsquery('simple', $1) AND {clause}"
                    ),
                    values,
                )
            }
        };
        let n: i64 = self
            .client
            .query_one(&sql, &params(&values))
            .map_err(self.err())?
            .get(0);
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// The capture named `id`: its name, its short id, or a unique prefix
    /// of its name; with the Markdown it was sent as.
    ///
    /// # Errors
    /// None or several match, or a statement fails.
    pub fn find(&mut self, id: &str) -> Result<(CaptureRecord, String), crate::StoreError> {
        let id = id.trim_end_matches(".md");
        let prefix = format!(
            "{}%",
            id.replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        );
        let rows = self
            .client
            .query(
                &format!(
                    "SELECT {COLUMNS}, c.document FROM agentmem_captures c
                     WHERE c.name = $1 OR c.short = $1 OR c.name LIKE $2
                     ORDER BY (c.name = $1 OR c.short = $1) DESC, c.name LIMIT 2"
                ),
                &[&id, &prefix],
            )
            .map_err(|e| crate::StoreError::Query {
                source: None,
                message: self.err()(e).to_string(),
            })?;
        let exact = rows.first().is_some_and(|r| {
            r.get::<_, String>(0) == id || crate::store::short_id(&r.get::<_, String>(0)) == id
        });
        match rows.as_slice() {
            [one] => Ok((self.record(one), one.get(COLUMN_COUNT))),
            [first, _] if exact => Ok((self.record(first), first.get(COLUMN_COUNT))),
            [] => Err(crate::StoreError::NotFound { id: id.to_owned() }),
            more => Err(crate::StoreError::Ambiguous {
                id: id.to_owned(),
                matches: more.iter().map(|r| r.get::<_, String>(0)).collect(),
            }),
        }
    }

    /// Counts per category, agent and month, and sizes (`index_bytes`:
    /// the table with its indexes).
    ///
    /// # Errors
    /// A statement fails.
    pub fn stats(&mut self) -> Result<MemoryStats, PgError> {
        let mut stats = MemoryStats::default();
        let err = self.err();
        for (column, target) in [("category", 0), ("agent", 1), ("substr(time, 1, 7)", 2)] {
            let rows = self
                .client
                .query(
                    &format!("SELECT {column}, count(*) FROM agentmem_captures GROUP BY 1"),
                    &[],
                )
                .map_err(&err)?;
            for row in rows {
                let key: String = row.get(0);
                let n = u64::try_from(row.get::<_, i64>(1)).unwrap_or(0);
                let map = match target {
                    0 => &mut stats.by_category,
                    1 => &mut stats.by_agent,
                    _ => &mut stats.by_month,
                };
                map.insert(key, n);
            }
        }
        let row = self
            .client
            .query_one(
                "SELECT count(*), coalesce(sum(octet_length(document)), 0)::int8,
                        pg_total_relation_size('agentmem_captures')
                 FROM agentmem_captures",
                &[],
            )
            .map_err(&err)?;
        stats.total = u64::try_from(row.get::<_, i64>(0)).unwrap_or(0);
        stats.captures_bytes = u64::try_from(row.get::<_, i64>(1)).unwrap_or(0);
        stats.index_bytes = u64::try_from(row.get::<_, i64>(2)).unwrap_or(0);
        Ok(stats)
    }
}

/// The local index's filter clause with PostgreSQL's `$n` placeholders
/// (its values are always bound, never inlined, so every `?` is one).
/// Each is cast to `text`: some functions it meets (`length`, `lower`) take
/// other types too, and an untyped parameter would be ambiguous.
fn pg_where(filter: &Filter, offset: usize) -> (String, Vec<String>) {
    let (clause, values) = where_clause(filter, offset);
    let placeholder = regex::Regex::new(r"\?(\d+)").unwrap_or_else(|_| unreachable!());
    (
        placeholder
            .replace_all(&clause, "($${1}::text)")
            .into_owned(),
        values,
    )
}

fn params(values: &[String]) -> Vec<&(dyn postgres::types::ToSql + Sync)> {
    values
        .iter()
        .map(|v| v as &(dyn postgres::types::ToSql + Sync))
        .collect()
}

fn limit_sql(limit: usize) -> String {
    if limit == 0 {
        String::new()
    } else {
        format!("LIMIT {limit}")
    }
}

/// The `tsquery` text of the parsed terms, ANDed; `None` without terms.
/// Built from letters and digits only (everything else separates words),
/// so no input is ever tsquery syntax. A term's words are a phrase
/// (`<->`); a prefix term's last word matches as a prefix; each CJK run
/// is the phrase of its bigrams (one character: a prefix).
pub(crate) fn tsquery(parts: &[(String, bool)]) -> Option<String> {
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
