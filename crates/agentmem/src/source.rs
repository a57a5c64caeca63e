//! Which store a process reads captures from: the one the user's config
//! names ([`CaptureSource`]), opened as a `dyn CaptureStore`.

use std::path::Path;

use agentctx_types::AgentMemConfig;

#[cfg(feature = "postgres")]
use crate::local::MemoryStore;
use crate::run::StoreLocation;
use crate::store::{CaptureStore, StoreError};

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
            .map_err(|e| StoreError::Backend(Box::new(e)))?
        {
            let pool =
                crate::pg::PgPool::new(&settings).map_err(|e| StoreError::Backend(Box::new(e)))?;
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
                let mut store = pool.store().map_err(|e| StoreError::Backend(Box::new(e)))?;
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
