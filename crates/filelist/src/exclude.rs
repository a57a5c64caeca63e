//! An exclude list that decides most paths by comparing names.
//!
//! Most exclude patterns name a file or directory at any depth (`build/`,
//! `node_modules/`, `*.log`, `.DS_Store`: 23 of the 24 default excludes).
//! Such a pattern matches a path when one of the path's names matches it,
//! so it is decided a name at a time by comparing bytes, where the glob set
//! folds the whole path and runs its matchers on it for every pattern. In
//! the walk it is cheaper still: every directory above an entry has been
//! decided (and kept) before the entry is seen, so only the entry's own
//! name is left to compare. The other patterns (anchored ones, ones with a
//! `/` or a glob inside a name) go through [`PatternSet`] as before.

use std::path::Path;

use agentctx_types::{BadPattern, PatternSet};

/// A compiled exclude list (case-insensitive, as every exclude list is).
#[derive(Clone, Debug)]
pub struct ExcludeSet {
    /// Names matched whole, ASCII lowercase (`build/` → `build`).
    names: Vec<Box<[u8]>>,
    /// Name endings, ASCII lowercase (`*.log` → `.log`).
    endings: Vec<Box<[u8]>>,
    /// The patterns of `names` and `endings` as globs, for names that are
    /// not ASCII (the glob set folds Unicode case and normalization).
    by_name: PatternSet,
    /// Every other pattern, matched on the whole path.
    rest: PatternSet,
    /// When every pattern of `rest` is anchored under a literal first name
    /// (`.vscode/*`): those names, ASCII lowercase. A path whose first name
    /// is another ASCII name cannot match `rest`.
    rest_heads: Option<Vec<Box<[u8]>>>,
}

/// What a pattern is, as `expand_pattern` reads it.
enum Kind<'a> {
    /// A name at any depth, without glob characters.
    Name(&'a str),
    /// `*` and an ending without glob characters.
    Ending(&'a str),
    /// Anything else, with the literal first name it is anchored under.
    Other { head: Option<&'a str> },
}

/// Characters that make a glob (`\` escapes, so it is one too).
fn has_glob(text: &str) -> bool {
    text.contains(['*', '?', '[', ']', '{', '}', '\\'])
}

fn kind(pattern: &str) -> Kind<'_> {
    let trimmed = pattern.trim();
    let anchored = trimmed.starts_with('/');
    let body = trimmed.trim_start_matches('/').trim_end_matches('/');
    let body = body.strip_prefix("./").unwrap_or(body);
    // Only ASCII patterns are compared as bytes: folding a non-ASCII
    // pattern can give ASCII (the Kelvin sign folds to `k`), which only
    // the glob set's own folding gets right. `!` is refused by the glob
    // set, which reports it.
    let plain = pattern.is_ascii() && !trimmed.starts_with('!') && !body.is_empty();
    if plain && !anchored && !body.contains('/') {
        if !has_glob(body) {
            return Kind::Name(body);
        }
        if let Some(ending) = body.strip_prefix('*')
            && !ending.is_empty()
            && !has_glob(ending)
        {
            return Kind::Ending(ending);
        }
    }
    let head = (plain && (anchored || body.contains('/')))
        .then(|| body.split('/').next().unwrap_or(body))
        .filter(|head| !has_glob(head));
    Kind::Other { head }
}

fn lowercase(text: &str) -> Box<[u8]> {
    text.to_ascii_lowercase().into_bytes().into_boxed_slice()
}

impl ExcludeSet {
    /// Compiles `patterns`; an error's index is the pattern's in `patterns`.
    pub fn compile(patterns: &[&str]) -> Result<Self, BadPattern> {
        let (mut names, mut endings, mut by_name) = (Vec::new(), Vec::new(), Vec::new());
        let (mut rest, mut rest_index) = (Vec::new(), Vec::new());
        let mut rest_heads = Some(Vec::new());
        for (index, &pattern) in patterns.iter().enumerate() {
            match kind(pattern) {
                Kind::Name(name) => {
                    names.push(lowercase(name));
                    by_name.push(pattern);
                }
                Kind::Ending(ending) => {
                    endings.push(lowercase(ending));
                    by_name.push(pattern);
                }
                Kind::Other { head } => {
                    rest.push(pattern);
                    rest_index.push(index);
                    match (head, &mut rest_heads) {
                        (Some(head), Some(heads)) => heads.push(lowercase(head)),
                        _ => rest_heads = None,
                    }
                }
            }
        }
        let rest = PatternSet::compile(rest.iter().copied(), true).map_err(|bad| BadPattern {
            index: rest_index.get(bad.index).copied().unwrap_or(bad.index),
            message: bad.message,
        })?;
        // Names without glob characters are valid globs.
        let by_name = PatternSet::compile(by_name.iter().copied(), true)?;
        Ok(Self {
            names,
            endings,
            by_name,
            rest,
            rest_heads,
        })
    }

    /// Whether the list matches `relative` (a root-relative path, `/`
    /// between names), itself or through one of its directories.
    pub fn is_match(&self, relative: &str) -> bool {
        relative.split('/').any(|name| self.name_matches(name)) || self.rest_matches(relative)
    }

    /// [`is_match`](Self::is_match) for a path none of whose directories
    /// the list matches (the walk never enters one that it does): only
    /// its last name, `name`, is compared.
    pub fn is_match_below_kept(&self, relative: &str, name: &str) -> bool {
        self.name_matches(name) || self.rest_matches(relative)
    }

    fn name_matches(&self, name: &str) -> bool {
        if self.by_name.is_empty() {
            return false;
        }
        let bytes = name.as_bytes();
        if !bytes.is_ascii() {
            return self.by_name.is_match(Path::new(name));
        }
        self.names.iter().any(|n| n.eq_ignore_ascii_case(bytes))
            || self.endings.iter().any(|e| {
                bytes.len() >= e.len() && bytes[bytes.len() - e.len()..].eq_ignore_ascii_case(e)
            })
    }

    fn rest_matches(&self, relative: &str) -> bool {
        if self.rest.is_empty() {
            return false;
        }
        if let Some(heads) = &self.rest_heads {
            let first = relative.split('/').next().unwrap_or(relative).as_bytes();
            if first.is_ascii() && !heads.iter().any(|h| h.eq_ignore_ascii_case(first)) {
                return false;
            }
        }
        self.rest.is_match(Path::new(relative))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const PATTERNS: [&str; 15] = [
        "build/",
        "K/",
        "*.log",
        ".DS_Store",
        ".vscode/*",
        "/Out",
        "docs/*.md",
        " spaced name ",
        "*.egg-info/",
        "École/",
        "a*b",
        "\\!bang",
        "./dot/",
        "x/**",
        "**/deep/y",
    ];

    /// Names that match, nearly match or fold into the patterns above.
    const NAMES: [&str; 24] = [
        "build",
        "BUILD",
        "Build.rs",
        "x.log",
        ".LOG",
        "log",
        ".ds_store",
        ".vscode",
        ".VSCode",
        "settings.json",
        "out",
        "docs",
        "a.md",
        "spaced name",
        "p.egg-info",
        "école",
        "E\u{301}cole",
        "ÉCOLE",
        "aXb",
        "!bang",
        "dot",
        "deep",
        "y",
        "\u{212a}",
    ];

    proptest! {
        #[test]
        fn decides_as_the_glob_set_does(
            picks in proptest::collection::vec(0..NAMES.len(), 1..5),
            list in proptest::collection::vec(0..PATTERNS.len(), 0..6),
        ) {
            let patterns: Vec<&str> = list.iter().map(|&i| PATTERNS[i]).collect();
            let set = ExcludeSet::compile(&patterns).unwrap();
            let globs = PatternSet::compile(patterns.iter().copied(), true).unwrap();
            let path = picks.iter().map(|&i| NAMES[i]).collect::<Vec<_>>().join("/");
            let expected = globs.is_match(Path::new(&path));
            prop_assert_eq!(set.is_match(&path), expected, "{:?} on {}", patterns, path);
            // Below kept directories, the last name decides.
            let kept = path
                .rsplit_once('/')
                .is_none_or(|(dirs, _)| {
                    let mut prefix = String::new();
                    dirs.split('/').all(|name| {
                        if !prefix.is_empty() {
                            prefix.push('/');
                        }
                        prefix.push_str(name);
                        !globs.is_match(Path::new(&prefix))
                    })
                });
            if kept {
                let name = path.rsplit('/').next().unwrap();
                prop_assert_eq!(set.is_match_below_kept(&path, name), expected, "{:?} on {}", patterns, path);
            }
        }
    }

    #[test]
    fn the_defaults_are_nearly_all_names() {
        let set = ExcludeSet::compile(&crate::filters::DEFAULT_EXCLUDES).unwrap();
        assert_eq!(set.names.len() + set.endings.len(), 23);
        assert_eq!(set.rest.len(), 1);
        assert_eq!(set.rest_heads, Some(vec![lowercase(".vscode")]));
    }

    #[test]
    fn errors_name_the_pattern_in_the_whole_list() {
        let error = ExcludeSet::compile(&["build/", "*.log", "src/[a"]).unwrap_err();
        assert_eq!(error.index, 2);
        let error = ExcludeSet::compile(&["build/", "!keep"]).unwrap_err();
        assert_eq!(error.index, 1);
    }
}
