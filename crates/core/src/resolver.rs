//! The lazy resolver: which AGENTS.md files apply to a path and are new or
//! changed since the model last saw them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use agentctx_types::{
    AgentsConfig, FileId, LoadedVersion, ResolvedAgentFile, ResolvedAgents, SESSION_STATE_VERSION,
    SessionState,
};

use crate::chain::InitialChain;
use crate::fsutil::{agents_file_in, chain_dirs, normalize_lexically, version_of};

/// The resolver over a session's state. Build it from a fresh initial chain
/// ([`Resolver::start`]) or from a persisted [`SessionState`].
#[derive(Clone, Debug)]
pub struct Resolver {
    state: SessionState,
    enabled: bool,
    max_per_resolve: usize,
    changed: bool,
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
        state.covered_dirs = covered.into_iter().collect();
        Self::from_state(state, config)
    }

    /// Continues a session from its persisted state.
    pub fn from_state(state: SessionState, config: &AgentsConfig) -> Self {
        Self {
            state,
            enabled: config.enabled && config.resolver.enabled,
            max_per_resolve: config.resolver.max_files_per_resolve.get_usize(),
            changed: false,
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
        let mut offered_ids: BTreeSet<FileId> = BTreeSet::new();
        let mut offered_paths: BTreeSet<PathBuf> = BTreeSet::new();
        for target in targets {
            let Some(dir) = self.directory_of(target.as_ref()) else {
                continue;
            };
            for chain_dir in chain_dirs(&self.state.root, &dir) {
                if found.files.len() >= self.max_per_resolve {
                    return found;
                }
                self.visit(&chain_dir, &mut found, &mut offered_ids, &mut offered_paths);
            }
        }
        found
    }

    fn visit(
        &mut self,
        dir: &Path,
        found: &mut ResolvedAgents,
        offered_ids: &mut BTreeSet<FileId>,
        offered_paths: &mut BTreeSet<PathBuf>,
    ) {
        let Some((path, meta)) = agents_file_in(dir) else {
            // Forget a file that was deleted, so that it is offered again if it comes back.
            let gone = dir.join(crate::fsutil::AGENTS_FILE_NAME);
            if self.state.loaded_versions.remove(&gone).is_some() {
                self.changed = true;
            }
            return;
        };
        if meta.len() == 0 || offered_paths.contains(&path) {
            return;
        }
        let version = version_of(&meta);
        let known = self.state.loaded_versions.get(&path);
        if known
            .is_some_and(|k| k.mtime_ms == version.mtime_ms && k.size_bytes == version.size_bytes)
        {
            return;
        }
        // The same file under another path (a symlink) that the model already
        // has in this version is not news.
        let same_file_known = version.file_id.is_some_and(|id| {
            offered_ids.contains(&id)
                || self.state.loaded_versions.iter().any(|(other, v)| {
                    other != &path && v.file_id == Some(id) && v.mtime_ms == version.mtime_ms
                })
        });
        self.state.loaded_versions.insert(path.clone(), version);
        self.changed = true;
        if let Err(at) = self
            .state
            .covered_dirs
            .binary_search_by(|d| d.as_path().cmp(dir))
        {
            self.state.covered_dirs.insert(at, dir.to_path_buf());
        }
        if same_file_known {
            return;
        }
        if let Some(id) = version.file_id {
            offered_ids.insert(id);
        }
        offered_paths.insert(path.clone());
        found.files.push(ResolvedAgentFile {
            path,
            mtime_ms: version.mtime_ms,
            size_bytes: version.size_bytes,
        });
    }

    /// The directory whose chain applies to `target`: the target itself if it
    /// is a directory, its parent if it is a file, the nearest existing
    /// ancestor if it does not exist yet. `None` outside the root.
    fn directory_of(&self, target: &Path) -> Option<PathBuf> {
        let absolute = normalize_lexically(&self.state.cwd.join(target));
        let dir = match std::fs::metadata(&absolute) {
            Ok(meta) if meta.is_dir() => absolute,
            Ok(_) => absolute.parent()?.to_path_buf(),
            // Not there yet (a write): its nearest existing ancestor.
            Err(_) => absolute
                .ancestors()
                .skip(1)
                .find(|p| p.is_dir())?
                .to_path_buf(),
        };
        if dir.starts_with(&self.state.root) {
            return Some(dir);
        }
        // Lexically outside: it may still be inside through a symlink.
        let real = std::fs::canonicalize(&dir).ok()?;
        real.starts_with(&self.state.root).then_some(real)
    }
}
