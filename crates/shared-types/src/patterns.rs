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

/// A list of patterns compiled into one matcher: deciding a path costs one
/// set lookup whatever the number of patterns.
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
    set: GlobSet,
    /// For each glob in `set`, the index of the pattern it came from.
    owner: Vec<usize>,
    len: usize,
}

/// A pattern that is not a valid glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadPattern {
    /// Its index in the list given to [`PatternSet::compile`].
    pub index: usize,
    /// What is wrong with it.
    pub message: String,
}

impl PatternSet {
    /// Compiles `patterns`; `case_insensitive` for exclude lists (so `.ENV`
    /// cannot slip past `**/.env` on a case-insensitive file system).
    pub fn compile<'a>(
        patterns: impl IntoIterator<Item = &'a str>,
        case_insensitive: bool,
    ) -> Result<Self, BadPattern> {
        let mut builder = GlobSetBuilder::new();
        let mut owner = Vec::new();
        let mut len = 0;
        for (index, pattern) in patterns.into_iter().enumerate() {
            len = index + 1;
            for glob in expand_pattern(pattern) {
                let compiled = GlobBuilder::new(&glob)
                    .literal_separator(true)
                    .case_insensitive(case_insensitive)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| BadPattern {
                        index,
                        message: e.kind().to_string(),
                    })?;
                builder.add(compiled);
                owner.push(index);
            }
        }
        let set = builder.build().map_err(|e| BadPattern {
            index: 0,
            message: e.to_string(),
        })?;
        Ok(Self { set, owner, len })
    }

    /// The index of the first pattern (in list order) that matches
    /// `relative`, a path relative to the root. `scratch` is reused between
    /// calls to avoid an allocation per path.
    pub fn first_match(&self, relative: &Path, scratch: &mut Vec<usize>) -> Option<usize> {
        self.set.matches_into(relative, scratch);
        scratch
            .iter()
            .filter_map(|glob| self.owner.get(*glob))
            .min()
            .copied()
    }

    /// Whether any pattern matches `relative`.
    pub fn is_match(&self, relative: &Path) -> bool {
        self.set.is_match(relative)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(patterns: &[&str], path: &str) -> bool {
        PatternSet::compile(patterns.iter().copied(), false)
            .unwrap()
            .is_match(Path::new(path))
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
}
