//! The parts of tool outputs `trim` cut, kept under their ids so the model
//! can read them later (`agentctx output get ID`, the MCP tool
//! `output_get`): one file per id in a folder of agentctx's state, written
//! atomically, older than a week removed when a new one is kept.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::CoreError;

/// How long a kept part stays.
const KEPT_FOR: Duration = Duration::from_secs(7 * 24 * 3600);

/// A folder of kept output parts (`$XDG_STATE_HOME/agentctx/outputs`).
#[derive(Clone, Debug)]
pub struct OutputStore {
    dir: PathBuf,
}

/// One page of a kept part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputPage {
    /// The text, whole lines (a line longer than the page is cut on a
    /// character boundary).
    pub text: String,
    /// Where the page starts, in bytes.
    pub offset: usize,
    /// Where the next page starts; `None` at the end.
    pub next: Option<usize>,
    /// The part's size in bytes.
    pub total: usize,
}

impl OutputStore {
    /// The store in `dir` (made when a part is kept).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// Keeps `text` under `id` (an id from [`crate::trim_keeping`]).
    ///
    /// # Errors
    /// The id is not 12 hex digits, or the file cannot be written.
    pub fn keep(&self, id: &str, text: &str) -> Result<(), CoreError> {
        let path = self.path_of(id)?;
        let io = |source| CoreError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(&self.dir).map_err(io)?;
        self.forget_old();
        let mut temp = tempfile::NamedTempFile::new_in(&self.dir).map_err(io)?;
        std::io::Write::write_all(&mut temp, text.as_bytes()).map_err(io)?;
        temp.persist(&path).map_err(|e| io(e.error))?;
        Ok(())
    }

    /// The page of the part `id` that starts at `offset` and holds at most
    /// `max_bytes` (whole lines where one fits).
    ///
    /// # Errors
    /// No part is kept under `id` (or it is not 12 hex digits), or it
    /// cannot be read.
    pub fn page(&self, id: &str, offset: usize, max_bytes: usize) -> Result<OutputPage, CoreError> {
        let path = self.path_of(id)?;
        let text = std::fs::read_to_string(&path).map_err(|source| CoreError::Io {
            path: path.clone(),
            source,
        })?;
        let mut start = offset.min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let rest = &text[start..];
        let end = if rest.len() <= max_bytes {
            rest.len()
        } else {
            match rest.as_bytes()[..max_bytes]
                .iter()
                .rposition(|b| *b == b'\n')
            {
                Some(newline) => newline + 1,
                None => {
                    let mut end = max_bytes.max(1).min(rest.len());
                    while !rest.is_char_boundary(end) {
                        end += 1;
                    }
                    end
                }
            }
        };
        let next = (start + end < text.len()).then_some(start + end);
        Ok(OutputPage {
            text: rest[..end].to_owned(),
            offset: start,
            next,
            total: text.len(),
        })
    }

    /// The file of `id`: ids are 12 hex digits, so none names a path
    /// elsewhere.
    fn path_of(&self, id: &str) -> Result<PathBuf, CoreError> {
        if id.len() != 12 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(CoreError::Io {
                path: self.dir.join(id),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "an output id is 12 hex digits",
                ),
            });
        }
        Ok(self.dir.join(format!("{}.txt", id.to_ascii_lowercase())))
    }

    /// Removes parts kept longer than a week (best effort).
    fn forget_old(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let now = SystemTime::now();
        for entry in entries.flatten() {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).is_ok_and(|age| age > KEPT_FOR));
            if old && entry.path().extension() == Some("txt".as_ref()) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_part_comes_back_in_pages_of_whole_lines() {
        let dir = tempfile::tempdir().unwrap();
        let store = OutputStore::at(dir.path().join("outputs"));
        let cut = crate::trim_keeping("head\nl1\nl2\nl3\n", 5);
        let id = cut.id.clone().unwrap();
        store.keep(&id, &cut.removed).unwrap();
        let first = store.page(&id, 0, 6).unwrap();
        assert_eq!(
            (first.text.as_str(), first.next, first.total),
            ("l1\nl2\n", Some(6), 9)
        );
        let second = store.page(&id, 6, 6).unwrap();
        assert_eq!((second.text.as_str(), second.next), ("l3\n", None));
        // A line longer than a page is cut, on a character boundary.
        store.keep("0123456789ab", "ééé\n").unwrap();
        let page = store.page("0123456789ab", 0, 3).unwrap();
        assert_eq!((page.text.as_str(), page.next), ("éé", Some(4)));
    }

    #[test]
    fn an_id_cannot_name_a_path() {
        let dir = tempfile::tempdir().unwrap();
        let store = OutputStore::at(dir.path());
        for id in ["../../etc/pa", "0123456789a/", "x", "0123456789abc"] {
            assert!(store.page(id, 0, 10).is_err(), "{id}");
            assert!(store.keep(id, "x").is_err(), "{id}");
        }
    }
}
