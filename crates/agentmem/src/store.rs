//! The memory store: the Markdown files stay the truth; a SQLite FTS5 index
//! beside them (`<root>/.agentmem/index.sqlite`) is rebuilt from them
//! whenever it is missing, corrupt or out of date.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use agentctx_types::{CaptureRecord, MemoryStats, SearchHit};
use rusqlite::{Connection, OptionalExtension, params};

/// Filters shared by list, search and context.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Any of these categories (case-insensitive); empty: all.
    pub categories: Vec<String>,
    /// This agent type.
    pub agent: Option<String>,
    /// This source.
    pub source: Option<String>,
    /// Captures whose cwd is this directory or below it.
    pub project: Option<String>,
    /// On or after this date or time (`2026-01-25`, `2026-01-25 09:00`).
    pub since: Option<String>,
    /// Before the end of this date or time.
    pub until: Option<String>,
    /// At most this many (0: no limit).
    pub limit: usize,
    /// Captures of one project only (recall).
    pub scope: Option<Scope>,
}

/// The captures one project's sessions see (docs/agentmem.md, "Project
/// identity"): a capture whose remote or name is one of `keys`, or whose
/// root commit is, unless its remote and the session's `remote` are both
/// known (two repositories started from one template, or a fork someone
/// else pushes, share a root commit and nothing else); one made at or
/// below one of `folders`; one without any key (outside git, or written
/// before identities) made at or below `top`, when `by_folder`. Of those,
/// the ones whose package is `package`, above it or below it (a monorepo
/// package sees its own captures and the root's, not its siblings').
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// Keys any of which makes a capture this project's.
    pub keys: Vec<String>,
    /// The session's own remote (empty: none).
    pub remote: String,
    /// Key-less captures below `top` count (off where `top` is the home
    /// folder or `/`: that would be every folder's).
    pub by_folder: bool,
    /// Folders whose captures are this project's whatever their keys.
    pub folders: Vec<PathBuf>,
    /// The session's working tree top.
    pub top: PathBuf,
    /// The session's package (`/`-separated, relative to `top`; empty at
    /// the top).
    pub package: String,
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

/// What can go wrong with the store. A missing or corrupt index is never
/// one of them: it is rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file or folder of the store cannot be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
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
    /// A capture file that does not parse.
    #[error("{}: {source}", .path.display())]
    Unparsable {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: crate::parse::ParseError,
    },
    /// A search query the index cannot parse.
    #[error("invalid search query: {message}")]
    Query {
        /// What is wrong, in the user's terms.
        message: String,
        /// SQLite's error, when the full-text engine rejected it.
        source: Option<rusqlite::Error>,
    },
    /// A token count for `mem context` failed.
    #[error("counting tokens: {source}")]
    Count {
        /// The tokenizer's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The shared PostgreSQL store failed (unreachable, not migrated, a
    /// statement failed).
    #[cfg(feature = "postgres")]
    #[error(transparent)]
    Shared(Box<crate::pg::PgError>),
    /// `mem show`: no capture has this path, name or prefix.
    #[error("no capture matches {id:?}")]
    NotFound {
        /// What was asked for.
        id: String,
    },
    /// `mem show`: more than one capture starts with this prefix.
    #[error("{id:?} matches more than one capture ({}, ...); give more of the name", .matches.join(", "))]
    Ambiguous {
        /// What was asked for.
        id: String,
        /// The first names that match.
        matches: Vec<String>,
    },
}

impl StoreError {
    /// A query the full-text engine rejected.
    fn query(source: rusqlite::Error) -> Self {
        Self::Query {
            message: source.to_string().replace("fts5: ", ""),
            source: Some(source),
        }
    }
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
        self.map_err(|source| StoreError::Index {
            path: path.to_path_buf(),
            source,
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

/// The full-text column that holds the CJK bigrams of a capture's
/// completion, description and body (`cjk.rs`).
pub(crate) const CJK_COLUMN: &str = "cjk";

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
                    StoreError::NoPlaceForIndex {
                        root: root.to_path_buf(),
                        fallback: fallback.to_path_buf(),
                        beside: Box::new(beside),
                        source: Box::new(elsewhere),
                    }
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
        StoreError::Index {
            path: self.index.clone(),
            source,
        }
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
            return Err(StoreError::ReadOnly {
                path: path.to_path_buf(),
            });
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
        let (parsed, filter) = crate::query::parse_with_filter(query, filter)?;
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
        let mut stmt = self.conn.prepare(&sql).map_err(StoreError::query)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(values.iter()), |r| {
                Ok((record_from_row(r)?, r.get::<_, f64>(RECORD_COLUMN_COUNT)?))
            })
            .map_err(StoreError::query)?;
        let found = rows
            .collect::<Result<Vec<_>, _>>()
            .map_err(StoreError::query)?;
        // The index keeps no copy of the text (it would double its size):
        // snippets come from the files of the hits.
        Ok(found
            .into_iter()
            .map(|(record, score)| {
                let snippet = crate::parse::parse_capture(&record.path)
                    .map(|c| crate::query::snippet(&c.body, &parsed.terms))
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
        let (parsed, filter) = crate::query::parse_with_filter(query, filter)?;
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
            .map_err(StoreError::query)
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

/// The short id the recall index shows for a capture (`mem show` takes
/// it): 10 hex digits of its name's SHA-256, stable for the file's life.
pub fn short_id(name: &str) -> String {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(name.as_bytes());
    digest[..5].iter().map(|b| format!("{b:02x}")).collect()
}

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

/// The filter as SQL; its parameters are numbered after the first
/// `offset` ones (a search binds its query as ?1).
pub(crate) fn where_clause(filter: &Filter, offset: usize) -> (String, Vec<String>) {
    let mut parts = vec!["1 = 1".to_owned()];
    let mut values = Vec::new();
    let next = |values: &mut Vec<String>, value: String| {
        values.push(value);
        format!("?{}", values.len() + offset)
    };
    if !filter.categories.is_empty() {
        let slots: Vec<String> = filter
            .categories
            .iter()
            .map(|c| next(&mut values, c.to_ascii_uppercase()))
            .collect();
        parts.push(format!("c.category IN ({})", slots.join(", ")));
    }
    if let Some(agent) = &filter.agent {
        parts.push(format!(
            "lower(c.agent) = lower({})",
            next(&mut values, agent.clone())
        ));
    }
    if let Some(source) = &filter.source {
        parts.push(format!("c.source = {}", next(&mut values, source.clone())));
    }
    if let Some(project) = &filter.project {
        let project = project.trim_end_matches('/').to_owned();
        let a = next(&mut values, project.clone());
        let b = next(&mut values, format!("{project}/%"));
        parts.push(format!("(c.project = {a} OR c.project LIKE {b})"));
    }
    if let Some(scope) = &filter.scope {
        parts.push(scope_clause(scope, &mut |v| next(&mut values, v)));
    }
    if let Some(since) = &filter.since {
        parts.push(format!(
            "c.time >= {}",
            next(&mut values, since.replace('T', " "))
        ));
    }
    if let Some(until) = &filter.until {
        // The whole last day or minute counts: compare with its end.
        parts.push(format!(
            "c.time <= {}",
            next(
                &mut values,
                format!("{}\u{10ffff}", until.replace('T', " "))
            )
        ));
    }
    (parts.join(" AND "), values)
}

/// [`Scope`] as SQL, binding its values through `bind`.
fn scope_clause(scope: &Scope, bind: &mut dyn FnMut(String) -> String) -> String {
    let mut owner = Vec::new();
    if !scope.keys.is_empty() {
        let slots: Vec<String> = scope.keys.iter().map(|k| bind(k.clone())).collect();
        let list = slots.join(", ");
        let remote = bind(scope.remote.clone());
        owner.push(format!(
            "c.remote IN ({list}) OR c.pname IN ({list}) OR (c.root_commit IN ({list}) AND (c.remote = '' OR {remote} = ''))"
        ));
    }
    // `x` at or below folder `f`: equal, or between `f/` and `f0` (`0`
    // follows `/`), which in a bytewise order is exactly the strings `f/`
    // starts (no LIKE, so `%` and `_` in paths mean themselves). A range
    // is what an index on the column serves (the shared store's `top` is
    // collated "C", bytewise, as SQLite's BINARY is).
    let below = |column: &str, folder: String, bind: &mut dyn FnMut(String) -> String| {
        let folder = folder.trim_end_matches('/').to_owned();
        let slash = bind(format!("{folder}/"));
        let after = bind(format!("{folder}0"));
        let exact = bind(folder);
        format!("({column} = {exact} OR ({column} >= {slash} AND {column} < {after}))")
    };
    for folder in &scope.folders {
        owner.push(below("c.top", folder.to_string_lossy().into_owned(), bind));
    }
    if scope.by_folder {
        let top = below("c.top", scope.top.to_string_lossy().into_owned(), bind);
        owner.push(format!(
            "(c.remote = '' AND c.root_commit = '' AND c.pname = '' AND {top})"
        ));
    }
    if owner.is_empty() {
        owner.push("0 = 1".to_owned());
    }
    let package = if scope.package.is_empty() {
        "1 = 1".to_owned()
    } else {
        let p = bind(scope.package.clone());
        format!(
            "(c.package = '' OR c.package = {p} OR substr({p} || '/', 1, length(c.package) + 1) = c.package || '/' OR substr(c.package, 1, length({p}) + 1) = {p} || '/')"
        )
    };
    format!("(({}) AND {package})", owner.join(" OR "))
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
