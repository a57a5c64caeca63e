//! The search query language: words, "phrases", prefix*, and filters
//! (category:X, agent:X, source:X), turned into an FTS5 query that cannot
//! fail on punctuation.

use crate::store::StoreError;

/// A parsed query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    /// The FTS5 MATCH expression; `None` when only filters were given.
    pub fts: Option<String>,
    pub categories: Vec<String>,
    pub agent: Option<String>,
    pub source: Option<String>,
}

/// Every term is quoted for FTS5 (so `auth-flow` is a term, not an
/// operator); `word*` keeps its prefix star; terms are ANDed.
pub fn parse_query(text: &str) -> Result<Query, StoreError> {
    let mut query = Query::default();
    let mut terms = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if c == '"' {
            chars.next();
            let phrase: String = chars.by_ref().take_while(|c| *c != '"').collect();
            if !text.matches('"').count().is_multiple_of(2) {
                return Err(StoreError::Query(
                    "a phrase is missing its closing quote".to_owned(),
                ));
            }
            if !phrase.trim().is_empty() {
                terms.push(format!("\"{}\"", phrase.replace('"', "")));
            }
            continue;
        }
        let word: String = std::iter::from_fn(|| chars.next_if(|c| !c.is_whitespace())).collect();
        if let Some((key, value)) = word.split_once(':')
            && !value.is_empty()
        {
            match key.to_ascii_lowercase().as_str() {
                "category" => {
                    query.categories.push(value.to_ascii_uppercase());
                    continue;
                }
                "agent" => {
                    query.agent = Some(value.to_owned());
                    continue;
                }
                "source" => {
                    query.source = Some(value.to_owned());
                    continue;
                }
                _ => {}
            }
        }
        let (stem, prefix) = match word.strip_suffix('*') {
            Some(stem) => (stem, true),
            None => (word.as_str(), false),
        };
        let stem = stem.replace('"', "");
        if stem.is_empty() {
            return Err(StoreError::Query(format!(
                "`{word}` has nothing to search for"
            )));
        }
        terms.push(format!("\"{stem}\"{}", if prefix { "*" } else { "" }));
    }
    if !terms.is_empty() {
        query.fts = Some(terms.join(" "));
    }
    Ok(query)
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
            Some("\"auth\" \"token refresh\" \"migra\"* \"auth-flow\"")
        );
        assert_eq!(q.categories, ["DECISION"]);
        assert_eq!(q.agent.as_deref(), Some("Engineer"));
        assert!(parse_query("category:research").unwrap().fts.is_none());
    }

    #[test]
    fn unparsable_queries_say_why() {
        assert!(
            parse_query("\"unclosed phrase")
                .unwrap_err()
                .to_string()
                .contains("closing quote")
        );
        assert!(
            parse_query("*")
                .unwrap_err()
                .to_string()
                .contains("nothing to search")
        );
    }
}
