//! The three renderings, the header and the footer.

use std::fmt::Write as _;

use agentctx_types::FileListFormat;

use crate::classify::Class;
use crate::group::Unit;
use crate::listing::{Listing, SourceNote};
use crate::name::display;
use crate::select::{Order, Selection};
use crate::tree::{ROOT, Tree};

/// How to render.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    pub format: FileListFormat,
    /// Deepest level ranked (`usize::MAX`: no limit).
    pub max_depth: usize,
    /// Entries shown at most (`usize::MAX`: no limit).
    pub max_files: usize,
    pub sizes: bool,
    pub mtimes: bool,
    /// Seconds since the epoch for `generated=`; `None` leaves it out.
    pub generated: Option<i64>,
    /// The token budget the entry count was fitted to, named in the
    /// partial reason instead of `max_files`.
    pub budget: Option<usize>,
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
    /// Top-level entries, High or Normal, that are not named.
    pub top_hidden: usize,
}

/// The tree or flat rendering of the first `options.max_files` entries of
/// `order`, or the compact one.
pub fn render(
    listing: &Listing,
    tree: &Tree,
    classes: &[Class],
    order: &Order,
    options: &RenderOptions,
) -> Rendered {
    let mut reasons = Vec::new();
    let mut body = String::new();
    let mut top_hidden = 0;
    let (files_shown, dirs_shown) = if options.format == FileListFormat::Compact {
        let shape = crate::compact::compact(tree, classes, &mut body);
        if shape.files_summarised > 0 {
            reasons.push(format!(
                "compact: {} summarised",
                plural(shape.files_summarised, "file", "files")
            ));
        }
        (shape.files_shown, shape.dirs_shown)
    } else {
        let selection = order.select(tree, options.max_files);
        top_hidden = tree.nodes[ROOT]
            .children
            .iter()
            .filter(|&&c| !selection.shown[c] && classes[c] != Class::Low)
            .count();
        match options.format {
            FileListFormat::Flat => flat_lines(tree, &selection, options, &mut body),
            _ => tree_lines(tree, &selection, options, ROOT, 0, &mut body),
        }
        if selection.cut_by_entries {
            reasons.push(match options.budget {
                Some(budget) => format!("token budget {budget}"),
                None => format!(
                    "max_files {} of {} files",
                    options.max_files, tree.files_total
                ),
            });
        }
        if selection.cut_by_depth {
            reasons.push(format!("max_depth {}", options.max_depth));
        }
        (selection.files_shown(), selection.dirs_shown())
    };
    let mut notes = Vec::new();
    for note in &listing.notes {
        match note {
            SourceNote::Timeout { secs } => reasons.push(format!("timeout after {secs}s")),
            SourceNote::Unreadable { paths } => reasons.push(format!(
                "{} unreadable: {}",
                plural(paths.len(), "directory", "directories"),
                paths.join(", ")
            )),
            SourceNote::LinkCycles { links } => reasons.push(format!(
                "{} not followed: {}",
                plural(links.len(), "symlink cycle", "symlink cycles"),
                links
                    .iter()
                    .map(|(link, folder)| format!("{link} -> {folder}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            SourceNote::Truncated { by } => reasons.push(format!("truncated by {by}")),
            SourceNote::NoSizes { source } if options.sizes => {
                notes.push(format!("{source} gives no sizes"))
            }
            SourceNote::NoSizes { .. } => {}
            SourceNote::OutsideProject => {
                reasons.push("no project root found: dot files and folders not listed".to_owned())
            }
            SourceNote::CompleteTo { depth } => notes.push(format!(
                "GitHub truncated its answer: complete to depth {depth}"
            )),
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
    if let Some(reference) = &listing.reference {
        let _ = write!(text, " ref=\"{}\"", escape_attr(reference));
    }
    if let Some(at) = listing.fetched_at.and_then(format_timestamp) {
        let _ = write!(text, " fetched=\"{at}\"");
    }
    if let Some(why) = &listing.stale {
        let _ = write!(text, " stale=\"{}\"", escape_attr(why));
    }
    if let Some(at) = &generated {
        let _ = write!(text, " generated=\"{at}\"");
    }
    if !reasons.is_empty() {
        let _ = write!(text, " partial=\"{}\"", escape_attr(&reasons.join("; ")));
    }
    text.push_str(">\n");
    text.push_str(&body);
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
        top_hidden,
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn escape_attr(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('\n', "&#10;")
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

fn file_label<'t>(tree: &'t Tree, id: usize, options: &RenderOptions) -> std::borrow::Cow<'t, str> {
    let node = &tree.nodes[id];
    let shown = display(node.name);
    // Most labels are the name alone: borrowed, not copied.
    if !node.symlink && !options.sizes && !options.mtimes {
        return shown;
    }
    let mut label = shown.into_owned();
    if node.symlink {
        label.push('@');
    }
    if options.sizes
        && let Some(size) = node.size()
    {
        let _ = write!(label, " {size}");
    }
    if options.mtimes
        && let Some(date) = node.mtime().and_then(date_of)
    {
        let _ = write!(label, " {date}");
    }
    label.into()
}

/// `... (N files, M dirs)` for the children a shown directory does not
/// show (whole subtrees). Each hidden entry is counted once, at the nearest
/// shown directory: a shown subdirectory summarises its own.
fn summary(tree: &Tree, selection: &Selection, dir: usize) -> Option<String> {
    hidden_counts(tree, selection, dir).map(|counts| format!("... {counts}"))
}

/// `(N files, M dirs)` hidden below a shown directory, if any.
fn hidden_counts(tree: &Tree, selection: &Selection, dir: usize) -> Option<String> {
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
        (f, 0) => Some(format!("({})", plural(f, "file", "files"))),
        (0, d) => Some(format!("({})", plural(d, "dir", "dirs"))),
        (f, d) => Some(format!(
            "({}, {})",
            plural(f, "file", "files"),
            plural(d, "dir", "dirs")
        )),
    }
}

/// A directory's name as its line starts: `name/`, a chain folded onto
/// one line (`src/main/java/`), and where its children continue.
fn dir_label(tree: &Tree, selection: &Selection, id: usize) -> (String, usize) {
    let mut last = id;
    let mut label = format!("{}/", display(tree.nodes[last].name));
    // A directory folds into its only shown child when it hides nothing of
    // its own (its only child: the chain's links are shown with the head).
    while let [Unit::Node(child)] = *selection.units_of(last) {
        if !tree.nodes[child].is_dir
            || tree.nodes[child].submodule
            || hidden_counts(tree, selection, last).is_some()
        {
            break;
        }
        let _ = write!(label, "{}/", display(tree.nodes[child].name));
        last = child;
    }
    if tree.nodes[last].submodule {
        label.push_str(" @submodule");
    }
    (label, last)
}

fn tree_lines(
    tree: &Tree,
    selection: &Selection,
    options: &RenderOptions,
    dir: usize,
    indent: usize,
    out: &mut String,
) {
    let pad = |out: &mut String, indent: usize| {
        // Most lines are shallow: one copy from a run of spaces.
        const SPACES: &str = "                                ";
        match SPACES.get(..2 * indent) {
            Some(spaces) => out.push_str(spaces),
            None => (0..indent).for_each(|_| out.push_str("  ")),
        }
    };
    for unit in selection.units_of(dir) {
        pad(out, indent);
        match unit {
            Unit::Group { label, .. } => {
                let _ = writeln!(out, "{label}");
            }
            Unit::Node(id) if !tree.nodes[*id].is_dir => {
                out.push_str(&file_label(tree, *id, options));
                out.push('\n');
            }
            Unit::Node(id) => {
                let (label, last) = dir_label(tree, selection, *id);
                match hidden_counts(tree, selection, last) {
                    // Nothing of it shown: its counts on its own line.
                    Some(counts) if selection.units_of(last).is_empty() => {
                        let _ = writeln!(out, "{label} {counts}");
                    }
                    counts => {
                        let _ = writeln!(out, "{label}");
                        tree_lines(tree, selection, options, last, indent + 1, out);
                        if let Some(counts) = counts {
                            pad(out, indent + 1);
                            let _ = writeln!(out, "... {counts}");
                        }
                    }
                }
            }
        }
    }
    if dir == ROOT
        && let Some(line) = summary(tree, selection, ROOT)
    {
        let _ = writeln!(out, "{line}");
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
        for unit in selection.units_of(dir) {
            match unit {
                Unit::Group { label, .. } => lines.push(format!("{prefix}{label}")),
                Unit::Node(id) if tree.nodes[*id].is_dir => {
                    let mark = if tree.nodes[*id].submodule {
                        " @submodule"
                    } else {
                        ""
                    };
                    let name = display(tree.nodes[*id].name);
                    match hidden_counts(tree, selection, *id) {
                        Some(counts) if selection.units_of(*id).is_empty() => {
                            lines.push(format!("{prefix}{name}/ {counts}"));
                        }
                        counts => {
                            lines.push(format!("{prefix}{name}/{mark}"));
                            stack.push(*id);
                            if let Some(counts) = counts {
                                lines.push(format!("{prefix}{name}/... {counts}"));
                            }
                        }
                    }
                }
                Unit::Node(id) => lines.push(format!("{prefix}{}", file_label(tree, *id, options))),
            }
        }
    }
    lines.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    if let Some(line) = summary(tree, selection, ROOT) {
        lines.push(line);
    }
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
}
