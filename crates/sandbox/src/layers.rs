//! How the sandbox's mounts nest. Outside the writable folders everything
//! is read-only; inside one, a protected path is read-only again; inside
//! that, a folder may be writable again (a home under `/tmp` is
//! read-only, its caches and a project in it are not; a worktree Claude
//! Code keeps in the project's read-only `.claude/` is worked in), with its
//! own protected paths read-only once more. What holds for a path is what
//! the deepest layer around it says, so the mounts are made parents first.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a mount makes of the folder or file it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layer {
    /// A writable folder outside every other writable one.
    Writable,
    /// A writable folder inside a read-only path.
    WritableAgain,
    /// A protected path.
    ReadOnly,
    /// A masked folder.
    Hidden,
}

impl Layer {
    /// Whether the layer lets a command write.
    pub(crate) fn writable(self) -> bool {
        matches!(self, Self::Writable | Self::WritableAgain)
    }

    /// Which of two layers at the same path holds: a mask over a
    /// protection over a writable folder.
    fn rank(self) -> u8 {
        match self {
            Self::Writable | Self::WritableAgain => 0,
            Self::ReadOnly => 1,
            Self::Hidden => 2,
        }
    }
}

/// Every layer by its path.
#[derive(Debug, Default)]
pub(crate) struct Layers {
    by_path: HashMap<PathBuf, Layer>,
}

impl Layers {
    /// Adds `paths` as `layer`; where a path has a layer already, the
    /// stronger holds.
    pub(crate) fn add<'a>(&mut self, paths: impl IntoIterator<Item = &'a PathBuf>, layer: Layer) {
        for path in paths {
            let held = self.by_path.entry(path.clone()).or_insert(layer);
            if layer.rank() > held.rank() {
                *held = layer;
            }
        }
    }

    /// The layer at `path` itself.
    pub(crate) fn at(&self, path: &Path) -> Option<Layer> {
        self.by_path.get(path).copied()
    }

    /// The deepest layer strictly around `path`, with its path.
    pub(crate) fn around<'p>(&self, path: &'p Path) -> Option<(&'p Path, Layer)> {
        path.ancestors()
            .skip(1)
            .find_map(|dir| self.by_path.get(dir).map(|layer| (dir, *layer)))
    }
}

/// How a mount after the writable folders is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bind {
    /// Onto itself as it is (writable): a pinned folder.
    Pin,
    /// Read-only.
    ReadOnly,
    /// Writable, inside a read-only path.
    WritableAgain,
}

/// The pins, read-only paths and writable-again folders in the order they
/// are mounted: parents first, so each lands on the layer around it.
pub(crate) fn in_mount_order<'a>(
    pinned: &'a [PathBuf],
    read_only: &'a [PathBuf],
    writable_again: &'a [PathBuf],
) -> Vec<(&'a Path, Bind)> {
    let mut binds: Vec<(&Path, Bind)> = pinned
        .iter()
        .map(|p| (p.as_path(), Bind::Pin))
        .chain(read_only.iter().map(|p| (p.as_path(), Bind::ReadOnly)))
        .chain(
            writable_again
                .iter()
                .map(|p| (p.as_path(), Bind::WritableAgain)),
        )
        .collect();
    binds.sort_by(|a, b| {
        (a.0.components().count(), a.0)
            .cmp(&(b.0.components().count(), b.0))
            .then_with(|| (a.1 as u8).cmp(&(b.1 as u8)))
    });
    binds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deepest_layer_around_a_path_holds() {
        let mut layers = Layers::default();
        layers.add(&[PathBuf::from("/tmp")], Layer::Writable);
        layers.add(&[PathBuf::from("/tmp/home")], Layer::ReadOnly);
        layers.add(&[PathBuf::from("/tmp/home/.cache")], Layer::WritableAgain);
        layers.add(
            &[PathBuf::from("/tmp/home/.cache/agentctx")],
            Layer::ReadOnly,
        );
        let around = |p: &str| layers.around(Path::new(p)).map(|(_, l)| l);
        assert_eq!(around("/tmp/x"), Some(Layer::Writable));
        assert_eq!(around("/tmp/home/.bash_profile"), Some(Layer::ReadOnly));
        assert_eq!(around("/tmp/home/.cache/pip"), Some(Layer::WritableAgain));
        assert_eq!(around("/tmp/home/.cache/agentctx/x"), Some(Layer::ReadOnly));
        assert_eq!(around("/tmp/home/.cache"), Some(Layer::ReadOnly));
        assert_eq!(around("/etc/passwd"), None);
    }

    #[test]
    fn a_mask_holds_over_a_protection_over_a_writable_folder_at_one_path() {
        let mut layers = Layers::default();
        let path = PathBuf::from("/p/x");
        layers.add(std::slice::from_ref(&path), Layer::ReadOnly);
        layers.add(std::slice::from_ref(&path), Layer::WritableAgain);
        assert_eq!(layers.at(&path), Some(Layer::ReadOnly));
        layers.add(std::slice::from_ref(&path), Layer::Hidden);
        assert_eq!(layers.at(&path), Some(Layer::Hidden));
    }

    #[test]
    fn mounts_are_made_parents_first() {
        let pinned = vec![PathBuf::from("/tmp/home/p/cfg")];
        let read_only = vec![
            PathBuf::from("/tmp/home"),
            PathBuf::from("/tmp/home/p/.claude"),
        ];
        let again = vec![PathBuf::from("/tmp/home/p")];
        let order: Vec<&Path> = in_mount_order(&pinned, &read_only, &again)
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        assert_eq!(
            order,
            [
                Path::new("/tmp/home"),
                Path::new("/tmp/home/p"),
                Path::new("/tmp/home/p/.claude"),
                Path::new("/tmp/home/p/cfg"),
            ]
        );
    }
}
