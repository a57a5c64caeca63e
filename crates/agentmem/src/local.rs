//! The local store, one backend of [`CaptureStore`]: a memory folder's
//! Markdown files stay the truth; a SQLite FTS5 index beside them
//! (`<root>/.agentmem/index.sqlite`) is rebuilt from them whenever it is
//! missing, corrupt or out of date.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use agentctx_types::{CaptureRecord, MemoryStats, SearchHit};
use rusqlite::{Connection, OptionalExtension, params};

use crate::context::TokenCounter;
use crate::store::{CaptureStore, Filter, StoreError, short_id, where_clause};

/// What can go wrong with the local index itself (a
/// [`StoreError::Backend`]).
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// The index database failed.
    #[error("{}: {source}", .path.display())]
    Index {
        /// The index file, or the memory folder it indexes.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// The index can be opened but not written (a read-only file or folder).
    #[error("{}: the index is read-only", .path.display())]
    ReadOnly {
        /// The index file.
        path: PathBuf,
    },
    /// Neither the memory folder nor the fallback folder can hold an index.
    #[error("{}: cannot keep an index beside the captures ({beside}) nor in {} ({source})", .root.display(), .fallback.display())]
    NoPlaceForIndex {
        /// The memory folder.
        root: PathBuf,
        /// The fallback folder.
        fallback: PathBuf,
        /// Why not beside the captures.
        beside: Box<StoreError>,
        /// Why not in the fallback.
        source: Box<StoreError>,
    },
}

impl From<LocalError> for StoreError {
    fn from(error: LocalError) -> Self {
        StoreError::Backend(Box::new(error))
    }
}

/// A query SQLite's full-text engine rejected.
fn rejected_query(source: rusqlite::Error) -> StoreError {
    StoreError::Query {
        message: source.to_string().replace("fts5: ", ""),
        source: Some(Box::new(source)),
    }
}

/// What reconciling found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reconciled {
    /// Files indexed for the first time.
    pub added: usize,
    /// Files whose size or mtime changed.
    pub updated: usize,
    /// Index rows whose file is gone.
    pub removed: usize,
    /// Files that do not parse, with the reason (skipped).
    pub unparsable: Vec<(PathBuf, String)>,
}

/// Errors with the path they concern.
trait AtPath<T> {
    fn at(self, path: &Path) -> Result<T, StoreError>;
}

impl<T> AtPath<T> for Result<T, std::io::Error> {
    fn at(self, path: &Path) -> Result<T, StoreError> {
        self.map_err(|source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

impl<T> AtPath<T> for Result<T, rusqlite::Error> {
    fn at(self, path: &Path) -> Result<T, StoreError> {
        self.map_err(|source| {
            LocalError::Index {
                path: path.to_path_buf(),
                source,
            }
            .into()
        })
    }
}

const SCHEMA: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS captures (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime INTEGER NOT NULL,
    name TEXT NOT NULL,
    category TEXT NOT NULL,
    agent TEXT NOT NULL,
    source TEXT NOT NULL,
    session TEXT NOT NULL,
    project TEXT NOT NULL,
    time TEXT NOT NULL,
    completion TEXT NOT NULL,
    description TEXT NOT NULL,
    remote TEXT NOT NULL,
    root_commit TEXT NOT NULL,
    pname TEXT NOT NULL,
    top TEXT NOT NULL,
    package TEXT NOT NULL,
    short TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS captures_time ON captures(time);
CREATE INDEX IF NOT EXISTS captures_remote ON captures(remote);
CREATE INDEX IF NOT EXISTS captures_root_commit ON captures(root_commit);
CREATE INDEX IF NOT EXISTS captures_short ON captures(short);
CREATE TABLE IF NOT EXISTS dirs (
    path TEXT PRIMARY KEY,
    mtime INTEGER NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS captures_fts USING fts5(
    completion, description, body, cjk,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS token_counts (
    encoding TEXT NOT NULL,
    digest BLOB NOT NULL,
    tokens INTEGER NOT NULL,
    PRIMARY KEY (encoding, digest)
) WITHOUT ROWID;
INSERT INTO captures_fts (captures_fts, rank) VALUES ('rank', 'bm25(5.0, 3.0, 1.0, 2.0)');
";

/// Bumped when the schema changes; an index of another version is rebuilt.
const SCHEMA_VERSION: i64 = 5;

/// The index of one memory folder.
pub struct MemoryStore {
    root: PathBuf,
    /// The index file (beside the captures, or elsewhere for a read-only
    /// folder).
    index: PathBuf,
    conn: Connection,
    /// Why the index lives in memory only (nowhere could hold its file).
    in_memory: Option<String>,
}

impl MemoryStore {
    /// Opens the index of `root`, creating it; a corrupt index file is
    /// deleted and created anew (the files are the truth).
    pub fn open(root: &Path) -> Result<Self, StoreError> {
        Self::open_in(root, &root.join(".agentmem"))
    }

    /// [`MemoryStore::open`], and when the memory folder cannot hold its
    /// index (a read-only medium, a folder of someone else's), the index
    /// kept in `fallback` instead (one file per memory folder, named by a
    /// hash of its path): a read-only store still lists and searches.
    pub fn open_or_elsewhere(root: &Path, fallback: &Path) -> Result<Self, StoreError> {
        match Self::open(root) {
            Ok(store) => Ok(store),
            Err(beside) => {
                use sha2::Digest as _;
                let key = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
                let digest = sha2::Sha256::digest(key.to_string_lossy().as_bytes());
                let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
                Self::open_in(root, &fallback.join(name)).map_err(|elsewhere| {
                    LocalError::NoPlaceForIndex {
                        root: root.to_path_buf(),
                        fallback: fallback.to_path_buf(),
                        beside: Box::new(beside),
                        source: Box::new(elsewhere),
                    }
                    .into()
                })
            }
        }
    }

    /// The memory folder this index is of.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the index file is.
    pub fn index_path(&self) -> &Path {
        &self.index
    }

    pub(crate) fn connection(&self) -> &Connection {
        &self.conn
    }

    /// An error of the index file.
    pub(crate) fn index_error(&self, source: rusqlite::Error) -> StoreError {
        LocalError::Index {
            path: self.index.clone(),
            source,
        }
        .into()
    }

    fn open_in(root: &Path, dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).at(dir)?;
        let path = dir.join("index.sqlite");
        match Self::open_at(root, &path) {
            Ok(store) => Ok(store),
            Err(_) => {
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
                }
                Self::open_at(root, &path)
            }
        }
    }

    fn open_at(root: &Path, path: &Path) -> Result<Self, StoreError> {
        let conn = Connection::open(path).at(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .at(path)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .at(path)?;
        if version != SCHEMA_VERSION {
            // Another layout (or a new file): start over; the files are the truth.
            conn.execute_batch("DROP TABLE IF EXISTS captures; DROP TABLE IF EXISTS captures_fts; DROP TABLE IF EXISTS dirs; DROP TABLE IF EXISTS token_counts;")
                .at(path)?;
            conn.execute_batch(SCHEMA).at(path)?;
            conn.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION};"))
                .at(path)?;
        } else {
            conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
                .at(path)?;
        }
        // A file that is not a database fails here, not later.
        conn.query_row("SELECT count(*) FROM captures", [], |r| r.get::<_, i64>(0))
            .at(path)?;
        // A database that cannot be written (read-only file or folder)
        // fails here, not at the first reconcile.
        if conn.is_readonly(rusqlite::MAIN_DB).at(path)? {
            return Err(LocalError::ReadOnly {
                path: path.to_path_buf(),
            }
            .into());
        }
        Ok(Self {
            root: root.to_path_buf(),
            index: path.to_path_buf(),
            conn,
            in_memory: None,
        })
    }

    /// An index of `root` held in memory for this process only: for a
    /// memory folder nothing can be written for (no index beside it, no
    /// writable cache), which is still listed and searched; `why` says so
    /// ([`MemoryStore::in_memory`]). Empty until reconciled.
    ///
    /// # Errors
    /// SQLite cannot open a database in memory.
    pub fn open_in_memory(root: &Path, why: String) -> Result<Self, StoreError> {
        let conn = Connection::open_in_memory().at(root)?;
        conn.execute_batch(SCHEMA).at(root)?;
        Ok(Self {
            root: root.to_path_buf(),
            index: root.join(".agentmem/index.sqlite"),
            conn,
            in_memory: Some(why),
        })
    }

    /// Whether `path` is a file of this memory folder: below it by name
    /// and, where it exists, once links are resolved. What an index row
    /// names is shown or read only then (an index file is data someone
    /// could have written).
    pub fn owns(&self, path: &Path) -> bool {
        if !path.starts_with(&self.root) {
            return false;
        }
        match (
            std::fs::canonicalize(path),
            std::fs::canonicalize(&self.root),
        ) {
            (Ok(file), Ok(root)) => file.starts_with(root),
            // Gone since it was indexed: nothing to read, nothing to leak.
            _ => true,
        }
    }

    /// Why the index is held in memory only, when it is.
    pub fn in_memory(&self) -> Option<&str> {
        self.in_memory.as_deref()
    }

    /// Brings the index in line with the folder: new, changed and deleted
    /// files. Up to [`FULL_CHECK_LIMIT`] captures, every file's size and
    /// mtime is compared; above it, only directories whose mtime changed are
    /// rescanned file by file (adding, removing or renaming a file changes
    /// its directory's mtime; an edit in place that keeps the directory's
    /// mtime is picked up by [`MemoryStore::rebuild`] or the next change in
    /// that directory).
    pub fn reconcile(&mut self) -> Result<Reconciled, StoreError> {
        let count: i64 = self
            .conn
            .query_row("SELECT count(*) FROM captures", [], |r| r.get(0))
            .at(&self.root)?;
        if usize::try_from(count).unwrap_or(usize::MAX) <= FULL_CHECK_LIMIT {
            self.reconcile_dirs(true)
        } else {
            self.reconcile_dirs(false)
        }
    }

    /// The directory-level reconcile that [`MemoryStore::reconcile`] uses
    /// above [`FULL_CHECK_LIMIT`] captures, whatever their number.
    pub fn reconcile_by_directory(&mut self) -> Result<Reconciled, StoreError> {
        self.reconcile_dirs(false)
    }

    fn reconcile_dirs(&mut self, every_file: bool) -> Result<Reconciled, StoreError> {
        let stored: BTreeMap<String, i64> = {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT path, mtime FROM dirs")
                .at(&self.root)?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
                .at(&self.root)?;
            rows.collect::<Result<_, _>>().at(&self.root)?
        };
        let mut report = Reconciled::default();
        // Immediate: the write lock is taken first, waiting up to the busy
        // timeout; a deferred transaction that upgrades later gets BUSY at
        // once when another process reconciles at the same time.
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .at(&self.root)?;
        let mut seen_dirs: Vec<String> = Vec::new();
        let mut stack = vec![self.root.clone()];
        while let Some(dir) = stack.pop() {
            let key = dir.display().to_string();
            let Ok(meta) = std::fs::metadata(&dir) else {
                continue;
            };
            let mtime = mtime_of(&meta);
            seen_dirs.push(key.clone());
            let unchanged = stored.get(&key) == Some(&mtime);
            if unchanged && !every_file {
                // Same entries as last time: visit the subdirectories known then.
                let prefix = format!("{key}/");
                stack.extend(
                    stored
                        .range(prefix.clone()..)
                        .take_while(|(p, _)| p.starts_with(&prefix))
                        .filter(|(p, _)| !p[prefix.len()..].contains('/'))
                        .map(|(p, _)| PathBuf::from(p)),
                );
                continue;
            }
            let (files, subdirs) = scan_dir(&dir);
            stack.extend(subdirs);
            sync_dir(&tx, &key, &files, &mut report).at(&dir)?;
            tx.execute(
                "INSERT OR REPLACE INTO dirs (path, mtime) VALUES (?1, ?2)",
                params![key, mtime],
            )
            .at(&dir)?;
        }
        // Directories that are gone take their captures with them.
        let seen: std::collections::BTreeSet<&String> = seen_dirs.iter().collect();
        for gone in stored.keys().filter(|d| !seen.contains(d)) {
            let ids: Vec<i64> = {
                let mut stmt = tx
                    .prepare_cached("SELECT id FROM captures WHERE path >= ?1 AND path < ?2")
                    .at(&self.root)?;
                let rows = stmt
                    .query_map(params![format!("{gone}/"), format!("{gone}0")], |r| {
                        r.get(0)
                    })
                    .at(&self.root)?;
                rows.collect::<Result<_, _>>().at(&self.root)?
            };
            for id in ids {
                delete(&tx, id).at(&self.root)?;
                report.removed += 1;
            }
            tx.execute("DELETE FROM dirs WHERE path = ?1", [gone])
                .at(&self.root)?;
        }
        // Rows for files outside the folder were never written by a
        // reconcile of it: an index someone else wrote. They go.
        let root = format!("{}/", self.root.display());
        let strays: Vec<i64> = {
            let mut stmt = tx
                .prepare("SELECT id FROM captures WHERE substr(path, 1, length(?1)) != ?1")
                .at(&self.root)?;
            let rows = stmt
                .query_map([&root], |r| r.get::<_, i64>(0))
                .at(&self.root)?;
            rows.collect::<Result<_, _>>().at(&self.root)?
        };
        for id in strays {
            delete(&tx, id).at(&self.root)?;
            report.removed += 1;
        }
        tx.commit().at(&self.root)?;
        Ok(report)
    }

    /// Drops every row and indexes the folder from scratch.
    pub fn rebuild(&mut self) -> Result<Reconciled, StoreError> {
        self.conn
            .execute_batch("DELETE FROM captures; DELETE FROM captures_fts; DELETE FROM dirs;")
            .at(&self.root)?;
        self.reconcile_dirs(true)
    }

    /// Indexes one file just written (a capture), replacing any old row.
    pub fn index_file(&mut self, path: &Path) -> Result<(), StoreError> {
        let meta = std::fs::metadata(path).at(path)?;
        let capture =
            crate::parse::parse_capture(path).map_err(|source| StoreError::Unparsable {
                path: path.to_path_buf(),
                source,
            })?;
        let key = path.display().to_string();
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .at(path)?;
        if let Some(id) = tx
            .query_row("SELECT id FROM captures WHERE path = ?1", [&key], |r| {
                r.get::<_, i64>(0)
            })
            .optional()
            .at(path)?
        {
            delete(&tx, id).at(path)?;
        }
        insert(&tx, &key, meta.len(), mtime_of(&meta), &capture).at(path)?;
        tx.commit().at(path)
    }

    /// Captures matching `filter`, newest first.
    pub fn list(&self, filter: &Filter) -> Result<Vec<CaptureRecord>, StoreError> {
        let (clause, values) = where_clause(filter, 0);
        let limit = if filter.limit == 0 {
            -1
        } else {
            i64::try_from(filter.limit).unwrap_or(-1)
        };
        let sql = format!(
            "SELECT {RECORD_COLUMNS} FROM captures c WHERE {clause} ORDER BY c.time DESC, c.name DESC LIMIT {limit}"
        );
        let mut stmt = self.conn.prepare(&sql).at(&self.root)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(values.iter()), record_from_row)
            .at(&self.root)?;
        rows.collect::<Result<_, _>>().at(&self.root)
    }

    /// Ranked matches for `query` (docs/agentmem.md: words, "phrases",
    /// prefix*, category:X, agent:X, source:X).
    pub fn search(&self, query: &str, filter: &Filter) -> Result<Vec<SearchHit>, StoreError> {
        let (parsed, filter) = crate::store::query::parse_with_filter(query, filter)?;
        let (clause, mut values) = where_clause(&filter, 1);
        let limit = if filter.limit == 0 { 50 } else { filter.limit };
        let Some(fts) = parsed.fts else {
            return Ok(self
                .list(&Filter { limit, ..filter })?
                .into_iter()
                .map(|record| SearchHit {
                    record,
                    snippet: String::new(),
                    score: 0.0,
                })
                .collect());
        };
        values.insert(0, fts);
        // FTS5 orders by its configured rank (bm25 weighted 5/3/1 for
        // completion, description, body) inside the full-text table; the
        // join with the metadata is made for the top rows only, unless a
        // filter needs it first.
        let sql = if clause == "1 = 1" {
            format!(
                "WITH top AS (SELECT rowid AS id, rank AS score FROM captures_fts WHERE captures_fts MATCH ?1 ORDER BY rank LIMIT {limit})
                 SELECT {RECORD_COLUMNS}, top.score FROM top JOIN captures c ON c.id = top.id ORDER BY top.score, c.time DESC"
            )
        } else {
            format!(
                "SELECT {RECORD_COLUMNS}, f.rank AS score FROM captures_fts f JOIN captures c ON c.id = f.rowid
                 WHERE captures_fts MATCH ?1 AND {clause} ORDER BY f.rank, c.time DESC LIMIT {limit}"
            )
        };
        let mut stmt = self.conn.prepare(&sql).map_err(rejected_query)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(values.iter()), |r| {
                Ok((record_from_row(r)?, r.get::<_, f64>(RECORD_COLUMN_COUNT)?))
            })
            .map_err(rejected_query)?;
        let found = rows
            .collect::<Result<Vec<_>, _>>()
            .map_err(rejected_query)?;
        // The index keeps no copy of the text (it would double its size):
        // snippets come from the files of the hits.
        Ok(found
            .into_iter()
            .map(|(record, score)| {
                let snippet = crate::parse::parse_capture(&record.path)
                    .map(|c| crate::store::query::snippet(&c.body, &parsed.terms))
                    .unwrap_or_default();
                SearchHit {
                    record,
                    snippet,
                    score,
                }
            })
            .collect())
    }

    /// How many captures `query` (empty: every capture) and `filter` match,
    /// whatever `filter.limit` says: the total a listing is part of.
    pub fn count(&self, query: &str, filter: &Filter) -> Result<u64, StoreError> {
        let (parsed, filter) = crate::store::query::parse_with_filter(query, filter)?;
        let (sql, values) = match parsed.fts {
            None => {
                let (clause, values) = where_clause(&filter, 0);
                (
                    format!("SELECT count(*) FROM captures c WHERE {clause}"),
                    values,
                )
            }
            Some(fts) => {
                let (clause, mut values) = where_clause(&filter, 1);
                values.insert(0, fts);
                (
                    format!(
                        "SELECT count(*) FROM captures_fts f JOIN captures c ON c.id = f.rowid WHERE captures_fts MATCH ?1 AND {clause}"
                    ),
                    values,
                )
            }
        };
        self.conn
            .query_row(&sql, rusqlite::params_from_iter(values.iter()), |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(rejected_query)
    }

    /// The capture named by `id_or_path`: a path, a file name without
    /// `.md`, or a unique prefix of one.
    pub fn find(&self, id_or_path: &str) -> Result<CaptureRecord, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT {RECORD_COLUMNS} FROM captures c WHERE c.path = ?1 OR c.name = ?1 OR c.short = ?1 OR c.name LIKE ?2 ESCAPE '\\' ORDER BY c.name LIMIT 2"))
            .at(&self.root)?;
        let escaped = id_or_path
            .trim_end_matches(".md")
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        let found: Vec<CaptureRecord> = stmt
            .query_map(params![id_or_path, format!("{escaped}%")], record_from_row)
            .at(&self.root)?
            .collect::<Result<Vec<_>, _>>()
            .at(&self.root)?
            .into_iter()
            .filter(|r| self.owns(&r.path))
            .collect();
        match found.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(StoreError::NotFound {
                id: id_or_path.to_owned(),
            }),
            more => Err(StoreError::Ambiguous {
                id: id_or_path.to_owned(),
                matches: more.iter().map(|r| r.id.clone()).collect(),
            }),
        }
    }

    /// Counts per category, agent and month, and sizes.
    pub fn stats(&self) -> Result<MemoryStats, StoreError> {
        let mut stats = MemoryStats::default();
        let mut stmt = self
            .conn
            .prepare("SELECT category, agent, substr(time, 1, 7), size FROM captures")
            .at(&self.root)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            })
            .at(&self.root)?;
        for row in rows {
            let (category, agent, month, size) = row.at(&self.root)?;
            stats.total += 1;
            *stats.by_category.entry(category).or_default() += 1;
            *stats.by_agent.entry(agent).or_default() += 1;
            *stats.by_month.entry(month).or_default() += 1;
            stats.captures_bytes += u64::try_from(size).unwrap_or(0);
        }
        stats.index_bytes = ["", "-wal"]
            .iter()
            .filter_map(|suffix| {
                std::fs::metadata(format!("{}{suffix}", self.index.display())).ok()
            })
            .map(|m| m.len())
            .sum();
        Ok(stats)
    }
}

/// Up to this many captures, every read checks every file.
pub const FULL_CHECK_LIMIT: usize = 2_000;

/// The `*.md` files (with size and mtime) and subdirectories of one
/// directory; `.agentmem` is skipped.
fn scan_dir(dir: &Path) -> (BTreeMap<String, (u64, i64)>, Vec<PathBuf>) {
    let mut files = BTreeMap::new();
    let mut subdirs = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (files, subdirs);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if entry.file_name() != ".agentmem" {
                subdirs.push(path);
            }
        } else if path.extension().is_some_and(|e| e == "md")
            && let Ok(meta) = entry.metadata()
        {
            files.insert(path.display().to_string(), (meta.len(), mtime_of(&meta)));
        }
    }
    (files, subdirs)
}

/// Makes the rows of the captures directly in `dir` match `files`.
fn sync_dir(
    tx: &rusqlite::Transaction<'_>,
    dir: &str,
    files: &BTreeMap<String, (u64, i64)>,
    report: &mut Reconciled,
) -> rusqlite::Result<()> {
    let prefix = format!("{dir}/");
    let known: BTreeMap<String, (i64, u64, i64)> = {
        let mut stmt = tx.prepare_cached(
            "SELECT id, path, size, mtime FROM captures WHERE path >= ?1 AND path < ?2",
        )?;
        let rows = stmt.query_map(params![prefix, format!("{dir}0")], |r| {
            Ok((
                r.get::<_, String>(1)?,
                (
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(2)? as u64,
                    r.get::<_, i64>(3)?,
                ),
            ))
        })?;
        rows.filter(|row| {
            row.as_ref()
                .map_or(true, |(p, _)| !p[prefix.len()..].contains('/'))
        })
        .collect::<rusqlite::Result<_>>()?
    };
    for (path, (id, _, _)) in &known {
        if !files.contains_key(path) {
            delete(tx, *id)?;
            report.removed += 1;
        }
    }
    for (path, (size, mtime)) in files {
        let existing = known.get(path);
        if existing.is_some_and(|(_, s, m)| s == size && m == mtime) {
            continue;
        }
        if let Some((id, _, _)) = existing {
            delete(tx, *id)?;
        }
        match crate::parse::parse_capture(Path::new(path)) {
            Ok(capture) => {
                insert(tx, path, *size, *mtime, &capture)?;
                if existing.is_some() {
                    report.updated += 1;
                } else {
                    report.added += 1;
                }
            }
            Err(reason) => report
                .unparsable
                .push((PathBuf::from(path), reason.to_string())),
        }
    }
    Ok(())
}

pub(crate) const RECORD_COLUMNS: &str = "c.name, c.path, c.category, c.agent, c.source, c.session, c.project, c.time, c.completion, c.description, c.remote, c.root_commit, c.pname, c.top, c.package";
/// How many columns [`RECORD_COLUMNS`] has (a query's own come after).
pub(crate) const RECORD_COLUMN_COUNT: usize = 15;

pub(crate) fn record_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<CaptureRecord> {
    Ok(CaptureRecord {
        id: r.get(0)?,
        path: PathBuf::from(r.get::<_, String>(1)?),
        category: r.get(2)?,
        agent: r.get(3)?,
        source: r.get(4)?,
        session: r.get(5)?,
        project: r.get(6)?,
        time: r.get(7)?,
        completion: r.get(8)?,
        description: r.get(9)?,
        identity: agentctx_types::ProjectIdentity {
            remote: r.get(10)?,
            root_commit: r.get(11)?,
            name: r.get(12)?,
            top: PathBuf::from(r.get::<_, String>(13)?),
            package: r.get(14)?,
        },
    })
}

fn delete(tx: &rusqlite::Transaction<'_>, id: i64) -> rusqlite::Result<()> {
    tx.execute("DELETE FROM captures WHERE id = ?1", [id])?;
    tx.execute("DELETE FROM captures_fts WHERE rowid = ?1", [id])?;
    Ok(())
}

fn insert(
    tx: &rusqlite::Transaction<'_>,
    path: &str,
    size: u64,
    mtime: i64,
    c: &crate::parse::ParsedCapture,
) -> rusqlite::Result<()> {
    let r = &c.record;
    tx.execute(
        "INSERT INTO captures (path, size, mtime, name, category, agent, source, session, project, time, completion, description, remote, root_commit, pname, top, package, short)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
        params![
            path,
            i64::try_from(size).unwrap_or(i64::MAX),
            mtime,
            r.id,
            r.category,
            r.agent,
            r.source,
            r.session,
            r.project,
            r.time,
            r.completion,
            r.description,
            r.identity.remote,
            r.identity.root_commit,
            r.identity.name,
            r.identity.top.to_string_lossy(),
            r.identity.package,
            short_id(&r.id)
        ],
    )?;
    let id = tx.last_insert_rowid();
    tx.execute(
        "INSERT INTO captures_fts (rowid, completion, description, body, cjk) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            id,
            r.completion,
            r.description,
            c.body,
            crate::cjk::index_text(&format!("{}\n{}\n{}", r.completion, r.description, c.body))
        ],
    )?;
    Ok(())
}

fn mtime_of(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_nanos() / 1000).ok())
        .unwrap_or(0)
}

impl CaptureStore for MemoryStore {
    fn describe(&self) -> String {
        self.root().display().to_string()
    }
    fn list(&mut self, filter: &Filter) -> Result<Vec<CaptureRecord>, StoreError> {
        MemoryStore::list(self, filter)
    }
    fn search(&mut self, query: &str, filter: &Filter) -> Result<Vec<SearchHit>, StoreError> {
        MemoryStore::search(self, query, filter)
    }
    fn count(&mut self, query: &str, filter: &Filter) -> Result<u64, StoreError> {
        MemoryStore::count(self, query, filter)
    }
    fn find(&mut self, id: &str) -> Result<CaptureRecord, StoreError> {
        MemoryStore::find(self, id)
    }
    fn document(&mut self, record: &CaptureRecord) -> Result<String, StoreError> {
        // An index row names a file someone could have chosen: only the
        // folder's own files are read.
        if !self.owns(&record.path) {
            return Err(StoreError::NotFound {
                id: record.id.clone(),
            });
        }
        std::fs::read_to_string(&record.path).map_err(|source| StoreError::Io {
            path: record.path.clone(),
            source,
        })
    }
    fn stats(&mut self) -> Result<MemoryStats, StoreError> {
        MemoryStore::stats(self)
    }
    fn most_useful(
        &mut self,
        filter: &Filter,
        today: jiff::civil::Date,
        limit: usize,
    ) -> Result<Vec<(CaptureRecord, String)>, StoreError> {
        crate::recall::most_useful_local(self, filter, today, limit)
    }
    fn token_count(&mut self, text: &str, counter: &dyn TokenCounter) -> Result<usize, StoreError> {
        self.cached_count(text, counter)
    }
}
