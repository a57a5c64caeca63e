//! What every store is asked to keep: a [`Filter`] (with a project's
//! [`Scope`]), and its SQL form, which the SQLite index and the shared
//! PostgreSQL store both query by (one dialect of SQL for both).

use std::path::PathBuf;

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
