//! Protected files a sandboxed command created: nothing can be bound where
//! nothing is, so `agentctx exec` notes which protected paths are absent
//! before a command runs and sets aside what appeared once it has ended
//! (or, for a command killed before that, at the project's next `exec` or
//! session start).

use std::path::{Path, PathBuf};

use agentctx_rules::Rules;

use agentctx_session::Host;

/// What a command is watched for: the protected paths that do not exist,
/// and the folders on their way that are links already (the user's own:
/// what is made through them is set aside where it is).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Watched {
    pub absent: Vec<PathBuf>,
    pub links: Vec<PathBuf>,
    /// `.git/HEAD` and its bytes before the command.
    #[serde(default)]
    pub head: Option<(PathBuf, Vec<u8>)>,
    /// The sandbox's walk of the project before the command: protected
    /// names made anywhere in it are looked for after.
    #[serde(default)]
    pub walk: agentctx_sandbox::Walk,
    /// The names protected anywhere in the project for this session (a
    /// `.env` where an agent loads it).
    #[serde(default)]
    pub names: Vec<String>,
}

/// [`absent_protected`], with the links on the way to each.
pub(crate) fn watch(host: &Host<'_>, rules: &Rules) -> Watched {
    let root = rules.root();
    let absent = absent_protected(host, rules);
    let mut links: Vec<PathBuf> = absent
        .iter()
        .flat_map(|p| ancestors_below(root, p))
        .filter(|a| std::fs::symlink_metadata(a).is_ok_and(|m| m.is_symlink()))
        .collect();
    links.sort();
    links.dedup();
    Watched {
        absent,
        links,
        head: git_head(root),
        walk: agentctx_sandbox::Walk::default(),
        names: agentctx_guard::protect::protected_names(host)
            .iter()
            .map(|n| (*n).to_owned())
            .collect(),
    }
}

/// The folders strictly between `root` and `path`, outermost first.
fn ancestors_below(root: &Path, path: &Path) -> Vec<PathBuf> {
    let Ok(relative) = path.strip_prefix(root) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = relative
        .ancestors()
        .skip(1)
        .filter(|a| !a.as_os_str().is_empty())
        .map(|a| root.join(a))
        .collect();
    out.reverse();
    out
}

/// The protected paths of the project that do not exist: its root's
/// protected names and rule files, its git folder or, in it, what makes
/// git run a program.
fn absent_protected(host: &Host<'_>, rules: &Rules) -> Vec<PathBuf> {
    let root = rules.root();
    let git = root.join(".git");
    let git_entries: Vec<PathBuf> = if git.is_dir() {
        agentctx_guard::escape::GIT_ENTRIES
            .iter()
            .map(|e| git.join(e))
            .collect()
    } else {
        // No repository: a `.git` the command makes (`git init`, then a
        // config of its own) is git's for every later `git` outside.
        vec![git]
    };
    let start = host.anchor.map(|a| a.start_dir.clone());
    agentctx_guard::protect::protected_names(host)
        .iter()
        .map(|n| root.join(n))
        // What an agent loads from the folder a session starts in (Copilot
        // CLI's hooks and settings), in the root and the session's folder
        // (made empty and read-only before a command runs; here for a
        // sandbox that could not make them).
        .chain(
            agentctx_guard::protect::start_folder_configs()
                .into_iter()
                .flat_map(|f| {
                    std::iter::once(root.join(f)).chain(start.as_ref().map(|s| s.join(f)))
                }),
        )
        // What an agent started in the project loads from above it.
        .chain(agentctx_guard::protect::loaded_above_root(host, rules))
        .chain(
            host.config
                .project_agent_rules
                .rule_files
                .iter()
                .map(|f| root.join(f)),
        )
        .chain(git_entries)
        // Git takes a folder holding `HEAD`, `objects` and `refs` for a
        // bare repository, and looks for one (or a `.git`) in every folder
        // above: a new `HEAD` in the project's root or a `.git` or `HEAD`
        // above it (a project under /tmp) would be git's next time.
        .chain(std::iter::once(root.join("HEAD")))
        .chain(
            root.ancestors()
                .skip(1)
                .filter(|a| a.parent().is_some())
                .flat_map(|a| [a.join(".git"), a.join("HEAD")]),
        )
        .filter(|p| std::fs::symlink_metadata(p).is_err())
        .collect()
}

/// `.git/HEAD` as it was before a command, to put back when the command
/// left one git cannot read (git then takes the project folder itself for
/// a bare repository, with a `config` the command wrote there).
pub(crate) fn git_head(root: &Path) -> Option<(PathBuf, Vec<u8>)> {
    let head = root.join(".git/HEAD");
    let bytes = agentctx_fs::read(&head, HEAD_LIMIT).ok()?;
    head_is_valid(&bytes).then_some((head, bytes))
}

/// A `HEAD` is one line.
const HEAD_LIMIT: u64 = 4096;

/// `ref: refs/...` or a commit id.
fn head_is_valid(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    text.strip_prefix("ref: refs/")
        .is_some_and(|r| !r.is_empty())
        || ((text.len() == 40 || text.len() == 64) && text.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Puts `.git/HEAD` back when the command left one git cannot read.
pub(crate) fn restore_head(saved: Option<&(PathBuf, Vec<u8>)>) -> Option<String> {
    let (head, bytes) = saved?;
    // A FIFO (which would hang whoever opens it), a device, a folder: not
    // a HEAD git can read, so put back too.
    let now = agentctx_fs::read(head, HEAD_LIMIT).unwrap_or_default();
    if head_is_valid(&now) {
        return None;
    }
    let restored = agentctx_fs::replace_file(head, bytes, None);
    Some(match restored {
        Ok(()) => format!(
            "agentctx: the command left {} unreadable to git (git would then take the project folder for a repository of the command's): it was put back",
            head.display()
        ),
        Err(error) => format!(
            "agentctx: the command left {} unreadable to git and it could not be put back ({error}): restore it before running git",
            head.display()
        ),
    })
}

/// Where the protected paths a running command must not create are kept
/// until it has ended (`<state>/sandbox/pending/<root digest>-<session>`):
/// a command killed before the look afterwards (a timeout, an interrupt)
/// is looked after at the project's next `agentctx exec` or session start.
pub(crate) fn pending_file(sandbox: &Path, root: &Path, session: &str) -> PathBuf {
    sandbox
        .join("pending")
        .join(format!("{}-{session}", root_digest(root)))
}

fn root_digest(root: &Path) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(root.as_os_str().as_encoded_bytes())[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Sets aside what the commands of `root` that did not end (any session's)
/// left among the protected paths they were watched for; one line each.
pub fn sweep_pending(sandbox: &Path, root: &Path) -> Vec<String> {
    let prefix = format!("{}-", root_digest(root));
    let Ok(entries) = std::fs::read_dir(sandbox.join("pending")) else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(&prefix) {
            continue;
        }
        let watched: Watched = std::fs::read(entry.path())
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        lines.extend(restore_head(watched.head.as_ref()));
        lines.extend(set_aside(root, &made_by(&watched), &watched.links));
        let _ = std::fs::remove_file(entry.path());
    }
    lines
}

/// What a command watched by `watched` made among the protected paths:
/// the absent ones that are there now, and protected names (Claude Code
/// reads `<cwd>/.claude/settings.json` when started in a subfolder, the
/// CLI the nearest `.agentctx.yaml`) or a `.git` below the root made
/// anywhere in the project.
pub(crate) fn made_by(watched: &Watched) -> Vec<PathBuf> {
    let mut names: Vec<String> = if watched.names.is_empty() {
        agentctx_guard::protect::always_protected_names()
            .iter()
            .map(|n| (*n).to_owned())
            .collect()
    } else {
        watched.names.clone()
    };
    // What an agent loads from whichever folder a later session starts in
    // (Copilot CLI's `.github/hooks` and `.github/copilot`): looked for by
    // their last name, kept only below their parent's name.
    let start_configs: Vec<(String, String)> = agentctx_guard::protect::start_folder_configs()
        .into_iter()
        .filter_map(|f| {
            let (parent, name) = f.rsplit_once('/')?;
            Some((parent.rsplit('/').next()?.to_owned(), name.to_owned()))
        })
        .collect();
    names.extend(start_configs.iter().map(|(_, name)| name.clone()));
    let mut made = watched.walk.new_entries_named(&names);
    made.retain(|p| {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let parent = p
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let configs: Vec<&(String, String)> =
            start_configs.iter().filter(|(_, n)| *n == name).collect();
        configs.is_empty()
            || configs
                .iter()
                .any(|(dir, _)| dir.eq_ignore_ascii_case(&parent))
    });
    made.retain(|p| !watched.absent.contains(p));
    made.extend(watched.absent.iter().cloned());
    made
}

/// Each of `absent` that exists now, renamed to `<name>.agentctx-refused`
/// (`-2`, `-3`... beside an earlier one): a sandboxed command may not create what the
/// next session would read as its rules, config or hooks. A folder on the
/// way that is a link now and was not one before (not in `links`: the
/// command made it, or put it in place of a folder) is what is set aside,
/// so nothing is renamed where it points.
pub(crate) fn set_aside(root: &Path, absent: &[PathBuf], links: &[PathBuf]) -> Vec<String> {
    let mut lines = Vec::new();
    for wanted in absent {
        let linked = ancestors_below(root, wanted).into_iter().find(|a| {
            !links.contains(a) && std::fs::symlink_metadata(a).is_ok_and(|m| m.is_symlink())
        });
        let path = linked.as_ref().unwrap_or(wanted);
        if std::fs::symlink_metadata(path).is_err() {
            continue;
        }
        // A free name: an earlier one set aside is never removed (it may be
        // the only copy of something).
        let aside = (1..)
            .map(|n: u32| {
                let mut name = path.clone().into_os_string();
                name.push(".agentctx-refused");
                if n > 1 {
                    name.push(format!("-{n}"));
                }
                PathBuf::from(name)
            })
            .find(|candidate| std::fs::symlink_metadata(candidate).is_err())
            .unwrap_or_else(|| path.with_extension("agentctx-refused"));
        lines.push(match std::fs::rename(path, &aside) {
            Ok(()) => format!(
                "agentctx: the command created {}, which the rules protect: it was moved to {}",
                path.display(),
                aside.display()
            ),
            Err(error) => format!(
                "agentctx: the command created {}, which the rules protect, and it could not be moved aside ({error}): remove it before the next session",
                path.display()
            ),
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    #[test]
    fn a_head_put_back_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let head = dir.path().join(".git/HEAD");
        std::fs::create_dir_all(head.parent().unwrap()).unwrap();
        std::fs::write(&head, "ref: refs/heads/main\n").unwrap();
        std::fs::set_permissions(&head, std::fs::Permissions::from_mode(0o664)).unwrap();
        let saved = super::git_head(dir.path());
        std::fs::write(&head, "not a ref").unwrap();
        assert!(super::restore_head(saved.as_ref()).is_some());
        assert_eq!(
            std::fs::read_to_string(&head).unwrap(),
            "ref: refs/heads/main\n"
        );
        let mode = std::fs::metadata(&head).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o664);
    }
}
