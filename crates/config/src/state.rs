//! Where agentctx keeps state between processes, and its append-only logs.
//!
//! Hooks run as short separate processes, so everything they share (session
//! state, capture indexes, logs) lives in one folder:
//! `$XDG_STATE_HOME/agentctx`, or `~/.local/state/agentctx`.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::Environment;

/// A log past this size is rotated to `NAME.1` before the next append.
const LOG_LIMIT: u64 = 1024 * 1024;

/// `$XDG_STATE_HOME/agentctx`, else `$HOME/.local/state/agentctx`; `None`
/// when neither variable is an absolute path.
pub fn state_dir(env: &Environment) -> Option<PathBuf> {
    env.xdg_dir("XDG_STATE_HOME", ".local/state")
        .map(|dir| dir.join("agentctx"))
}

/// An append-only log file in the state folder (`hook.log`,
/// `agentmem.log`), one timestamped line per note, rotated once past 1 MiB.
///
/// Appends never fail the caller: a hook has nowhere left to report a
/// failure to, so [`StateLog::append`] returns whether it wrote.
#[derive(Clone, Debug)]
pub struct StateLog {
    path: PathBuf,
}

impl StateLog {
    /// The log `name` in the state folder of `env`.
    pub fn new(env: &Environment, name: &str) -> Option<Self> {
        state_dir(env).map(|dir| Self::at(dir.join(name)))
    }

    /// A log at an explicit path.
    pub fn at(path: PathBuf) -> Self {
        Self { path }
    }

    /// The log file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `lines` with one write. The folder is only created when the
    /// file cannot be opened (hooks call this on every tool call). Rotation
    /// happens under an exclusive lock of the log, after checking the size
    /// again, so two processes never rotate twice and lose a generation.
    pub fn append<S: AsRef<str>>(&self, lines: &[S]) -> bool {
        if lines.is_empty() {
            return true;
        }
        let stamp = jiff::Timestamp::now()
            .strftime("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        let text: String = lines
            .iter()
            .map(|line| format!("{stamp} {}\n", line.as_ref()))
            .collect();
        let Some(mut file) = self.open() else {
            return false;
        };
        if file.metadata().is_ok_and(|m| m.len() > LOG_LIMIT) && self.rotate(&file) {
            match self.open() {
                Some(fresh) => file = fresh,
                None => return false,
            }
        }
        file.write_all(text.as_bytes()).is_ok()
    }

    fn open(&self) -> Option<File> {
        let open = || {
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
        };
        open()
            .or_else(|_| {
                if let Some(dir) = self.path.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                open()
            })
            .ok()
    }

    /// Renames the log to `NAME.1` if it is still the oversized file we
    /// opened; `true` when the caller must reopen.
    fn rotate(&self, opened: &File) -> bool {
        if opened.lock().is_err() {
            return false;
        }
        let still_big = std::fs::metadata(&self.path).is_ok_and(|m| m.len() > LOG_LIMIT);
        let same = same_file(opened, &self.path);
        if still_big && same {
            let mut rotated = self.path.as_os_str().to_owned();
            rotated.push(".1");
            let _ = std::fs::rename(&self.path, PathBuf::from(rotated));
        }
        let _ = opened.unlock();
        true
    }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &File, _path: &Path) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_is_created_with_its_folder_and_appended_to() {
        let dir = tempfile::tempdir().unwrap();
        let log = StateLog::at(dir.path().join("state/agentctx/hook.log"));
        assert!(log.append(&["one", "two"]));
        assert!(log.append(&["three"]));
        let text = std::fs::read_to_string(log.path()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].ends_with("Z one"), "{text}");
        assert!(lines[2].ends_with("Z three"), "{text}");
    }

    #[test]
    fn an_oversized_log_is_rotated_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hook.log");
        std::fs::write(&path, vec![b'x'; (LOG_LIMIT + 1) as usize]).unwrap();
        let log = StateLog::at(path.clone());
        assert!(log.append(&["after"]));
        assert!(log.append(&["again"]));
        let rotated = std::fs::metadata(dir.path().join("hook.log.1")).unwrap();
        assert_eq!(rotated.len(), LOG_LIMIT + 1);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
    }

    #[test]
    fn state_dir_follows_xdg_then_home() {
        let env = Environment::from_pairs([("HOME", "/h"), ("XDG_STATE_HOME", "/s")]);
        assert_eq!(state_dir(&env), Some(PathBuf::from("/s/agentctx")));
        let env = Environment::from_pairs([("HOME", "/h"), ("XDG_STATE_HOME", "rel")]);
        assert_eq!(
            state_dir(&env),
            Some(PathBuf::from("/h/.local/state/agentctx"))
        );
        assert_eq!(state_dir(&Environment::default()), None);
    }
}
