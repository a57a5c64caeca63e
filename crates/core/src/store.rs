//! Session state on disk, safe for hook processes that run at the same time.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use agentctx_types::{SESSION_STATE_VERSION, SessionState};

use crate::CoreError;

/// Whether `id` can be a session's or an agent's id, and so name a file of
/// agentctx's: ASCII letters, digits, `.`, `_` and `-`, not starting with a
/// dot, 1 to 200 bytes. Every file named after a session goes through it.
pub fn is_session_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('.')
        && id.len() <= 200
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// A session state file. Every update is read-modify-write under an
/// exclusive lock on a sibling `.lock` file (the state file itself is
/// replaced by rename, so it cannot carry the lock), and every write goes to
/// a temporary file in the same directory that is renamed into place: a
/// reader sees the old state or the new one, never a torn file.
#[derive(Clone, Debug)]
pub struct SessionStore {
    path: PathBuf,
}

/// A state file that could not be used and is being rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorruptState {
    /// The file.
    pub path: PathBuf,
    /// What was wrong with it.
    pub message: String,
}

impl std::fmt::Display for CorruptState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "session state {} is unusable ({}); rebuilding it from a fresh initial load",
            self.path.display(),
            self.message
        )
    }
}

/// What an update found on disk.
#[derive(Clone, Debug)]
pub enum StoredState {
    /// No state yet.
    Missing,
    /// A state that could not be parsed; it will be rebuilt.
    Corrupt(CorruptState),
    /// The state.
    Found(SessionState),
}

impl SessionStore {
    /// A store at an explicit file (`--session FILE`).
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// The store for `id` under `sessions_dir` (`$XDG_STATE_HOME/agentctx/sessions`).
    /// The id must be a plain file name, so it cannot point outside that directory.
    pub fn for_id(sessions_dir: &Path, id: &str) -> Result<Self, CoreError> {
        Self::for_agent(sessions_dir, id, None)
    }

    /// The store of one agent of a session: the main agent's (`agent_id`
    /// `None`), or a sub-agent's, which has state of its own because it has
    /// a context of its own (`<session>+<agent>.json`). Both ids must be
    /// plain names of ASCII letters, digits, `.`, `_` and `-`, not starting
    /// with a dot, at most 200 bytes; `+` cannot occur in either, so no two
    /// agents share a file.
    pub fn for_agent(
        sessions_dir: &Path,
        session_id: &str,
        agent_id: Option<&str>,
    ) -> Result<Self, CoreError> {
        for id in std::iter::once(session_id).chain(agent_id) {
            if !is_session_id(id) {
                return Err(CoreError::InvalidSessionId { id: id.to_owned() });
            }
        }
        let name = match agent_id {
            Some(agent) => format!("{session_id}+{agent}.json"),
            None => format!("{session_id}.json"),
        };
        Ok(Self::at(sessions_dir.join(name)))
    }

    /// The state file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `change` on the stored state while holding the lock. When it
    /// returns a state, that state is written atomically before the lock is
    /// released; `None` leaves the file as it is.
    pub fn update<R>(
        &self,
        change: impl FnOnce(StoredState) -> (R, Option<SessionState>),
    ) -> Result<R, CoreError> {
        let _lock = self.lock()?;
        let (result, new_state) = change(self.read());
        if let Some(state) = new_state {
            self.write(&state)?;
        }
        Ok(result)
    }

    fn io_error(&self, path: &Path, source: std::io::Error) -> CoreError {
        let _ = self;
        CoreError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    fn lock(&self) -> Result<File, CoreError> {
        let dir = self.directory();
        std::fs::create_dir_all(dir).map_err(|e| self.io_error(dir, e))?;
        let mut lock_name = self.path.as_os_str().to_owned();
        lock_name.push(".lock");
        let lock_path = PathBuf::from(lock_name);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| self.io_error(&lock_path, e))?;
        file.lock().map_err(|e| self.io_error(&lock_path, e))?;
        Ok(file)
    }

    fn directory(&self) -> &Path {
        match self.path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        }
    }

    /// The stored state as it is now, without the lock: the file is only
    /// ever replaced whole, by rename, so a reader sees an old or a new
    /// state, never a torn one. For readers that change nothing.
    pub fn read(&self) -> StoredState {
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return StoredState::Missing,
            Err(e) => return self.corrupt(e.to_string()),
        };
        match serde_json::from_slice::<SessionState>(&bytes) {
            Ok(state) if state.version == SESSION_STATE_VERSION => StoredState::Found(state),
            Ok(state) => self.corrupt(format!(
                "version {} where {SESSION_STATE_VERSION} was expected",
                state.version
            )),
            Err(e) => self.corrupt(e.to_string()),
        }
    }

    fn corrupt(&self, message: String) -> StoredState {
        StoredState::Corrupt(CorruptState {
            path: self.path.clone(),
            message,
        })
    }

    fn write(&self, state: &SessionState) -> Result<(), CoreError> {
        let dir = self.directory();
        let mut temp = tempfile::Builder::new()
            .prefix(".session-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(|e| self.io_error(dir, e))?;
        let json = serde_json::to_vec_pretty(state)
            .map_err(|e| self.io_error(&self.path, std::io::Error::other(e)))?;
        temp.write_all(&json)
            .and_then(|()| temp.write_all(b"\n"))
            .map_err(|e| self.io_error(temp.path(), e))?;
        temp.persist(&self.path)
            .map_err(|e| self.io_error(&self.path, e.error))?;
        Ok(())
    }
}
