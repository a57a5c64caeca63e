//! Starting and resuming a session: the flows a CLI or hook runs.

use std::path::{Path, PathBuf};

use agentctx_types::{AgentsConfig, RootInfo, SessionState};

use crate::CoreError;
use crate::chain::InitialChain;
use crate::reminder::ResumeDiff;
use crate::resolver::Resolver;
use crate::root::{RootOptions, find_root};

/// A session just started: its root, its initial chain and the resolver
/// that knows what the chain gave the model.
#[derive(Debug)]
pub struct StartedSession {
    /// The root and how it was found.
    pub root: RootInfo,
    /// The initial chain (empty when `agents.enabled` is false).
    pub chain: InitialChain,
    /// The resolver, whose state is what to persist.
    pub resolver: Resolver,
}

/// Finds the root for `cwd`, loads the initial chain and starts a resolver.
pub fn start_session(
    cwd: &Path,
    config: &AgentsConfig,
    home: Option<PathBuf>,
) -> Result<StartedSession, CoreError> {
    let options = RootOptions::from_config(config, home);
    let root = find_root(cwd, &options)?;
    let chain = if config.enabled {
        InitialChain::load(&root.root, &root.cwd, &config.initial)
    } else {
        InitialChain::default()
    };
    let resolver = Resolver::start(
        root.cwd.clone(),
        root.root.clone(),
        options.markers,
        &chain,
        config,
    );
    Ok(StartedSession {
        root,
        chain,
        resolver,
    })
}

/// Compares a stored session with where it runs now, and moves it there.
///
/// The diff holds the changed cwd, root and markers, and every AGENTS.md on
/// the chain from the new root to the new cwd that the model has not seen
/// in its current version; those are then counted as seen.
pub fn resume_session(
    previous: SessionState,
    cwd: &Path,
    config: &AgentsConfig,
    home: Option<PathBuf>,
) -> Result<(ResumeDiff, Resolver), CoreError> {
    let options = RootOptions::from_config(config, home);
    let now = find_root(cwd, &options)?;
    let mut diff = ResumeDiff::default();
    if previous.cwd != now.cwd {
        diff.cwd = Some((previous.cwd.clone(), now.cwd.clone()));
    }
    if previous.root != now.root {
        diff.root = Some((previous.root.clone(), now.root.clone()));
    }
    if previous.markers != options.markers {
        diff.markers = Some((previous.markers.clone(), options.markers.clone()));
    }
    let mut state = previous;
    let moved = diff.cwd.is_some() || diff.root.is_some() || diff.markers.is_some();
    state.cwd = now.cwd.clone();
    state.root = now.root.clone();
    state.markers = options.markers;
    let mut resolver = Resolver::from_state(state, config);
    if config.enabled {
        diff.recheck = resolver.resolve_unlimited(&now.cwd).files;
    }
    if moved {
        resolver.mark_changed();
    }
    Ok((diff, resolver))
}

/// What [`resume_in_store`] did.
#[derive(Debug)]
pub struct StoredResume {
    /// What differs from the stored session, when one was continued;
    /// `None` when a session was started instead.
    pub diff: Option<ResumeDiff>,
    /// A session was started: the warnings of its initial chain.
    pub fresh_warnings: Option<Vec<crate::chain::ChainWarning>>,
    /// The state file that was unusable and has been rebuilt, if any.
    pub rebuilt: Option<crate::store::CorruptState>,
}

/// The flow of a session that starts again (`session resume`, a
/// `SessionStart` hook): under the store's lock, continue the stored
/// session at `cwd` when `continue_stored` and there is one
/// ([`resume_session`]), else start one; write the state when it changed.
pub fn resume_in_store(
    store: &crate::store::SessionStore,
    cwd: &Path,
    config: &AgentsConfig,
    home: Option<PathBuf>,
    continue_stored: bool,
) -> Result<StoredResume, CoreError> {
    use crate::store::StoredState;
    store.update(|stored| match (continue_stored, stored) {
        (true, StoredState::Found(state)) => match resume_session(state, cwd, config, home) {
            Ok((diff, resolver)) => {
                let write = resolver.is_changed();
                let resumed = StoredResume {
                    diff: Some(diff),
                    fresh_warnings: None,
                    rebuilt: None,
                };
                (Ok(resumed), write.then(|| resolver.into_state()))
            }
            Err(error) => (Err(error), None),
        },
        (_, other) => match start_session(cwd, config, home) {
            Ok(started) => {
                let started_fresh = StoredResume {
                    diff: None,
                    fresh_warnings: Some(started.chain.warnings),
                    rebuilt: match other {
                        StoredState::Corrupt(corrupt) => Some(corrupt),
                        _ => None,
                    },
                };
                (Ok(started_fresh), Some(started.resolver.into_state()))
            }
            Err(error) => (Err(error), None),
        },
    })?
}

/// What [`resolve_in_store`] did besides resolving.
#[derive(Debug)]
pub struct StoredResolve {
    /// The new or changed AGENTS.md files.
    pub found: agentctx_types::ResolvedAgents,
    /// The session had no usable state, so a fresh one was started at the
    /// cwd: the warnings of its initial chain (empty otherwise).
    pub fresh_warnings: Option<Vec<crate::chain::ChainWarning>>,
    /// The state file that was unusable and has been rebuilt, if any.
    pub rebuilt: Option<crate::store::CorruptState>,
}

/// The flow every caller of the resolver with a session runs: under the
/// store's lock, continue the stored session (or start one at `cwd` when
/// there is none or it is unusable), resolve `targets`, and write the state
/// back only when it changed.
pub fn resolve_in_store<P: AsRef<Path>>(
    store: &crate::store::SessionStore,
    cwd: &Path,
    config: &AgentsConfig,
    home: Option<PathBuf>,
    targets: &[P],
) -> Result<StoredResolve, CoreError> {
    use crate::store::StoredState;
    store.update(|stored| {
        let (mut resolver, fresh_warnings, rebuilt) = match stored {
            StoredState::Found(state) => (Resolver::from_state(state, config), None, None),
            other => match start_session(cwd, config, home) {
                Ok(started) => {
                    let rebuilt = match other {
                        StoredState::Corrupt(corrupt) => Some(corrupt),
                        _ => None,
                    };
                    (started.resolver, Some(started.chain.warnings), rebuilt)
                }
                Err(error) => return (Err(error), None),
            },
        };
        let found = resolver.resolve_for_paths(targets);
        let write = fresh_warnings.is_some() || resolver.is_changed();
        let result = StoredResolve {
            found,
            fresh_warnings,
            rebuilt,
        };
        (Ok(result), write.then(|| resolver.into_state()))
    })?
}
