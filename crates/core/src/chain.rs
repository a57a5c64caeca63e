//! The initial chain: AGENTS.md files from the root down to the working
//! directory, adopted once at session start and rendered as one message.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use agentctx_types::{
    FileId, InitialBundle, InitialConfig, LoadedVersion, OmitReason, OmittedAgentFile,
    ResolvedAgentFile,
};

use crate::fsutil::{agents_file_in, chain_dirs, file_id, mtime_ms, version_of};

/// An AGENTS.md file adopted into the initial chain, with its content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdoptedFile {
    /// Path, version and size.
    pub file: ResolvedAgentFile,
    /// Identity on disk, to recognise the same file under another path.
    pub file_id: Option<FileId>,
    /// Content with trailing whitespace trimmed.
    pub content: String,
}

/// Something worth a warning that did not stop the load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChainWarning {
    /// The file is not valid UTF-8 and was skipped.
    NotUtf8 {
        /// The file.
        path: PathBuf,
    },
    /// The file could not be read and was skipped.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The operating system's message.
        message: String,
    },
    /// A limit left the file out; the resolver will offer it later.
    Omitted(OmittedAgentFile),
    /// The file is a link to something outside the project root (a key, a
    /// file in `/proc`): nothing outside the project enters the context.
    OutsideRoot {
        /// The file.
        path: PathBuf,
        /// Where it leads.
        target: PathBuf,
    },
}

impl std::fmt::Display for ChainWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotUtf8 { path } => write!(f, "skipped {}: not valid UTF-8", path.display()),
            Self::Unreadable { path, message } => {
                write!(f, "skipped {}: cannot read it: {message}", path.display())
            }
            Self::OutsideRoot { path, target } => write!(
                f,
                "skipped {}: it leads to {}, outside the project root; nothing outside the project enters the context",
                path.display(),
                target.display()
            ),
            Self::Omitted(o) => {
                let limit = match o.reason {
                    OmitReason::MaxFiles => "agents.initial.maxFiles",
                    OmitReason::MaxBytes => "agents.initial.maxBytes",
                };
                write!(
                    f,
                    "left {} ({} bytes) out of the initial context: {limit} reached; it will be offered when a path below it is touched",
                    o.path.display(),
                    o.size_bytes
                )
            }
        }
    }
}

/// The result of loading the initial chain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitialChain {
    /// Adopted files, root-most first.
    pub adopted: Vec<AdoptedFile>,
    /// Files left out by a limit.
    pub omitted: Vec<OmittedAgentFile>,
    /// Everything worth telling the operator (omissions included).
    pub warnings: Vec<ChainWarning>,
    /// Files on the chain skipped as blank or not UTF-8, with their version:
    /// the resolver counts them as seen, so they come back only if they change.
    pub(crate) skipped: Vec<(PathBuf, LoadedVersion)>,
}

impl InitialChain {
    /// Loads the chain for `cwd` below `root` (both canonical). A `cwd`
    /// outside `root` gets the root's own AGENTS.md only.
    pub fn load(root: &Path, cwd: &Path, limits: &InitialConfig) -> Self {
        let mut dirs = chain_dirs(root, cwd);
        if dirs.is_empty() {
            dirs.push(root.to_path_buf());
        }
        let max_files = limits.max_files.get_usize();
        let max_bytes = limits.max_bytes.get();
        let mut chain = Self::default();
        let mut seen = BTreeSet::new();
        let mut bytes = 0u64;
        let mut limit_hit: Option<OmitReason> = None;

        for dir in dirs {
            let Some((path, meta)) = agents_file_in(&dir) else {
                continue;
            };
            // A link to a file outside the root (a key, `/proc/self/environ`,
            // which claims size 0) must not put that file in the context.
            if let Some(target) = crate::fsutil::outside_root(root, &path) {
                chain
                    .warnings
                    .push(ChainWarning::OutsideRoot { path, target });
                continue;
            }
            let id = file_id(&meta);
            if let Some(id) = id
                && !seen.insert(id)
            {
                continue;
            }
            let size = meta.len();
            // Once a limit is hit nothing more is adopted, so the bundle
            // never skips a middle directory while keeping a deeper one.
            if limit_hit.is_none() {
                if chain.adopted.len() >= max_files {
                    limit_hit = Some(OmitReason::MaxFiles);
                } else if bytes.saturating_add(size) > max_bytes {
                    limit_hit = Some(OmitReason::MaxBytes);
                }
            }
            if let Some(reason) = limit_hit {
                let omitted = OmittedAgentFile {
                    path,
                    size_bytes: size,
                    reason,
                };
                chain.warnings.push(ChainWarning::Omitted(omitted.clone()));
                chain.omitted.push(omitted);
                continue;
            }
            // Not blocking on a FIFO, never more than the chain may hold.
            let raw = match agentctx_fs::read(&path, max_bytes) {
                Ok(raw) => raw,
                Err(e) => {
                    chain.warnings.push(ChainWarning::Unreadable {
                        path,
                        message: e.to_string(),
                    });
                    continue;
                }
            };
            let Ok(text) = String::from_utf8(raw) else {
                chain.skipped.push((path.clone(), version_of(&meta)));
                chain.warnings.push(ChainWarning::NotUtf8 { path });
                continue;
            };
            let content = text.trim_end();
            if content.trim_start().is_empty() {
                chain.skipped.push((path, version_of(&meta)));
                continue;
            }
            bytes = bytes.saturating_add(size);
            chain.adopted.push(AdoptedFile {
                file: ResolvedAgentFile {
                    path,
                    mtime_ms: mtime_ms(&meta),
                    size_bytes: size,
                    changed: false,
                    unreadable: None,
                },
                file_id: id,
                content: content.to_owned(),
            });
        }
        chain
    }

    /// The one initial message; empty when nothing was adopted. Identical
    /// inputs give identical bytes, so a prompt cache can keep it.
    pub fn render(&self) -> String {
        render_initial_block(self.adopted.iter().map(|adopted| {
            (
                adopted.file.path.display().to_string(),
                adopted.content.as_str(),
            )
        }))
    }

    /// The JSON form printed by `agentctx agents init --json`.
    pub fn bundle(&self) -> InitialBundle {
        InitialBundle {
            files: self.adopted.iter().map(|a| a.file.clone()).collect(),
            omitted: self.omitted.clone(),
            text: self.render(),
        }
    }
}

/// The `<agents_context scope="initial">` block: each file's label (its
/// path, or `owner/repo@sha:AGENTS.md` for a remote one) and body, one
/// blank line between files; empty for no files. The one renderer of the
/// block, for the local chain and a remote repository's AGENTS.md.
pub fn render_initial_block<'a>(files: impl IntoIterator<Item = (String, &'a str)>) -> String {
    let mut out = String::new();
    for (i, (label, content)) in files.into_iter().enumerate() {
        out.push_str(if i == 0 {
            "<agents_context scope=\"initial\">\n"
        } else {
            "\n"
        });
        let _ = writeln!(out, "Instructions from: {label}");
        out.push_str(content);
        out.push('\n');
    }
    if !out.is_empty() {
        out.push_str("</agents_context>\n");
    }
    out
}

#[cfg(test)]
mod block_tests {
    use super::render_initial_block;

    #[test]
    fn the_block_holds_each_file_under_its_label_and_is_empty_without_files() {
        assert_eq!(render_initial_block(std::iter::empty()), "");
        assert_eq!(
            render_initial_block([("a/AGENTS.md".to_owned(), "one"), ("b".to_owned(), "two")]),
            "<agents_context scope=\"initial\">\nInstructions from: a/AGENTS.md\none\n\nInstructions from: b\ntwo\n</agents_context>\n"
        );
    }
}
