//! Reading the store: the same filters, query language and records as the
//! local index (`store.rs`), in PostgreSQL's SQL. Full-text search is a
//! `tsvector` (configuration `simple`) of completion (weight A),
//! description (B) and body (C), each followed by the bigrams of its CJK
//! runs (`cjk.rs`), so Japanese and Chinese words are found inside longer
//! runs as in the local store, without extensions.

use std::path::PathBuf;

use agentctx_types::{CaptureRecord, MemoryStats, SearchHit};

use super::pool::Manager;
use super::ranking::{oldest_that_can_reach, tsquery, usefulness_sql};
use super::{PgError, PgSettings, connect, schema};
use crate::context::TokenCounter;
use crate::local::MemoryStore;
use crate::store::CaptureStore;
use crate::store::{Filter, StoreError, where_clause};

/// The record columns, named as in the local index (its filters apply).
const COLUMNS: &str = "c.name, c.category, c.agent, c.source, c.session, c.project, c.time, c.completion, c.description, c.remote, c.root_commit, c.pname, c.top, c.package";
const COLUMN_COUNT: usize = 14;

/// How many of a query's newest matches search ranks (docs/agentmem.md,
/// "The shared store").
const RANKED_MATCHES: usize = 2_000;

/// Up to how many expected matches a query of words is ranked whole by
/// the RUM index.
const RUM_RANKED_MATCHES: f64 = 20_000.0;

/// A connection of the store's own, or one lent by a [`super::PgPool`].
pub(super) enum Conn {
    Own(postgres::Client),
    Pooled(r2d2::PooledConnection<Manager>),
}

impl std::ops::Deref for Conn {
    type Target = postgres::Client;
    fn deref(&self) -> &postgres::Client {
        match self {
            Self::Own(c) => c,
            Self::Pooled(c) => c,
        }
    }
}

impl std::ops::DerefMut for Conn {
    fn deref_mut(&mut self) -> &mut postgres::Client {
        match self {
            Self::Own(c) => c,
            Self::Pooled(c) => c,
        }
    }
}

/// A connection to the store, checked to be at this build's schema.
pub struct PgStore {
    client: Conn,
    target: String,
    /// Where token counts are kept (the memory folder's index).
    counts: Option<MemoryStore>,
    /// The index phrases are searched with, once asked.
    index: Option<schema::SearchIndex>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// A failed statement as the store's error.
fn shared(error: PgError) -> StoreError {
    StoreError::Backend(Box::new(error))
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
        Ok(Self::on(Conn::Own(client), target))
    }

    pub(super) fn on(client: Conn, target: String) -> Self {
        Self {
            client,
            target,
            counts: None,
            index: None,
        }
    }

    /// How many captures a query of words (a `tsquery` of ANDed words)
    /// is expected to match: the table's size times the frequency of its
    /// rarest word in the search column's statistics (a word they do not
    /// list gets what the planner gives it: half the lowest listed
    /// frequency, at most 0.5%; a prefix may be anything: as common as
    /// the table). The planner's own
    /// estimate (EXPLAIN) cost a common word 20 ms more; this is one
    /// small query.
    fn expected_matches(&mut self, tsquery: &str) -> Result<f64, StoreError> {
        if tsquery.contains(":*") {
            return Ok(f64::INFINITY);
        }
        let row = self
            .client
            .query_opt(
                "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, c.reltuples::float8
                 FROM pg_stats s, pg_class c
                 WHERE s.tablename = 'agentmem_captures' AND s.attname = 'search'
                   AND s.schemaname = current_schema()
                   AND c.oid = 'agentmem_captures'::regclass",
                &[],
            )
            .map_err(self.err())?;
        // No statistics yet (a young table): small enough for anything.
        let Some(row) = row else {
            return Ok(0.0);
        };
        let words: Vec<String> = row.get::<_, Option<Vec<String>>>(0).unwrap_or_default();
        let freqs: Vec<f32> = row.get::<_, Option<Vec<f32>>>(1).unwrap_or_default();
        let rows: f64 = row.get(2);
        // After the words' frequencies come the lowest and the highest.
        let lowest = freqs.get(words.len()).copied().unwrap_or(0.0);
        let rarest = tsquery
            .split('\'')
            .skip(1)
            .step_by(2)
            .map(|word| {
                words
                    .iter()
                    .position(|w| w == word)
                    .and_then(|i| freqs.get(i).copied())
                    // The planner's rule for a word the statistics do
                    // not list (tsquery_opr_selec).
                    .unwrap_or_else(|| (lowest / 2.0).min(0.005))
            })
            .fold(f32::INFINITY, f32::min);
        Ok(f64::from(rarest) * rows.max(0.0))
    }

    /// Keeps token counts in `index` (a memory folder's local index): a
    /// recall that must count its lines then loads no vocabulary for
    /// lines it counted before. Without one, every count is made anew.
    pub fn keep_counts_in(&mut self, index: Option<MemoryStore>) {
        self.counts = index;
    }

    fn err(&self) -> impl Fn(postgres::Error) -> StoreError + use<> {
        let target = self.target.clone();
        move |source| {
            shared(PgError::Postgres {
                target: target.clone(),
                source,
            })
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
}

impl CaptureStore for PgStore {
    fn describe(&self) -> String {
        format!("postgres:{}", self.target)
    }

    fn list(&mut self, filter: &Filter) -> Result<Vec<CaptureRecord>, StoreError> {
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

    /// `score` is the negated rank (lower is better, as bm25 locally).
    fn search(&mut self, query: &str, filter: &Filter) -> Result<Vec<SearchHit>, StoreError> {
        let (parsed, filter) = crate::store::query::parse_with_filter(query, filter)?;
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
        let index = match self.index {
            Some(index) => index,
            None => {
                let index = schema::search_index(&mut self.client, &self.target).map_err(shared)?;
                self.index = Some(index);
                index
            }
        };
        // Measured at 1,000,000 captures (docs/BENCHMARKS.md): RUM ranks
        // from the positions it keeps, without reading rows, but scores
        // every match (about 2 µs each: 21 ms for a word in 1% of
        // captures, 1.7 s for one in all of them); ranking a query's
        // newest RANKED_MATCHES matches costs the same whatever the word,
        // but reads each of those rows (104 ms for a word in 1%, whose
        // newest 2,000 are spread over 200,000 rows; 28 ms for one in
        // every capture). So RUM for a phrase (its positions are needed:
        // Latin words or CJK bigrams in a row) and for words the column's
        // statistics say are in at most RUM_RANKED_MATCHES captures; the
        // newest matches otherwise, and always without RUM.
        let phrase = values[0].contains("<->");
        let by_rum = index == schema::SearchIndex::Rum
            && (phrase || self.expected_matches(&values[0])? <= RUM_RANKED_MATCHES);
        let sql = if by_rum {
            // RUM's distance is 1 / rank.
            format!(
                "SELECT {COLUMNS}, c.body, -1.0 / (c.search <=> to_tsquery('simple', $1))::float8 AS score
                 FROM agentmem_captures c
                 WHERE c.search @@ to_tsquery('simple', $1) AND {clause}
                 ORDER BY c.search <=> to_tsquery('simple', $1) LIMIT {limit}"
            )
        } else {
            format!(
                "SELECT {COLUMNS}, c.body, -ts_rank(c.search, q)::float8 AS score
                 FROM (SELECT * FROM agentmem_captures c
                       WHERE c.search @@ to_tsquery('simple', $1) AND {clause}
                       ORDER BY c.time DESC LIMIT {RANKED_MATCHES}) c,
                      to_tsquery('simple', $1) q
                 ORDER BY score, c.time DESC LIMIT {limit}"
            )
        };
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
                    snippet: crate::store::query::snippet(&body, &parsed.terms),
                    score,
                }
            })
            .collect())
    }

    fn count(&mut self, query: &str, filter: &Filter) -> Result<u64, StoreError> {
        let (parsed, filter) = crate::store::query::parse_with_filter(query, filter)?;
        let (sql, values) = match tsquery(&parsed.parts) {
            // Recall's total: the per-day counts hold every column its
            // filter can name (dates whole days, no agent, source or
            // folder), a sum over the project's rows there.
            None if by_day(&filter) => {
                let (clause, values) = pg_where(&filter, 0);
                (
                    format!(
                        "SELECT coalesce(sum(c.n), 0)::int8 FROM agentmem_counts c WHERE {clause}"
                    ),
                    values,
                )
            }
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

    /// By name, short id, the `postgres:` path a record shows, or a unique
    /// prefix of the name.
    fn find(&mut self, id: &str) -> Result<CaptureRecord, StoreError> {
        let id = id
            .strip_prefix(&format!("postgres:{}/", self.target))
            .unwrap_or(id)
            .trim_end_matches(".md");
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
                    "SELECT {COLUMNS} FROM agentmem_captures c
                     WHERE c.name = $1 OR c.short = $1 OR c.name LIKE $2
                     ORDER BY (c.name = $1 OR c.short = $1) DESC, c.name LIMIT 2"
                ),
                &[&id, &prefix],
            )
            .map_err(self.err())?;
        let exact = rows.first().is_some_and(|r| {
            r.get::<_, String>(0) == id || crate::store::short_id(&r.get::<_, String>(0)) == id
        });
        match rows.as_slice() {
            [one] => Ok(self.record(one)),
            [first, _] if exact => Ok(self.record(first)),
            [] => Err(StoreError::NotFound { id: id.to_owned() }),
            more => Err(StoreError::Ambiguous {
                id: id.to_owned(),
                matches: more.iter().map(|r| r.get::<_, String>(0)).collect(),
            }),
        }
    }

    fn document(&mut self, record: &CaptureRecord) -> Result<String, StoreError> {
        let row = self
            .client
            .query_opt(
                "SELECT document FROM agentmem_captures WHERE name = $1 LIMIT 1",
                &[&record.id],
            )
            .map_err(self.err())?;
        row.map(|r| r.get(0)).ok_or_else(|| StoreError::NotFound {
            id: record.id.clone(),
        })
    }

    /// `index_bytes`: the table with its indexes.
    fn stats(&mut self) -> Result<MemoryStats, StoreError> {
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

    /// Usefulness falls with age, so the newest `limit` captures bound
    /// the search: a capture so old that even the heaviest kind would not
    /// reach the least useful of them cannot be among the best, and only
    /// captures since that day are ranked (an index range, not the
    /// project's every row).
    fn most_useful(
        &mut self,
        filter: &Filter,
        today: jiff::civil::Date,
        limit: usize,
    ) -> Result<Vec<(CaptureRecord, String)>, StoreError> {
        let (clause, mut values) = pg_where(filter, 1);
        values.insert(0, today.to_string());
        let useful = usefulness_sql("($1::text)::date");
        let newest: Vec<f64> = self
            .client
            .query(
                &format!(
                    "SELECT ({useful})::float8 FROM agentmem_captures c WHERE {clause}
                     ORDER BY c.time DESC LIMIT {limit}"
                ),
                &params(&values),
            )
            .map_err(self.err())?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let since = match newest.iter().copied().reduce(f64::min) {
            Some(least) if newest.len() >= limit && least > 0.0 => {
                let days = oldest_that_can_reach(least);
                values.push(
                    today
                        .checked_sub(jiff::Span::new().days(days))
                        .unwrap_or(jiff::civil::Date::MIN)
                        .to_string(),
                );
                format!(
                    " AND (c.day >= (${}::text)::date OR c.day IS NULL)",
                    values.len()
                )
            }
            _ => String::new(),
        };
        let sql = format!(
            "SELECT {COLUMNS} FROM agentmem_captures c WHERE {clause}{since}
             ORDER BY {useful} DESC, c.time DESC, c.name LIMIT {limit}"
        );
        let rows = self
            .client
            .query(&sql, &params(&values))
            .map_err(self.err())?;
        Ok(rows
            .iter()
            .map(|r| {
                // A row is anyone's with the right to insert: the short id
                // is made here from the name, as `mem show` finds it, not
                // read from a column that could hold a line of its own.
                let record = self.record(r);
                let short = crate::store::short_id(&record.id);
                (record, short)
            })
            .collect())
    }

    fn token_count(&mut self, text: &str, counter: &dyn TokenCounter) -> Result<usize, StoreError> {
        match &self.counts {
            Some(index) => index.cached_count(text, counter),
            None => counter
                .count(text)
                .map_err(|source| StoreError::Count { source }),
        }
    }
}

/// Whether `agentmem_counts` can answer a count under `filter`: it names
/// only the columns that table keeps, and dates as whole days.
fn by_day(filter: &Filter) -> bool {
    let day = |d: &Option<String>| d.as_ref().is_none_or(|d| d.len() == 10);
    filter.agent.is_none()
        && filter.source.is_none()
        && filter.project.is_none()
        && day(&filter.since)
        && day(&filter.until)
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
            .replace_all(&clause, |c: &regex::Captures<'_>| {
                format!("(${}::text)", &c[1])
            })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_values_become_numbered_text_parameters() {
        let filter = Filter {
            categories: vec!["research".into()],
            agent: Some("r".into()),
            ..Filter::default()
        };
        let (clause, values) = pg_where(&filter, 1);
        assert_eq!(
            clause,
            "1 = 1 AND c.category IN (($2::text)) AND lower(c.agent) = lower(($3::text))"
        );
        assert_eq!(values, ["RESEARCH", "r"]);
    }
}
