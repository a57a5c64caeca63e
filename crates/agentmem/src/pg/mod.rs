//! A PostgreSQL store a team or a fleet shares (`agentmem.store:
//! postgres://...`, feature `postgres`).
//!
//! The local Markdown files stay: a capture is written there first, as
//! always, then sent. The database knows a capture by its run's dedupe key
//! (`agent:<id>`, `call:<id>`, ...), a unique constraint, so however many
//! workers capture one run, and however often a send is retried, it is one
//! row. A capture the database does not take (unreachable, not migrated)
//! waits in the memory folder's outbox (`.agentmem/outbox/`) until the
//! next capture or `agentctx mem sync` sends it. Secrets are masked in the
//! file before it is sent, as before it is written.
//!
//! The schema is agentctx's, versioned ([`migrate`], `agentctx mem
//! migrate`): one transaction under an advisory lock, so several machines
//! may run it at once.

mod connect;
mod outbox;
mod pool;
mod ranking;
mod read;
mod schema;

use std::path::PathBuf;

pub use connect::{PgSettings, connect};
pub use outbox::{DeliveryReport, SyncReport, backfill, deliver, sync};
pub use pool::PgPool;
pub use read::PgStore;
pub use schema::{MIGRATIONS, SCHEMA_VERSION, SearchIndex, migrate, schema_version, search_index};

/// What can go wrong with the PostgreSQL store.
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    /// `agentmem.store` is not a PostgreSQL URL it can use.
    #[error("agentmem.store: {message}")]
    Url {
        /// What is wrong with it.
        message: String,
    },
    /// The search query is malformed (an unclosed phrase, a bare `*`).
    #[error(transparent)]
    Query(#[from] crate::StoreError),
    /// The password file cannot be read.
    #[error("agentmem.store_password_file {}: {source}", .path.display())]
    PasswordFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// TLS cannot be set up.
    #[error("TLS for the PostgreSQL store: {0}")]
    Tls(#[source] rustls::Error),
    /// The server cannot be reached, refused the login, or a statement failed.
    #[error("PostgreSQL store ({target}): {source}")]
    Postgres {
        /// Host and database, without credentials.
        target: String,
        /// The client's error.
        #[source]
        source: postgres::Error,
    },
    /// No pooled connection could be made in time.
    #[error("PostgreSQL store ({target}): {message}")]
    Unreachable {
        /// Host and database, without credentials.
        target: String,
        /// The pool's last error.
        message: String,
    },
    /// The database has no agentctx schema yet, or an older one.
    #[error(
        "the PostgreSQL store's schema is version {found}, this agentctx needs {needed}: run `agentctx mem migrate`"
    )]
    NotMigrated {
        /// The database's version (0: none).
        found: i32,
        /// This build's.
        needed: i32,
    },
    /// The database was migrated by a newer agentctx.
    #[error(
        "the PostgreSQL store's schema is version {found}, newer than this agentctx knows ({known}): upgrade agentctx"
    )]
    Newer {
        /// The database's version.
        found: i32,
        /// This build's.
        known: i32,
    },
    /// A capture file cannot be read to send it.
    #[error("{}: {message}", .path.display())]
    Capture {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The outbox cannot be written or read.
    #[error("outbox {}: {source}", .path.display())]
    Outbox {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
