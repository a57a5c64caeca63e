//! The search query language: words, "phrases", prefix*, and filters
//! (category:X, agent:X, source:X), turned into an FTS5 query that cannot
//! fail on punctuation.

use crate::store::StoreError;

/// The full-text column that holds the CJK bigrams of a capture's
/// completion, description and body (`cjk.rs`): the FTS5 query names it.
pub(crate) const CJK_COLUMN: &str = "cjk";

/// A parsed query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    /// The FTS5 MATCH expression; `None` when only filters were given.
    pub fts: Option<String>,
    pub categories: Vec<String>,
    pub agent: Option<String>,
    pub source: Option<String>,
    /// The words searched for (lowercase; a prefix term without its star),
    /// for snippets.
    pub terms: Vec<String>,
    /// Each term as typed (a word or a phrase) and whether it is a
    /// prefix: what another store builds its own query from.
    pub parts: Vec<(String, bool)>,
}

/// `text` parsed, and `filter` with the query's own filters
/// (`category:`, `agent:`, `source:`) added: what every store searches by.
pub fn parse_with_filter(
    text: &str,
    filter: &crate::store::Filter,
) -> Result<(Query, crate::store::Filter), StoreError> {
    let parsed = parse_query(text)?;
    let mut filter = filter.clone();
    filter.categories.extend(parsed.categories.iter().cloned());
    filter.agent = filter.agent.or(parsed.agent.clone());
    filter.source = filter.source.or(parsed.source.clone());
    Ok((parsed, filter))
}

/// Every term is quoted for FTS5 (so `auth-flow` is a term, not an
/// operator); `word*` keeps its prefix star; terms are ANDed. A quote
/// opens a phrase wherever it is (`"token refresh"`, a filter's value
/// `agent:"code reviewer"`) and must be closed: an open one is an error
/// naming its place.
pub fn parse_query(text: &str) -> Result<Query, StoreError> {
    let mut query = Query::default();
    let mut terms = Vec::new();
    for token in tokens(text)? {
        if let Some((key, value)) = token.filter()
            && !value.is_empty()
        {
            match key.to_ascii_lowercase().as_str() {
                "category" => {
                    query.categories.push(value.to_ascii_uppercase());
                    continue;
                }
                "agent" => {
                    query.agent = Some(value);
                    continue;
                }
                "source" => {
                    query.source = Some(value);
                    continue;
                }
                _ => {}
            }
        }
        let text: String = token.parts.iter().map(|(part, _)| part.as_str()).collect();
        if token.quoted() {
            // A phrase: its words in this order.
            if !text.trim().is_empty() {
                terms.push(fts_term(&text, false));
                query.parts.push((text.clone(), false));
                query
                    .terms
                    .extend(text.split_whitespace().map(str::to_lowercase));
            }
            continue;
        }
        let (stem, prefix) = match text.strip_suffix('*') {
            Some(stem) => (stem, true),
            None => (text.as_str(), false),
        };
        if stem.is_empty() {
            return Err(StoreError::Query {
                source: None,
                message: format!("`{text}` has nothing to search for"),
            });
        }
        terms.push(fts_term(stem, prefix));
        query.parts.push((stem.to_owned(), prefix));
        query.terms.push(stem.to_lowercase());
    }
    if !terms.is_empty() {
        query.fts = Some(terms.join(" AND "));
    }
    Ok(query)
}

/// One whitespace-separated token of a query: its parts, each quoted or
/// not (a quoted part may hold spaces).
struct Token {
    parts: Vec<(String, bool)>,
}

impl Token {
    fn quoted(&self) -> bool {
        self.parts.iter().any(|(_, quoted)| *quoted)
    }

    /// `key:value` when the key is written bare (`category:"x y"`), the
    /// value with its quotes taken off.
    fn filter(&self) -> Option<(String, String)> {
        let (first, quoted) = self.parts.first()?;
        let (key, rest) = first.split_once(':').filter(|_| !quoted)?;
        let value: String = std::iter::once(rest)
            .chain(self.parts[1..].iter().map(|(part, _)| part.as_str()))
            .collect();
        Some((key.to_owned(), value))
    }
}

/// The tokens of `text`; an unclosed quote is an error naming the
/// character it is at (counted from 1).
fn tokens(text: &str) -> Result<Vec<Token>, StoreError> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().enumerate().peekable();
    loop {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return Ok(tokens);
        }
        let mut parts: Vec<(String, bool)> = Vec::new();
        while let Some((at, c)) = chars.next_if(|(_, c)| !c.is_whitespace()) {
            if c != '"' {
                match parts.last_mut() {
                    Some((part, false)) => part.push(c),
                    _ => parts.push((c.to_string(), false)),
                }
                continue;
            }
            let mut phrase = String::new();
            loop {
                match chars.next() {
                    Some((_, '"')) => break,
                    Some((_, c)) => phrase.push(c),
                    None => {
                        return Err(StoreError::Query {
                            source: None,
                            message: format!(
                                "the quote at character {} is not closed (a phrase or a value in quotes ends with another `\"`)",
                                at + 1
                            ),
                        });
                    }
                }
            }
            parts.push((phrase, true));
        }
        tokens.push(Token { parts });
    }
}

/// One term (a word or a phrase) as FTS5 syntax: quoted, so punctuation
/// is never an operator; its CJK runs searched as substrings in the
/// bigram column (`cjk.rs`), the rest as words.
fn fts_term(term: &str, prefix: bool) -> String {
    if !term.chars().any(crate::cjk::is_cjk) {
        return format!("\"{term}\"{}", if prefix { "*" } else { "" });
    }
    let rest: String = term
        .chars()
        .map(|c| if crate::cjk::is_cjk(c) { ' ' } else { c })
        .collect();
    let mut parts: Vec<String> = crate::cjk::runs(term)
        .map(|run| crate::cjk::query_run(CJK_COLUMN, run))
        .collect();
    if rest.chars().any(char::is_alphanumeric) {
        parts.push(format!("\"{}\"", rest.trim()));
    }
    format!("({})", parts.join(" AND "))
}

/// About a dozen words of `body` around the first searched term, with
/// every word that starts with a term in `[brackets]`.
pub fn snippet(body: &str, terms: &[String]) -> String {
    let words: Vec<&str> = body.split_whitespace().collect();
    let hit = |w: &str| {
        let w = w.to_lowercase();
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        terms.iter().any(|t| {
            !t.is_empty()
                && (w.starts_with(t.as_str())
                        // A CJK term is found inside a run, not at its start.
                        || (t.chars().any(crate::cjk::is_cjk) && w.contains(t.as_str())))
        })
    };
    let first = words.iter().position(|w| hit(w)).unwrap_or(0);
    let start = first.saturating_sub(5);
    let end = (start + 12).min(words.len());
    let mut out: Vec<String> = words[start..end]
        .iter()
        .map(|w| {
            if hit(w) {
                format!("[{w}]")
            } else {
                (*w).to_owned()
            }
        })
        .collect();
    if start > 0 {
        out.insert(0, "…".to_owned());
    }
    if end < words.len() {
        out.push("…".to_owned());
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_phrases_prefixes_and_filters() {
        let q =
            parse_query("auth \"token refresh\" migra* category:decision agent:Engineer auth-flow")
                .unwrap();
        assert_eq!(
            q.fts.as_deref(),
            Some("\"auth\" AND \"token refresh\" AND \"migra\"* AND \"auth-flow\"")
        );
        assert_eq!(q.categories, ["DECISION"]);
        assert_eq!(q.agent.as_deref(), Some("Engineer"));
        assert!(parse_query("category:research").unwrap().fts.is_none());
    }

    #[test]
    fn snippets_mark_the_terms() {
        let body = "one two three four five six seven eight Auth nine ten eleven twelve thirteen";
        assert_eq!(
            snippet(body, &["auth".into()]),
            "… four five six seven eight [Auth] nine ten eleven twelve thirteen"
        );
    }

    #[test]
    fn an_unclosed_quote_is_an_error_naming_its_place_in_a_phrase_or_a_filter() {
        for (text, at) in [
            ("\"auth race", 1),
            ("category:\"x", 10),
            ("auth agent:\"code reviewer", 12),
            ("\"one\" \"two", 7),
        ] {
            let error = parse_query(text).unwrap_err().to_string();
            assert!(
                error.contains(&format!("the quote at character {at} is not closed")),
                "{text}: {error}"
            );
        }
    }

    #[test]
    fn quoted_filter_values_and_phrases() {
        let q =
            parse_query("agent:\"code reviewer\" category:\"decision\" \"token refresh\"").unwrap();
        assert_eq!(q.agent.as_deref(), Some("code reviewer"));
        assert_eq!(q.categories, ["DECISION"]);
        assert_eq!(q.fts.as_deref(), Some("\"token refresh\""));
        assert_eq!(q.terms, ["token", "refresh"]);
    }

    #[test]
    fn unparsable_queries_say_why() {
        assert!(
            parse_query("*")
                .unwrap_err()
                .to_string()
                .contains("nothing to search")
        );
    }
}
