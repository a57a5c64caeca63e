//! Which entries a listing shows: best first, by one ranking.
//!
//! [`Order`] ranks every entry down to `max_depth` once. A directory names
//! all its children before any of its grandchildren: a directory's
//! children are ranked only once every one of its siblings has been, so
//! every top-level entry comes before anything at depth two, and a
//! directory cut short is still named, with its counts. Among the entries
//! waiting, an entry's tier is its distance from the root plus its class's
//! cost (High 0, Normal 1, Low 5), where a level costs 2, or 1 inside the
//! code (below a package or a source root, down through every folder that
//! is neither Low nor a test folder: the code is what an agent looks for).
//! A unit that holds back its siblings' children (they wait for it) is
//! promoted to their tier. Ties go round-robin across directories (an
//! entry's rank among its siblings), then to display order. A listing of N entries is
//! the first N of the order ([`Order::select`]), so the entry limit and the
//! token budget cut by the same ranking, and a budget search costs one
//! ranking and a cheap selection per attempt.
//!
//! A chain of single-child directories is one line (`src/main/java/`) and
//! one entry, but each of its links is a level: `max_depth` means what it
//! means to `tree -L` and `fd --max-depth` (a chain is cut at it and ends
//! in a summary).

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap as HashMap;

use crate::classify::Class;
use crate::group::{Unit, units};
use crate::tree::{ROOT, Tree};

/// An entry in the ranking: the unit `Order::units[dir][pos]`.
#[derive(Clone, Copy, Debug)]
struct Pick {
    /// The directory that shows it.
    dir: usize,
    /// Its place among the directory's units (display order).
    pos: usize,
    /// Counts against the entry limit (chain links do not).
    counted: bool,
}

/// Every entry down to a depth, ranked.
#[derive(Clone, Debug)]
pub struct Order {
    picks: Vec<Pick>,
    /// Per node: the units of a directory whose units were ranked.
    units: Vec<Option<Vec<Unit>>>,
    /// Per node: a directory whose children lie below `max_depth`.
    capped: Vec<bool>,
    group: bool,
    /// Entries that count (the length of the longest listing).
    counted: usize,
}

/// What was chosen.
#[derive(Clone, Debug)]
pub struct Selection<'o> {
    /// Per node: shown or not.
    pub shown: Vec<bool>,
    /// Per shown directory: its units that are shown, in display order
    /// (borrowed from the order when they are all of its units).
    units: HashMap<usize, Cow<'o, [Unit]>>,
    /// Files and directories shown.
    files_shown: usize,
    dirs_shown: usize,
    /// A shown directory hides children because of the depth limit.
    pub cut_by_depth: bool,
    /// A shown directory hides children because of the entry limit.
    pub cut_by_entries: bool,
}

impl Selection<'_> {
    pub fn files_shown(&self) -> usize {
        self.files_shown
    }

    pub fn dirs_shown(&self) -> usize {
        self.dirs_shown
    }

    /// A directory's shown units, in display order (none when it shows
    /// nothing).
    pub fn units_of(&self, dir: usize) -> &[Unit] {
        self.units.get(&dir).map_or(&[], |units| units)
    }
}

/// What a level adds to a tier.
const STEP: usize = 2;

/// What a class adds to a tier.
fn cost(class: Class) -> usize {
    match class {
        Class::High => 0,
        Class::Normal => 1,
        Class::Low => 5,
    }
}

/// Whether directory `id` is inside the code, its parent being inside it
/// or not: a package or source root starts the code, and every folder
/// below it that is neither Low nor a test folder stays in it
/// (`src/node/server/`), so a source tree costs half a level per level
/// however deep it goes, while documentation, fixtures, tests (a
/// package's own or the root's `tests/`, and their recorded cassettes),
/// `.github/` and folders of no known use cost a whole one.
fn in_code(tree: &Tree, classes: &[Class], id: usize, parent_in_code: bool) -> bool {
    let name = tree.nodes[id].name;
    if name.starts_with('.') || crate::classify::is_test_dir(name) {
        return false;
    }
    match classes[id] {
        Class::High => true,
        Class::Normal => parent_in_code,
        Class::Low => false,
    }
}

/// A unit that waits to be ranked.
#[derive(Clone)]
struct Waiting {
    pick: Pick,
    depth: usize,
    /// Its distance from the root (see [`Order::new`]).
    base: usize,
    /// Its tier: its distance plus its class's cost, or less when it was
    /// promoted (see [`Order::new`]).
    tier: usize,
    /// Its place among its siblings, the tie-break within a tier.
    rank: usize,
    /// Taken into the order (a promoted unit is in the heap twice).
    ranked: bool,
}

impl Order {
    /// Ranks the entries of `tree` down to `max_depth`, best first, the
    /// first `limit` of them (a listing of at most `limit` entries needs
    /// no more: the default's 500 of a 100,000-file tree are ranked
    /// without ranking the rest).
    pub fn new(
        tree: &Tree,
        classes: &[Class],
        max_depth: usize,
        group: bool,
        limit: usize,
    ) -> Self {
        let n = tree.nodes.len();
        let mut order = Self {
            picks: Vec::new(),
            units: vec![None; n],
            capped: vec![false; n],
            group,
            counted: 0,
        };
        // Candidates: (tier, rank, sequence) → index into `waiting`.
        let mut heap: BinaryHeap<Reverse<(usize, usize, usize)>> = BinaryHeap::new();
        let mut waiting: Vec<Waiting> = Vec::new();
        // `base`: the distance of the directory's children from the root,
        // the tier before their own class's cost.
        let enqueue = |order: &mut Self,
                       heap: &mut BinaryHeap<Reverse<(usize, usize, usize)>>,
                       waiting: &mut Vec<Waiting>,
                       first_waiting: &mut Vec<usize>,
                       dir: usize,
                       depth: usize,
                       base: usize| {
            let dir_units = units(tree, dir, group);
            let mut by_rank: Vec<usize> = (0..dir_units.len()).collect();
            // Siblings by class; within a class, files before directories
            // (a package's modules say more than its `tests/`).
            by_rank.sort_by_key(|&p| {
                let first = dir_units[p].first();
                (classes[first], tree.nodes[first].is_dir, p)
            });
            let mut rank = vec![0; dir_units.len()];
            for (r, &p) in by_rank.iter().enumerate() {
                rank[p] = r;
            }
            first_waiting[dir] = waiting.len();
            for (pos, unit) in dir_units.iter().enumerate() {
                let tier = base + cost(classes[unit.first()]);
                heap.push(Reverse((tier, rank[pos], waiting.len())));
                waiting.push(Waiting {
                    pick: Pick {
                        dir,
                        pos,
                        counted: true,
                    },
                    depth,
                    base,
                    tier,
                    rank: rank[pos],
                    ranked: false,
                });
            }
            order.units[dir] = Some(dir_units);
        };
        // Per directory: where its units start in `waiting`.
        let mut first_waiting = vec![0usize; n];
        enqueue(
            &mut order,
            &mut heap,
            &mut waiting,
            &mut first_waiting,
            ROOT,
            1,
            STEP,
        );
        // Per directory: its units not ranked yet, and its subdirectories
        // whose children wait until every unit of it is ranked (a
        // directory names all its children before any grandchild).
        let mut remaining = vec![0usize; n];
        remaining[ROOT] = order.units[ROOT].as_ref().map_or(0, Vec::len);
        let mut deferred: Vec<Vec<(usize, usize, usize)>> = vec![Vec::new(); n];
        // Per directory: inside the code (see [`in_code`]).
        let mut code = vec![false; n];
        // Per directory: the lowest tier its units were promoted to.
        let mut promoted = vec![usize::MAX; n];
        while let Some(Reverse((_, _, index))) = heap.pop() {
            if order.counted >= limit {
                break;
            }
            if waiting[index].ranked {
                // Promoted and ranked already: this is its first place.
                continue;
            }
            waiting[index].ranked = true;
            let Waiting {
                pick, depth, base, ..
            } = waiting[index];
            let parent = pick.dir;
            let head = match order.unit(pick) {
                Some(&Unit::Node(id)) if tree.nodes[id].is_dir && !tree.nodes[id].submodule => {
                    Some(id)
                }
                _ => None,
            };
            order.picks.push(pick);
            order.counted += 1;
            remaining[parent] -= 1;
            if let Some(mut last) = head {
                // The chain's links come with their head, each a level
                // deeper: a chain stops at `max_depth` like any path.
                let mut last_depth = depth;
                let mut last_code = in_code(tree, classes, last, code[parent]);
                while let [only] = tree.nodes[last].children[..] {
                    if !tree.nodes[only].is_dir
                        || tree.nodes[only].submodule
                        || last_depth >= max_depth
                    {
                        break;
                    }
                    order.units[last] = Some(vec![Unit::Node(only)]);
                    order.picks.push(Pick {
                        dir: last,
                        pos: 0,
                        counted: false,
                    });
                    last = only;
                    last_depth += 1;
                    last_code = in_code(tree, classes, last, last_code);
                }
                code[last] = last_code;
                if last_depth < max_depth {
                    // Inside the code, a level costs half.
                    let step = if last_code { STEP / 2 } else { STEP };
                    let children_base = base + step;
                    deferred[parent].push((last, last_depth + 1, children_base));
                    // Its children wait for every sibling: a sibling that
                    // would come later than they could (a package's
                    // LICENSE beside its `src/`) is promoted to their
                    // tier, so a few Low names never hold a source tree
                    // back behind everything else of their tier. The
                    // siblings' children start at one of two tiers: each
                    // directory is scanned at most twice.
                    if children_base < promoted[parent] {
                        promoted[parent] = children_base;
                        let start = first_waiting[parent];
                        let count = order.units[parent].as_ref().map_or(0, Vec::len);
                        for (sibling, entry) in waiting[start..start + count].iter_mut().enumerate()
                        {
                            if !entry.ranked && entry.tier > children_base {
                                entry.tier = children_base;
                                heap.push(Reverse((children_base, entry.rank, start + sibling)));
                            }
                        }
                    }
                } else if !tree.nodes[last].children.is_empty() {
                    order.capped[last] = true;
                }
            }
            if remaining[parent] == 0 {
                for (dir, depth, base) in std::mem::take(&mut deferred[parent]) {
                    enqueue(
                        &mut order,
                        &mut heap,
                        &mut waiting,
                        &mut first_waiting,
                        dir,
                        depth,
                        base,
                    );
                    remaining[dir] = order.units[dir].as_ref().map_or(0, Vec::len);
                }
            }
        }
        order
    }

    /// Every entry of `tree`, for a listing no limit can cut (no budget,
    /// an entry limit above the tree's size, a depth limit below its
    /// deepest entry): what is shown is everything, in display order, so
    /// nothing needs ranking. [`select`](Self::select) of it shows what
    /// [`new`](Self::new)'s would, at a fraction of the cost.
    pub fn all(tree: &Tree, group: bool) -> Self {
        let n = tree.nodes.len();
        let mut order = Self {
            picks: Vec::with_capacity(n),
            units: vec![None; n],
            capped: vec![false; n],
            group,
            counted: 0,
        };
        for (dir, node) in tree.nodes.iter().enumerate() {
            if !node.is_dir || node.submodule {
                continue;
            }
            let dir_units = units(tree, dir, group);
            order.counted += dir_units.len();
            order.picks.extend((0..dir_units.len()).map(|pos| Pick {
                dir,
                pos,
                counted: true,
            }));
            order.units[dir] = Some(dir_units);
        }
        order
    }

    /// The unit a pick names.
    fn unit(&self, pick: Pick) -> Option<&Unit> {
        self.units[pick.dir].as_ref()?.get(pick.pos)
    }

    /// How many entries the whole ranking has.
    pub fn len(&self) -> usize {
        self.counted
    }

    /// The first `max_entries` entries of the ranking (and the links of
    /// their chains). A directory that would then hide a single file shows
    /// it instead: `... (1 file)` costs what the name costs. Costs the
    /// entries taken, not the tree: a budget search calls it many times.
    pub fn select(&self, tree: &Tree, max_entries: usize) -> Selection<'_> {
        let mut shown = vec![false; tree.nodes.len()];
        shown[ROOT] = true;
        // Per directory: the places of its chosen units.
        let mut chosen: HashMap<usize, Vec<usize>> = HashMap::default();
        let mut shown_nodes = vec![ROOT];
        let mut taken = 0;
        for &pick in &self.picks {
            if pick.counted {
                if taken == max_entries {
                    break;
                }
                taken += 1;
            }
            let Some(unit) = self.unit(pick) else {
                continue;
            };
            mark(unit, &mut shown, &mut shown_nodes);
            chosen.entry(pick.dir).or_default().push(pick.pos);
        }
        let shown_dirs: Vec<usize> = shown_nodes
            .iter()
            .copied()
            .filter(|&id| tree.nodes[id].is_dir && !tree.nodes[id].submodule)
            .collect();
        // Shown directories hiding exactly one file show it; those that
        // still hide something make the listing partial.
        let (mut cut_by_depth, mut cut_by_entries) = (false, false);
        // Files shown in directories none of whose units were ranked.
        let mut lone = Vec::new();
        for &dir in &shown_dirs {
            let (first, second) = {
                let mut hidden = tree.nodes[dir].children.iter().filter(|&&c| !shown[c]);
                (hidden.next().copied(), hidden.next())
            };
            let mut hides = first.is_some();
            if let (Some(only), None) = (first, second)
                && !tree.nodes[only].is_dir
                && !self.capped[dir]
            {
                let is_only = |u: &Unit| *u == Unit::Node(only);
                match &self.units[dir] {
                    Some(ranked) => {
                        if let Some(pos) = ranked.iter().position(is_only) {
                            shown[only] = true;
                            hides = false;
                            chosen.entry(dir).or_default().push(pos);
                        }
                    }
                    // The file is the directory's only unit shown.
                    None => {
                        if units(tree, dir, self.group).iter().any(is_only) {
                            shown[only] = true;
                            hides = false;
                            lone.push((dir, Unit::Node(only)));
                        }
                    }
                }
            }
            if hides {
                if self.capped[dir] {
                    cut_by_depth = true;
                } else {
                    cut_by_entries = true;
                }
            }
        }
        let mut units: HashMap<usize, Cow<'_, [Unit]>> = HashMap::default();
        for (dir, mut places) in chosen {
            let Some(ranked) = self.units[dir].as_deref() else {
                continue;
            };
            places.sort_unstable();
            // Each place is chosen once: as many as there are is all of them.
            let shown_units = if places.len() == ranked.len() {
                Cow::Borrowed(ranked)
            } else {
                Cow::Owned(
                    places
                        .iter()
                        .filter_map(|&p| ranked.get(p).cloned())
                        .collect(),
                )
            };
            units.insert(dir, shown_units);
        }
        for (dir, unit) in lone {
            units.insert(dir, Cow::Owned(vec![unit]));
        }
        let (files_shown, dirs_shown) = count_shown(tree, &shown);
        Selection {
            shown,
            units,
            files_shown,
            dirs_shown,
            cut_by_depth,
            cut_by_entries,
        }
    }
}

fn mark(unit: &Unit, shown: &mut [bool], shown_nodes: &mut Vec<usize>) {
    match unit {
        Unit::Node(id) => {
            shown[*id] = true;
            shown_nodes.push(*id);
        }
        Unit::Group { members, .. } => {
            for &m in members {
                shown[m] = true;
                shown_nodes.push(m);
            }
        }
    }
}

/// Files and directories shown: a node counts when every directory
/// above it is shown too.
fn count_shown(tree: &Tree, shown: &[bool]) -> (usize, usize) {
    let mut reached = vec![false; tree.nodes.len()];
    reached[ROOT] = true;
    let (mut files, mut dirs) = (0, 0);
    // Parents have smaller ids than their children (built top-down).
    for (id, node) in tree.nodes.iter().enumerate().skip(1) {
        if shown[id] && reached[node.parent] {
            reached[id] = true;
            if node.is_dir {
                dirs += 1;
            } else {
                files += 1;
            }
        }
    }
    (files, dirs)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;
    use crate::filters::Filters;
    use crate::listing::{Entry, Listing};

    #[test]
    fn a_ranking_cut_at_n_entries_selects_what_the_whole_one_does() {
        let mut entries: Vec<Entry> = [
            "README.md",
            "Cargo.toml",
            "crates/a/Cargo.toml",
            "crates/a/LICENSE",
            "crates/a/src/lib.rs",
            "crates/a/src/deep/er/x.rs",
            "crates/a/src/deep/y.rs",
            "docs/guide/a.md",
            "docs/b.md",
            "tests/t_001.rs",
            "tests/t_002.rs",
            "tests/t_003.rs",
            "only/child/chain/leaf.txt",
        ]
        .into_iter()
        .map(Entry::file)
        .collect();
        entries.push(Entry::dir("empty"));
        let listing = Listing {
            root_name: "r".into(),
            entries,
            ..Listing::default()
        };
        let filters = Filters::new(false, &[], &[]).unwrap();
        let tree = Tree::build(&listing, &filters);
        let classes = crate::classify::classify(&tree, usize::MAX);
        let whole = Order::new(&tree, &classes, usize::MAX, true, usize::MAX);
        for n in 0..=whole.len() {
            let cut = Order::new(&tree, &classes, usize::MAX, true, n);
            assert_eq!(cut.len(), n);
            let (a, b) = (cut.select(&tree, n), whole.select(&tree, n));
            assert_eq!(a.shown, b.shown, "{n}");
            for dir in 0..tree.nodes.len() {
                assert_eq!(a.units_of(dir), b.units_of(dir), "{n}: {dir}");
            }
            assert_eq!(
                (a.cut_by_depth, a.cut_by_entries),
                (b.cut_by_depth, b.cut_by_entries)
            );
        }
    }

    #[test]
    fn everything_without_ranking_is_what_the_ranking_shows_in_full() {
        let mut entries = Vec::new();
        for path in [
            "README.md",
            "src/main/java/com/App.java",
            "src/lib.rs",
            "tests/t_001.rs",
            "tests/t_002.rs",
            "tests/t_003.rs",
            "docs/guide/a.md",
            "deep/a/b/c/leaf.txt",
        ] {
            entries.push(Entry::file(path));
        }
        entries.push(Entry::dir("empty"));
        let listing = Listing {
            root_name: "r".into(),
            entries,
            ..Listing::default()
        };
        let filters = Filters::new(false, &[], &[]).unwrap();
        let tree = Tree::build(&listing, &filters);
        let classes = crate::classify::classify(&tree, usize::MAX);
        for group in [true, false] {
            let (ranked, all) = (
                Order::new(&tree, &classes, usize::MAX, group, usize::MAX),
                Order::all(&tree, group),
            );
            let ranked = ranked.select(&tree, usize::MAX);
            let all = all.select(&tree, usize::MAX);
            assert_eq!(ranked.shown, all.shown);
            for dir in 0..tree.nodes.len() {
                assert_eq!(ranked.units_of(dir), all.units_of(dir), "{dir}");
            }
            assert!(!all.cut_by_depth && !all.cut_by_entries);
        }
    }
}
