//! Errors of the file list.

use std::path::PathBuf;

/// A listing that could not be made at all. Everything short of this (an
/// unreadable subdirectory, a timeout) gives a partial listing instead.
#[derive(Debug, thiserror::Error)]
pub enum FileListError {
    /// The root cannot be read.
    #[error("cannot read the project root {}", .path.display())]
    Root {
        /// The root.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A pattern is not a valid glob.
    #[error("invalid {list} pattern `{pattern}`: {message}")]
    Pattern {
        /// `exclude` or `include`.
        list: &'static str,
        /// The pattern.
        pattern: String,
        /// What is wrong with it.
        message: String,
    },
}
