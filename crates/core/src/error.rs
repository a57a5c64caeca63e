//! Errors of the AGENTS.md work.

use std::path::PathBuf;

/// Something the caller has to act on. Everything else (unreadable or
/// non-UTF-8 AGENTS.md files, corrupt session files) is a warning.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// `projectRootOverride` / `CODELIA_AGENTS_ROOT` names nothing.
    #[error("project root override {} does not exist or is not a directory", .path.display())]
    OverrideMissing {
        /// The override, made absolute.
        path: PathBuf,
    },
    /// A path the work depends on cannot be used.
    #[error("{}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A session id that cannot be a file name.
    #[error(
        "invalid session id {id:?}: use letters, digits, '.', '_' and '-', not starting with '.'"
    )]
    InvalidSessionId {
        /// The id as given.
        id: String,
    },
}
