//! The three renderings, the header and the footer.

use std::fmt::Write as _;

use agentctx_types::FileListFormat;

use crate::listing::{Listing, SourceNote};
use crate::select::{Selection, select};
use crate::tree::{ROOT, Tree, Unit};

/// How to render.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    pub format: FileListFormat,
    pub max_depth: usize,
    pub max_files: usize,
    pub group: bool,
    pub sizes: bool,
    pub mtimes: bool,
    /// Seconds since the epoch for `generated=`; `None` leaves it out.
    pub generated: Option<i64>,
}

/// A rendered listing and its counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    pub format: FileListFormat,
    pub files_shown: usize,
    pub dirs_shown: usize,
    pub files_total: usize,
    pub dirs_total: usize,
    pub partial_reasons: Vec<String>,
    pub generated: Option<String>,
}

pub fn render(listing: &Listing, tree: &Tree, options: &RenderOptions) -> Rendered {
    let compact = options.format == FileListFormat::Compact;
    let top_filter = |id: usize| !compact || is_important(tree, id);
    let selection = select(
        tree,
        options.max_depth,
        options.max_files,
        options.group,
        &top_filter,
    );
    let mut body = String::new();
    match options.format {
        FileListFormat::Tree => tree_lines(tree, &selection, options, ROOT, 0, &mut body),
        FileListFormat::Flat => flat_lines(tree, &selection, options, &mut body),
        FileListFormat::Compact => {
            tree_lines(tree, &selection, options, ROOT, 0, &mut body);
            compact_rest(tree, &selection, &mut body);
        }
    }
    let mut reasons = Vec::new();
    if selection.cut_by_files {
        reasons.push(format!(
            "max_files {} of {} files",
            options.max_files, tree.files_total
        ));
    }
    if selection.cut_by_depth {
        reasons.push(format!("max_depth {}", options.max_depth));
    }
    let mut notes = Vec::new();
    for note in &listing.notes {
        match note {
            SourceNote::Timeout { secs } => reasons.push(format!("timeout after {secs}s")),
            SourceNote::Unreadable { paths } => reasons.push(format!(
                "{} unreadable: {}",
                plural(paths.len(), "directory", "directories"),
                paths.join(", ")
            )),
            SourceNote::Truncated { by } => reasons.push(format!("truncated by {by}")),
            SourceNote::NoSizes { source } if options.sizes => {
                notes.push(format!("{source} gives no sizes"))
            }
            SourceNote::NoSizes { .. } => {}
        }
    }
    if listing.non_utf8_names > 0 {
        notes.push(format!(
            "{} not valid UTF-8, shown with U+FFFD",
            plural(listing.non_utf8_names, "name", "names")
        ));
    }
    let generated = options.generated.and_then(format_timestamp);
    let format_name = match options.format {
        FileListFormat::Tree => "tree",
        FileListFormat::Flat => "flat",
        FileListFormat::Compact => "compact",
    };
    let mut text = format!(
        "<project_files root=\"{}\" format=\"{format_name}\"",
        escape_attr(&listing.root_name)
    );
    if let Some(at) = &generated {
        let _ = write!(text, " generated=\"{at}\"");
    }
    text.push_str(">\n");
    text.push_str(&body);
    let (files_shown, dirs_shown) = (selection.files_shown(), selection.dirs_shown());
    let _ = write!(
        text,
        "({}, {} shown",
        plural(files_shown, "file", "files"),
        plural(dirs_shown, "directory", "directories")
    );
    if !reasons.is_empty() {
        let _ = write!(text, "; partial: {}", reasons.join("; "));
    }
    for note in &notes {
        let _ = write!(text, "; {note}");
    }
    text.push_str(")\n</project_files>\n");
    Rendered {
        text,
        format: options.format,
        files_shown,
        dirs_shown,
        files_total: tree.files_total,
        dirs_total: tree.dirs_total,
        partial_reasons: reasons,
        generated,
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn escape_attr(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

/// RFC 3339 in UTC, whole seconds.
pub fn format_timestamp(secs: i64) -> Option<String> {
    let at = jiff::Timestamp::from_second(secs).ok()?;
    Some(at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
}

fn date_of(secs: i64) -> Option<String> {
    let at = jiff::Timestamp::from_second(secs).ok()?;
    Some(at.strftime("%Y-%m-%d").to_string())
}

fn file_label(tree: &Tree, id: usize, options: &RenderOptions) -> String {
    let node = &tree.nodes[id];
    let mut label = node.name.clone();
    if options.sizes
        && let Some(size) = node.size
    {
        let _ = write!(label, " {size}");
    }
    if options.mtimes
        && let Some(date) = node.mtime.and_then(date_of)
    {
        let _ = write!(label, " {date}");
    }
    label
}

fn group_label(tree: &Tree, members: &[usize]) -> String {
    let first = members
        .first()
        .map(|m| tree.nodes[*m].name.as_str())
        .unwrap_or("");
    let last = members
        .last()
        .map(|m| tree.nodes[*m].name.as_str())
        .unwrap_or("");
    format!("{first} .. {last} ({} files)", members.len())
}

/// `... (N files, M dirs)` for the children a shown directory does not
/// show (whole subtrees). Each hidden entry is counted once, at the nearest
/// shown directory: a shown subdirectory summarises its own.
fn summary(tree: &Tree, selection: &Selection, dir: usize) -> Option<String> {
    if tree.nodes[dir].submodule {
        return None;
    }
    let (mut files, mut dirs) = (0, 0);
    for &child in &tree.nodes[dir].children {
        if selection.shown[child] {
            continue;
        }
        let node = &tree.nodes[child];
        if node.is_dir {
            dirs += 1 + node.dirs_below;
            files += node.files_below;
        } else {
            files += 1;
        }
    }
    match (files, dirs) {
        (0, 0) => None,
        (f, 0) => Some(format!("... ({})", plural(f, "file", "files"))),
        (0, d) => Some(format!("... ({})", plural(d, "dir", "dirs"))),
        (f, d) => Some(format!(
            "... ({}, {})",
            plural(f, "file", "files"),
            plural(d, "dir", "dirs")
        )),
    }
}

fn tree_lines(
    tree: &Tree,
    selection: &Selection,
    options: &RenderOptions,
    dir: usize,
    indent: usize,
    out: &mut String,
) {
    for unit in &selection.units[dir] {
        for _ in 0..indent {
            out.push_str("  ");
        }
        match unit {
            Unit::Group(members) => {
                let _ = writeln!(out, "{}", group_label(tree, members));
            }
            Unit::Node(id) if !tree.nodes[*id].is_dir => {
                let _ = writeln!(out, "{}", file_label(tree, *id, options));
            }
            Unit::Node(id) => {
                // Collapse chains of single-child directories onto one line.
                let mut last = *id;
                let mut label = format!("{}/", tree.nodes[last].name);
                loop {
                    let units = &selection.units[last];
                    let only_dir = match units.as_slice() {
                        [Unit::Node(child)]
                            if tree.nodes[*child].is_dir && !tree.nodes[*child].submodule =>
                        {
                            Some(*child)
                        }
                        _ => None,
                    };
                    // A directory folds into its only shown child when it
                    // hides nothing of its own.
                    match only_dir {
                        Some(child) if summary(tree, selection, last).is_none() => {
                            let _ = write!(label, "{}/", tree.nodes[child].name);
                            last = child;
                        }
                        _ => break,
                    }
                }
                if tree.nodes[last].submodule {
                    label.push_str(" @submodule");
                }
                let _ = writeln!(out, "{label}");
                tree_lines(tree, selection, options, last, indent + 1, out);
                if let Some(line) = summary(tree, selection, last) {
                    for _ in 0..=indent {
                        out.push_str("  ");
                    }
                    let _ = writeln!(out, "{line}");
                }
            }
        }
    }
}

fn flat_lines(tree: &Tree, selection: &Selection, options: &RenderOptions, out: &mut String) {
    let mut lines: Vec<String> = Vec::new();
    let mut stack = vec![ROOT];
    while let Some(dir) = stack.pop() {
        let prefix = match tree.path_of(dir) {
            p if p.is_empty() => String::new(),
            p => format!("{p}/"),
        };
        for unit in &selection.units[dir] {
            match unit {
                Unit::Group(members) => {
                    lines.push(format!("{prefix}{}", group_label(tree, members)))
                }
                Unit::Node(id) if tree.nodes[*id].is_dir => {
                    let mark = if tree.nodes[*id].submodule {
                        " @submodule"
                    } else {
                        ""
                    };
                    lines.push(format!("{prefix}{}/{mark}", tree.nodes[*id].name));
                    stack.push(*id);
                    if let Some(line) = summary(tree, selection, *id) {
                        lines.push(format!("{prefix}{}/{line}", tree.nodes[*id].name));
                    }
                }
                Unit::Node(id) => lines.push(format!("{prefix}{}", file_label(tree, *id, options))),
            }
        }
    }
    lines.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
}

/// Top-level names shown in full by the compact format.
const IMPORTANT_DIRS: [&str; 9] = [
    "src", "lib", "app", "crates", "packages", "tests", "test", "spec", ".github",
];

fn is_important(tree: &Tree, id: usize) -> bool {
    let node = &tree.nodes[id];
    let name = node.name.as_str();
    if node.is_dir {
        return IMPORTANT_DIRS.contains(&name);
    }
    let lower = name.to_ascii_lowercase();
    [
        "readme",
        "contributing",
        "license",
        "licence",
        "agents.md",
        "changelog",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
        || [
            "Cargo.toml",
            "package.json",
            "pyproject.toml",
            "setup.py",
            "go.mod",
            "pom.xml",
            "Gemfile",
            "composer.json",
            "Makefile",
            "Dockerfile",
            "CMakeLists.txt",
            "deno.json",
            "tsconfig.json",
        ]
        .contains(&name)
        || name.starts_with("build.gradle")
}

/// The compact format's summaries of everything not shown in full.
fn compact_rest(tree: &Tree, selection: &Selection, out: &mut String) {
    let mut other_files = Vec::new();
    for &child in &tree.nodes[ROOT].children {
        if selection.shown[child] {
            continue;
        }
        let node = &tree.nodes[child];
        if node.is_dir {
            let mut names = Vec::new();
            collect_file_names(tree, child, &mut names);
            let _ = writeln!(out, "{}/ ({})", node.name, extension_summary(&names));
        } else {
            other_files.push(node.name.as_str());
        }
    }
    if !other_files.is_empty() {
        let _ = writeln!(
            out,
            "(root: {})",
            extension_summary(&other_files)
                .replacen("files", "other files", 1)
                .replacen("file:", "other file:", 1)
        );
    }
}

fn collect_file_names<'t>(tree: &'t Tree, dir: usize, out: &mut Vec<&'t str>) {
    let mut stack = vec![dir];
    while let Some(id) = stack.pop() {
        for &child in &tree.nodes[id].children {
            if tree.nodes[child].is_dir {
                stack.push(child);
            } else {
                out.push(tree.nodes[child].name.as_str());
            }
        }
    }
}

/// `34 files: 30 .md, 4 .png` (the three commonest extensions, then the rest).
fn extension_summary(names: &[&str]) -> String {
    let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for name in names {
        let ext = match name.rfind('.') {
            Some(0) | None => "no extension".to_owned(),
            Some(dot) => name[dot..].to_ascii_lowercase(),
        };
        *counts.entry(ext).or_default() += 1;
    }
    let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let total = names.len();
    let head = plural(total, "file", "files");
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
