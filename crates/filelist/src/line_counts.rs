//! Token counts of a listing's lines, kept between runs.
//!
//! A listing's token count is the sum of its lines' counts: o200k's and
//! cl100k's pre-tokenizers never join text across a line end (measured
//! equal, whole against summed, on tree, flat and compact listings of
//! babel, cargo, flask and sympy; `tests` below checks it). So each distinct
//! line is counted once, and the counts are kept in a small file per
//! project: the next run of an unchanged tree needs no tokenizer at all
//! (loading one costs 0.15-0.2 s, more than the whole listing).
//!
//! The file is an optimisation: unreadable or corrupt, it is ignored and
//! rewritten; a failed write loses nothing but time. It keeps every line
//! it knows up to 100,000, then the last run's lines only.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crate::tokens::Tokenizer;

/// The file's first bytes (format version 1).
const MAGIC: &[u8; 8] = b"ACTOKv1\n";

/// Lines kept beyond the current run's, at most (1.2 MB of file).
const MAX_KEPT: usize = 100_000;

/// Counts by line, from memory, the file, or the tokenizer.
pub struct LineCounts {
    tokenizer: Tokenizer,
    path: Option<PathBuf>,
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    known: HashMap<u64, u32>,
    used: HashSet<u64>,
    counted_new: bool,
}

impl LineCounts {
    /// Counts for `tokenizer`, kept in `path` (none: in memory only).
    pub fn load(tokenizer: Tokenizer, path: Option<PathBuf>) -> Self {
        let mut state = State::default();
        if let Some(bytes) = path.as_ref().and_then(|p| std::fs::read(p).ok())
            && let Some(body) = bytes.strip_prefix(MAGIC.as_slice())
            && body.len() % 12 == 0
        {
            for record in body.chunks_exact(12) {
                let (hash, count) = record.split_at(8);
                let (Ok(hash), Ok(count)) = (hash.try_into(), count.try_into()) else {
                    continue;
                };
                state
                    .known
                    .insert(u64::from_le_bytes(hash), u32::from_le_bytes(count));
            }
        }
        Self {
            tokenizer,
            path,
            state: RefCell::new(state),
        }
    }

    /// Tokens in `text`: the sum of its lines' counts.
    pub fn count(&self, text: &str) -> usize {
        let mut state = self.state.borrow_mut();
        let mut total = 0usize;
        for line in text.split_inclusive('\n') {
            let hash = fnv1a(line.as_bytes());
            state.used.insert(hash);
            let n = match state.known.get(&hash) {
                Some(&n) => n as usize,
                None => {
                    let n = self.tokenizer.count(line);
                    state
                        .known
                        .insert(hash, u32::try_from(n).unwrap_or(u32::MAX));
                    state.counted_new = true;
                    n
                }
            };
            total += n;
        }
        total
    }

    /// Writes the counts of the lines this run used, when any was new.
    pub fn save(&self) {
        let state = self.state.borrow();
        let Some(path) = &self.path else { return };
        if !state.counted_new {
            return;
        }
        // Everything known while that stays small (another budget or
        // format of the same tree reuses it); else this run's lines only.
        let mut used: Vec<u64> = if state.known.len() <= MAX_KEPT {
            state.known.keys().copied().collect()
        } else {
            state.used.iter().copied().collect()
        };
        used.sort_unstable();
        let mut bytes = Vec::with_capacity(MAGIC.len() + used.len() * 12);
        bytes.extend_from_slice(MAGIC);
        for hash in used {
            if let Some(n) = state.known.get(&hash) {
                bytes.extend_from_slice(&hash.to_le_bytes());
                bytes.extend_from_slice(&n.to_le_bytes());
            }
        }
        let Some(dir) = path.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        if let Ok(mut temp) = tempfile::NamedTempFile::new_in(dir)
            && std::io::Write::write_all(&mut temp, &bytes).is_ok()
        {
            let _ = temp.persist(path);
        }
    }
}

/// The hash that names a project's counts file.
pub fn key_hash(key: &str) -> u64 {
    fnv1a(key.as_bytes())
}

/// FNV-1a, 64 bits: stable across builds and platforms (the file outlives
/// the process), and fast on short lines.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING: &str = "<project_files root=\"r\" format=\"tree\">\n.github/\n  workflows/ (6 files)\nsrc/\n  util/\n    mod.rs\n  lib.rs\n  \"line\\nbreak.txt\"\n  case-{001..120}.json (120 files)\n  ... (214 files, 12 dirs)\nREADME.md\n(5 files, 3 directories shown; partial: max_files 500 of 1834 files)\n</project_files>\n";

    #[test]
    fn a_listing_counts_as_the_sum_of_its_lines() {
        for tokenizer in [Tokenizer::O200k, Tokenizer::Cl100k] {
            let counts = LineCounts::load(tokenizer, None);
            assert_eq!(counts.count(LISTING), tokenizer.count(LISTING));
        }
    }

    #[test]
    fn counts_are_kept_and_a_corrupt_file_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("counts.bin");
        let first = LineCounts::load(Tokenizer::O200k, Some(path.clone()));
        let n = first.count(LISTING);
        first.save();
        let second = LineCounts::load(Tokenizer::O200k, Some(path.clone()));
        assert_eq!(second.state.borrow().known.len(), LISTING.lines().count());
        assert_eq!(second.count(LISTING), n);
        assert!(
            !second.state.borrow().counted_new,
            "no line was counted again"
        );
        std::fs::write(&path, b"garbage").unwrap();
        let third = LineCounts::load(Tokenizer::O200k, Some(path));
        assert_eq!(third.count(LISTING), n);
    }
}
