//! Which runs were captured: their dedupe keys (`agent:<id>`,
//! `call:<tool_use_id>`, `codex-turn:<id>`...), kept in 256 shard files
//! (`.agentmem/captured-keys.d/<xx>`, by the first byte of the key's
//! SHA-256) so a capture reads one small shard, not every key ever
//! written. The single file of earlier versions (`.agentmem/captured-keys`)
//! is still read until the next capture moves its keys into the shards.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use sha2::Digest as _;

/// The keys of one memory root, read shard by shard as they are asked for.
pub struct CapturedKeys {
    dir: PathBuf,
    legacy: Option<HashSet<String>>,
    shards: HashMap<u8, HashSet<String>>,
}

fn shard_of(key: &str) -> u8 {
    sha2::Sha256::digest(key.as_bytes())[0]
}

fn read_lines(path: &Path) -> HashSet<String> {
    std::fs::File::open(path)
        .map(|file| {
            std::io::BufReader::new(file)
                .lines()
                .map_while(Result::ok)
                .collect()
        })
        .unwrap_or_default()
}

impl CapturedKeys {
    /// The keys of the memory root `root` (none yet: an empty set).
    pub fn open(root: &Path) -> Self {
        let meta = root.join(".agentmem");
        let legacy_path = meta.join("captured-keys");
        Self {
            dir: meta.join("captured-keys.d"),
            legacy: legacy_path.exists().then(|| read_lines(&legacy_path)),
            shards: HashMap::new(),
        }
    }

    /// Whether `key` was captured.
    pub fn contains(&mut self, key: &str) -> bool {
        if self.legacy.as_ref().is_some_and(|l| l.contains(key)) {
            return true;
        }
        let shard = shard_of(key);
        let dir = &self.dir;
        self.shards
            .entry(shard)
            .or_insert_with(|| read_lines(&dir.join(format!("{shard:02x}"))))
            .contains(key)
    }

    /// Records `key`. The caller holds the memory root's capture lock;
    /// the keys of the single file of earlier versions move into the
    /// shards first (written before the old file is removed, so a reader
    /// never misses one).
    pub fn record(root: &Path, key: &str) -> std::io::Result<()> {
        let meta = root.join(".agentmem");
        let dir = meta.join("captured-keys.d");
        std::fs::create_dir_all(&dir)?;
        let legacy_path = meta.join("captured-keys");
        let mut keys: Vec<String> = if legacy_path.exists() {
            read_lines(&legacy_path).into_iter().collect()
        } else {
            Vec::new()
        };
        let migrating = !keys.is_empty();
        keys.push(key.to_owned());
        let mut by_shard: HashMap<u8, String> = HashMap::new();
        for key in &keys {
            let lines = by_shard.entry(shard_of(key)).or_default();
            lines.push_str(key);
            lines.push('\n');
        }
        for (shard, lines) in by_shard {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join(format!("{shard:02x}")))?
                .write_all(lines.as_bytes())?;
        }
        if migrating || legacy_path.exists() {
            std::fs::remove_file(&legacy_path)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_in_their_shard_and_the_old_file_is_moved() {
        let root = tempfile::tempdir().unwrap();
        let meta = root.path().join(".agentmem");
        std::fs::create_dir_all(&meta).unwrap();
        std::fs::write(meta.join("captured-keys"), "agent:old1\ncall:old2\n").unwrap();
        let mut keys = CapturedKeys::open(root.path());
        assert!(keys.contains("agent:old1") && keys.contains("call:old2"));
        assert!(!keys.contains("agent:new"));
        CapturedKeys::record(root.path(), "agent:new").unwrap();
        assert!(
            !meta.join("captured-keys").exists(),
            "moved into the shards"
        );
        let mut keys = CapturedKeys::open(root.path());
        for key in ["agent:old1", "call:old2", "agent:new"] {
            assert!(keys.contains(key), "{key}");
        }
        assert!(!keys.contains("agent:other"));
        let shards = std::fs::read_dir(meta.join("captured-keys.d"))
            .unwrap()
            .count();
        assert!((1..=3).contains(&shards), "{shards}");
    }
}
