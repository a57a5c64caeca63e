//! Writing the planned changes: manifests first, each file atomically with
//! its mode kept, folders install made removed once empty.

use std::path::{Path, PathBuf};

use super::{ChangeKind, FileChange, InstallError, Manifest, Places, io};

/// Writes the changes: manifests first (so an interrupted install can still
/// be undone), then each file atomically with its mode kept.
pub fn apply(changes: &[FileChange], places: &Places) -> Result<(), InstallError> {
    // Folders install created are removed, when empty, once every file of
    // the change is gone (two files may share one: `.codex/hooks.json`
    // and `.codex/config.toml`).
    let mut emptied: Vec<PathBuf> = Vec::new();
    for change in changes {
        // The record as it was, put back when the write fails: a manifest
        // must not claim what install never wrote (its uninstall would take
        // the user's own setting out).
        let previous = Manifest::load(&places.manifests, &change.path)?;
        if let Some(manifest) = &change.manifest
            && change.parts_after.any()
        {
            manifest.save(&places.manifests)?;
        }
        let written = write_change(change, places, &mut emptied);
        if let Err(error) = written {
            match previous {
                Some(previous) => previous.save(&places.manifests)?,
                None => Manifest::remove(&places.manifests, &change.path)?,
            }
            return Err(error);
        }
        if !change.parts_after.any() {
            Manifest::remove(&places.manifests, &change.path)?;
        }
    }
    // Deepest first.
    emptied.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    for dir in emptied {
        let _ = std::fs::remove_dir(dir);
    }
    Ok(())
}

/// One file's change.
fn write_change(
    change: &FileChange,
    places: &Places,
    emptied: &mut Vec<PathBuf>,
) -> Result<(), InstallError> {
    if change.is_unchanged() {
        return Ok(());
    }
    match (&change.after, &change.manifest) {
        (Some(text), manifest) => {
            let mode = match change.how {
                ChangeKind::Restored => manifest.as_ref().and_then(|m| m.original_mode),
                // A script agentctx makes (opencode's shell) runs.
                _ if text.starts_with("#!") && !change.path.exists() => Some(0o755),
                _ => None,
            };
            let created = write_atomically(&change.path, text, mode)?;
            if let (Some(m), false) = (manifest, created.is_empty()) {
                let mut m = m.clone();
                m.created_dirs.extend(created);
                m.save(&places.manifests)?;
            }
        }
        (None, manifest) => {
            remove_file(&change.path)?;
            if let Some(m) = manifest {
                emptied.extend(m.created_dirs.iter().cloned());
            }
        }
    }
    Ok(())
}

fn remove_file(path: &Path) -> Result<(), InstallError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(path)(e)),
        _ => Ok(()),
    }
}

/// Replaces `path` with `text` through a temporary file in its folder.
/// The mode is `mode` when given, else the current file's, else 0644.
/// Returns the folders it had to create, outermost first.
fn write_atomically(
    path: &Path,
    text: &str,
    mode: Option<u32>,
) -> Result<Vec<PathBuf>, InstallError> {
    let dir = path
        .parent()
        .ok_or_else(|| InstallError::Unplaced(format!("{} has no folder", path.display())))?;
    let mut created: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.exists())
        .map(Path::to_path_buf)
        .collect();
    created.reverse();
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    agentctx_fs::replace_file(path, text.as_bytes(), mode).map_err(io(path))?;
    Ok(created)
}

#[cfg(unix)]
pub(super) fn current_mode(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
pub(super) fn current_mode(_path: &Path) -> Option<u32> {
    None
}
