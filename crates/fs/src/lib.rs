//! Files that someone else controls (a project's `AGENTS.md`, rule file,
//! `.git/HEAD`, an agent's settings), read without blocking and without
//! reading more than a bound, and replaced atomically keeping their mode
//! and owner ([`replace_file`]).
//!
//! A plain `open` of a FIFO waits for a writer: a FIFO planted at
//! `.git/HEAD` by a command made every later reader hang. Here the file
//! is opened non-blocking and must be a regular file; a FIFO, a device or
//! a socket is refused with [`std::io::ErrorKind::InvalidInput`] at once,
//! and reading stops past the limit with
//! [`std::io::ErrorKind::FileTooLarge`]. Errors are plain
//! [`std::io::Error`]s so that callers keep their own error types, with
//! the path.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("AGENTS.md");
//! std::fs::write(&path, "# rules\n")?;
//! assert_eq!(agentctx_fs::read_to_string(&path, 1024)?, "# rules\n");
//!
//! // A FIFO is refused at once instead of waited on.
//! let fifo = dir.path().join("HEAD");
//! rustix::fs::mknodat(
//!     rustix::fs::CWD,
//!     &fifo,
//!     rustix::fs::FileType::Fifo,
//!     rustix::fs::Mode::from_raw_mode(0o644),
//!     0,
//! )?;
//! let error = agentctx_fs::read(&fifo, 1024).unwrap_err();
//! assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
//! # Ok::<(), std::io::Error>(())
//! ```
#![deny(missing_docs)]

use std::fs::File;
use std::io::{Error, ErrorKind, Read as _, Result};
use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
use std::path::Path;

/// Opens `path` for reading without waiting (`O_NONBLOCK`, `O_NOCTTY`),
/// following links as the kernel does; anything but a regular file is
/// refused with [`ErrorKind::InvalidInput`] naming what it is.
///
/// # Errors
/// The open failed, or the file is not a regular file.
pub fn open(path: &Path) -> Result<File> {
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY;
    let file = std::fs::OpenOptions::new()
        .read(true)
        // The flags fit an `int`: they are the kernel's.
        .custom_flags(i32::try_from(flags.bits()).unwrap_or(0))
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    let what = if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    };
    Err(Error::new(
        ErrorKind::InvalidInput,
        format!("{} is {what}, not a regular file: not read", path.display()),
    ))
}

/// The bytes of the regular file `path`, at most `limit` of them.
///
/// # Errors
/// As [`open`]; a file longer than `limit` is [`ErrorKind::FileTooLarge`].
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>> {
    let file = open(path)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > limit {
        return Err(Error::new(
            ErrorKind::FileTooLarge,
            format!("{} is larger than {limit} bytes: not read", path.display()),
        ));
    }
    Ok(bytes)
}

/// The text of the regular file `path`, at most `limit` bytes of UTF-8.
///
/// # Errors
/// As [`read`]; text that is not UTF-8 is [`ErrorKind::InvalidData`].
pub fn read_to_string(path: &Path, limit: u64) -> Result<String> {
    String::from_utf8(read(path, limit)?).map_err(|_| {
        Error::new(
            ErrorKind::InvalidData,
            format!("{} is not UTF-8 text", path.display()),
        )
    })
}

/// Whether `path` is a regular file, links followed, without opening it:
/// a check before handing a path to a library that opens it itself.
pub fn is_regular(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// The files a git library opens in the repository of `start` (the
/// nearest `.git` at or above it: the `.git` file of a worktree, `HEAD`,
/// `config`, `commondir`, `packed-refs`, `index`, and the same in the
/// common folder a `commondir` names) are regular files or absent. Check
/// it before handing the folder to such a library, which opens them with
/// a plain, blocking `open`: a FIFO at `.git/HEAD` would hang it.
pub fn git_files_are_regular(start: &Path) -> bool {
    let Some(dot_git) = start
        .ancestors()
        .map(|dir| dir.join(".git"))
        .find(|candidate| std::fs::symlink_metadata(candidate).is_ok())
    else {
        return true;
    };
    let absent_or_regular =
        |path: &Path| std::fs::metadata(path).map_or(true, |m| m.file_type().is_file());
    let git_dir = if std::fs::metadata(&dot_git).is_ok_and(|m| m.is_dir()) {
        dot_git
    } else {
        if !absent_or_regular(&dot_git) {
            return false;
        }
        // A worktree's `.git` file names its folder.
        let Ok(text) = read_to_string(&dot_git, 64 * 1024) else {
            return false;
        };
        match text.lines().find_map(|l| l.strip_prefix("gitdir:")) {
            Some(target) => {
                let target = Path::new(target.trim());
                dot_git.parent().unwrap_or(Path::new("/")).join(target)
            }
            None => return true,
        }
    };
    let files = [
        "HEAD",
        "config",
        "commondir",
        "packed-refs",
        "index",
        "gitdir",
    ];
    if !files.iter().all(|f| absent_or_regular(&git_dir.join(f))) {
        return false;
    }
    match read_to_string(&git_dir.join("commondir"), 64 * 1024) {
        Ok(common) => {
            let common = git_dir.join(common.trim());
            files.iter().all(|f| absent_or_regular(&common.join(f)))
        }
        Err(_) => true,
    }
}

/// Replaces the user's file `path` with `bytes` atomically, through a
/// temporary file in its folder, keeping what the file was: its mode
/// (`mode` when given, else the file's, else 0644 for a new file; set
/// exactly, whatever the umask) and its owner and group (where the
/// process may give them: as root, or a group it is in; otherwise the
/// file becomes the process's, as any editor's save would make it).
///
/// # Errors
/// The temporary file cannot be made, written or renamed over `path`.
pub fn replace_file(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    // A link's target's mode is not the file's (a link here is replaced).
    let existing = std::fs::symlink_metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file);
    let mut temp = tempfile::Builder::new()
        .prefix(".agentctx-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    std::io::Write::write_all(&mut temp, bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
        let mode = mode
            .or_else(|| existing.as_ref().map(|m| m.mode() & 0o7777))
            .unwrap_or(0o644);
        if let Some(meta) = &existing {
            // Refused (EPERM) where the process may not: then it is ours.
            let _ = std::os::unix::fs::fchown(temp.as_file(), Some(meta.uid()), Some(meta.gid()))
                .or_else(|_| std::os::unix::fs::fchown(temp.as_file(), None, Some(meta.gid())));
        }
        // After the owner: chown clears the set-id bits.
        temp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = (mode, existing);
    temp.persist(path).map(drop).map_err(|e| e.error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fifo(dir: &Path) -> std::path::PathBuf {
        let path = dir.join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        path
    }

    #[test]
    fn a_fifo_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(dir.path());
        let started = std::time::Instant::now();
        let error = read(&path, 10).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidInput);
        assert!(error.to_string().contains("a FIFO"), "{error}");
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        assert!(!is_regular(&path));
    }

    #[test]
    fn a_link_to_a_fifo_or_a_device_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("HEAD");
        std::os::unix::fs::symlink(fifo(dir.path()), &link).unwrap();
        assert_eq!(read(&link, 10).unwrap_err().kind(), ErrorKind::InvalidInput);
        let zero = dir.path().join("AGENTS.md");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let error = read(&zero, 10).unwrap_err();
        assert!(error.to_string().contains("a device"), "{error}");
    }

    #[test]
    fn reading_stops_at_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        std::fs::write(&path, "0123456789").unwrap();
        assert_eq!(read(&path, 10).unwrap(), b"0123456789");
        assert_eq!(read(&path, 9).unwrap_err().kind(), ErrorKind::FileTooLarge);
        assert_eq!(
            read(&dir.path().join("none"), 9).unwrap_err().kind(),
            ErrorKind::NotFound
        );
    }

    #[test]
    fn a_repository_with_a_special_file_where_git_opens_one_is_not_plain() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join(".git");
        std::fs::create_dir_all(git.join("refs")).unwrap();
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        let below = dir.path().join("a/b");
        std::fs::create_dir_all(&below).unwrap();
        assert!(git_files_are_regular(&below));
        std::fs::remove_file(git.join("HEAD")).unwrap();
        std::fs::rename(fifo(dir.path()), git.join("HEAD")).unwrap();
        assert!(!git_files_are_regular(&below));
        // A worktree whose folder's config is a FIFO.
        let tree = tempfile::tempdir().unwrap();
        let linked = tree.path().join("wt");
        std::fs::create_dir_all(&linked).unwrap();
        let admin = dir.path().join("admin");
        std::fs::create_dir_all(&admin).unwrap();
        std::fs::write(
            linked.join(".git"),
            format!("gitdir: {}\n", admin.display()),
        )
        .unwrap();
        assert!(git_files_are_regular(&linked));
        std::fs::rename(fifo(&admin), admin.join("config")).unwrap();
        assert!(!git_files_are_regular(&linked));
    }

    #[test]
    fn text_must_be_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bin");
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        assert_eq!(
            read_to_string(&path, 10).unwrap_err().kind(),
            ErrorKind::InvalidData
        );
    }
}
