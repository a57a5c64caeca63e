//! The project's one pattern language: gitignore-like globs, used by rule
//! files (`file_patterns`) and by the file list (`exclude_patterns`,
//! `include_patterns`), so the same pattern means the same thing in both.
//!
//! `*` and `?` never cross `/`; `**` crosses any number of directories; a
//! pattern without a `/` (other than a trailing one) matches a name at any
//! depth; a leading `/` anchors it to the root; a pattern that matches a
//! directory covers everything beneath it. docs/rules.md has examples.

use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// The globs a pattern stands for: the pattern itself and everything below
/// what it matches. Empty for a pattern that is empty after trimming.
pub fn expand_pattern(pattern: &str) -> Vec<String> {
    let trimmed = pattern.trim();
    let anchored = trimmed.starts_with('/');
    let body = trimmed.trim_start_matches('/').trim_end_matches('/');
    let body = body.strip_prefix("./").unwrap_or(body);
    if body.is_empty() {
        return Vec::new();
    }
    let base = if anchored || body.contains('/') {
        body.to_owned()
    } else {
        format!("**/{body}")
    };
    if base.ends_with("/**") {
        vec![base]
    } else {
        vec![format!("{base}/**"), base]
    }
}

/// A list of patterns compiled into a matcher: deciding a path costs a few
/// set lookups whatever the number of patterns.
///
/// ```
/// use agentctx_types::PatternSet;
/// let set = PatternSet::compile(["**/.env", "secrets/"], true).unwrap();
/// assert_eq!(set.first_match("app/.ENV".as_ref(), &mut Vec::new()), Some(0));
/// assert_eq!(set.first_match("secrets/a/b".as_ref(), &mut Vec::new()), Some(1));
/// assert_eq!(set.first_match("src/main.rs".as_ref(), &mut Vec::new()), None);
/// ```
#[derive(Clone, Debug)]
pub struct PatternSet {
    /// The globs grouped by their literal leading directories: a path can
    /// only match a glob whose literal prefix is one of its ancestors, so a
    /// decision looks at the few buckets on its own path. Buckets compile
    /// on first use, in sets of at most [`CHUNK`] globs (one set of
    /// thousands of globs fails to build: "error building NFA").
    buckets: std::collections::HashMap<String, Bucket>,
    /// The longest bucket key, in components: no deeper prefix is looked up.
    depth: usize,
    len: usize,
    /// Paths are folded (Unicode lowercase, NFC) before matching.
    fold: bool,
}

#[derive(Clone, Debug, Default)]
struct Bucket {
    globs: Vec<(globset::Glob, usize)>,
    compiled: std::sync::OnceLock<Vec<(GlobSet, Vec<usize>)>>,
}

/// Globs per compiled set.
const CHUNK: usize = 256;

/// Why a pattern starting with `!` is refused. In a `.gitignore` it would
/// re-include what an earlier pattern excluded; these lists have no order
/// to undo, and taking `!keep.env` as the literal name `!keep.env` (as
/// globset would) silently does the opposite of what was meant, so it is
/// an error.
pub const NEGATION_UNSUPPORTED: &str = "`!` negation is not supported here: these patterns only add to a list (an exclude cannot be undone by a later pattern); list what you mean instead, or write `\\!` for a name that starts with `!`";

/// A pattern that is not a valid glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadPattern {
    /// Its index in the list given to [`PatternSet::compile`].
    pub index: usize,
    /// What is wrong with it.
    pub message: String,
}

/// `text` in the form case-insensitive matching compares: Unicode
/// canonical composition (NFC, so an `é` typed as `e` and a combining
/// accent on a normalizing file system is one letter) and Unicode
/// lowercase (so `École` and `ÉCOLE` are `école`).
pub fn fold_case(text: &str) -> std::borrow::Cow<'_, str> {
    use unicode_normalization::UnicodeNormalization as _;
    if text.is_ascii() {
        if text.bytes().any(|b| b.is_ascii_uppercase()) {
            return std::borrow::Cow::Owned(text.to_ascii_lowercase());
        }
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(text.nfc().collect::<String>().to_lowercase())
}

/// The literal directories a glob starts with (all components before the
/// first one with a glob character, never its last component), joined
/// with `/`: every path the glob matches starts with them.
fn literal_prefix(glob: &str) -> String {
    let components: Vec<&str> = glob.split('/').collect();
    let literal = components
        .iter()
        .take(components.len().saturating_sub(1))
        .take_while(|c| !c.contains(['*', '?', '[', '{', '\\']))
        .copied()
        .collect::<Vec<_>>();
    literal.join("/")
}

impl PatternSet {
    /// Compiles `patterns`; `case_insensitive` for exclude lists (so `.ENV`
    /// cannot slip past `**/.env`, nor `École/` past `école/`, on a
    /// case-insensitive or normalizing file system).
    pub fn compile<'a>(
        patterns: impl IntoIterator<Item = &'a str>,
        case_insensitive: bool,
    ) -> Result<Self, BadPattern> {
        let mut buckets: std::collections::HashMap<String, Bucket> = Default::default();
        let mut len = 0;
        let mut depth = 0;
        for (index, pattern) in patterns.into_iter().enumerate() {
            len = index + 1;
            if pattern.trim_start().starts_with('!') {
                return Err(BadPattern {
                    index,
                    message: NEGATION_UNSUPPORTED.to_owned(),
                });
            }
            let folded = if case_insensitive {
                fold_case(pattern)
            } else {
                std::borrow::Cow::Borrowed(pattern)
            };
            for glob in expand_pattern(&folded) {
                // Case-insensitive lists match folded patterns against
                // folded paths: globset's own case-insensitive globs all
                // go through its regex engine, folded literal ones through
                // its hash lookups (a walk decides every entry with them).
                let compiled = GlobBuilder::new(&glob)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| BadPattern {
                        index,
                        message: e.kind().to_string(),
                    })?;
                let prefix = literal_prefix(&glob);
                depth = depth.max(if prefix.is_empty() {
                    0
                } else {
                    prefix.split('/').count()
                });
                buckets
                    .entry(prefix)
                    .or_default()
                    .globs
                    .push((compiled, index));
            }
        }
        Ok(Self {
            buckets,
            depth,
            len,
            fold: case_insensitive,
        })
    }

    /// The index of the first pattern (in list order) that matches
    /// `relative`, a path relative to the root. `scratch` is reused between
    /// calls to avoid an allocation per path.
    pub fn first_match(&self, relative: &Path, scratch: &mut Vec<usize>) -> Option<usize> {
        // Called for every entry of a walk: nothing is allocated that the
        // path does not need.
        if self.len == 0 {
            return None;
        }
        let text = relative.to_string_lossy();
        let key_text = if self.fold { fold_case(&text) } else { text };
        let relative = Path::new(key_text.as_ref());
        let candidate = globset::Candidate::new(relative);
        if self.depth == 0 {
            return self
                .buckets
                .get("")
                .and_then(|bucket| bucket.first_match(&candidate, scratch, self.fold));
        }
        let mut best: Option<usize> = None;
        // The bucket keys on the path's own text: its first `level`
        // components, a slice of it (not a copy).
        let text: &str = key_text.as_ref();
        let mut end = 0;
        for level in 0..=self.depth {
            let prefix = if level == 0 {
                ""
            } else {
                if level > 1 {
                    if end >= text.len() {
                        break;
                    }
                    end += 1;
                }
                let rest = &text[end..];
                end += rest.find('/').unwrap_or(rest.len());
                &text[..end]
            };
            let Some(bucket) = self.buckets.get(prefix) else {
                continue;
            };
            let found = bucket.first_match(&candidate, scratch, self.fold);
            best = match (best, found) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        best
    }

    /// Whether any pattern matches `relative`.
    pub fn is_match(&self, relative: &Path) -> bool {
        self.first_match(relative, &mut Vec::new()).is_some()
    }

    /// How many patterns were compiled.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no pattern was given.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Bucket {
    fn first_match(
        &self,
        path: &globset::Candidate<'_>,
        scratch: &mut Vec<usize>,
        fail_closed: bool,
    ) -> Option<usize> {
        let sets = self.compiled.get_or_init(|| {
            self.globs
                .chunks(CHUNK)
                .filter_map(|chunk| {
                    let mut builder = GlobSetBuilder::new();
                    for (glob, _) in chunk {
                        builder.add(glob.clone());
                    }
                    let owners = chunk.iter().map(|(_, owner)| *owner).collect();
                    builder.build().ok().map(|set| (set, owners))
                })
                .collect()
        });
        // A chunk that failed to build is missing from `sets`; an exclude
        // list (`fail_closed`) then treats its patterns as matching.
        let built: usize = sets.iter().map(|(_, owners)| owners.len()).sum();
        if built < self.globs.len() && fail_closed {
            return self.globs.first().map(|(_, owner)| *owner);
        }
        let mut best = None;
        for (set, owners) in sets {
            set.matches_candidate_into(path, scratch);
            let found = scratch.iter().filter_map(|g| owners.get(*g)).min().copied();
            best = match (best, found) {
                (Some(a), Some(b)) => Some(std::cmp::min(a, b)),
                (a, b) => a.or(b),
            };
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(patterns: &[&str], path: &str) -> bool {
        PatternSet::compile(patterns.iter().copied(), false)
            .unwrap()
            .is_match(Path::new(path))
    }

    #[test]
    fn a_negated_pattern_is_refused_and_an_escaped_bang_is_a_name() {
        let error = PatternSet::compile(["*.env", " !keep.env"], true).unwrap_err();
        assert_eq!(error.index, 1);
        assert_eq!(error.message, NEGATION_UNSUPPORTED);
        assert!(matches(&["\\!keep.env"], "a/!keep.env"));
        assert!(!matches(&["\\!keep.env"], "a/keep.env"));
    }

    #[test]
    fn star_does_not_cross_directories_but_double_star_does() {
        assert!(matches(&["src/*.rs"], "src/main.rs"));
        assert!(!matches(&["src/*.rs"], "src/bin/main.rs"));
        assert!(matches(&["src/**/*.rs"], "src/bin/main.rs"));
        assert!(matches(&["src/**"], "src/a/b/c"));
    }

    #[test]
    fn a_name_without_slash_matches_at_any_depth() {
        assert!(matches(&["*.pem"], "a/b/key.pem"));
        assert!(matches(&["Cargo.toml"], "crates/x/Cargo.toml"));
        assert!(!matches(&["/Cargo.toml"], "crates/x/Cargo.toml"));
        assert!(matches(&["/Cargo.toml"], "Cargo.toml"));
    }

    #[test]
    fn a_directory_pattern_covers_everything_beneath() {
        for pattern in ["secrets/", "secrets", "secrets/**"] {
            assert!(matches(&[pattern], "secrets/key.txt"), "{pattern}");
            assert!(matches(&[pattern], "secrets/deep/er/key.txt"), "{pattern}");
        }
        assert!(matches(&["secrets/"], "app/secrets/key.txt"));
        assert!(matches(&["docs/api"], "docs/api/v1/index.md"));
        assert!(!matches(&["docs/api"], "x/docs/api/v1/index.md"));
        assert!(!matches(&["secrets/"], "secretsplus/key.txt"));
    }

    #[test]
    fn case_insensitive_only_when_asked() {
        let ci = PatternSet::compile(["**/.env"], true).unwrap();
        let cs = PatternSet::compile(["**/.env"], false).unwrap();
        assert!(ci.is_match(Path::new(".ENV")));
        assert!(!cs.is_match(Path::new(".ENV")));
    }

    #[test]
    fn first_match_reports_the_earliest_pattern_and_bad_globs_their_index() {
        let s = PatternSet::compile(["*.txt", "secrets/"], false).unwrap();
        assert_eq!(
            s.first_match(Path::new("secrets/a.txt"), &mut Vec::new()),
            Some(0)
        );
        let bad = PatternSet::compile(["ok", "a["], false).unwrap_err();
        assert_eq!(bad.index, 1);
    }

    #[test]
    fn ten_thousand_patterns_compile_and_decide_like_ten() {
        let many: Vec<String> = (0..10_000).map(|i| format!("generated/dir{i}/")).collect();
        let long: Vec<String> = (0..2_000)
            .map(|i| format!("some/rather/long/prefix/{i}/with/more/segments/*.secret"))
            .collect();
        for list in [&many, &long] {
            let set = PatternSet::compile(list.iter().map(String::as_str), true).unwrap();
            assert_eq!(set.len(), list.len());
        }
        let set = PatternSet::compile(many.iter().map(String::as_str), true).unwrap();
        assert_eq!(
            set.first_match(Path::new("generated/dir9999/x"), &mut Vec::new()),
            Some(9999)
        );
        assert_eq!(
            set.first_match(Path::new("generated/dir42/x"), &mut Vec::new()),
            Some(42)
        );
        assert_eq!(
            set.first_match(Path::new("src/main.rs"), &mut Vec::new()),
            None
        );
    }

    #[test]
    fn case_folding_is_unicode_and_normalized() {
        let set = PatternSet::compile(["école/"], true).unwrap();
        for path in [
            "école/x",
            "École/x",
            "ÉCOLE/x",
            "E\u{301}cole/x",
            "e\u{301}cole/x",
        ] {
            assert!(set.is_match(Path::new(path)), "{path}");
        }
        assert!(!set.is_match(Path::new("ecole/x")));
    }
}
