//! A directory's units: its children, with runs of numbered files shown as
//! one line whose label names exactly the files there are.
//!
//! `f{01..12}.txt (12 files)` is a contiguous run; `Q{1,2,4..6}.svg (5
//! files)` says which numbers exist; `{0001..0042}_*.py (42 files)` is a
//! run of names that start with a number (migrations) and differ after it.
//! Hash-like names are never grouped (their "numbers" are not a sequence),
//! nor names that must be quoted to be shown.

use rustc_hash::FxHashMap as HashMap;
use std::fmt::Write as _;

use crate::classify::is_hash_like;
use crate::name::needs_quoting;
use crate::tree::Tree;

/// What a directory shows: a node, or a run of numbered files as one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A file or directory.
    Node(usize),
    /// Numbered files, in number order, and their label.
    Group {
        /// The files.
        members: Vec<usize>,
        /// `f{01..12}.txt (12 files)`.
        label: String,
    },
}

impl Unit {
    /// The first node of the unit (for its class).
    pub fn first(&self) -> usize {
        match self {
            Self::Node(id) => *id,
            Self::Group { members, .. } => members.first().copied().unwrap_or(0),
        }
    }
}

/// Fewest files a run needs to be grouped.
const MIN_RUN: usize = 3;

/// A directory's units in display order (directories first, then files,
/// by name; a group takes the place of its first member).
pub fn units(tree: &Tree, dir: usize, group: bool) -> Vec<Unit> {
    let children = &tree.nodes[dir].children;
    // Only files whose names hold a digit can be in a run; a directory
    // with fewer than a run's worth of them has no group (most have none).
    let candidate = |c: usize| {
        let node = &tree.nodes[c];
        group
            && !node.is_dir
            && node.name.bytes().any(|b| b.is_ascii_digit())
            && !is_hash_like(node.name)
            && !needs_quoting(node.name)
    };
    if children
        .iter()
        .filter(|&&c| candidate(c))
        .nth(MIN_RUN - 1)
        .is_none()
    {
        return children.iter().map(|c| Unit::Node(*c)).collect();
    }
    let candidates: Vec<bool> = children.iter().map(|&c| candidate(c)).collect();
    // First by the number at the end (`prefix<N>suffix`), then, for what
    // is left, by the number at the start (`<N>_anything.ext`). Indexes
    // are positions among the children.
    let mut group_of: Vec<Option<usize>> = vec![None; children.len()];
    let mut groups: Vec<(Key<'_>, Vec<(usize, &str)>)> = Vec::new();
    for pass in [Pass::Trailing, Pass::Leading] {
        let mut runs: HashMap<Key<'_>, Vec<(usize, &str)>> = HashMap::default();
        for (pos, &child) in children.iter().enumerate() {
            if !candidates[pos] || group_of[pos].is_some() {
                continue;
            }
            if let Some((key, digits)) = key_of(tree.nodes[child].name, pass) {
                runs.entry(key).or_default().push((pos, digits));
            }
        }
        let mut found: Vec<(Key<'_>, Vec<(usize, &str)>)> = runs
            .into_iter()
            .filter(|(_, members)| members.len() >= MIN_RUN)
            .collect();
        // HashMap order is not stable: the output must be.
        found.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, mut members) in found {
            members.sort_by(|a, b| {
                number(a.1)
                    .cmp(&number(b.1))
                    .then_with(|| a.1.cmp(b.1))
                    .then_with(|| {
                        tree.nodes[children[a.0]]
                            .name
                            .cmp(tree.nodes[children[b.0]].name)
                    })
            });
            for (pos, _) in &members {
                group_of[*pos] = Some(groups.len());
            }
            groups.push((key, members));
        }
    }
    let mut emitted = vec![false; groups.len()];
    let mut units = Vec::with_capacity(children.len());
    for (pos, &child) in children.iter().enumerate() {
        match group_of[pos] {
            None => units.push(Unit::Node(child)),
            Some(g) if !emitted[g] => {
                emitted[g] = true;
                let (key, members) = &groups[g];
                units.push(Unit::Group {
                    label: label(key, members),
                    members: members.iter().map(|(pos, _)| children[*pos]).collect(),
                });
            }
            Some(_) => {}
        }
    }
    units
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Trailing,
    Leading,
}

/// What the members of a run share (borrowed from their names).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key<'a> {
    /// `prefix<N>suffix`.
    Around { prefix: &'a str, suffix: &'a str },
    /// `<N>` of this many digits, then anything, then `.ext`.
    Leading { width: usize, extension: &'a str },
}

/// A name's key in `pass` and its number's digits (the caller has
/// checked that the name is a file's that may be grouped).
fn key_of(name: &str, pass: Pass) -> Option<(Key<'_>, &str)> {
    match pass {
        Pass::Trailing => {
            let (start, end) = last_digits(name)?;
            Some((
                Key::Around {
                    prefix: &name[..start],
                    suffix: &name[end..],
                },
                &name[start..end],
            ))
        }
        Pass::Leading => {
            let width = name.bytes().take_while(u8::is_ascii_digit).count();
            let rest = &name[width..];
            // A separator after the number: `0001_initial.py`, `12-intro.md`.
            if width == 0 || !rest.starts_with(['_', '-', '.', ' ']) {
                return None;
            }
            let extension = rest.rfind('.').map_or("", |dot| &rest[dot..]);
            Some((Key::Leading { width, extension }, &name[..width]))
        }
    }
}

/// The number's value (names with more than 38 digits compare as equal and
/// then by text).
fn number(digits: &str) -> u128 {
    digits.parse().unwrap_or(u128::MAX)
}

fn last_digits(name: &str) -> Option<(usize, usize)> {
    let bytes = name.as_bytes();
    let end = bytes.iter().rposition(u8::is_ascii_digit)? + 1;
    let start = bytes[..end]
        .iter()
        .rposition(|b| !b.is_ascii_digit())
        .map_or(0, |p| p + 1);
    Some((start, end))
}

/// `prefix{1..3,5}suffix (4 files)`: runs of three or more consecutive
/// numbers as `a..b`, the others one by one.
fn label(key: &Key, members: &[(usize, &str)]) -> String {
    let mut set = String::new();
    let mut i = 0;
    while i < members.len() {
        let mut j = i;
        while j + 1 < members.len()
            && number(members[j + 1].1) == number(members[j].1).saturating_add(1)
        {
            j += 1;
        }
        if !set.is_empty() {
            set.push(',');
        }
        if j - i + 1 >= 3 {
            let _ = write!(set, "{}..{}", members[i].1, members[j].1);
            i = j + 1;
        } else {
            set.push_str(members[i].1);
            i += 1;
        }
    }
    let n = members.len();
    match key {
        Key::Around { prefix, suffix } => format!("{prefix}{{{set}}}{suffix} ({n} files)"),
        Key::Leading { extension, .. } => format!("{{{set}}}*{extension} ({n} files)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::Filters;
    use crate::listing::{Entry, Listing};

    fn labels(names: &[&str]) -> Vec<String> {
        let listing = Listing {
            root_name: "r".into(),
            entries: names.iter().map(|n| Entry::file(*n)).collect(),
            ..Listing::default()
        };
        let filters = Filters::new(false, &[], &[]).unwrap();
        let tree = Tree::build(&listing, &filters);
        units(&tree, 0, true)
            .into_iter()
            .map(|u| match u {
                Unit::Node(id) => tree.nodes[id].name.to_owned(),
                Unit::Group { label, .. } => label,
            })
            .collect()
    }

    #[test]
    fn a_contiguous_run_is_a_range() {
        let names: Vec<String> = (1..=12).map(|i| format!("f{i:02}.txt")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(labels(&names), ["f{01..12}.txt (12 files)"]);
    }

    #[test]
    fn a_gap_is_shown_not_hidden() {
        let names = ["Q1.svg", "Q2.svg", "Q4.svg", "Q5.svg", "Q6.svg"];
        assert_eq!(labels(&names), ["Q{1,2,4..6}.svg (5 files)"]);
        assert_eq!(
            labels(&[
                "1-length.bench.mjs",
                "5-length.bench.mjs",
                "11-length.bench.mjs"
            ]),
            ["{1,5,11}-length.bench.mjs (3 files)"]
        );
    }

    #[test]
    fn two_files_are_not_a_run() {
        assert_eq!(
            labels(&["a1.txt", "a2.txt", "b.txt"]),
            ["a1.txt", "a2.txt", "b.txt"]
        );
    }

    #[test]
    fn hash_names_are_never_grouped() {
        let names = ["4f3a9b1c.html", "5e6d7f8a.html", "9a8b7c6d.html"];
        assert_eq!(labels(&names), names);
    }

    #[test]
    fn leading_numbers_are_grouped() {
        assert_eq!(
            labels(&[
                "0001_initial.py",
                "0002_add_user.py",
                "0003_index.py",
                "__init__.py"
            ]),
            ["{0001..0003}*.py (3 files)", "__init__.py"]
        );
    }
}
