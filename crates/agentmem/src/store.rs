//! The memory store: the Markdown files stay the truth; a SQLite FTS5 index
//! beside them (`<root>/.agentmem/index.sqlite`) is rebuilt from them
//! whenever it is missing, corrupt or out of date.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

/// A capture as the index knows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    /// The file name without `.md`.
    pub id: String,
    /// The file.
    pub path: PathBuf,
    /// `RESEARCH`, `DECISION`, ...
    pub category: String,
    /// The agent type (`executor`).
    pub agent: String,
    /// `claude-hook`, `codex-notify`, `codex-hook`, or empty.
    pub source: String,
    /// The session id, or empty.
    pub session: String,
    /// The capture's cwd, or empty.
    pub project: String,
    /// `YYYY-MM-DD HH:MM:SS` local time (from the file name when it has one).
    pub time: String,
    /// The completion message.
    pub completion: String,
    /// The description, or empty.
    pub description: String,
}

/// A search hit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hit {
    /// The capture.
    #[serde(flatten)]
    pub record: Record,
    /// A short excerpt with matches in `[brackets]`.
    pub snippet: String,
    /// bm25 score (lower is better).
    pub score: f64,
}

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

/// Counts for `mem stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Captures indexed.
    pub total: u64,
    /// Per category.
    pub by_category: BTreeMap<String, u64>,
    /// Per agent type.
    pub by_agent: BTreeMap<String, u64>,
    /// Per month (`YYYY-MM`).
    pub by_month: BTreeMap<String, u64>,
    /// Bytes of the index file.
    pub index_bytes: u64,
    /// Bytes of the capture files.
    pub captures_bytes: u64,
}

/// What can go wrong with the store. A missing or corrupt index is never
/// one of them: it is rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The memory folder or the index cannot be used.
    #[error("{}: {message}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A search query the index cannot parse.
    #[error("invalid search query: {0}")]
    Query(String),
    /// `mem show` found nothing, or more than one capture.
    #[error("{0}")]
    NotFound(String),
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
    description TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS captures_time ON captures(time);
CREATE VIRTUAL TABLE IF NOT EXISTS captures_fts USING fts5(
    completion, description, body,
    tokenize = 'unicode61 remove_diacritics 2'
);
";

/// The index of one memory folder.
pub struct MemoryStore {
    root: PathBuf,
    conn: Connection,
}

fn io_error(path: &Path, error: impl std::fmt::Display) -> StoreError {
    StoreError::Io {
        path: path.to_path_buf(),
        message: error.to_string(),
    }
}

impl MemoryStore {
    /// Opens the index of `root`, creating it; a corrupt index file is
    /// deleted and created anew (the files are the truth).
    pub fn open(root: &Path) -> Result<Self, StoreError> {
        let dir = root.join(".agentmem");
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
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
        let conn = Connection::open(path).map_err(|e| io_error(path, e))?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(|e| io_error(path, e))?;
        conn.execute_batch(SCHEMA).map_err(|e| io_error(path, e))?;
        // A file that is not a database fails here, not later.
        conn.query_row("SELECT count(*) FROM captures", [], |r| r.get::<_, i64>(0))
            .map_err(|e| io_error(path, e))?;
        Ok(Self {
            root: root.to_path_buf(),
            conn,
        })
    }

    /// Brings the index in line with the folder: new, changed and deleted
    /// files, by path, size and mtime.
    pub fn reconcile(&mut self) -> Result<Reconciled, StoreError> {
        let mut on_disk: BTreeMap<String, (u64, i64)> = BTreeMap::new();
        collect_captures(&self.root, &mut on_disk);
        let mut known: BTreeMap<String, (i64, u64, i64)> = BTreeMap::new();
        {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT id, path, size, mtime FROM captures")
                .map_err(|e| io_error(&self.root, e))?;
            let rows = stmt
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>(1)?,
                        (
                            r.get::<_, i64>(0)?,
                            r.get::<_, i64>(2)? as u64,
                            r.get::<_, i64>(3)?,
                        ),
                    ))
                })
                .map_err(|e| io_error(&self.root, e))?;
            for row in rows.flatten() {
                known.insert(row.0, row.1);
            }
        }
        let mut report = Reconciled::default();
        let tx = self
            .conn
            .transaction()
            .map_err(|e| io_error(&self.root, e))?;
        for (path, (id, _, _)) in &known {
            if !on_disk.contains_key(path) {
                delete(&tx, *id).map_err(|e| io_error(&self.root, e))?;
                report.removed += 1;
            }
        }
        for (path, (size, mtime)) in &on_disk {
            let existing = known.get(path);
            if existing.is_some_and(|(_, s, m)| s == size && m == mtime) {
                continue;
            }
            if let Some((id, _, _)) = existing {
                delete(&tx, *id).map_err(|e| io_error(&self.root, e))?;
            }
            match crate::parse::parse_capture(Path::new(path)) {
                Ok(capture) => {
                    insert(&tx, path, *size, *mtime, &capture)
                        .map_err(|e| io_error(&self.root, e))?;
                    if existing.is_some() {
                        report.updated += 1;
                    } else {
                        report.added += 1;
                    }
                }
                Err(reason) => report.unparsable.push((PathBuf::from(path), reason)),
            }
        }
        tx.commit().map_err(|e| io_error(&self.root, e))?;
        Ok(report)
    }

    /// Drops every row and indexes the folder from scratch.
    pub fn rebuild(&mut self) -> Result<Reconciled, StoreError> {
        self.conn
            .execute_batch("DELETE FROM captures; DELETE FROM captures_fts;")
            .map_err(|e| io_error(&self.root, e))?;
        self.reconcile()
    }

    /// Indexes one file just written (a capture), replacing any old row.
    pub fn index_file(&mut self, path: &Path) -> Result<(), StoreError> {
        let meta = std::fs::metadata(path).map_err(|e| io_error(path, e))?;
        let capture = crate::parse::parse_capture(path).map_err(|e| io_error(path, e))?;
        let key = path.display().to_string();
        let tx = self.conn.transaction().map_err(|e| io_error(path, e))?;
        if let Some(id) = tx
            .query_row("SELECT id FROM captures WHERE path = ?1", [&key], |r| {
                r.get::<_, i64>(0)
            })
            .optional()
            .map_err(|e| io_error(path, e))?
        {
            delete(&tx, id).map_err(|e| io_error(path, e))?;
        }
        insert(&tx, &key, meta.len(), mtime_of(&meta), &capture).map_err(|e| io_error(path, e))?;
        tx.commit().map_err(|e| io_error(path, e))
    }

    /// Captures matching `filter`, newest first.
    pub fn list(&self, filter: &Filter) -> Result<Vec<Record>, StoreError> {
        let (clause, values) = where_clause(filter, 0);
        let limit = if filter.limit == 0 {
            -1
        } else {
            i64::try_from(filter.limit).unwrap_or(-1)
        };
        let sql = format!(
            "SELECT {RECORD_COLUMNS} FROM captures c WHERE {clause} ORDER BY c.time DESC, c.name DESC LIMIT {limit}"
        );
        let mut stmt = self
            .conn
            .prepare(&sql)
            .map_err(|e| io_error(&self.root, e))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(values.iter()), record_from_row)
            .map_err(|e| io_error(&self.root, e))?;
        Ok(rows.flatten().collect())
    }

    /// Ranked matches for `query` (docs/agentmem.md: words, "phrases",
    /// prefix*, category:X, agent:X, source:X).
    pub fn search(&self, query: &str, filter: &Filter) -> Result<Vec<Hit>, StoreError> {
        let parsed = crate::query::parse_query(query)?;
        let mut filter = filter.clone();
        filter.categories.extend(parsed.categories);
        filter.agent = filter.agent.or(parsed.agent);
        filter.source = filter.source.or(parsed.source);
        let (clause, mut values) = where_clause(&filter, 1);
        let limit = if filter.limit == 0 { 50 } else { filter.limit };
        let Some(fts) = parsed.fts else {
            return Ok(self
                .list(&Filter { limit, ..filter })?
                .into_iter()
                .map(|record| Hit {
                    record,
                    snippet: String::new(),
                    score: 0.0,
                })
                .collect());
        };
        values.insert(0, fts);
        let sql = format!(
            "SELECT {RECORD_COLUMNS}, snippet(captures_fts, 2, '[', ']', '…', 12), bm25(captures_fts, 5.0, 3.0, 1.0) AS score
             FROM captures_fts f JOIN captures c ON c.id = f.rowid
             WHERE captures_fts MATCH ?1 AND {clause}
             ORDER BY score, c.time DESC LIMIT {limit}"
        );
        let mut stmt = self
            .conn
            .prepare(&sql)
            .map_err(|e| StoreError::Query(e.to_string()))?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(values.iter()), |r| {
                Ok(Hit {
                    record: record_from_row(r)?,
                    snippet: r.get(10)?,
                    score: r.get(11)?,
                })
            })
            .map_err(|e| StoreError::Query(e.to_string()))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| StoreError::Query(e.to_string().replace("fts5: ", "")))
    }

    /// The capture named by `id_or_path`: a path, a file name without
    /// `.md`, or a unique prefix of one.
    pub fn find(&self, id_or_path: &str) -> Result<Record, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT {RECORD_COLUMNS} FROM captures c WHERE c.path = ?1 OR c.name = ?1 OR c.name LIKE ?2 ESCAPE '\\' ORDER BY c.name LIMIT 2"))
            .map_err(|e| io_error(&self.root, e))?;
        let escaped = id_or_path
            .trim_end_matches(".md")
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        let found: Vec<Record> = stmt
            .query_map(params![id_or_path, format!("{escaped}%")], record_from_row)
            .map_err(|e| io_error(&self.root, e))?
            .flatten()
            .collect();
        match found.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(StoreError::NotFound(format!(
                "no capture matches {id_or_path:?}"
            ))),
            _ => Err(StoreError::NotFound(format!(
                "{id_or_path:?} matches more than one capture; give more of the name"
            ))),
        }
    }

    /// Counts per category, agent and month, and sizes.
    pub fn stats(&self) -> Result<Stats, StoreError> {
        let mut stats = Stats::default();
        let mut stmt = self
            .conn
            .prepare("SELECT category, agent, substr(time, 1, 7), size FROM captures")
            .map_err(|e| io_error(&self.root, e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            })
            .map_err(|e| io_error(&self.root, e))?;
        for (category, agent, month, size) in rows.flatten() {
            stats.total += 1;
            *stats.by_category.entry(category).or_default() += 1;
            *stats.by_agent.entry(agent).or_default() += 1;
            *stats.by_month.entry(month).or_default() += 1;
            stats.captures_bytes += u64::try_from(size).unwrap_or(0);
        }
        let dir = self.root.join(".agentmem");
        stats.index_bytes = ["index.sqlite", "index.sqlite-wal"]
            .iter()
            .filter_map(|f| std::fs::metadata(dir.join(f)).ok())
            .map(|m| m.len())
            .sum();
        Ok(stats)
    }
}

const RECORD_COLUMNS: &str = "c.name, c.path, c.category, c.agent, c.source, c.session, c.project, c.time, c.completion, c.description";

fn record_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Record> {
    Ok(Record {
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
    })
}

/// The filter as SQL; its parameters are numbered after the first
/// `offset` ones (a search binds its query as ?1).
fn where_clause(filter: &Filter, offset: usize) -> (String, Vec<String>) {
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
    tx.execute(
        "INSERT INTO captures (path, size, mtime, name, category, agent, source, session, project, time, completion, description)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![path, i64::try_from(size).unwrap_or(i64::MAX), mtime, c.name, c.category, c.agent, c.source, c.session, c.project, c.time, c.completion, c.description],
    )?;
    let id = tx.last_insert_rowid();
    tx.execute(
        "INSERT INTO captures_fts (rowid, completion, description, body) VALUES (?1, ?2, ?3, ?4)",
        params![id, c.completion, c.description, c.body],
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

/// Every `*.md` below `root` except under `.agentmem/`, with size and mtime.
fn collect_captures(root: &Path, out: &mut BTreeMap<String, (u64, i64)>) {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if entry.file_name() != ".agentmem" {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "md")
                && let Ok(meta) = entry.metadata()
            {
                out.insert(path.display().to_string(), (meta.len(), mtime_of(&meta)));
            }
        }
    }
}
