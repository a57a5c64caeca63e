//! Connections kept by a process that reads the store many times (the MCP
//! server, the viewer): an r2d2 pool, opened lazily (a server that is
//! never asked about memory never connects), each connection checked on
//! checkout and its schema version checked before use.

use r2d2_postgres::PostgresConnectionManager;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{PgError, PgSettings, PgStore, connect::client_config, connect::tls, schema};

/// The pool's connection manager (rustls; with `sslmode=disable` the
/// connector is never used).
pub(super) type Manager = PostgresConnectionManager<MakeRustlsConnect>;

/// How many connections a process keeps at most.
const MAX_CONNECTIONS: u32 = 4;

/// A process's connections to the store.
#[derive(Clone)]
pub struct PgPool {
    /// `None` only while dropping.
    pool: Option<r2d2::Pool<Manager>>,
    target: String,
}

impl Drop for PgPool {
    /// Closing a connection blocks on the client's own runtime, which
    /// panics on a thread that drives an async runtime (the MCP server's,
    /// the viewer's): the pool is let go on a thread of its own.
    fn drop(&mut self) {
        if let Some(pool) = self.pool.take() {
            let _ = std::thread::spawn(move || drop(pool)).join();
        }
    }
}

impl std::fmt::Debug for PgPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgPool")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl PgPool {
    /// A pool for `settings`; nothing is connected until the first
    /// [`PgPool::store`].
    ///
    /// # Errors
    /// The URL is not one, or TLS cannot be set up.
    pub fn new(settings: &PgSettings) -> Result<Self, PgError> {
        let manager = PostgresConnectionManager::new(client_config(settings)?, tls()?);
        let pool = r2d2::Pool::builder()
            .max_size(MAX_CONNECTIONS)
            .min_idle(Some(0))
            .connection_timeout(settings.connect_timeout)
            // Errors reach the caller of `store`; nothing is logged.
            .error_handler(Box::new(r2d2::NopErrorHandler))
            .build_unchecked(manager);
        Ok(Self {
            pool: Some(pool),
            target: settings.target(),
        })
    }

    /// A store on one of the pool's connections (returned to the pool when
    /// the store is dropped), at this build's schema.
    ///
    /// # Errors
    /// No connection could be made in time, or the store is not migrated.
    pub fn store(&self) -> Result<PgStore, PgError> {
        let pool = self.pool.as_ref().ok_or_else(|| PgError::Unreachable {
            target: self.target.clone(),
            message: "the pool is closed".to_owned(),
        })?;
        let mut conn = pool.get().map_err(|e| PgError::Unreachable {
            target: self.target.clone(),
            message: e.to_string(),
        })?;
        schema::require_current(&mut conn, &self.target)?;
        Ok(PgStore::on(
            super::read::Conn::Pooled(conn),
            self.target.clone(),
        ))
    }
}
