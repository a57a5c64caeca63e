//! Which nodes a listing shows: breadth-first, level by level, round-robin
//! across the directories of a level, so every top-level entry comes before
//! any deeper one and no single directory can take the whole budget.

use crate::tree::{ROOT, Tree, Unit};

/// What was chosen.
#[derive(Clone, Debug)]
pub struct Selection {
    /// Per node: shown or not.
    pub shown: Vec<bool>,
    /// Per directory: its units that are shown, in display order.
    pub units: Vec<Vec<Unit>>,
    /// Per node: files and directories below it that are shown.
    pub files_shown_below: Vec<usize>,
    pub dirs_shown_below: Vec<usize>,
    pub cut_by_depth: bool,
    pub cut_by_files: bool,
}

impl Selection {
    pub fn files_shown(&self) -> usize {
        self.files_shown_below[ROOT]
    }

    pub fn dirs_shown(&self) -> usize {
        self.dirs_shown_below[ROOT]
    }
}

/// Chooses at most `max_entries` units (files, directories, groups) down to
/// `max_depth`. `top_filter` limits the first level (the compact format
/// shows only some top-level entries in full).
pub fn select(
    tree: &Tree,
    max_depth: usize,
    max_entries: usize,
    group: bool,
    top_filter: &dyn Fn(usize) -> bool,
) -> Selection {
    let n = tree.nodes.len();
    let mut shown = vec![false; n];
    shown[ROOT] = true;
    let mut chosen: Vec<Vec<Unit>> = vec![Vec::new(); n];
    let mut budget = max_entries;
    let mut frontier = vec![ROOT];
    let mut cut_by_depth = false;
    let mut cut_by_files = false;

    for depth in 1..=max_depth.max(1) {
        let mut queues: Vec<(usize, std::collections::VecDeque<Unit>)> = frontier
            .iter()
            .map(|&dir| {
                let units = tree
                    .units(dir, group)
                    .into_iter()
                    .filter(|u| dir != ROOT || top_filter(first_node(u)))
                    .collect();
                (dir, units)
            })
            .collect();
        // Directories chosen at this level, keyed by (their parent's place in
        // the frontier, their place among the parent's units): sorting by
        // that key is display order, without building paths.
        let mut next: Vec<((usize, usize), usize)> = Vec::new();
        let mut taken = vec![0usize; queues.len()];
        let mut picked_any = true;
        while picked_any {
            picked_any = false;
            for (slot, (dir, queue)) in queues.iter_mut().enumerate() {
                if budget == 0 {
                    break;
                }
                if let Some(unit) = queue.pop_front() {
                    budget -= 1;
                    picked_any = true;
                    let place = (slot, taken[slot]);
                    taken[slot] += 1;
                    match &unit {
                        Unit::Node(id) => {
                            shown[*id] = true;
                            if tree.nodes[*id].is_dir && !tree.nodes[*id].submodule {
                                next.push((place, *id));
                            }
                        }
                        Unit::Group(members) => members.iter().for_each(|m| shown[*m] = true),
                    }
                    chosen[*dir].push(unit);
                }
            }
        }
        if queues.iter().any(|(_, q)| !q.is_empty()) {
            cut_by_files = true;
        }
        // Each queue is popped from the front, so every directory's chosen
        // units are already in display order.
        next.sort_unstable_by_key(|(place, _)| *place);
        let next: Vec<usize> = next.into_iter().map(|(_, id)| id).collect();
        if depth == max_depth.max(1) {
            if next.iter().any(|d| !tree.nodes[*d].children.is_empty()) {
                cut_by_depth = true;
            }
            break;
        }
        frontier = next;
        if frontier.is_empty() {
            break;
        }
    }

    let (files_shown_below, dirs_shown_below) = count_shown(tree, &shown);
    Selection {
        shown,
        units: chosen,
        files_shown_below,
        dirs_shown_below,
        cut_by_depth,
        cut_by_files,
    }
}

fn first_node(unit: &Unit) -> usize {
    match unit {
        Unit::Node(id) => *id,
        Unit::Group(members) => members.first().copied().unwrap_or(ROOT),
    }
}

fn count_shown(tree: &Tree, shown: &[bool]) -> (Vec<usize>, Vec<usize>) {
    let n = tree.nodes.len();
    let mut files = vec![0; n];
    let mut dirs = vec![0; n];
    // Children always have larger ids than their parents (built top-down).
    for id in (1..n).rev() {
        if !shown[id] {
            continue;
        }
        let node = &tree.nodes[id];
        let parent = node.parent;
        if node.is_dir {
            dirs[parent] += 1 + dirs[id];
            files[parent] += files[id];
        } else {
            files[parent] += 1;
        }
    }
    (files, dirs)
}
