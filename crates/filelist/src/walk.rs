//! The local source: a gitignore-aware walk of the project root.

use std::path::Path;
use std::time::{Duration, Instant};

use ignore::WalkBuilder;

use crate::error::FileListError;
use crate::filters::Filters;
use crate::listing::{Entry, Listing, SourceNote};

/// How to walk.
#[derive(Clone, Debug)]
pub struct WalkOptions {
    /// Follow symlinks (with loop detection).
    pub follow_links: bool,
    /// Read each file's size.
    pub sizes: bool,
    /// Read each file's modification time.
    pub mtimes: bool,
    /// Stop after this long and list what was found.
    pub timeout: Duration,
    /// Walking threads; 0 picks from the available cores, 1 walks in this thread.
    pub threads: usize,
}

/// Walks `root`: `.gitignore` files (also outside a git repository),
/// `.ignore`, `.git/info/exclude` and the global git excludes are honoured;
/// hidden files are listed unless excluded; excluded directories are never
/// entered. Unreadable directories, symlink cycles (when following links)
/// and non-UTF-8 names do not stop the walk.
pub fn walk(
    root: &Path,
    filters: &Filters,
    options: &WalkOptions,
) -> Result<Listing, FileListError> {
    std::fs::read_dir(root).map_err(|source| FileListError::Root {
        path: root.to_path_buf(),
        source,
    })?;
    let root_name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| root.display().to_string());
    let mut listing = Listing {
        root_name,
        excludes_applied: true,
        ..Listing::default()
    };
    let prune_root = root.to_path_buf();
    let prune_filters = filters.clone();
    let root_len = root.as_os_str().len();
    // The walker opens each folder's ignore files with a blocking `open`:
    // a FIFO planted as a `.gitignore` would hang the listing. At the root
    // such a file turns that kind of file off (named as unreadable); below
    // it, its folder is not entered.
    let special = |name: &str| !regular_or_absent(&root.join(name));
    let (root_ignore, root_git_ignore, root_exclude) = (
        special(".ignore"),
        special(".gitignore"),
        special(".git/info/exclude"),
    );
    let blocked = std::sync::Arc::new(std::sync::Mutex::new(
        [
            (root_ignore, ".ignore"),
            (root_git_ignore, ".gitignore"),
            (root_exclude, ".git/info/exclude"),
        ]
        .into_iter()
        .filter(|(bad, _)| *bad)
        .map(|(_, name)| name.to_owned())
        .collect::<Vec<String>>(),
    ));
    let blocked_below = std::sync::Arc::clone(&blocked);
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .ignore(!root_ignore)
        .git_ignore(!root_git_ignore)
        .git_global(true)
        .git_exclude(!root_exclude)
        .require_git(false)
        .follow_links(options.follow_links)
        .threads(options.threads)
        .filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if is_dir
                && [".gitignore", ".ignore"]
                    .iter()
                    .any(|name| !regular_or_absent(&entry.path().join(name)))
            {
                if let (Ok(mut list), Some(relative)) =
                    (blocked_below.lock(), relative_str(entry.path(), root_len))
                {
                    list.push(relative.to_owned());
                }
                return false;
            }
            // Its directories were decided before it was met: only what
            // is new in its path is matched.
            match relative_str(entry.path(), root_len) {
                Some(relative) => !prune_filters.excludes_below_kept(relative, is_dir),
                None => match entry.path().strip_prefix(&prune_root) {
                    Ok(relative) => {
                        !prune_filters.excludes_below_kept(&relative.to_string_lossy(), is_dir)
                    }
                    Err(_) => true,
                },
            }
        });

    let started = Instant::now();
    let collected = Collected::default();
    let context = Context {
        root,
        root_len,
        options,
        started,
    };
    if options.threads == 1 {
        let mut batch = Batch::default();
        for (count, result) in builder.build().enumerate() {
            if count % 1024 == 1023 && started.elapsed() > options.timeout {
                batch.timed_out = true;
                break;
            }
            context.take(result, &mut batch);
        }
        collected.absorb(batch);
    } else {
        builder.build_parallel().run(|| {
            let mut visitor = Visitor {
                batch: Batch::default(),
                collected: &collected,
                context: &context,
                seen: 0,
            };
            Box::new(move |result| visitor.visit(result))
        });
    }
    let mut all = collected.into_batch();
    if all.timed_out {
        listing.notes.push(SourceNote::Timeout {
            secs: options.timeout.as_secs(),
        });
    }
    listing.entries = without_empty_folders(root, std::mem::take(&mut all.entries));
    listing.non_utf8_names = all.non_utf8;
    let mut cycles = std::mem::take(&mut all.cycles);
    if !cycles.is_empty() {
        cycles.sort();
        cycles.dedup();
        listing.notes.push(SourceNote::LinkCycles { links: cycles });
    }
    let mut unreadable = all.unreadable;
    if let Ok(mut list) = blocked.lock() {
        unreadable.append(&mut list);
    }
    if !unreadable.is_empty() {
        unreadable.sort();
        unreadable.dedup();
        listing
            .notes
            .push(SourceNote::Unreadable { paths: unreadable });
    }
    Ok(listing)
}

/// `entries` without the folders that are empty on disk, or hold only
/// empty folders (an empty folder names nothing, and git keeps none:
/// agentctx's sandbox makes empty `.github/hooks` and `.claude` folders to
/// keep them read-only). A folder whose contents were left out (excluded,
/// ignored) stays, and so do a submodule and a link.
fn without_empty_folders(root: &Path, mut entries: Vec<Entry>) -> Vec<Entry> {
    let mut parents: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    // A folder holds something when a file, a link or a submodule lies
    // below it (a folder of empty folders is empty).
    for entry in entries
        .iter()
        .filter(|e| !e.is_dir || e.submodule || e.symlink)
    {
        let mut path = entry.path.as_str();
        while let Some((parent, _)) = path.rsplit_once('/') {
            if !parents.insert(parent) {
                break;
            }
            path = parent;
        }
    }
    let keep: Vec<bool> = entries
        .iter()
        .map(|e| {
            !e.is_dir
                || e.submodule
                || e.symlink
                || parents.contains(e.path.as_str())
                || !holds_nothing(&root.join(&e.path))
        })
        .collect();
    drop(parents);
    let mut keep = keep.into_iter();
    entries.retain(|_| keep.next().unwrap_or(true));
    entries
}

/// Whether the folder `dir` holds nothing but empty folders (at most 64
/// entries looked at; more is not nothing).
fn holds_nothing(dir: &Path) -> bool {
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return false;
        };
        for entry in entries {
            seen += 1;
            let Ok(entry) = entry else { return false };
            if seen > 64 || !entry.file_type().is_ok_and(|t| t.is_dir()) {
                return false;
            }
            stack.push(entry.path());
        }
    }
    true
}

/// A regular file, or nothing, at `path` (links followed): what an ignore
/// file may be for the walker to open it.
fn regular_or_absent(path: &Path) -> bool {
    match std::fs::metadata(path) {
        Ok(meta) => meta.is_file(),
        Err(_) => std::fs::symlink_metadata(path).is_err(),
    }
}

/// What one walking thread found.
#[derive(Default)]
struct Batch {
    entries: Vec<Entry>,
    unreadable: Vec<String>,
    /// Links that lead back to a folder they are in: (link, that folder).
    cycles: Vec<(String, String)>,
    non_utf8: usize,
    timed_out: bool,
}

/// The batches of every thread, merged when each thread's visitor is dropped.
#[derive(Default)]
struct Collected(std::sync::Mutex<Batch>);

impl Collected {
    fn absorb(&self, mut batch: Batch) {
        // A poisoned lock only means another walking thread panicked; its
        // entries are lost either way, so keep what this one found.
        let mut all = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The first batch is taken as it is, not copied: with two threads
        // that halves the entries copied (and the memory touched).
        if all.entries.is_empty() {
            std::mem::swap(&mut all.entries, &mut batch.entries);
        } else {
            all.entries.append(&mut batch.entries);
        }
        all.unreadable.append(&mut batch.unreadable);
        all.cycles.append(&mut batch.cycles);
        all.non_utf8 += batch.non_utf8;
        all.timed_out |= batch.timed_out;
    }

    fn into_batch(self) -> Batch {
        self.0
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

struct Context<'a> {
    root: &'a Path,
    root_len: usize,
    options: &'a WalkOptions,
    started: Instant,
}

impl Context<'_> {
    fn take(&self, result: Result<ignore::DirEntry, ignore::Error>, batch: &mut Batch) {
        let entry = match result {
            Ok(entry) => entry,
            Err(error) => {
                match cycle(self.root, &error) {
                    Some(link) => batch.cycles.push(link),
                    None => batch.unreadable.push(error_path(self.root, &error)),
                }
                return;
            }
        };
        if entry.depth() == 0 {
            return;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        // With `follow_links` the walk reports the target's type; a link
        // it did not follow is marked.
        let symlink = entry.path_is_symlink() && !is_dir;
        let options = self.options;
        let meta = (!is_dir && (options.sizes || options.mtimes))
            .then(|| entry.metadata().ok())
            .flatten();
        let path = match self.relative(entry.into_path()) {
            Ok(path) => path,
            Err(path) => {
                batch.non_utf8 += 1;
                let relative = path.strip_prefix(self.root).unwrap_or(&path);
                relative.to_string_lossy().into_owned()
            }
        };
        let mut item = if is_dir {
            Entry::dir(path)
        } else {
            Entry::file(path)
        };
        item.symlink = symlink;
        if let Some(meta) = meta {
            stamp(&mut item, &meta, options);
        }
        batch.entries.push(item);
    }

    /// The root-relative part of `path`, in the walk's own buffer (the
    /// root and its separator moved out, nothing copied to a new one);
    /// `path` back when it is not UTF-8 or not below the root.
    fn relative(&self, path: std::path::PathBuf) -> Result<String, std::path::PathBuf> {
        let mut text = path
            .into_os_string()
            .into_string()
            .map_err(std::path::PathBuf::from)?;
        match relative_text(&text, self.root_len).map(str::len) {
            Some(len) => {
                text.drain(..text.len() - len);
                Ok(text)
            }
            None => Err(text.into()),
        }
    }
}

struct Visitor<'a> {
    batch: Batch,
    collected: &'a Collected,
    context: &'a Context<'a>,
    seen: usize,
}

impl Visitor<'_> {
    fn visit(&mut self, result: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        self.seen += 1;
        if self.seen.is_multiple_of(1024)
            && self.context.started.elapsed() > self.context.options.timeout
        {
            self.batch.timed_out = true;
            return ignore::WalkState::Quit;
        }
        self.context.take(result, &mut self.batch);
        ignore::WalkState::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        self.collected.absorb(std::mem::take(&mut self.batch));
    }
}

/// The part of `path` after the root and its separator, when the whole path
/// is UTF-8: a slice, where `strip_prefix` would parse every component.
fn relative_str(path: &Path, root_len: usize) -> Option<&str> {
    relative_text(path.to_str()?, root_len)
}

fn relative_text(text: &str, root_len: usize) -> Option<&str> {
    let rest = text.get(root_len..)?;
    Some(rest.strip_prefix('/').unwrap_or(rest))
}

/// A symlink cycle the walk met while following links: the link and the
/// folder it leads back to, root-relative (`.` for the root).
fn cycle(root: &Path, error: &ignore::Error) -> Option<(String, String)> {
    let relative = |path: &Path| match path.strip_prefix(root) {
        Ok(rest) if rest.as_os_str().is_empty() => ".".to_owned(),
        Ok(rest) => rest.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    };
    let mut current = error;
    loop {
        match current {
            ignore::Error::Loop { ancestor, child } => {
                return Some((relative(child), relative(ancestor)));
            }
            ignore::Error::WithPath { err, .. }
            | ignore::Error::WithDepth { err, .. }
            | ignore::Error::WithLineNumber { err, .. } => current = err,
            _ => return None,
        }
    }
}

fn error_path(root: &Path, error: &ignore::Error) -> String {
    let mut current = error;
    loop {
        match current {
            ignore::Error::WithPath { path, .. } => {
                return path
                    .strip_prefix(root)
                    .unwrap_or(path)
                    .to_string_lossy()
                    .into_owned();
            }
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                current = err
            }
            other => return other.to_string(),
        }
    }
}

/// A file's size and modification time, as `options` ask.
pub(crate) fn stamp(item: &mut Entry, meta: &std::fs::Metadata, options: &WalkOptions) {
    item.size = options.sizes.then_some(meta.len());
    item.mtime = options
        .mtimes
        .then(|| meta.modified().ok())
        .flatten()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_secs()).ok());
}
