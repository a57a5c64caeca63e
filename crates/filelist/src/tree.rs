//! The listing as a sorted tree, with runs of numbered files grouped.

use rustc_hash::FxHashMap as HashMap;
use std::path::Path;

use crate::filters::Filters;
use crate::listing::{Entry, Listing};

/// A node: the root, a directory or a file.
#[derive(Clone, Debug)]
pub struct Node<'a> {
    /// Borrowed from the listing's path (one copy of every name).
    pub name: &'a str,
    pub is_dir: bool,
    pub submodule: bool,
    /// A symbolic link (not followed).
    pub symlink: bool,
    /// A file's entry in the listing, for its size and modification time
    /// (a reference, not copies: most listings have neither).
    source: Option<&'a Entry>,
    pub parent: usize,
    /// Children in display order: directories first, then files, each by
    /// name, byte-wise.
    pub children: Vec<usize>,
    /// Files and directories anywhere below.
    pub files_below: usize,
    pub dirs_below: usize,
}

impl<'a> Node<'a> {
    fn new(name: &'a str, is_dir: bool, parent: usize) -> Self {
        Self {
            name,
            is_dir,
            submodule: false,
            symlink: false,
            source: None,
            parent,
            children: Vec::new(),
            files_below: 0,
            dirs_below: 0,
        }
    }

    /// Size in bytes, when the source gave it.
    pub fn size(&self) -> Option<u64> {
        self.source.and_then(|entry| entry.size)
    }

    /// Modification time (seconds since the epoch), when the source gave it.
    pub fn mtime(&self) -> Option<i64> {
        self.source.and_then(|entry| entry.mtime)
    }
}

/// The whole tree; node 0 is the root.
#[derive(Clone, Debug)]
pub struct Tree<'a> {
    pub nodes: Vec<Node<'a>>,
    pub files_total: usize,
    pub dirs_total: usize,
}

pub const ROOT: usize = 0;

impl<'a> Tree<'a> {
    /// Builds the tree from a listing, applying the filters (a remote
    /// listing is filtered here; the local walk has already pruned).
    pub fn build(listing: &'a Listing, filters: &Filters) -> Self {
        let mut tree = Self {
            nodes: Vec::with_capacity(listing.entries.len() + 1),
            files_total: 0,
            dirs_total: 0,
        };
        // Only directories are ever looked up (files have nothing below
        // them), by their root-relative path; entries may come in any order
        // and intermediate directories may be missing (remote listings).
        tree.nodes.push(Node::new("", true, ROOT));
        let mut dirs: HashMap<&'a str, usize> = HashMap::default();
        dirs.insert("", ROOT);
        // Files come in runs from one directory (the walk reads a
        // directory at a time): the last parent saves most lookups.
        let mut last_parent: Option<(&'a str, usize)> = None;
        // Whether a directory (by path) is excluded, itself or through an
        // ancestor: each directory is matched once, not once per entry below it.
        let mut excluded_dirs: HashMap<String, bool> = HashMap::default();
        for entry in &listing.entries {
            if !listing.excludes_applied
                && excluded_or_below(filters, &mut excluded_dirs, &entry.path, entry.is_dir)
            {
                continue;
            }
            // Sources give paths without slashes at the ends; trimming
            // only when there is one spares a search of every path.
            let path = entry.path.as_str();
            let path = if path.starts_with('/') || path.ends_with('/') {
                path.trim_matches('/')
            } else {
                path
            };
            if path.is_empty() {
                continue;
            }
            if entry.is_dir {
                // With an include list, directories appear only on the way to a kept file.
                if filters.has_include() && !entry.submodule {
                    continue;
                }
                let id = tree.ensure_dir(&mut dirs, path);
                tree.nodes[id].submodule = entry.submodule;
                continue;
            }
            if !filters.includes(Path::new(path)) {
                continue;
            }
            let (parent_path, name) = path.rsplit_once('/').unwrap_or(("", path));
            let parent = match last_parent {
                Some((last, id)) if last == parent_path => id,
                _ => {
                    let id = tree.ensure_dir(&mut dirs, parent_path);
                    last_parent = Some((parent_path, id));
                    id
                }
            };
            let id = tree.nodes.len();
            let mut node = Node::new(name, false, parent);
            node.symlink = entry.symlink;
            node.source = Some(entry);
            tree.nodes.push(node);
            tree.nodes[parent].children.push(id);
        }
        tree.sort_and_count();
        tree.files_total = tree.nodes[ROOT].files_below;
        tree.dirs_total = tree.nodes[ROOT].dirs_below;
        tree
    }

    /// The node of directory `path`, created (with its parents) if needed.
    /// Parents are always created before their children, so a child's id is
    /// larger than its parent's.
    fn ensure_dir(&mut self, dirs: &mut HashMap<&'a str, usize>, path: &'a str) -> usize {
        if let Some(&id) = dirs.get(path) {
            return id;
        }
        let (parent_path, name) = path.rsplit_once('/').unwrap_or(("", path));
        let parent = self.ensure_dir(dirs, parent_path);
        let id = self.nodes.len();
        self.nodes.push(Node::new(name, true, parent));
        self.nodes[parent].children.push(id);
        dirs.insert(path, id);
        id
    }

    fn sort_and_count(&mut self) {
        // Each directory's children sorted by a key read once per child,
        // not once per comparison.
        let mut keys: Vec<(bool, &'a str, usize)> = Vec::new();
        for id in 0..self.nodes.len() {
            if self.nodes[id].children.len() < 2 {
                continue;
            }
            keys.clear();
            keys.extend(self.nodes[id].children.iter().map(|&c| {
                let child = &self.nodes[c];
                (!child.is_dir, child.name, c)
            }));
            keys.sort_by(|a, b| {
                a.0.cmp(&b.0)
                    .then_with(|| a.1.as_bytes().cmp(b.1.as_bytes()))
            });
            for (slot, key) in self.nodes[id].children.iter_mut().zip(&keys) {
                *slot = key.2;
            }
        }
        // Counts bottom-up: a child's id is larger than its parent's, so
        // from the largest id down a node is complete before it is added.
        for id in (1..self.nodes.len()).rev() {
            let node = &self.nodes[id];
            let (files, dirs) = if node.is_dir {
                (node.files_below, 1 + node.dirs_below)
            } else {
                (1, 0)
            };
            let parent = node.parent;
            let parent = &mut self.nodes[parent];
            parent.files_below += files;
            parent.dirs_below += dirs;
        }
    }

    /// The depth of the deepest node (the root's children are depth 1).
    pub fn height(&self) -> usize {
        // Parents come before their children (ids grow downwards).
        let mut depth = vec![0usize; self.nodes.len()];
        let mut height = 0;
        for id in 1..self.nodes.len() {
            depth[id] = depth[self.nodes[id].parent] + 1;
            height = height.max(depth[id]);
        }
        height
    }

    /// The root-relative path of a node.
    pub fn path_of(&self, id: usize) -> String {
        let mut parts = Vec::new();
        let mut current = id;
        while current != ROOT {
            parts.push(self.nodes[current].name);
            current = self.nodes[current].parent;
        }
        parts.reverse();
        parts.join("/")
    }
}

/// Whether a path is excluded, itself or through an excluded ancestor;
/// `dirs` remembers each directory's answer.
fn excluded_or_below(
    filters: &Filters,
    dirs: &mut HashMap<String, bool>,
    path: &str,
    is_dir: bool,
) -> bool {
    let path = path.trim_matches('/');
    if filters.excludes(Path::new(path), is_dir) {
        return true;
    }
    match path.rsplit_once('/') {
        Some((parent, _)) => dir_excluded(filters, dirs, parent),
        None => false,
    }
}

/// Whether directory `path` is excluded, itself or through an ancestor.
fn dir_excluded(filters: &Filters, dirs: &mut HashMap<String, bool>, path: &str) -> bool {
    if let Some(&known) = dirs.get(path) {
        return known;
    }
    // Iteratively from the nearest known ancestor down (deep paths must
    // not recurse deeply).
    let mut missing = vec![path];
    let mut current = path;
    let mut above = false;
    while let Some((parent, _)) = current.rsplit_once('/') {
        if let Some(&known) = dirs.get(parent) {
            above = known;
            break;
        }
        missing.push(parent);
        current = parent;
    }
    for dir in missing.into_iter().rev() {
        above = above || filters.excludes(Path::new(dir), true);
        dirs.insert(dir.to_owned(), above);
    }
    above
}
