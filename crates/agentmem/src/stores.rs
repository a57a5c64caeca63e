//! One interface over the places captures are read from: the local index
//! over a memory folder's Markdown files ([`MemoryStore`]) and, with the
//! feature `postgres`, the store a team shares ([`crate::pg::PgStore`]).
//! Recall (`<memory_index>`) and `mem context` are written once, over this
//! trait, so both stores rank, cut and render alike; the CLI, the hooks,
//! the MCP server and the viewer take a `dyn CaptureStore` from
//! [`CaptureSource::open`] and never ask which it is.

use std::path::Path;

use agentctx_types::{
    AgentMemConfig, CaptureRecord, MemoryContext, MemoryIndex, MemoryStats, SearchHit,
};

use crate::context::TokenCounter;
use crate::recall::RecallRequest;
use crate::run::StoreLocation;
use crate::store::{Filter, MemoryStore, StoreError};

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

impl CaptureStore for MemoryStore {
    fn describe(&self) -> String {
        self.root().display().to_string()
    }
    fn list(&mut self, filter: &Filter) -> Result<Vec<CaptureRecord>, StoreError> {
        MemoryStore::list(self, filter)
    }
    fn search(&mut self, query: &str, filter: &Filter) -> Result<Vec<SearchHit>, StoreError> {
        MemoryStore::search(self, query, filter)
    }
    fn count(&mut self, query: &str, filter: &Filter) -> Result<u64, StoreError> {
        MemoryStore::count(self, query, filter)
    }
    fn find(&mut self, id: &str) -> Result<CaptureRecord, StoreError> {
        MemoryStore::find(self, id)
    }
    fn document(&mut self, record: &CaptureRecord) -> Result<String, StoreError> {
        // An index row names a file someone could have chosen: only the
        // folder's own files are read.
        if !self.owns(&record.path) {
            return Err(StoreError::NotFound {
                id: record.id.clone(),
            });
        }
        std::fs::read_to_string(&record.path).map_err(|source| StoreError::Io {
            path: record.path.clone(),
            source,
        })
    }
    fn stats(&mut self) -> Result<MemoryStats, StoreError> {
        MemoryStore::stats(self)
    }
    fn most_useful(
        &mut self,
        filter: &Filter,
        today: jiff::civil::Date,
        limit: usize,
    ) -> Result<Vec<(CaptureRecord, String)>, StoreError> {
        crate::recall::most_useful_local(self, filter, today, limit)
    }
    fn token_count(&mut self, text: &str, counter: &dyn TokenCounter) -> Result<usize, StoreError> {
        self.cached_count(text, counter)
    }
}

/// Where a process reads captures from, as the user's config says: the
/// shared PostgreSQL store when `agentmem.store` names one (feature
/// `postgres`), else the memory folder's index.
#[derive(Clone, Debug)]
pub enum CaptureSource {
    /// The memory folder.
    Local(StoreLocation),
    /// The shared store, through a pool of connections that clones of
    /// this source share (a server that reads it often connects once);
    /// token counts are kept in the memory folder's index when there is
    /// one.
    #[cfg(feature = "postgres")]
    Shared {
        /// Its connections.
        pool: crate::pg::PgPool,
        /// The memory folder, for token counts.
        local: Option<StoreLocation>,
    },
}

impl CaptureSource {
    /// The source `config` names; `var` reads the environment (the
    /// store's password), `home` and `cache_home` place the memory folder
    /// and its fallback index. `None`: neither a shared store nor a memory
    /// folder (no `agentmem.root`, no home).
    ///
    /// # Errors
    /// The shared store's password file cannot be read, its URL is not
    /// one, or TLS cannot be set up.
    pub fn from_config(
        config: &AgentMemConfig,
        var: &dyn Fn(&str) -> Option<String>,
        home: Option<&Path>,
        cache_home: Option<&Path>,
    ) -> Result<Option<Self>, StoreError> {
        let local = StoreLocation::from_config(config, home, cache_home);
        #[cfg(feature = "postgres")]
        if let Some(settings) = crate::pg::PgSettings::from_config(config, var, home)
            .map_err(|e| StoreError::Shared(Box::new(e)))?
        {
            let pool =
                crate::pg::PgPool::new(&settings).map_err(|e| StoreError::Shared(Box::new(e)))?;
            return Ok(Some(Self::Shared { pool, local }));
        }
        let _ = var;
        Ok(local.map(Self::Local))
    }

    /// Whether this is the shared store.
    pub fn is_shared(&self) -> bool {
        !matches!(self, Self::Local(_))
    }

    /// The memory folder, when there is one.
    pub fn local(&self) -> Option<&StoreLocation> {
        match self {
            Self::Local(location) => Some(location),
            #[cfg(feature = "postgres")]
            Self::Shared { local, .. } => local.as_ref(),
        }
    }

    /// The store, ready to read: the local index reconciled with its
    /// folder, or a connection to the shared store checked to be at this
    /// build's schema.
    ///
    /// # Errors
    /// The folder cannot be read; the shared store cannot be reached or is
    /// not migrated.
    pub fn open(&self) -> Result<Box<dyn CaptureStore + Send>, StoreError> {
        match self {
            Self::Local(location) => Ok(Box::new(location.open()?.0)),
            #[cfg(feature = "postgres")]
            Self::Shared { pool, local } => {
                let mut store = pool.store().map_err(|e| StoreError::Shared(Box::new(e)))?;
                store.keep_counts_in(counts_index(local.as_ref()));
                Ok(Box::new(store))
            }
        }
    }
}

/// The memory folder's index, unreconciled, as a place for token counts;
/// none when there is no folder (counts are then made every time).
#[cfg(feature = "postgres")]
pub(crate) fn counts_index(local: Option<&StoreLocation>) -> Option<MemoryStore> {
    local
        .filter(|l| l.root.is_dir())
        .and_then(|l| l.open_unreconciled().ok())
}
