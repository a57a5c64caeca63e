//! Which entries a listing keeps: default and user excludes, includes.

use std::path::Path;

use agentctx_types::PatternSet;

use crate::error::FileListError;
use crate::exclude::ExcludeSet;

/// The spec's default excludes, with one deliberate change: `packages/` is
/// not excluded (in JavaScript and TypeScript monorepos it holds the source;
/// dependency `packages/` folders are normally gitignored anyway).
pub const DEFAULT_EXCLUDES: [&str; 24] = [
    ".git/",
    ".svn/",
    ".hg/",
    "node_modules/",
    "vendor/",
    "dist/",
    "build/",
    "target/",
    "out/",
    "__pycache__/",
    "*.pyc",
    "*.pyo",
    ".venv/",
    "venv/",
    "*.egg-info/",
    ".idea/",
    "*.iml",
    ".DS_Store",
    "Thumbs.db",
    "*.log",
    "*.tmp",
    "*.temp",
    ".cache/",
    ".vscode/*",
];

/// `.vscode/` is excluded except the settings files a project shares.
const VSCODE_KEEP: [&str; 4] = [
    "**/.vscode/settings.json",
    "**/.vscode/extensions.json",
    "**/.vscode/launch.json",
    "**/.vscode/tasks.json",
];

/// Compiled filters.
#[derive(Clone, Debug)]
pub struct Filters {
    /// [`DEFAULT_EXCLUDES`] (empty when turned off).
    defaults: ExcludeSet,
    /// The user's excludes (config, rule file, flags).
    user: ExcludeSet,
    /// Files the defaults would exclude that are kept (`.vscode/settings.json`).
    keep: PatternSet,
    include: Option<PatternSet>,
}

impl Filters {
    /// `exclude` adds to the defaults unless `default_excludes` is false;
    /// `include`, when non-empty, keeps only matching files. Excludes match
    /// case-insensitively, includes case-sensitively, as in rule files.
    pub fn new(
        default_excludes: bool,
        exclude: &[String],
        include: &[String],
    ) -> Result<Self, FileListError> {
        let defaults: &[&str] = if default_excludes {
            &DEFAULT_EXCLUDES
        } else {
            &[]
        };
        let compile = |patterns: Vec<&str>| {
            ExcludeSet::compile(&patterns).map_err(|bad| FileListError::Pattern {
                list: "exclude",
                pattern: patterns
                    .get(bad.index)
                    .map(|p| (*p).to_owned())
                    .unwrap_or_default(),
                message: bad.message,
            })
        };
        let default_set = compile(defaults.to_vec())?;
        let user_set = compile(exclude.iter().map(String::as_str).collect())?;
        let keep_list: &[&str] = if default_excludes { &VSCODE_KEEP } else { &[] };
        let keep = PatternSet::compile(keep_list.iter().copied(), true).map_err(|bad| {
            FileListError::Pattern {
                list: "exclude",
                pattern: String::new(),
                message: bad.message,
            }
        })?;
        let include = if include.is_empty() {
            None
        } else {
            Some(
                PatternSet::compile(include.iter().map(String::as_str), false).map_err(|bad| {
                    FileListError::Pattern {
                        list: "include",
                        pattern: include.get(bad.index).cloned().unwrap_or_default(),
                        message: bad.message,
                    }
                })?,
            )
        };
        Ok(Self {
            defaults: default_set,
            user: user_set,
            keep,
            include,
        })
    }

    /// Whether a path (root-relative) is excluded; directories that are
    /// excluded are pruned by the walk. `.git` is never listed.
    pub fn excludes(&self, relative: &Path, is_dir: bool) -> bool {
        if relative.file_name().is_some_and(|n| n == ".git") {
            return true;
        }
        // The patterns see the path as text, as the glob set would.
        let text = relative.to_string_lossy();
        if self.user.is_match(&text) {
            return true;
        }
        self.defaults.is_match(&text) && (is_dir || !self.keep.is_match(relative))
    }

    /// [`excludes`](Self::excludes) for an entry whose directories have
    /// each been decided and kept: the walk asks about every entry it
    /// meets and never enters an excluded directory.
    pub(crate) fn excludes_below_kept(&self, relative: &str, is_dir: bool) -> bool {
        let name = relative.rsplit('/').next().unwrap_or(relative);
        if name == ".git" || self.user.is_match_below_kept(relative, name) {
            return true;
        }
        self.defaults.is_match_below_kept(relative, name)
            && (is_dir || !self.keep.is_match(Path::new(relative)))
    }

    /// Whether the user's excludes (not the defaults) exclude a path:
    /// what applies to a file git tracks. `.git` is never listed.
    pub fn excludes_by_user(&self, relative: &Path) -> bool {
        relative.file_name().is_some_and(|n| n == ".git")
            || self.user.is_match(&relative.to_string_lossy())
    }

    /// Whether a file passes the include list.
    pub fn includes(&self, relative: &Path) -> bool {
        self.include
            .as_ref()
            .is_none_or(|set| set.is_match(relative))
    }

    /// Whether an include list is in force (directories then appear only on
    /// the way to a kept file).
    pub fn has_include(&self) -> bool {
        self.include.is_some()
    }
}
