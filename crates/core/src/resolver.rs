//! The lazy resolver: which AGENTS.md files apply to a path and are new or
//! changed since the model last saw them.

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use agentctx_types::{
    AgentsConfig, FileId, LoadedVersion, ResolvedAgentFile, ResolvedAgents, SESSION_STATE_VERSION,
    SessionState,
};

use crate::chain::InitialChain;
use crate::fsutil::normalize_lexically;
use crate::probe::{AgentsProbe, ChainCursor};

/// The resolver over a session's state. Build it from a fresh initial chain
/// ([`Resolver::start`]) or from a persisted [`SessionState`].
#[derive(Debug)]
pub struct Resolver {
    state: SessionState,
    enabled: bool,
    max_per_resolve: usize,
    changed: bool,
    /// Opened on first use, for the root in `state`.
    probe: Option<AgentsProbe>,
    /// `state.loaded_versions` below the root, keyed by the path relative
    /// to the root as raw bytes: hashing bytes is cheap where ordering
    /// `Path`s parses their components, and this runs for every level of
    /// every resolve. Kept in step with the state on every change.
    below_root: HashMap<OsString, LoadedVersion>,
}

impl Resolver {
    /// A new session: the initial chain is what the model was given.
    pub fn start(
        cwd: PathBuf,
        root: PathBuf,
        markers: Vec<String>,
        chain: &InitialChain,
        config: &AgentsConfig,
    ) -> Self {
        let mut state = SessionState {
            version: SESSION_STATE_VERSION,
            cwd,
            root,
            markers,
            ..SessionState::default()
        };
        let mut covered = BTreeSet::new();
        for adopted in &chain.adopted {
            if let Some(dir) = adopted.file.path.parent() {
                covered.insert(dir.to_path_buf());
            }
            state.initial_files.push(adopted.file.clone());
            state.loaded_versions.insert(
                adopted.file.path.clone(),
                LoadedVersion {
                    mtime_ms: adopted.file.mtime_ms,
                    size_bytes: adopted.file.size_bytes,
                    file_id: adopted.file_id,
                },
            );
        }
        for (path, version) in &chain.skipped {
            state.loaded_versions.insert(path.clone(), *version);
        }
        state.covered_dirs = covered.into_iter().collect();
        Self::from_state(state, config)
    }

    /// Continues a session from its persisted state.
    pub fn from_state(state: SessionState, config: &AgentsConfig) -> Self {
        let below_root = state
            .loaded_versions
            .iter()
            .filter_map(|(path, version)| {
                let relative = path.strip_prefix(&state.root).ok()?;
                Some((relative.as_os_str().to_owned(), *version))
            })
            .collect();
        Self {
            below_root,
            state,
            enabled: config.enabled && config.resolver.enabled,
            max_per_resolve: config.resolver.max_files_per_resolve.get_usize(),
            changed: false,
            probe: None,
        }
    }

    /// Whether any resolve changed the state since this resolver was built,
    /// so that callers write the session file only when they must.
    pub fn is_changed(&self) -> bool {
        self.changed
    }

    pub(crate) fn mark_changed(&mut self) {
        self.changed = true;
    }

    /// The state to persist.
    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// Consumes the resolver, returning the state to persist.
    pub fn into_state(self) -> SessionState {
        self.state
    }

    /// AGENTS.md files on the chain from the root to `target` that the model
    /// has not seen, or has seen in another version; root-most first, at most
    /// `resolver.maxFilesPerResolve`. The state is updated as if the model
    /// read them. A target outside the root returns nothing.
    pub fn resolve_for_path(&mut self, target: &Path) -> ResolvedAgents {
        self.resolve_for_paths(std::slice::from_ref(&target))
    }

    /// Every new or changed file on the chain to `target`, without the
    /// per-resolve limit and even when the resolver is off: a resumed session
    /// is told about its whole new chain at once.
    pub fn resolve_unlimited(&mut self, target: &Path) -> ResolvedAgents {
        let (enabled, max) = (self.enabled, self.max_per_resolve);
        self.enabled = true;
        self.max_per_resolve = usize::MAX;
        let found = self.resolve_for_path(target);
        (self.enabled, self.max_per_resolve) = (enabled, max);
        found
    }

    /// [`Self::resolve_for_path`] over several targets with one shared limit;
    /// a file on several chains is returned once.
    pub fn resolve_for_paths<P: AsRef<Path>>(&mut self, targets: &[P]) -> ResolvedAgents {
        let mut found = ResolvedAgents::default();
        if !self.enabled {
            return found;
        }
        let mut seen = Seen::default();
        for target in targets {
            let Some(relative) = self.relative_to_root(target.as_ref()) else {
                continue;
            };
            // The target is walked as if it were a directory: for a file the
            // last lookup fails with ENOTDIR, which costs what a stat of the
            // target to tell files from directories would cost anyway; for a
            // path that does not exist yet the lookups below its nearest
            // existing ancestor fail the same way.
            let mut cursor = ChainCursor::at_root();
            if !self.visit(&mut cursor, &mut found, &mut seen) {
                return found;
            }
            for component in relative.components() {
                cursor.descend(component.as_os_str());
                if !self.visit(&mut cursor, &mut found, &mut seen) {
                    return found;
                }
            }
        }
        found
    }

    /// Checks the AGENTS.md of the cursor's directory; `false` once the
    /// per-resolve limit is reached.
    fn visit(
        &mut self,
        cursor: &mut ChainCursor,
        found: &mut ResolvedAgents,
        seen: &mut Seen,
    ) -> bool {
        if found.files.len() >= self.max_per_resolve {
            return false;
        }
        let relative = cursor.agents_file();
        let probe = self
            .probe
            .get_or_insert_with(|| AgentsProbe::open(&self.state.root));
        let Some(version) = probe.version(&self.state.root, &relative) else {
            // Forget a file that was deleted, so that it is offered again if it comes back.
            if self.below_root.remove(relative.as_os_str()).is_some() {
                self.state
                    .loaded_versions
                    .remove(&self.state.root.join(&relative));
                self.changed = true;
            }
            return true;
        };
        if version.size_bytes == 0 {
            return true;
        }
        let known = self.below_root.get(relative.as_os_str());
        if known
            .is_some_and(|k| k.mtime_ms == version.mtime_ms && k.size_bytes == version.size_bytes)
        {
            return true;
        }
        let changed = known.is_some();
        let path = self.state.root.join(&relative);
        if seen.paths.contains(&path) {
            return true;
        }
        // The same file under another path (a symlink) that the model already
        // has in this version is not news.
        let same_file_known = version.file_id.is_some_and(|id| {
            seen.ids.contains(&id)
                || self.state.loaded_versions.iter().any(|(other, v)| {
                    other != &path && v.file_id == Some(id) && v.mtime_ms == version.mtime_ms
                })
        });
        self.below_root.insert(relative.into_os_string(), version);
        self.state.loaded_versions.insert(path.clone(), version);
        self.changed = true;
        let dir = self.state.root.join(&cursor.relative_dir);
        if let Err(at) = self.state.covered_dirs.binary_search(&dir) {
            self.state.covered_dirs.insert(at, dir);
        }
        if same_file_known {
            return true;
        }
        if let Some(id) = version.file_id {
            seen.ids.insert(id);
        }
        seen.paths.insert(path.clone());
        // Offered once like any other (its version is recorded): with why
        // it cannot be read, so the model does not take it for read.
        let unreadable = self
            .probe
            .as_ref()
            .and_then(|probe| {
                probe
                    .readable(&self.state.root, &cursor.agents_file())
                    .err()
            })
            .map(|error| {
                let text = error.to_string();
                // "Permission denied (os error 13)": the reason, in words.
                text.split(" (os error").next().unwrap_or(&text).to_owned()
            });
        found.files.push(ResolvedAgentFile {
            path,
            mtime_ms: version.mtime_ms,
            size_bytes: version.size_bytes,
            changed,
            unreadable,
        });
        true
    }

    /// `target` relative to the root, or `None` when it is outside it.
    /// Relative targets are taken against the session's cwd.
    fn relative_to_root(&self, target: &Path) -> Option<PathBuf> {
        let absolute = normalize_lexically(&self.state.cwd.join(target));
        if let Ok(relative) = absolute.strip_prefix(&self.state.root) {
            return Some(relative.to_path_buf());
        }
        // Lexically outside: it may still be inside through a symlink.
        let existing = absolute.ancestors().find(|p| p.exists())?;
        let real = std::fs::canonicalize(existing).ok()?;
        let rest = absolute.strip_prefix(existing).ok()?;
        real.join(rest)
            .strip_prefix(&self.state.root)
            .ok()
            .map(Path::to_path_buf)
    }
}

/// Files already offered in one resolve, by path and by identity.
#[derive(Default)]
struct Seen {
    paths: BTreeSet<PathBuf>,
    ids: BTreeSet<FileId>,
}
