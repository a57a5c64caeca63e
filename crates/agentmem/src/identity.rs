//! Project identity: which repository a folder belongs to, so that memory
//! follows the repository and not the path (worktrees and clones of one
//! repository share it; a monorepo package keeps its own captures beside
//! the root's).
//!
//! A folder's identity has up to three keys: `origin`'s URL (normalized:
//! every clone from the same server agrees), the commit reached from HEAD
//! by first parents (every clone and worktree agrees, also without a
//! remote and after one is added), and the name an `agentmem.identities`
//! rule gives. Two identities are the same project when any key agrees.
//! Outside git, the folder is the identity.

use std::path::{Path, PathBuf};

use agentctx_types::{IdentityRule, ProjectIdentity};

/// First parents followed to find the root commit at most: a longer
/// history keeps its remote as its only git key (its identity then does not
/// cost more than this walk).
const MAX_FIRST_PARENTS: usize = 200_000;

/// Hosts whose owner and repository names are case-insensitive.
const CASE_INSENSITIVE_HOSTS: &[&str] =
    &["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"];

/// Files that make a folder a package of a monorepo.
const PACKAGE_MANIFESTS: &[&str] = &[
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "Gemfile",
    "composer.json",
    "mix.exs",
    "deno.json",
    "AGENTS.md",
];

/// How to identify folders: the user's rules, and where root commits found
/// once are kept (`$XDG_CACHE_HOME/agentctx/identities`), so a long history
/// is walked once per repository, not once per session.
#[derive(Clone, Debug, Default)]
pub struct IdentityOptions {
    /// `agentmem.identities`.
    pub rules: Vec<IdentityRule>,
    /// The cache folder for root commits; `None` walks every time.
    pub cache: Option<PathBuf>,
}

/// The identity of the project `dir` belongs to. Never fails: what cannot
/// be read leaves its key empty, and a folder outside git is its own
/// identity.
pub fn identify(dir: &Path, options: &IdentityOptions) -> ProjectIdentity {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut identity =
        git_identity(&dir, options.cache.as_deref(), 0).unwrap_or_else(|| ProjectIdentity {
            top: dir.clone(),
            ..ProjectIdentity::default()
        });
    identity.package = package_of(&dir, &identity.top);
    if let Some(rule) = options
        .rules
        .iter()
        .find(|r| rule_matches(r, &identity, &dir))
    {
        identity.name = rule.id.clone();
        identity.remote.clear();
        identity.root_commit.clear();
    }
    identity
}

/// The keys a session's recall looks for: its own, the `also` list, and
/// every rule's `match` whose `as` is one of them (a merge reaches the
/// captures made before the rule). Absolute folders among them are
/// returned apart: they match captures made below them.
pub fn recall_keys(
    identity: &ProjectIdentity,
    rules: &[IdentityRule],
    also: &[String],
) -> (Vec<String>, Vec<PathBuf>) {
    let mut keys: Vec<String> = [&identity.remote, &identity.root_commit, &identity.name]
        .into_iter()
        .filter(|k| !k.is_empty())
        .cloned()
        .chain(also.iter().cloned())
        .collect();
    let mut folders = Vec::new();
    for rule in rules {
        if keys.contains(&rule.id) {
            if Path::new(&rule.matches).is_absolute() {
                folders.push(PathBuf::from(&rule.matches));
            } else if !keys.contains(&rule.matches) {
                keys.push(rule.matches.clone());
            }
        }
    }
    keys.sort();
    keys.dedup();
    folders.sort();
    folders.dedup();
    (keys, folders)
}

fn rule_matches(rule: &IdentityRule, identity: &ProjectIdentity, dir: &Path) -> bool {
    let want = rule.matches.trim();
    if want.is_empty() {
        return false;
    }
    if Path::new(want).is_absolute() {
        let folder = std::fs::canonicalize(want).unwrap_or_else(|_| PathBuf::from(want));
        return dir.starts_with(&folder);
    }
    // `github.com/acme/api` as printed, or any URL of it.
    (!identity.remote.is_empty()
        && (identity.remote == want || normalize_remote(want).as_deref() == Some(&identity.remote)))
        || (!identity.root_commit.is_empty() && identity.root_commit == want)
}

/// `dir`'s repository keys. `depth` bounds the chain of local clones
/// followed for a remote.
fn git_identity(dir: &Path, cache: Option<&Path>, depth: u8) -> Option<ProjectIdentity> {
    // gix opens HEAD and config with a blocking `open`: a FIFO a command
    // planted there would hang every session start.
    if !agentctx_fs::git_files_are_regular(dir) {
        return None;
    }
    let repo = gix::discover(dir).ok()?;
    let top = repo
        .workdir()
        .map(|w| std::fs::canonicalize(w).unwrap_or_else(|_| w.to_path_buf()))
        .unwrap_or_else(|| dir.to_path_buf());
    let config = repo.config_snapshot();
    let url = config
        .string("remote.origin.url")
        .map(|u| u.to_string())
        .or_else(|| {
            // No `origin`: a repository with exactly one remote uses it.
            let names = repo.remote_names();
            let mut names = names.iter();
            match (names.next(), names.next()) {
                (Some(only), None) => config
                    .string(format!("remote.{only}.url").as_str())
                    .map(|u| u.to_string()),
                _ => None,
            }
        });
    let remote = match url.as_deref() {
        Some(url) => match normalize_remote(url) {
            Some(remote) => remote,
            // A clone of a clone on this machine: the remote of where it
            // came from, when that is a repository with one.
            None if depth < 2 => local_path(url, &top)
                .and_then(|p| git_identity(&p, cache, depth + 1))
                .map(|i| i.remote)
                .unwrap_or_default(),
            None => String::new(),
        },
        None => String::new(),
    };
    let root_commit = root_commit(&repo, cache).unwrap_or_default();
    Some(ProjectIdentity {
        remote,
        root_commit,
        name: String::new(),
        top,
        package: String::new(),
    })
}

/// The commit reached from HEAD by first parents, from the cache when this
/// repository's was found before.
fn root_commit(repo: &gix::Repository, cache: Option<&Path>) -> Option<String> {
    let cached = cache.map(|c| c.join(cache_name(repo.common_dir())));
    if let Some(file) = &cached
        && let Ok(text) = std::fs::read_to_string(file)
    {
        let id = text.trim();
        // Still a commit of this repository, and still a root.
        if let Ok(oid) = gix::ObjectId::from_hex(id.as_bytes())
            && let Ok(commit) = repo.find_commit(oid)
            && commit.parent_ids().next().is_none()
        {
            return Some(id.to_owned());
        }
    }
    if repo.is_shallow().unwrap_or(true) {
        // The first commit is not here: the remote has to do.
        return None;
    }
    let mut at = repo.head_id().ok()?.detach();
    for _ in 0..MAX_FIRST_PARENTS {
        let commit = repo.find_commit(at).ok()?;
        match commit.parent_ids().next() {
            Some(parent) => at = parent.detach(),
            None => {
                let id = at.to_string();
                if let Some(file) = &cached {
                    // A cache that cannot be written costs the next walk only.
                    let _ = write_atomically(file, &id);
                }
                return Some(id);
            }
        }
    }
    None
}

fn cache_name(common_dir: &Path) -> String {
    use sha2::Digest as _;
    let key = std::fs::canonicalize(common_dir).unwrap_or_else(|_| common_dir.to_path_buf());
    let digest = sha2::Sha256::digest(key.to_string_lossy().as_bytes());
    digest[..12].iter().map(|b| format!("{b:02x}")).collect()
}

fn write_atomically(file: &Path, text: &str) -> std::io::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut temp, text.as_bytes())?;
    temp.persist(file).map(drop).map_err(|e| e.error)
}

/// A remote URL as a name every clone agrees on: `host/path` without
/// scheme, user, port and `.git`, the host in lower case. `None` for a
/// path on this machine (not a name another machine shares).
pub fn normalize_remote(url: &str) -> Option<String> {
    let parsed = gix::url::parse(url.trim()).ok()?;
    let host = parsed.host()?.to_ascii_lowercase();
    let path = parsed.path.to_string();
    let path = path.trim_matches('/');
    let path = path
        .strip_suffix(".git")
        .unwrap_or(path)
        .trim_end_matches('/');
    if host.is_empty() || path.is_empty() {
        return None;
    }
    // These hosts treat owner and repository names without case: one
    // repository, one name.
    let path = if CASE_INSENSITIVE_HOSTS.contains(&host.as_str()) {
        path.to_lowercase()
    } else {
        path.to_owned()
    };
    Some(format!("{host}/{path}"))
}

/// The folder a local remote URL points at (`/srv/repo`, `../repo`,
/// `file:///srv/repo`), resolved against the working tree.
fn local_path(url: &str, top: &Path) -> Option<PathBuf> {
    let parsed = gix::url::parse(url.trim()).ok()?;
    if parsed.host().is_some() {
        return None;
    }
    let path = PathBuf::from(parsed.path.to_string());
    let path = if path.is_absolute() {
        path
    } else {
        top.join(path)
    };
    std::fs::canonicalize(path).ok()
}

/// The package of `dir` inside `top`: the nearest folder at or above it,
/// below `top`, that holds a manifest; empty at the top.
fn package_of(dir: &Path, top: &Path) -> String {
    let Ok(relative) = dir.strip_prefix(top) else {
        return String::new();
    };
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    while !parts.is_empty() {
        let candidate = top.join(parts.join("/"));
        if PACKAGE_MANIFESTS
            .iter()
            .any(|m| candidate.join(m).is_file())
        {
            return parts.join("/");
        }
        parts.pop();
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_one_remote_is_one_name() {
        for url in [
            "git@github.com:acme/api.git",
            "https://github.com/acme/api",
            "https://user:token@GitHub.com:443/acme/api.git/",
            "ssh://git@github.com/acme/api.git",
            "git://github.com/acme/api",
        ] {
            assert_eq!(
                normalize_remote(url).as_deref(),
                Some("github.com/acme/api"),
                "{url}"
            );
        }
        assert_eq!(
            normalize_remote("git@github.com:Acme/API.git").as_deref(),
            Some("github.com/acme/api"),
            "GitHub names have no case"
        );
        for url in [
            "https://git.example.com/Team/Repo",
            "ssh://git@git.example.com/Team/Repo.git",
        ] {
            assert_eq!(
                normalize_remote(url).as_deref(),
                Some("git.example.com/Team/Repo"),
                "elsewhere case is kept: {url}"
            );
        }
        assert_eq!(normalize_remote("/srv/git/api.git"), None);
        assert_eq!(normalize_remote("file:///srv/git/api.git"), None);
        assert_eq!(normalize_remote("../api"), None);
    }

    #[test]
    fn recall_keys_follow_merges_both_ways() {
        let rules = vec![IdentityRule {
            matches: "github.com/acme/api-v2".into(),
            id: "github.com/acme/api".into(),
        }];
        let api = ProjectIdentity {
            remote: "github.com/acme/api".into(),
            root_commit: "c0ffee".into(),
            ..ProjectIdentity::default()
        };
        let (keys, folders) = recall_keys(&api, &rules, &[]);
        assert_eq!(
            keys,
            ["c0ffee", "github.com/acme/api", "github.com/acme/api-v2"]
        );
        assert!(folders.is_empty());
        let split = vec![IdentityRule {
            matches: "/work/client-x".into(),
            id: "client-x".into(),
        }];
        let named = ProjectIdentity {
            name: "client-x".into(),
            ..ProjectIdentity::default()
        };
        let (keys, folders) = recall_keys(&named, &split, &["shared".into()]);
        assert_eq!(keys, ["client-x", "shared"]);
        assert_eq!(folders, [PathBuf::from("/work/client-x")]);
    }
}
