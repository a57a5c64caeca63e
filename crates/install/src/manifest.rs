//! What install found before it first changed a file, so uninstall can put
//! it back exactly. One JSON file per settings file, in the state folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::Parts;

/// The record of one settings file that install changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The settings file.
    pub path: PathBuf,
    /// Its text before the first install (`None`: it did not exist).
    pub original: Option<String>,
    /// Its mode before the first install.
    pub original_mode: Option<u32>,
    /// The SHA-256 of the text install last wrote: when the file still has
    /// it, nobody edited the file since, and uninstall can restore the
    /// original bytes.
    pub installed_sha256: String,
    /// What agentctx holds in the file now.
    pub parts: Parts,
    /// Which install put which parts here, by owner (`user`, or
    /// `project <root>`): a user config holds the MCP server of installs
    /// in every scope, and an uninstall takes out only what no other
    /// scope still asked for. Parts no owner claims (records written
    /// before owners were kept) are the file's own scope's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub owners: BTreeMap<String, Parts>,
    /// Folders install created for the file, outermost first.
    pub created_dirs: Vec<PathBuf>,
}

/// A manifest that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// Reading or writing failed.
    #[error("install record {}: {source}", .path.display())]
    Io {
        /// The manifest file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The manifest is not what install writes.
    #[error("install record {} is unreadable ({source}); remove it to uninstall without it", .path.display())]
    Corrupt {
        /// The manifest file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
}

/// The hex SHA-256 of `text`.
pub(crate) fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn file_for(dir: &Path, settings: &Path) -> PathBuf {
    let digest = sha256(&settings.to_string_lossy());
    dir.join(format!("{}.json", &digest[..32]))
}

impl Manifest {
    /// The record of `path` before install writes `installed`.
    pub fn new(path: &Path, original: Option<&str>, parts: Parts, installed: &str) -> Self {
        Self {
            path: path.to_path_buf(),
            original: original.map(str::to_owned),
            original_mode: super::write::current_mode(path),
            installed_sha256: sha256(installed),
            parts,
            owners: BTreeMap::new(),
            created_dirs: Vec::new(),
        }
    }

    /// The parts `owner` put here; parts nobody claims count as `home`'s
    /// (the owner of the file's own scope).
    pub(super) fn parts_of(&self, owner: &str, home: &str) -> Parts {
        let mine = self.owners.get(owner).copied().unwrap_or_default();
        if owner != home {
            return mine;
        }
        let claimed = self
            .owners
            .values()
            .fold(Parts::default(), |all, parts| all.with(*parts));
        mine.with(self.parts.without(claimed))
    }

    /// The parts every owner but `owner` put here (unclaimed parts are
    /// `home`'s).
    pub(super) fn parts_of_others(&self, owner: &str, home: &str) -> Parts {
        let mut others = self
            .owners
            .iter()
            .filter(|(who, _)| who.as_str() != owner)
            .fold(Parts::default(), |all, (_, parts)| all.with(*parts));
        if owner != home {
            others = others.with(self.parts_of(home, home));
        }
        others
    }

    /// The record of `settings` in `dir`, if install wrote one.
    pub fn load(dir: &Path, settings: &Path) -> Result<Option<Self>, ManifestError> {
        let path = file_for(dir, settings);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(ManifestError::Io { path, source }),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|source| ManifestError::Corrupt { path, source })
    }

    /// Writes the record atomically.
    pub fn save(&self, dir: &Path) -> Result<(), ManifestError> {
        let path = file_for(dir, &self.path);
        let io = |source| ManifestError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let text = serde_json::to_string_pretty(self).map_err(|e| io(std::io::Error::other(e)))?;
        let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
        std::io::Write::write_all(&mut temp, text.as_bytes()).map_err(io)?;
        temp.persist(&path).map_err(|e| io(e.error))?;
        Ok(())
    }

    /// Forgets the record of `settings`.
    pub fn remove(dir: &Path, settings: &Path) -> Result<(), ManifestError> {
        let path = file_for(dir, settings);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(ManifestError::Io { path, source: e })
            }
            _ => Ok(()),
        }
    }
}
