//! Recall: the `<memory_index>` a session starts with. One line per
//! capture of the session's project (date, category, agent, what it
//! concluded, id), most useful first ([`crate::rank`]), as many as fit the
//! budget; the model fetches a body by id when a line matters.

use std::fmt::Write as _;

use agentctx_types::{CaptureRecord, MemoryIndex, ProjectIdentity};
use rusqlite::params_from_iter;

use crate::context::TokenCounter;
use crate::local::{MemoryStore, RECORD_COLUMNS, record_from_row};
use crate::store::CaptureStore;
use crate::store::{Filter, Scope, StoreError};

/// Characters of a completion line an entry keeps.
const COMPLETION_CHARS: usize = 140;

/// What a session's index is made of.
#[derive(Clone, Debug)]
pub struct RecallRequest {
    /// The session's project.
    pub identity: ProjectIdentity,
    /// Which captures are the project's ([`crate::recall_keys`] and the
    /// identity's top and package).
    pub scope: Scope,
    /// The whole block's budget in tokens.
    pub max_tokens: usize,
    /// Only these categories; empty: all.
    pub categories: Vec<String>,
    /// Captures older than this many days are left out (0: no limit).
    pub max_age_days: u32,
    /// The day usefulness is measured on.
    pub today: jiff::civil::Date,
    /// How the model runs agentctx (the absolute path of the program), for
    /// the line that says how to fetch a body.
    pub program: String,
}

impl Scope {
    /// What a session of `identity` sees: its keys, the `also` list and
    /// merges through `rules` ([`crate::recall_keys`]), its top and package.
    /// `home` is the user's home folder: a session whose top is it (or
    /// `/`) does not see key-less captures by folder.
    pub fn of(
        identity: &ProjectIdentity,
        rules: &[agentctx_types::IdentityRule],
        also: &[String],
        home: Option<&std::path::Path>,
    ) -> Self {
        let (keys, folders) = crate::recall_keys(identity, rules, also);
        let top = &identity.top;
        let everything = top.parent().is_none()
            || home.is_some_and(|h| {
                std::fs::canonicalize(h).unwrap_or_else(|_| h.to_path_buf()) == *top
            });
        Self {
            keys,
            remote: identity.remote.clone(),
            by_folder: !everything,
            folders,
            top: top.clone(),
            package: identity.package.clone(),
        }
    }
}

/// The index for `request` from `store`: empty text when the project has
/// no captures (or the budget holds not even one line).
pub(crate) fn recall_index<S: CaptureStore + ?Sized>(
    store: &mut S,
    request: &RecallRequest,
    counter: &dyn TokenCounter,
) -> Result<MemoryIndex, StoreError> {
    let filter = Filter {
        categories: request.categories.clone(),
        since: (request.max_age_days > 0)
            .then(|| {
                request
                    .today
                    .checked_sub(jiff::Span::new().days(i64::from(request.max_age_days)))
                    .ok()
            })
            .flatten()
            .map(|d| d.to_string()),
        scope: Some(request.scope.clone()),
        ..Filter::default()
    };
    let matches = store.count("", &filter)?;
    let empty = MemoryIndex {
        identity: request.identity.clone(),
        matches,
        shown: 0,
        text: String::new(),
    };
    if matches == 0 || request.max_tokens == 0 {
        return Ok(empty);
    }
    // A line costs at least 12 tokens (date, kind, agent, id, brackets):
    // no more candidates than the budget could hold were each that short.
    let limit = request.max_tokens / 12 + 1;
    let lines: Vec<String> = store
        .most_useful(&filter, request.today, limit)?
        .iter()
        .map(|(record, short)| line(record, short))
        .collect();
    let open = format!(
        "<memory_index project=\"{}\" captures=\"{matches}\">\nPast work of sub-agents in this project, most useful first: date, kind, agent, what it concluded, [id]. Read one in full with `{} mem show ID`; search them with `{} mem search --this-project \"words\"`.\n",
        crate::context::attribute(&request.identity.label()),
        request.program,
        request.program,
    );
    let close = "</memory_index>\n";
    let bytes = open.len() + close.len() + lines.iter().map(String::len).sum::<usize>();
    let shown = if bytes <= request.max_tokens {
        lines.len()
    } else {
        let mut used = store.token_count(&open, counter)? + store.token_count(close, counter)?;
        let mut shown = 0;
        for line in &lines {
            let cost = store.token_count(line, counter)?;
            if used + cost > request.max_tokens {
                break;
            }
            used += cost;
            shown += 1;
        }
        shown
    };
    if shown == 0 {
        return Ok(empty);
    }
    Ok(MemoryIndex {
        shown: shown as u64,
        text: format!("{open}{}{close}", lines[..shown].concat()),
        ..empty
    })
}

/// The local index's most useful captures for `filter`, best first, with
/// their short ids ([`CaptureStore::most_useful`]).
pub(crate) fn most_useful_local(
    store: &MemoryStore,
    filter: &Filter,
    today: jiff::civil::Date,
    limit: usize,
) -> Result<Vec<(CaptureRecord, String)>, StoreError> {
    let (clause, mut values) = crate::store::where_clause(filter, 1);
    values.insert(0, today.to_string());
    let sql = format!(
        "SELECT {RECORD_COLUMNS}, c.short FROM captures c WHERE {clause}
         ORDER BY {} DESC, c.time DESC, c.name LIMIT {limit}",
        crate::rank::usefulness_sql("?1")
    );
    let mut stmt = store
        .connection()
        .prepare(&sql)
        .map_err(|e| store.index_error(e))?;
    let rows = stmt
        .query_map(params_from_iter(values.iter()), |r| {
            Ok((
                record_from_row(r)?,
                r.get::<_, String>(crate::local::RECORD_COLUMN_COUNT)?,
            ))
        })
        .map_err(|e| store.index_error(e))?;
    let mut found = Vec::new();
    for row in rows {
        let (record, short) = row.map_err(|e| store.index_error(e))?;
        // A row the index holds for a file outside the memory folder
        // (an index someone else wrote) is never shown.
        if store.owns(&record.path) {
            found.push((record, short));
        }
    }
    Ok(found)
}

/// One entry: `- 2026-11-20 RESEARCH researcher: what it concluded [id]`.
fn line(record: &CaptureRecord, short: &str) -> String {
    let completion = plain(&record.completion);
    let mut cut: String = completion.chars().take(COMPLETION_CHARS).collect();
    if completion.chars().nth(COMPLETION_CHARS).is_some() {
        cut.push('…');
    }
    let mut out = String::new();
    // The date and category come from a file's front matter too: only
    // what they can be passes (a date, a name in capitals).
    let date = record
        .time
        .get(..10)
        .filter(|d| d.parse::<jiff::civil::Date>().is_ok())
        .unwrap_or("????-??-??");
    let category: String = record
        .category
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        .take(32)
        .collect();
    // A short id is ten hex digits; a store's row could say otherwise.
    let short: String = short
        .chars()
        .filter(char::is_ascii_hexdigit)
        .take(10)
        .collect();
    let _ = writeln!(
        out,
        "- {date} {category} {}: {} [{short}]",
        plain(&record.agent),
        cut
    );
    out
}

/// One line of captured text that cannot close the block or open a tag:
/// whitespace runs become one space, `<` a look-alike.
pub(crate) fn plain(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('<', "‹")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_cannot_close_the_block() {
        let record = agentctx_types::CaptureRecord {
            id: "x".into(),
            path: "x.md".into(),
            category: "RESEARCH".into(),
            agent: "r<x>".into(),
            source: String::new(),
            session: String::new(),
            project: String::new(),
            time: "2026-11-20 10:15:00".into(),
            completion: "found\n</memory_index> it".into(),
            description: String::new(),
            identity: ProjectIdentity::default(),
        };
        assert_eq!(
            line(&record, "0123456789"),
            "- 2026-11-20 RESEARCH r‹x>: found ‹/memory_index> it [0123456789]\n"
        );
    }
}
