//! Sending captures: at once when the store answers, else through the
//! outbox (`<memory>/.agentmem/outbox/<key hash>.json`, one file per
//! capture: its key and its file), emptied by the next capture and by
//! `agentctx mem sync`. Sending is idempotent: the key is unique in the
//! database, so a retried or concurrent send adds nothing.

use std::path::{Path, PathBuf};

use sha2::Digest as _;

use super::{PgError, PgSettings, connect, schema};

/// How many waiting captures one capture sends along with its own: a hook
/// stays fast even after a long outage; `mem sync` sends the rest.
const SEND_ALONG: usize = 50;

/// What became of one capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeliveryReport {
    /// A new row.
    Sent,
    /// The store already had this run (another machine, or a retry).
    AlreadyThere,
    /// Kept in the outbox, and why.
    Queued(String),
}

/// What `mem sync` did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyncReport {
    /// New rows.
    pub sent: usize,
    /// Captures the store had already.
    pub already_there: usize,
    /// Outbox entries whose file is gone (dropped).
    pub dropped: usize,
    /// Entries still waiting.
    pub waiting: usize,
    /// Why the sync stopped early (the store stopped answering).
    pub stopped: Option<String>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Entry {
    key: String,
    path: PathBuf,
}

fn outbox_dir(root: &Path) -> PathBuf {
    root.join(".agentmem/outbox")
}

fn entry_path(root: &Path, key: &str) -> PathBuf {
    let hash = sha2::Sha256::digest(key.as_bytes());
    let name: String = hash[..12].iter().map(|b| format!("{b:02x}")).collect();
    outbox_dir(root).join(format!("{name}.json"))
}

fn queue(root: &Path, key: &str, path: &Path) -> Result<(), PgError> {
    let dir = outbox_dir(root);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| PgError::Outbox { path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let entry = Entry {
        key: key.to_owned(),
        path: path.to_path_buf(),
    };
    let text = serde_json::to_string(&entry).unwrap_or_default();
    let mut file = tempfile::NamedTempFile::new_in(&dir).map_err(io(&dir))?;
    std::io::Write::write_all(&mut file, text.as_bytes()).map_err(io(&dir))?;
    let target = entry_path(root, key);
    file.persist(&target)
        .map_err(|e| PgError::Outbox {
            path: target.clone(),
            source: e.error,
        })
        .map(|_| ())
}

/// Sends the capture `path` (dedupe key `key`) of the memory folder `root`
/// to the store, with up to 50 captures that were waiting; keeps it in the
/// outbox when the store does not take it. Never fails the capture: an
/// outbox that cannot be written is the only error.
///
/// # Errors
/// The outbox cannot be written (the capture is still in its file).
pub fn deliver(
    settings: &PgSettings,
    root: &Path,
    path: &Path,
    key: &str,
) -> Result<DeliveryReport, PgError> {
    let sent = connect(settings).and_then(|mut client| {
        schema::require_current(&mut client, &settings.target())?;
        let report = send(&mut client, &settings.target(), path, key)?;
        let _ = flush(&mut client, &settings.target(), root, SEND_ALONG);
        Ok(report)
    });
    match sent {
        Ok(report) => Ok(report),
        Err(why) => {
            queue(root, key, path)?;
            Ok(DeliveryReport::Queued(why.to_string()))
        }
    }
}

/// Sends every capture waiting in the outbox of `root`.
///
/// # Errors
/// The store cannot be reached or is not migrated (nothing is lost: the
/// outbox stays), or the outbox cannot be read.
pub fn sync(settings: &PgSettings, root: &Path) -> Result<SyncReport, PgError> {
    let mut client = connect(settings)?;
    schema::require_current(&mut client, &settings.target())?;
    flush(&mut client, &settings.target(), root, usize::MAX)
}

/// Sends each of `files` (captures of a memory folder) that the store has
/// no capture of by name: those written before the store was set, whose
/// run keys are not in the files (each is keyed `file:<name>`). A file
/// that does not parse is counted as dropped.
///
/// # Errors
/// The store cannot be reached or is not migrated.
pub fn backfill(settings: &PgSettings, files: &[PathBuf]) -> Result<SyncReport, PgError> {
    let mut client = connect(settings)?;
    let target = settings.target();
    schema::require_current(&mut client, &target)?;
    let mut report = SyncReport::default();
    for (i, path) in files.iter().enumerate() {
        let name = path
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let known = client
            .query_opt("SELECT 1 FROM agentmem_captures WHERE name = $1", &[&name])
            .map_err(|source| PgError::Postgres {
                target: target.clone(),
                source,
            });
        let sent = match known {
            Ok(Some(_)) => Ok(DeliveryReport::AlreadyThere),
            Ok(None) => send(&mut client, &target, path, &format!("file:{name}")),
            Err(error) => Err(error),
        };
        match sent {
            Ok(DeliveryReport::Sent) => report.sent += 1,
            Ok(_) => report.already_there += 1,
            Err(PgError::Capture { .. }) => report.dropped += 1,
            Err(error) => {
                report.waiting += files.len() - i;
                report.stopped = Some(error.to_string());
                return Ok(report);
            }
        }
    }
    Ok(report)
}

fn flush(
    client: &mut postgres::Client,
    target: &str,
    root: &Path,
    limit: usize,
) -> Result<SyncReport, PgError> {
    let dir = outbox_dir(root);
    let mut report = SyncReport::default();
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(read) => read
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(report),
        Err(source) => return Err(PgError::Outbox { path: dir, source }),
    };
    entries.sort();
    for (i, file) in entries.iter().enumerate() {
        if i >= limit {
            report.waiting += 1;
            continue;
        }
        let entry: Option<Entry> = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let Some(entry) = entry.filter(|e| e.path.is_file()) else {
            // Unreadable, or its capture was deleted: nothing to send.
            let _ = std::fs::remove_file(file);
            report.dropped += 1;
            continue;
        };
        match send(client, target, &entry.path, &entry.key) {
            Ok(DeliveryReport::Sent) => report.sent += 1,
            Ok(_) => report.already_there += 1,
            Err(PgError::Capture { .. }) => {
                let _ = std::fs::remove_file(file);
                report.dropped += 1;
                continue;
            }
            Err(error) => {
                report.waiting += entries.len() - i;
                report.stopped = Some(error.to_string());
                return Ok(report);
            }
        }
        let _ = std::fs::remove_file(file);
    }
    Ok(report)
}

/// One capture file as a row; `Sent` when it is new.
pub(super) fn send(
    client: &mut postgres::Client,
    target: &str,
    path: &Path,
    key: &str,
) -> Result<DeliveryReport, PgError> {
    let parsed = crate::parse::parse_capture(path).map_err(|e| PgError::Capture {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let document = std::fs::read_to_string(path).map_err(|e| PgError::Capture {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let r = &parsed.record;
    let searchable = |text: &str| format!("{text}\n{}", crate::cjk::index_text(text));
    let short = crate::store::short_id(&r.id);
    let top = r.identity.top.to_string_lossy().into_owned();
    let inserted = client
        .execute(
            "INSERT INTO agentmem_captures (capture_key, name, short, time, category, agent, source,
                session, project, completion, description, remote, root_commit, pname,
                top, package, body, document, search)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
                setweight(to_tsvector('simple', $19), 'A')
                || setweight(to_tsvector('simple', $20), 'B')
                || setweight(to_tsvector('simple', $21), 'C'))
             ON CONFLICT (capture_key) DO NOTHING",
            &[
                &key,
                &r.id,
                &short,
                &r.time,
                &r.category,
                &r.agent,
                &r.source,
                &r.session,
                &r.project,
                &r.completion,
                &r.description,
                &r.identity.remote,
                &r.identity.root_commit,
                &r.identity.name,
                &top,
                &r.identity.package,
                &parsed.body,
                &document,
                &searchable(&r.completion),
                &searchable(&r.description),
                &searchable(&parsed.body),
            ],
        )
        .map_err(|source| PgError::Postgres {
            target: target.to_owned(),
            source,
        })?;
    Ok(if inserted == 1 {
        DeliveryReport::Sent
    } else {
        DeliveryReport::AlreadyThere
    })
}
