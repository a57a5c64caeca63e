//! The one interface every reader of captures uses ([`CaptureStore`]), with
//! what it is asked ([`Filter`], [`Scope`], the query language of
//! `query.rs`) and what can go wrong ([`StoreError`]). The backends sit
//! above it: the local SQLite index of a memory folder
//! ([`crate::MemoryStore`], `local.rs`) and, with the feature `postgres`,
//! the store a team shares (`pg/`); [`crate::CaptureSource`] (`source.rs`)
//! picks one from the user's config. Recall (`<memory_index>`) and `mem
//! context` are written once, over this trait, so both stores rank, cut
//! and render alike; the CLI, the hooks, the MCP server and the viewer
//! never ask which store they read.

mod error;
mod filter;
pub(crate) mod query;

use agentctx_types::{CaptureRecord, MemoryContext, MemoryIndex, MemoryStats, SearchHit};

pub use error::StoreError;
pub(crate) use filter::where_clause;
pub use filter::{Filter, Scope};

use crate::context::TokenCounter;
use crate::recall::RecallRequest;

/// What every capture store answers. Methods take `&mut self`: a database
/// connection is used by one caller at a time.
pub trait CaptureStore {
    /// Where the captures are, for messages: the memory folder, or
    /// `postgres:host:port/db` (never credentials).
    fn describe(&self) -> String;

    /// Captures `filter` keeps, newest first.
    ///
    /// # Errors
    /// The store cannot be read.
    fn list(&mut self, filter: &Filter) -> Result<Vec<CaptureRecord>, StoreError>;

    /// Ranked matches for `query` (docs/agentmem.md: words, "phrases",
    /// prefix*, category:X, agent:X, source:X); `score`: lower is better.
    ///
    /// # Errors
    /// The query is malformed, or the store cannot be read.
    fn search(&mut self, query: &str, filter: &Filter) -> Result<Vec<SearchHit>, StoreError>;

    /// How many captures `query` (empty: all) and `filter` match, whatever
    /// `filter.limit` says.
    ///
    /// # Errors
    /// As [`CaptureStore::search`].
    fn count(&mut self, query: &str, filter: &Filter) -> Result<u64, StoreError>;

    /// The capture `id` names: its name, short id, path, or a unique
    /// prefix of its name.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::Ambiguous`], or the store
    /// cannot be read.
    fn find(&mut self, id: &str) -> Result<CaptureRecord, StoreError>;

    /// The capture's Markdown, whole (what `mem show` prints).
    ///
    /// # Errors
    /// The capture is gone, or the store cannot be read.
    fn document(&mut self, record: &CaptureRecord) -> Result<String, StoreError>;

    /// Counts per category, agent and month, and sizes.
    ///
    /// # Errors
    /// The store cannot be read.
    fn stats(&mut self) -> Result<MemoryStats, StoreError>;

    /// Recall's candidates: at most `limit` captures `filter` keeps, most
    /// useful on `today` first ([`crate::rank`]), each with its short id.
    ///
    /// # Errors
    /// The store cannot be read.
    fn most_useful(
        &mut self,
        filter: &Filter,
        today: jiff::civil::Date,
        limit: usize,
    ) -> Result<Vec<(CaptureRecord, String)>, StoreError>;

    /// The token count of `text`, remembered where the store can keep it
    /// (loading a vocabulary costs more than a whole recall).
    ///
    /// # Errors
    /// The count fails, or the place counts are kept cannot be written.
    fn token_count(&mut self, text: &str, counter: &dyn TokenCounter) -> Result<usize, StoreError>;

    /// The `<memory_index>` a session of `request`'s project starts with
    /// (docs/agentmem.md, "Recall").
    ///
    /// # Errors
    /// The store cannot be read, or a token count fails.
    fn recall_index(
        &mut self,
        request: &RecallRequest,
        counter: &dyn TokenCounter,
    ) -> Result<MemoryIndex, StoreError> {
        crate::recall::recall_index(self, request, counter)
    }

    /// The best matches for `query` as one `<memory_context>` block within
    /// `max_tokens` (`mem context`).
    ///
    /// # Errors
    /// The query is malformed, the store cannot be read, or a count fails.
    fn context(
        &mut self,
        query: &str,
        filter: &Filter,
        max_tokens: usize,
        counter: &dyn TokenCounter,
        today: jiff::civil::Date,
    ) -> Result<MemoryContext, StoreError> {
        crate::context::context(self, query, filter, max_tokens, counter, today)
    }
}

/// The short id the recall index shows for a capture (`mem show` takes
/// it): 10 hex digits of its name's SHA-256, stable for the file's life.
pub fn short_id(name: &str) -> String {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(name.as_bytes());
    digest[..5].iter().map(|b| format!("{b:02x}")).collect()
}
