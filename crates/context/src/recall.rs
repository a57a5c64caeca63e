//! Recall at session start: the `<memory_index>` of the session's project
//! (docs/agentmem.md, "Recall"). Computed once per session and kept beside
//! its state, so every later `SessionStart` of the same session (resume,
//! compact) gives the same bytes: the prompt cache holds.

use std::path::{Path, PathBuf};

use agentctx_agentmem::{
    CaptureSource, CaptureStore, IdentityOptions, RecallRequest, Scope, StoreLocation,
    TokenCounter, identify,
};
use agentctx_types::{MemoryIndex, RecallConfig};

use agentctx_session::Host;

/// Counts o200k tokens (the file list's tokenizer, loaded on first use).
pub struct O200kCounter;

impl TokenCounter for O200kCounter {
    fn encoding(&self) -> &str {
        agentctx_filelist::Tokenizer::O200k.name()
    }
    fn count(&self, text: &str) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
        Ok(agentctx_filelist::Tokenizer::O200k.count(text))
    }
}

/// Why a session got no index.
#[derive(Debug, thiserror::Error)]
pub enum RecallError {
    /// Neither `agentmem.root` nor a home says where captures are.
    #[error("no memory folder (set AGENTMEM_ROOT or HOME)")]
    NoMemoryFolder,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] agentctx_agentmem::StoreError),
}

/// The index of `cwd`'s project now, under `config` (`today` ranks it).
/// The memory folder is never created: without one there is nothing to
/// recall.
pub fn memory_index(
    host: &Host<'_>,
    cwd: &Path,
    config: &RecallConfig,
    today: jiff::civil::Date,
    notes: &mut Vec<String>,
) -> Result<MemoryIndex, RecallError> {
    let cache_home = host.env.xdg_dir("XDG_CACHE_HOME", ".cache");
    let env = host.env;
    let source = CaptureSource::from_config(
        &host.config.agentmem,
        &|name| env.get(name).map(str::to_owned),
        host.home().as_deref(),
        cache_home.as_deref(),
    )?
    .ok_or(RecallError::NoMemoryFolder)?;
    memory_index_in(host, &source, cwd, config, today, notes)
}

/// [`memory_index`] from a source the caller keeps (the MCP server's, whose
/// connections to a shared store outlive one call).
///
/// # Errors
/// As [`memory_index`].
pub fn memory_index_in(
    host: &Host<'_>,
    source: &CaptureSource,
    cwd: &Path,
    config: &RecallConfig,
    today: jiff::civil::Date,
    notes: &mut Vec<String>,
) -> Result<MemoryIndex, RecallError> {
    let memory = &host.config.agentmem;
    let cache_home = host.env.xdg_dir("XDG_CACHE_HOME", ".cache");
    let options: IdentityOptions =
        agentctx_agentmem::identity_options(memory, cache_home.as_deref());
    let identity = identify(cwd, &options);
    let empty = MemoryIndex {
        identity: identity.clone(),
        matches: 0,
        shown: 0,
        text: String::new(),
    };
    let from_folder = |notes: &mut Vec<String>| match source.local() {
        Some(location) => local_store(location, notes),
        None => Ok(None),
    };
    let opened: Option<Box<dyn CaptureStore + Send>> = if source.is_shared() {
        match source.open() {
            Ok(store) => Some(store),
            // The team's store is down: this machine's own captures are
            // better than none.
            Err(error) => {
                notes.push(format!(
                    "recall: the shared store cannot be read ({error}); recalling from the memory folder"
                ));
                from_folder(notes)?.map(|s| Box::new(s) as _)
            }
        }
    } else {
        from_folder(notes)?.map(|s| Box::new(s) as _)
    };
    let Some(mut store) = opened else {
        return Ok(empty);
    };
    let request = RecallRequest {
        scope: Scope::of(
            &identity,
            &memory.identities,
            &config.also,
            host.home().as_deref(),
        ),
        identity,
        max_tokens: usize::try_from(config.max_tokens).unwrap_or(usize::MAX),
        categories: config.categories.clone(),
        max_age_days: config.max_age_days,
        today,
        program: program_of(host),
    };
    Ok(store.recall_index(&request, &O200kCounter)?)
}

/// The memory folder's index, brought up to date; `None` when there is no
/// folder yet (nothing to recall).
fn local_store(
    location: &StoreLocation,
    notes: &mut Vec<String>,
) -> Result<Option<agentctx_agentmem::MemoryStore>, RecallError> {
    if !location.root.is_dir() {
        notes.push(format!(
            "recall: no memory folder at {} yet",
            location.root.display()
        ));
        return Ok(None);
    }
    // A reconcile that fails (another process holds the index's write
    // lock past the busy timeout) still leaves the index as it stands.
    let store = match location.open() {
        Ok((store, _)) => store,
        Err(error) => {
            notes.push(format!(
                "recall: the index was not brought up to date ({error})"
            ));
            location.open_unreconciled()?
        }
    };
    if let Some(why) = store.in_memory() {
        notes.push(format!("recall: {why}"));
    }
    Ok(Some(store))
}

/// How the model runs agentctx: the absolute program when known (the
/// model's shell may not have it on its PATH).
fn program_of(host: &Host<'_>) -> String {
    host.program
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()))
        .map_or_else(|| "agentctx".to_owned(), |p| p.display().to_string())
}

/// The index of this session: the one kept for it when there is one, else
/// computed now and kept (`<state>/<session>.memory-index`); the first
/// process to keep one wins, so concurrent hooks agree. `None` when recall
/// is off for this agent.
pub fn session_memory_index(
    host: &Host<'_>,
    cwd: &Path,
    session: Option<(&Path, &str)>,
    sub_agent: bool,
    notes: &mut Vec<String>,
) -> Option<String> {
    let config = &host.config.agentmem.recall;
    if !config.enabled {
        notes.push("recall: off (agentmem.recall.enabled: false)".to_owned());
        return None;
    }
    if sub_agent && !config.subagents {
        notes.push("recall: not for sub-agents (agentmem.recall.subagents: false)".to_owned());
        return None;
    }
    let kept = session.map(|(dir, id)| dir.join(format!("{id}.memory-index")));
    if let Some(file) = &kept
        && let Ok(text) = std::fs::read_to_string(file)
    {
        notes.push(format!(
            "recall: the session's index, kept in {}",
            file.display()
        ));
        return Some(text);
    }
    let today = jiff::Zoned::now().date();
    let index = match memory_index(host, cwd, config, today, notes) {
        Ok(index) => index,
        Err(error) => {
            notes.push(format!("recall: left out: {error}"));
            return None;
        }
    };
    notes.push(format!(
        "recall: {} of {} captures of {} in the index",
        index.shown,
        index.matches,
        index.identity.label()
    ));
    let Some(file) = kept else {
        return Some(index.text);
    };
    match keep_first(&file, &index.text) {
        Ok(text) => Some(text),
        Err(error) => {
            notes.push(format!(
                "recall: the index is not kept for the session ({}: {error})",
                file.display()
            ));
            Some(index.text)
        }
    }
}

/// Writes `text` to `file` unless another process did first; returns what
/// the file holds.
fn keep_first(file: &PathBuf, text: &str) -> std::io::Result<String> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut temp, text.as_bytes())?;
    match temp.persist_noclobber(file) {
        Ok(_) => Ok(text.to_owned()),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::read_to_string(file)
        }
        Err(e) => Err(e.error),
    }
}
