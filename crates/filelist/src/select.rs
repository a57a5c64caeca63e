//! Which entries a listing shows: best first, by one ranking.
//!
//! [`Order`] ranks every entry down to `max_depth` once. A directory names
//! all its children before any of its grandchildren: a directory's
//! children are ranked only once every one of its siblings has been, so
//! every top-level entry comes before anything at depth two, and a
//! directory cut short is still named, with its counts. Among the entries
//! waiting, an entry's tier is its distance from the root plus its class's
//! cost (High 0, Normal 1, Low 5), where a level costs 2, or 1 inside a
//! High directory (a package or a source root: the code is what an agent
//! looks for). Ties go round-robin across directories (an entry's rank
//! among its siblings), then to display order. A listing of N entries is
//! the first N of the order ([`Order::select`]), so the entry limit and the
//! token budget cut by the same ranking, and a budget search costs one
//! ranking and a cheap selection per attempt.
//!
//! A chain of single-child directories is one line (`src/main/java/`) and
//! one entry, but each of its links is a level: `max_depth` means what it
//! means to `tree -L` and `fd --max-depth` (a chain is cut at it and ends
//! in a summary).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::classify::Class;
use crate::group::{Unit, units};
use crate::tree::{ROOT, Tree};

/// An entry in the ranking.
#[derive(Clone, Debug)]
struct Pick {
    /// The directory that shows it.
    dir: usize,
    /// Its place among the directory's units (display order).
    pos: usize,
    unit: Unit,
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
pub struct Selection {
    /// Per node: shown or not.
    pub shown: Vec<bool>,
    /// Per shown directory: its units that are shown, in display order.
    units: HashMap<usize, Vec<Unit>>,
    /// Per shown directory: files and directories below it that are shown.
    files_shown_below: HashMap<usize, usize>,
    dirs_shown_below: HashMap<usize, usize>,
    /// A shown directory hides children because of the depth limit.
    pub cut_by_depth: bool,
    /// A shown directory hides children because of the entry limit.
    pub cut_by_entries: bool,
}

impl Selection {
    pub fn files_shown(&self) -> usize {
        self.files_shown_below.get(&ROOT).copied().unwrap_or(0)
    }

    pub fn dirs_shown(&self) -> usize {
        self.dirs_shown_below.get(&ROOT).copied().unwrap_or(0)
    }

    /// A directory's shown units, in display order (none when it shows
    /// nothing).
    pub fn units_of(&self, dir: usize) -> &[Unit] {
        self.units.get(&dir).map_or(&[], Vec::as_slice)
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

/// A unit that waits to be ranked.
#[derive(Clone)]
struct Waiting {
    pick: Pick,
    depth: usize,
    /// Its distance from the root (see [`Order::new`]).
    base: usize,
}

impl Order {
    /// Ranks every entry of `tree` down to `max_depth`.
    pub fn new(tree: &Tree, classes: &[Class], max_depth: usize, group: bool) -> Self {
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
            for (pos, unit) in dir_units.iter().enumerate() {
                let tier = base + cost(classes[unit.first()]);
                heap.push(Reverse((tier, rank[pos], waiting.len())));
                waiting.push(Waiting {
                    pick: Pick {
                        dir,
                        pos,
                        unit: unit.clone(),
                        counted: true,
                    },
                    depth,
                    base,
                });
            }
            order.units[dir] = Some(dir_units);
        };
        enqueue(&mut order, &mut heap, &mut waiting, ROOT, 1, STEP);
        // Per directory: its units not ranked yet, and its subdirectories
        // whose children wait until every unit of it is ranked (a
        // directory names all its children before any grandchild).
        let mut remaining = vec![0usize; n];
        remaining[ROOT] = order.units[ROOT].as_ref().map_or(0, Vec::len);
        let mut deferred: Vec<Vec<(usize, usize, usize)>> = vec![Vec::new(); n];
        while let Some(Reverse((_, _, index))) = heap.pop() {
            let Waiting { pick, depth, base } = waiting[index].clone();
            let parent = pick.dir;
            let head = match pick.unit {
                Unit::Node(id) if tree.nodes[id].is_dir && !tree.nodes[id].submodule => Some(id),
                _ => None,
            };
            order.picks.push(pick);
            order.counted += 1;
            remaining[parent] -= 1;
            if let Some(mut last) = head {
                // The chain's links come with their head, each a level
                // deeper: a chain stops at `max_depth` like any path.
                let mut last_depth = depth;
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
                        unit: Unit::Node(only),
                        counted: false,
                    });
                    last = only;
                    last_depth += 1;
                }
                if last_depth < max_depth {
                    // Inside a package or source directory, a level costs half.
                    let step = if classes[last] == Class::High {
                        STEP / 2
                    } else {
                        STEP
                    };
                    deferred[parent].push((last, last_depth + 1, base + step));
                } else if !tree.nodes[last].children.is_empty() {
                    order.capped[last] = true;
                }
            }
            if remaining[parent] == 0 {
                for (dir, depth, base) in std::mem::take(&mut deferred[parent]) {
                    enqueue(&mut order, &mut heap, &mut waiting, dir, depth, base);
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
            order
                .picks
                .extend(dir_units.iter().enumerate().map(|(pos, unit)| Pick {
                    dir,
                    pos,
                    unit: unit.clone(),
                    counted: true,
                }));
            order.units[dir] = Some(dir_units);
        }
        order
    }

    /// How many entries the whole ranking has.
    pub fn len(&self) -> usize {
        self.counted
    }

    /// The first `max_entries` entries of the ranking (and the links of
    /// their chains). A directory that would then hide a single file shows
    /// it instead: `... (1 file)` costs what the name costs. Costs the
    /// entries taken, not the tree: a budget search calls it many times.
    pub fn select(&self, tree: &Tree, max_entries: usize) -> Selection {
        let mut shown = vec![false; tree.nodes.len()];
        shown[ROOT] = true;
        let mut chosen: HashMap<usize, Vec<(usize, Unit)>> = HashMap::new();
        let mut shown_nodes = vec![ROOT];
        let mut taken = 0;
        for pick in &self.picks {
            if pick.counted {
                if taken == max_entries {
                    break;
                }
                taken += 1;
            }
            mark(&pick.unit, &mut shown, &mut shown_nodes);
            chosen
                .entry(pick.dir)
                .or_default()
                .push((pick.pos, pick.unit.clone()));
        }
        let shown_dirs: Vec<usize> = shown_nodes
            .iter()
            .copied()
            .filter(|&id| tree.nodes[id].is_dir && !tree.nodes[id].submodule)
            .collect();
        // Shown directories hiding exactly one file show it.
        for &dir in &shown_dirs {
            let mut hidden = tree.nodes[dir].children.iter().filter(|&&c| !shown[c]);
            if let (Some(&only), None) = (hidden.next(), hidden.next())
                && !tree.nodes[only].is_dir
                && !self.capped[dir]
            {
                let own;
                let dir_units = match &self.units[dir] {
                    Some(u) => u,
                    None => {
                        own = units(tree, dir, self.group);
                        &own
                    }
                };
                if let Some(pos) = dir_units.iter().position(|u| *u == Unit::Node(only)) {
                    shown[only] = true;
                    shown_nodes.push(only);
                    chosen.entry(dir).or_default().push((pos, Unit::Node(only)));
                }
            }
        }
        let (mut cut_by_depth, mut cut_by_entries) = (false, false);
        for &dir in &shown_dirs {
            if tree.nodes[dir].children.iter().any(|&c| !shown[c]) {
                if self.capped[dir] {
                    cut_by_depth = true;
                } else {
                    cut_by_entries = true;
                }
            }
        }
        let units = chosen
            .into_iter()
            .map(|(dir, mut units)| {
                units.sort_unstable_by_key(|(pos, _)| *pos);
                (dir, units.into_iter().map(|(_, u)| u).collect())
            })
            .collect();
        let (files_shown_below, dirs_shown_below) = count_shown(tree, &mut shown_nodes);
        Selection {
            shown,
            units,
            files_shown_below,
            dirs_shown_below,
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

/// Files and directories shown below each shown node.
fn count_shown(
    tree: &Tree,
    shown_nodes: &mut [usize],
) -> (HashMap<usize, usize>, HashMap<usize, usize>) {
    let mut files: HashMap<usize, usize> = HashMap::new();
    let mut dirs: HashMap<usize, usize> = HashMap::new();
    // Children have larger ids than their parents (built top-down): from
    // the largest id down, a node's counts are final before its parent's.
    shown_nodes.sort_unstable_by(|a, b| b.cmp(a));
    for &id in shown_nodes.iter() {
        if id == ROOT {
            continue;
        }
        let node = &tree.nodes[id];
        if node.is_dir {
            let (f, d) = (
                files.get(&id).copied().unwrap_or(0),
                dirs.get(&id).copied().unwrap_or(0),
            );
            *dirs.entry(node.parent).or_default() += 1 + d;
            *files.entry(node.parent).or_default() += f;
        } else {
            *files.entry(node.parent).or_default() += 1;
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
            let ranked = Order::new(&tree, &classes, usize::MAX, group).select(&tree, usize::MAX);
            let all = Order::all(&tree, group).select(&tree, usize::MAX);
            assert_eq!(ranked.shown, all.shown);
            for dir in 0..tree.nodes.len() {
                assert_eq!(ranked.units_of(dir), all.units_of(dir), "{dir}");
            }
            assert!(!all.cut_by_depth && !all.cut_by_entries);
        }
    }
}
