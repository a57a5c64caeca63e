//! The project's file list for a coding agent's initial context: a
//! gitignore-aware walk (or a listing from a hosting API), limits that keep
//! every top-level entry visible, three renderings in few tokens, and a
//! token budget met by search.
//!
//! ```
//! use agentctx_filelist::{FileListOptions, list_local};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let root = tempfile::tempdir()?;
//! std::fs::create_dir_all(root.path().join("src/bin"))?;
//! std::fs::write(root.path().join("src/bin/main.rs"), "fn main() {}")?;
//! std::fs::write(root.path().join("Cargo.toml"), "[package]")?;
//! std::fs::create_dir_all(root.path().join("target/debug"))?;
//! std::fs::write(root.path().join("target/debug/app"), "")?;
//!
//! let list = list_local(root.path(), &FileListOptions::default())?;
//! let body: Vec<&str> = list.text.lines().skip(1).collect();
//! assert_eq!(body, ["src/bin/", "  main.rs", "Cargo.toml", "(2 files, 2 directories shown)", "</project_files>"]);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod classify;
mod compact;
mod error;
mod exclude;
mod filters;
mod group;
mod line_counts;
mod listing;
mod name;
#[cfg(feature = "remote")]
pub mod remote;
mod render;
mod select;
mod tokens;
#[cfg(feature = "git-index")]
mod tracked;
mod tree;
mod walk;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use agentctx_types::{FileListFormat, FileListReport};
pub use error::FileListError;
pub use filters::{DEFAULT_EXCLUDES, Filters};
pub use listing::{Entry, Listing, SourceNote};
#[cfg(feature = "remote")]
pub use remote::{Platform, RemoteError, RemoteOptions, RemoteRepo};
pub use tokens::Tokenizer;

/// Everything that shapes a listing. `Default` is the spec's defaults.
#[derive(Clone, Debug)]
pub struct FileListOptions {
    /// Tree, flat or compact.
    pub format: FileListFormat,
    /// Deepest level shown, as `tree -L` counts: the root's children are
    /// depth 1, and every folder of a chain of single-child folders is a
    /// level. `None`: no limit (the entry limit or the budget cuts by the
    /// ranking, which shows a source tree deeper than its documentation).
    pub max_depth: Option<usize>,
    /// Entries shown at most (files, directories and grouped runs each
    /// count once). `None`: 500 without a token budget, no limit with one.
    pub max_files: Option<usize>,
    /// Group runs of files that differ only by a number.
    pub group: bool,
    /// Show sizes in bytes.
    pub sizes: bool,
    /// Show modification dates (UTC).
    pub mtimes: bool,
    /// Follow symlinks while walking.
    pub follow_links: bool,
    /// The root is no project's: no root marker was found (a home folder,
    /// a scratch folder). Dot files and folders, where tools keep their
    /// private state (`~/.claude/`, `~/.ssh/`), are not listed, and the
    /// listing says that no project root was found.
    pub outside_project: bool,
    /// Stop walking after this long.
    pub timeout: Duration,
    /// Walking threads: 0 picks from the available cores, 1 walks in the
    /// calling thread. The output does not depend on it.
    pub threads: usize,
    /// Apply [`DEFAULT_EXCLUDES`].
    pub default_excludes: bool,
    /// More exclude patterns (gitignore-like, as in rule files).
    pub exclude: Vec<String>,
    /// When non-empty, only matching files (and the directories leading to them).
    pub include: Vec<String>,
    /// `generated=` in the header, seconds since the epoch; `None` leaves it out.
    pub generated: Option<i64>,
    /// Fill this many tokens with the most valuable listing that fits.
    pub token_budget: Option<usize>,
    /// Report the listing's token count (loads the tokenizer; a budget
    /// alone loads it only when byte lengths do not decide).
    pub count_tokens: bool,
    /// Which tokenizer.
    pub tokenizer: Tokenizer,
    /// A folder where each project's line token counts are kept between
    /// runs (`$XDG_CACHE_HOME/agentctx/filelist-tokens`), so an unchanged
    /// tree is fitted without loading the tokenizer; `None`: not kept.
    pub token_cache: Option<PathBuf>,
}

impl Default for FileListOptions {
    fn default() -> Self {
        Self {
            format: FileListFormat::Tree,
            max_depth: None,
            max_files: None,
            group: true,
            sizes: false,
            mtimes: false,
            follow_links: false,
            outside_project: false,
            timeout: Duration::from_secs(30),
            threads: 0,
            default_excludes: true,
            exclude: Vec::new(),
            include: Vec::new(),
            generated: None,
            token_budget: None,
            count_tokens: false,
            tokenizer: Tokenizer::O200k,
            token_cache: None,
        }
    }
}

impl FileListOptions {
    /// The options the config gives, then the rule file's `file_list`
    /// (patterns added, depth and format replaced). Flags go on top of this.
    pub fn layered(
        config: &agentctx_types::FileListConfig,
        rule: &agentctx_types::FileListOverrides,
    ) -> Self {
        let to_usize =
            |n: agentctx_types::PositiveInt| usize::try_from(n.get()).unwrap_or(usize::MAX);
        let mut exclude = config.exclude_patterns.clone();
        exclude.extend(rule.exclude_patterns.iter().cloned());
        let mut include = config.include_patterns.clone();
        include.extend(rule.include_patterns.iter().cloned());
        Self {
            format: rule.format.unwrap_or(config.format),
            max_depth: rule.max_depth.or(config.max_depth).map(to_usize),
            max_files: config.max_files.map(to_usize),
            token_budget: config.token_budget.map(to_usize),
            sizes: config.include_file_sizes,
            mtimes: config.include_last_modified,
            timeout: Duration::from_secs(config.timeout_secs.get()),
            exclude,
            include,
            ..Self::default()
        }
    }
}

/// Walks `root` and renders its file list.
pub fn list_local(root: &Path, options: &FileListOptions) -> Result<FileListReport, FileListError> {
    let filters = if options.outside_project {
        // Pruned by the walk: a home's tool caches are never entered.
        let mut exclude = options.exclude.clone();
        exclude.push(".*".to_owned());
        Filters::new(options.default_excludes, &exclude, &options.include)?
    } else {
        Filters::new(options.default_excludes, &options.exclude, &options.include)?
    };
    let walk_options = walk::WalkOptions {
        follow_links: options.follow_links,
        sizes: options.sizes,
        mtimes: options.mtimes,
        timeout: options.timeout,
        threads: options.threads,
    };
    #[cfg_attr(not(feature = "git-index"), allow(unused_mut))]
    let mut listing = walk::walk(root, &filters, &walk_options)?;
    #[cfg(feature = "git-index")]
    tracked::add_tracked(root, &filters, &mut listing, &walk_options);
    if options.outside_project {
        listing.notes.push(SourceNote::OutsideProject);
    }
    render_keyed(&listing, &filters, options, &root.to_string_lossy())
}

/// Renders a remote listing (a hosting API or saved JSON) with the same
/// filters, limits and formats as a local one.
pub fn render_remote(
    listing: &Listing,
    options: &FileListOptions,
) -> Result<FileListReport, FileListError> {
    let filters = Filters::new(options.default_excludes, &options.exclude, &options.include)?;
    render_keyed(listing, &filters, options, &listing.root_name)
}

/// Entries shown without a token budget and without a limit of one's own.
pub const DEFAULT_MAX_FILES: usize = 500;
/// How deep a truncated GitHub tree is read level by level when no depth
/// is given (the listing itself has no depth limit unless one is given).
pub const DEFAULT_COMPLETION_DEPTH: usize = 3;

/// Renders a listing from any source (the local walk, a hosting API).
pub fn render_listing(
    listing: &Listing,
    filters: &Filters,
    options: &FileListOptions,
) -> Result<FileListReport, FileListError> {
    render_keyed(listing, filters, options, &listing.root_name)
}

/// [`render_listing`], with the line token counts kept under `key` (the
/// root's path, or a remote's `owner/repo@sha`).
fn render_keyed(
    listing: &Listing,
    filters: &Filters,
    options: &FileListOptions,
    key: &str,
) -> Result<FileListReport, FileListError> {
    let counts = line_counts::LineCounts::load(
        options.tokenizer,
        options.token_cache.as_ref().map(|dir| {
            dir.join(format!(
                "{:016x}-{}.bin",
                line_counts::key_hash(key),
                options.tokenizer.name()
            ))
        }),
    );
    let tree = tree::Tree::build(listing, filters);
    // With a budget, the budget is the limit; limits given still apply.
    // A depth is a limit only when given: by default the ranking decides
    // how deep each part of the tree is shown (a source tree deeper than
    // its documentation).
    let max_depth = options.max_depth.unwrap_or(usize::MAX);
    let max_files = match options.token_budget {
        None => options.max_files.unwrap_or(DEFAULT_MAX_FILES),
        Some(_) => options.max_files.unwrap_or(usize::MAX),
    };
    // A listing no limit can cut is the whole tree: neither ranked nor
    // classified (the compact format still needs the classes).
    let whole = options.token_budget.is_none()
        && max_files >= tree.nodes.len()
        && max_depth >= tree.height();
    let classes = if whole && options.format != FileListFormat::Compact {
        vec![classify::Class::Normal; tree.nodes.len()]
    } else {
        // The compact rendering, and the whole tree it is weighed
        // against, rank at every depth.
        let classified_depth = if options.format == FileListFormat::Compact {
            usize::MAX
        } else {
            max_depth.max(1)
        };
        classify::classify(&tree, classified_depth)
    };
    let order = if whole {
        select::Order::all(&tree, options.group)
    } else {
        // No listing takes more than `max_files` entries (500 without a
        // budget): the rest of the tree need not be ranked.
        select::Order::new(
            &tree,
            &classes,
            max_depth.max(1),
            options.group,
            max_files.max(1),
        )
    };
    let render_options = render::RenderOptions {
        format: options.format,
        max_depth: max_depth.max(1),
        max_files: max_files.max(1),
        sizes: options.sizes,
        mtimes: options.mtimes,
        generated: options.generated,
        budget: None,
    };
    let (rendered, used) = match options.token_budget {
        Some(budget) => tokens::fit(
            listing,
            &tree,
            &classes,
            &order,
            &render_options,
            budget,
            &counts,
        ),
        None => {
            let mut r = render::render(listing, &tree, &classes, &order, &render_options);
            // Compact is never larger than the whole tree it summarises.
            // The whole tree has at least two bytes per directory (`x/`)
            // and, ungrouped, per file: a compact text below that bound
            // is smaller without rendering the tree.
            let tree_at_least = 2 * tree.dirs_total
                + if options.group {
                    0
                } else {
                    2 * tree.files_total
                };
            if r.format == FileListFormat::Compact && r.text.len() >= tree_at_least {
                let whole = render::RenderOptions {
                    format: FileListFormat::Tree,
                    max_files: usize::MAX,
                    ..render_options.clone()
                };
                let unlimited =
                    select::Order::new(&tree, &classes, usize::MAX, options.group, usize::MAX);
                let full = render::render(listing, &tree, &classes, &unlimited, &whole);
                if full.text.len() <= r.text.len() {
                    r = full;
                }
            }
            (r, render_options)
        }
    };
    let tokens = if options.count_tokens {
        Some(counts.count(&rendered.text))
    } else {
        None
    };
    counts.save();
    let n = |v: usize| v as u64;
    Ok(FileListReport {
        text: rendered.text,
        root: listing.root_name.clone(),
        format: rendered.format,
        generated: rendered.generated,
        files_shown: n(rendered.files_shown),
        dirs_shown: n(rendered.dirs_shown),
        files_total: n(rendered.files_total),
        dirs_total: n(rendered.dirs_total),
        partial: !rendered.partial_reasons.is_empty(),
        partial_reasons: rendered.partial_reasons,
        tokens: tokens.map(n),
        max_depth: (used.max_depth != usize::MAX).then(|| n(used.max_depth)),
        max_files: (used.max_files != usize::MAX).then(|| n(used.max_files)),
    })
}
