//! File patterns: gitignore-like globs compiled once into one matcher.
//!
//! Semantics (docs/rules.md): `*` and `?` never cross `/`; `**` crosses any
//! number of directories; a pattern without a `/` (other than a trailing
//! one) matches a name at any depth; a leading `/` anchors to the root; a
//! pattern that matches a directory covers everything beneath it.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::doc::Entry;

/// A compiled list of patterns. `first_match` does one set lookup whatever
/// the number of patterns.
#[derive(Clone, Debug)]
pub struct PatternSet {
    set: GlobSet,
    /// For each glob in `set`, the index of the entry it came from.
    owner: Vec<usize>,
    entries: Vec<Entry>,
}

/// A pattern that is not a valid glob.
#[derive(Clone, Debug)]
pub struct BadPattern {
    pub entry: Entry,
    pub message: String,
}

/// The globs a pattern stands for: the pattern itself and everything below
/// what it matches.
pub fn expand(pattern: &str) -> Vec<String> {
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

impl PatternSet {
    /// Compiles `entries`; `case_insensitive` for exclude lists.
    pub fn compile(entries: &[Entry], case_insensitive: bool) -> Result<Self, BadPattern> {
        let mut builder = GlobSetBuilder::new();
        let mut owner = Vec::new();
        for (index, entry) in entries.iter().enumerate() {
            for glob in expand(&entry.text) {
                let compiled = GlobBuilder::new(&glob)
                    .literal_separator(true)
                    .case_insensitive(case_insensitive)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| BadPattern {
                        entry: entry.clone(),
                        message: e.kind().to_string(),
                    })?;
                builder.add(compiled);
                owner.push(index);
            }
        }
        let set = builder.build().map_err(|e| BadPattern {
            entry: entries
                .first()
                .cloned()
                .unwrap_or_else(|| Entry::new("", None)),
            message: e.to_string(),
        })?;
        Ok(Self {
            set,
            owner,
            entries: entries.to_vec(),
        })
    }

    /// The first entry (in file order) that matches `relative`, a path
    /// relative to the root.
    pub fn first_match(
        &self,
        relative: &std::path::Path,
        scratch: &mut Vec<usize>,
    ) -> Option<&Entry> {
        self.set.matches_into(relative, scratch);
        scratch
            .iter()
            .filter_map(|glob| self.owner.get(*glob))
            .min()
            .and_then(|entry| self.entries.get(*entry))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(patterns: &[&str], ci: bool) -> PatternSet {
        let entries: Vec<Entry> = patterns.iter().map(|p| Entry::new(p, None)).collect();
        PatternSet::compile(&entries, ci).unwrap()
    }

    fn matches(patterns: &[&str], path: &str) -> bool {
        set(patterns, false)
            .first_match(std::path::Path::new(path), &mut Vec::new())
            .is_some()
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
        let env = std::path::Path::new(".ENV");
        assert!(
            set(&["**/.env"], true)
                .first_match(env, &mut Vec::new())
                .is_some()
        );
        assert!(
            set(&["**/.env"], false)
                .first_match(env, &mut Vec::new())
                .is_none()
        );
    }

    #[test]
    fn first_match_reports_the_earliest_entry() {
        let s = set(&["*.txt", "secrets/"], false);
        let path = std::path::Path::new("secrets/a.txt");
        assert_eq!(s.first_match(path, &mut Vec::new()).unwrap().text, "*.txt");
    }
}
