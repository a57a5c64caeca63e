//! The compact format: one line per top-level entry. Files that explain
//! the project and its manifests first, by name; then each directory with
//! its shape (`src/ (120 files: 100 .rs, 20 .toml)`), and, for a source
//! directory or package, the names of its subdirectories on the next line;
//! low-value directories and files last, summarised.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::classify::Class;
use crate::name::display;
use crate::tree::{ROOT, Tree};

/// What the compact rendering shows.
pub struct Shape {
    /// Files named.
    pub files_shown: usize,
    /// Directories named.
    pub dirs_shown: usize,
    /// Files only counted.
    pub files_summarised: usize,
}

/// Writes the compact body of `tree` to `out`.
pub fn compact(tree: &Tree, classes: &[Class], out: &mut String) -> Shape {
    let mut shape = Shape {
        files_shown: 0,
        dirs_shown: 0,
        files_summarised: 0,
    };
    let root = &tree.nodes[ROOT];
    let mut other_files = Vec::new();
    for &child in &root.children {
        let node = &tree.nodes[child];
        if node.is_dir {
            continue;
        }
        if classes[child] == Class::Low {
            other_files.push(node.name);
        } else {
            let _ = writeln!(out, "{}", display(node.name));
            shape.files_shown += 1;
        }
    }
    let mut dirs: Vec<usize> = root
        .children
        .iter()
        .copied()
        .filter(|&c| tree.nodes[c].is_dir)
        .collect();
    dirs.sort_by_key(|&d| classes[d]);
    for dir in dirs {
        let node = &tree.nodes[dir];
        shape.dirs_shown += 1;
        shape.files_summarised += node.files_below;
        if node.submodule {
            let _ = writeln!(out, "{}/ @submodule", display(node.name));
            continue;
        }
        let mut names = Vec::new();
        collect_file_names(tree, dir, &mut names);
        let _ = writeln!(
            out,
            "{}/ ({})",
            display(node.name),
            extension_summary(&names)
        );
        if classes[dir] == Class::High {
            let subdirs: Vec<String> = node
                .children
                .iter()
                .filter(|&&c| tree.nodes[c].is_dir)
                .map(|&c| format!("{}/", display(tree.nodes[c].name)))
                .collect();
            if !subdirs.is_empty() {
                shape.dirs_shown += subdirs.len();
                let _ = writeln!(out, "  {}", subdirs.join(" "));
            }
        }
    }
    if !other_files.is_empty() {
        shape.files_summarised += other_files.len();
        let _ = writeln!(
            out,
            "(root: {})",
            extension_summary(&other_files)
                .replacen("files", "other files", 1)
                .replacen("file:", "other file:", 1)
        );
    }
    shape
}

fn collect_file_names<'t>(tree: &'t Tree, dir: usize, out: &mut Vec<&'t str>) {
    let mut stack = vec![dir];
    while let Some(id) = stack.pop() {
        for &child in &tree.nodes[id].children {
            if tree.nodes[child].is_dir {
                stack.push(child);
            } else {
                out.push(tree.nodes[child].name);
            }
        }
    }
}

/// `34 files: 30 .md, 4 .png` (the three commonest extensions, then the rest).
fn extension_summary(names: &[&str]) -> String {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for name in names {
        let ext = match name.rfind('.') {
            Some(0) | None => "no extension".to_owned(),
            Some(dot) => display(&name[dot..].to_ascii_lowercase()).into_owned(),
        };
        *counts.entry(ext).or_default() += 1;
    }
    let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let total = names.len();
    let head = if total == 1 {
        "1 file".to_owned()
    } else {
        format!("{total} files")
    };
    match ranked.as_slice() {
        [] => head,
        [(ext, _)] => format!("{head}: {ext}"),
        _ => {
            let mut parts: Vec<String> = ranked
                .iter()
                .take(3)
                .map(|(ext, n)| format!("{n} {ext}"))
                .collect();
            let rest: usize = ranked.iter().skip(3).map(|(_, n)| n).sum();
            if rest > 0 {
                parts.push(format!("{rest} other"));
            }
            format!("{head}: {}", parts.join(", "))
        }
    }
}
