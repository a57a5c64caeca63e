//! `mem context`: the best matches for a query as one block for an agent's
//! context, within a token budget.
//!
//! Counting tokens needs a tokenizer whose vocabulary takes 0.06–0.2 s to
//! load, more than the whole command may cost (50 ms at 20,000 captures).
//! So each entry's count is kept in the index, keyed by the encoding and a
//! digest of the entry's exact text: the tokenizer runs only for an entry
//! never counted before (a new or changed capture), and the answer is the
//! same whether the counts came from the index or not.

use std::fmt::Write as _;

use rusqlite::{OptionalExtension, params};
use sha2::Digest as _;

use agentctx_types::{CaptureRecord, MemoryContext};

use crate::local::MemoryStore;
use crate::store::CaptureStore;
use crate::store::{Filter, StoreError};

/// Counts tokens the way the model will. Given to [`MemoryStore::context`]
/// so this crate carries no vocabulary of its own.
pub trait TokenCounter {
    /// The encoding's name (`o200k_base`): counts are kept per encoding.
    fn encoding(&self) -> &str;
    /// Tokens in `text`.
    fn count(&self, text: &str) -> Result<usize, Box<dyn std::error::Error + Send + Sync>>;
}

/// Characters of a capture's output an entry shows.
const EXCERPT_CHARS: usize = 600;

/// The best matches for `query` in `store`, most useful first (the
/// search's relevance in the ranking recall uses: `rank.rs`, measured on
/// `today`), each with its completion, date, agent, where it is and the
/// start of its output, as many as fit `max_tokens` whole (the sum of the
/// parts' counts).
pub(crate) fn context<S: CaptureStore + ?Sized>(
    store: &mut S,
    query: &str,
    filter: &Filter,
    max_tokens: usize,
    counter: &dyn TokenCounter,
    today: jiff::civil::Date,
) -> Result<MemoryContext, StoreError> {
    let mut hits = store.search(query, filter)?;
    // Scores are lower-is-better (bm25, a negated ts_rank): relevance is
    // the share of the best hit's score (1 for every hit of a query
    // without words).
    let best = hits.iter().map(|h| h.score).fold(0.0_f64, f64::min);
    let useful = |h: &agentctx_types::SearchHit| {
        let relevance = if best < 0.0 { h.score / best } else { 1.0 };
        crate::rank::usefulness(&h.record.category, &h.record.time, today, relevance)
    };
    // Stable: equal usefulness keeps the search's order.
    hits.sort_by(|a, b| useful(b).total_cmp(&useful(a)));
    let open = open_tag(query);
    let close = "</memory_context>\n";
    let mut entries = Vec::with_capacity(hits.len());
    for hit in &hits {
        // A capture deleted since the search shows its heading alone.
        let document = store.document(&hit.record).unwrap_or_default();
        entries.push(entry(&hit.record, &document));
    }
    // An o200k (or cl100k) token covers at least one byte: when the
    // whole block has no more bytes than the budget has tokens,
    // everything fits without a single count.
    let bytes = open.len() + close.len() + entries.iter().map(String::len).sum::<usize>();
    let shown = if bytes <= max_tokens {
        entries.len()
    } else {
        let mut used = store.token_count(&open, counter)? + store.token_count(close, counter)?;
        let mut shown = 0;
        for entry in &entries {
            let cost = store.token_count(entry, counter)?;
            if used + cost > max_tokens {
                break;
            }
            used += cost;
            shown += 1;
        }
        shown
    };
    Ok(MemoryContext {
        query: query.to_owned(),
        text: format!("{open}{}{close}", entries[..shown].concat()),
        matches: hits.len() as u64,
        shown: shown as u64,
    })
}

impl MemoryStore {
    /// The token count of `text`, from the index when it was counted before.
    pub(crate) fn cached_count(
        &self,
        text: &str,
        counter: &dyn TokenCounter,
    ) -> Result<usize, StoreError> {
        let digest = sha2::Sha256::digest(text.as_bytes()).to_vec();
        let encoding = counter.encoding();
        let known: Option<i64> = self
            .connection()
            .query_row(
                "SELECT tokens FROM token_counts WHERE encoding = ?1 AND digest = ?2",
                params![encoding, digest],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.index_error(e))?;
        if let Some(n) = known.and_then(|n| usize::try_from(n).ok()) {
            return Ok(n);
        }
        let n = counter
            .count(text)
            .map_err(|source| StoreError::Count { source })?;
        self.connection()
            .execute(
                "INSERT OR REPLACE INTO token_counts (encoding, digest, tokens) VALUES (?1, ?2, ?3)",
                params![encoding, digest, i64::try_from(n).unwrap_or(i64::MAX)],
            )
            .map_err(|e| self.index_error(e))?;
        Ok(n)
    }
}

/// The opening tag, with the query escaped so that it stays an attribute.
fn open_tag(query: &str) -> String {
    format!("<memory_context query=\"{}\">\n", attribute(query))
}

/// A value for a double-quoted attribute of the blocks memory gives (the
/// `<memory_context>` query, the `<memory_index>` project): it cannot end
/// the attribute or the line.
pub(crate) fn attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('\n', " ")
}

/// One capture in the block: a heading, its file, the start of its output.
fn entry(record: &CaptureRecord, document: &str) -> String {
    let start = document
        .split_once("## Agent Output\n")
        .map_or(document, |(_, rest)| rest)
        .split("\n---\n\n## Metadata")
        .next()
        .unwrap_or("")
        .trim();
    let mut entry = String::new();
    let _ = writeln!(
        entry,
        "## {}: {} ({}, {})",
        crate::recall::plain(&record.category),
        crate::recall::plain(&record.completion),
        crate::recall::plain(&record.time.chars().take(16).collect::<String>()),
        crate::recall::plain(&record.agent)
    );
    // A shared store's row names its path after its name, which is
    // anyone's with the right to insert: one line, no tag.
    let _ = writeln!(
        entry,
        "{}",
        crate::recall::plain(&record.path.display().to_string())
    );
    let excerpt: String = start.chars().take(EXCERPT_CHARS).collect();
    let more = if start.chars().nth(EXCERPT_CHARS).is_some() {
        " …"
    } else {
        ""
    };
    let _ = writeln!(entry, "{excerpt}{more}\n");
    entry
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// Counts one token per four bytes and how often it was asked.
    struct Quarter(Cell<usize>);
    impl TokenCounter for Quarter {
        fn encoding(&self) -> &str {
            "quarter"
        }
        fn count(&self, text: &str) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
            self.0.set(self.0.get() + 1);
            Ok(text.len().div_ceil(4))
        }
    }

    fn today() -> jiff::civil::Date {
        jiff::civil::date(2026, 1, 26)
    }

    fn store_with(n: usize) -> (tempfile::TempDir, MemoryStore) {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("RESEARCH/2026-01");
        std::fs::create_dir_all(&folder).unwrap();
        for i in 0..n {
            let body = format!(
                "---\ncapture_type: RESEARCH\ntimestamp: 2026-01-25 09:12:{i:02}\nagent_type: researcher\n---\n\n🎯 COMPLETED: [AGENT:researcher] token refresh finding {i}\n\n## Agent Output\n\nThe token refresh path, finding number {i}. {}\n",
                "Lorem ipsum dolor sit amet. ".repeat(20)
            );
            std::fs::write(
                folder.join(format!(
                    "2026-01-25-0912{i:02}_AGENT-researcher_RESEARCH_finding-{i}.md"
                )),
                body,
            )
            .unwrap();
        }
        let mut store = MemoryStore::open(dir.path()).unwrap();
        store.reconcile().unwrap();
        (dir, store)
    }

    #[test]
    fn counts_are_kept_and_the_answer_is_the_same() {
        let (_dir, mut store) = store_with(6);
        let counter = Quarter(Cell::new(0));
        let first = store
            .context("token refresh", &Filter::default(), 400, &counter, today())
            .unwrap();
        let asked = counter.0.get();
        assert!(asked > 0);
        assert!(first.shown > 0 && first.shown < first.matches, "{first:?}");
        let again = store
            .context("token refresh", &Filter::default(), 400, &counter, today())
            .unwrap();
        assert_eq!(again, first);
        assert_eq!(counter.0.get(), asked, "the second call counted again");
    }

    #[test]
    fn a_budget_the_bytes_fit_needs_no_count() {
        let (_dir, mut store) = store_with(3);
        let counter = Quarter(Cell::new(0));
        let all = store
            .context(
                "token refresh",
                &Filter::default(),
                1_000_000,
                &counter,
                today(),
            )
            .unwrap();
        assert_eq!((all.shown, all.matches), (3, 3));
        assert_eq!(counter.0.get(), 0);
    }

    #[test]
    fn the_query_cannot_close_the_tag() {
        assert_eq!(
            open_tag("a\"> x & <y>\nz"),
            "<memory_context query=\"a&quot;> x &amp; &lt;y> z\">\n"
        );
    }
}
