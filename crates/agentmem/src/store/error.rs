//! What can go wrong with a capture store, whichever it is. A backend's
//! own failures (the SQLite index's, the shared PostgreSQL store's) are
//! [`StoreError::Backend`], with their own words.

use std::path::PathBuf;

/// What can go wrong with a store. A missing or corrupt local index is
/// never one of them: it is rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file or folder of the store cannot be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A capture file that does not parse.
    #[error("{}: {source}", .path.display())]
    Unparsable {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: crate::parse::ParseError,
    },
    /// A search query the store cannot run.
    #[error("invalid search query: {message}")]
    Query {
        /// What is wrong, in the user's terms.
        message: String,
        /// The engine's error, when the store's full-text engine rejected it.
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// A token count for `mem context` failed.
    #[error("counting tokens: {source}")]
    Count {
        /// The tokenizer's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// `mem show`: no capture has this path, name or prefix.
    #[error("no capture matches {id:?}")]
    NotFound {
        /// What was asked for.
        id: String,
    },
    /// `mem show`: more than one capture starts with this prefix.
    #[error("{id:?} matches more than one capture ({}, ...); give more of the name", .matches.join(", "))]
    Ambiguous {
        /// What was asked for.
        id: String,
        /// The first names that match.
        matches: Vec<String>,
    },
    /// The store itself failed: the local index (`LocalError`), the shared
    /// store (`pg::PgError`: unreachable, not migrated, a statement failed).
    #[error(transparent)]
    Backend(Box<dyn std::error::Error + Send + Sync>),
}
