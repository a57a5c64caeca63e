//! Rule-file patterns: the shared pattern language ([`agentctx_types::PatternSet`])
//! with each pattern's rule-file entry kept for decisions and lint.

use std::path::Path;

use agentctx_types::PatternSet;

use crate::doc::Entry;

/// A compiled list of rule entries.
#[derive(Clone, Debug)]
pub struct EntryPatterns {
    compiled: PatternSet,
    entries: Vec<Entry>,
}

/// An entry that is not a valid glob.
#[derive(Clone, Debug)]
pub struct BadEntry {
    pub entry: Entry,
    pub message: String,
}

impl EntryPatterns {
    /// Compiles `entries`; `case_insensitive` for exclude lists.
    pub fn compile(entries: &[Entry], case_insensitive: bool) -> Result<Self, BadEntry> {
        Self::compile_texts(entries.to_vec(), |e| e.text.as_str(), case_insensitive)
    }

    /// Compiles the entries that name paths in the home directory (`~/...`),
    /// anchored at the home directory; other entries are left out.
    pub fn compile_home(entries: &[Entry]) -> Result<Self, BadEntry> {
        let home: Vec<Entry> = entries
            .iter()
            .filter(|e| e.text.starts_with("~/"))
            .cloned()
            .collect();
        Self::compile_texts(home, |e| e.text.strip_prefix('~').unwrap_or(&e.text), true)
    }

    /// Compiles `entries` as the patterns `text` gives for each, keeping the
    /// entries (as written) for decisions.
    fn compile_texts(
        entries: Vec<Entry>,
        text: impl Fn(&Entry) -> &str,
        case_insensitive: bool,
    ) -> Result<Self, BadEntry> {
        let compiled =
            PatternSet::compile(entries.iter().map(&text), case_insensitive).map_err(|bad| {
                BadEntry {
                    entry: entries
                        .get(bad.index)
                        .cloned()
                        .unwrap_or_else(|| Entry::new("", None)),
                    message: bad.message,
                }
            })?;
        Ok(Self { compiled, entries })
    }

    /// Whether no entry was compiled.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The first entry (in file order) that matches `relative`.
    pub fn first_match(&self, relative: &Path, scratch: &mut Vec<usize>) -> Option<&Entry> {
        self.compiled
            .first_match(relative, scratch)
            .and_then(|index| self.entries.get(index))
    }
}
