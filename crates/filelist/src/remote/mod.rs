//! Remote sources: a repository's tree from GitHub or GitLab, cached, or
//! from saved API responses. They produce the same [`Listing`] as the local
//! walk, so filters, limits, formats and budgets apply unchanged.

mod github;
mod gitlab;
mod http;
mod names;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use http::RemoteError;

use crate::listing::{Listing, SourceNote};

/// The hosting platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Platform {
    /// GitHub or GitHub Enterprise.
    GitHub,
    /// GitLab.com or a self-hosted GitLab.
    GitLab,
}

agentctx_types::from_name!(Platform, "hosting platform", [
    "github" => Platform::GitHub,
    "gitlab" => Platform::GitLab,
]);

impl Platform {
    /// The default API base.
    pub fn default_api(self) -> &'static str {
        match self {
            Self::GitHub => "https://api.github.com",
            Self::GitLab => "https://gitlab.com/api/v4",
        }
    }

    /// The environment variables that may hold a token, in order.
    pub fn token_vars(self) -> &'static [&'static str] {
        match self {
            Self::GitHub => &["GITHUB_TOKEN", "GH_TOKEN"],
            Self::GitLab => &["GITLAB_TOKEN"],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::GitHub => "GitHub",
            Self::GitLab => "GitLab",
        }
    }
}

/// Which repository, where, at which ref.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteRepo {
    /// GitHub or GitLab.
    pub platform: Platform,
    /// API base URL.
    pub api: String,
    /// `owner/repo`, `group/sub/project`, or a numeric GitLab id.
    pub repo: String,
    /// A branch, tag or commit; `None` asks for the default branch.
    pub reference: Option<String>,
}

impl RemoteRepo {
    /// `Ok` when the name can be a repository (and ref) of its platform:
    /// `OWNER/REPO[@REF]` on GitHub, `GROUP/.../PROJECT[@REF]` or a
    /// project id on GitLab. [`fetch`] and [`fetch_file`] check it before
    /// any request.
    pub fn validate(&self) -> Result<(), RemoteError> {
        names::check(self)
    }

    /// Splits `OWNER/REPO[@REF]` (checked by [`validate`](Self::validate)).
    pub fn parse(platform: Platform, spec: &str, api: Option<&str>) -> Self {
        let (repo, reference) = match spec.rsplit_once('@') {
            Some((repo, reference)) if !reference.is_empty() => (repo, Some(reference.to_owned())),
            _ => (spec, None),
        };
        Self {
            platform,
            api: api
                .unwrap_or(platform.default_api())
                .trim_end_matches('/')
                .to_owned(),
            repo: repo.trim_matches('/').to_owned(),
            reference,
        }
    }
}

/// How to fetch.
#[derive(Clone, Debug)]
pub struct RemoteOptions {
    /// `GITHUB_TOKEN`/`GH_TOKEN` or `GITLAB_TOKEN`.
    pub token: Option<String>,
    /// The whole fetch's time limit, across every request.
    pub timeout: Duration,
    /// A truncated GitHub tree is completed down to this depth (the
    /// deepest level the listing shows; `usize::MAX`: as far as time allows).
    pub max_depth: usize,
    /// The cache folder; `None` disables the cache.
    pub cache_dir: Option<PathBuf>,
    /// Lifetime of a cache entry before its commit is checked again.
    pub cache_ttl: Duration,
    /// Ignore a cached listing (and rewrite it).
    pub refresh: bool,
}

/// A cached listing: only complete ones are written.
#[derive(Clone, Serialize, Deserialize)]
struct CacheEntry {
    platform: Platform,
    api: String,
    repo: String,
    /// When the listing's commit was last found current.
    checked_at: u64,
    /// The entity tag of the last answer about the ref's commit (GitHub),
    /// sent back as `If-None-Match`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    etag: Option<String>,
    /// The listing, with its ref, commit and fetch time.
    listing: Listing,
}

impl CacheEntry {
    /// Whether the entry can stand for a listing down to `max_depth`.
    fn covers(&self, max_depth: usize) -> bool {
        self.listing.notes.iter().all(|note| match note {
            SourceNote::CompleteTo { depth } => *depth >= max_depth,
            _ => true,
        })
    }
}

/// The refs to try: the one asked for; else the default branch (when the
/// metadata request gave one), then `main`, then `master`.
fn ref_candidates(
    reference: Option<&str>,
    default_branch: impl FnOnce() -> Option<String>,
) -> Vec<String> {
    match reference {
        Some(r) => vec![r.to_owned()],
        None => default_branch()
            .into_iter()
            .chain(["main".to_owned(), "master".to_owned()])
            .collect(),
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn client(repo: &RemoteRepo, options: &RemoteOptions) -> http::Client {
    let token = options.token.clone().filter(|t| !t.is_empty());
    match repo.platform {
        Platform::GitHub => http::Client::new(
            "GitHub",
            &repo.repo,
            &repo.api,
            token.map(|t| ("Authorization", format!("Bearer {t}"))),
            "GITHUB_TOKEN",
            options.timeout,
        ),
        Platform::GitLab => http::Client::new(
            "GitLab",
            &repo.repo,
            &repo.api,
            token.map(|t| ("PRIVATE-TOKEN", t)),
            "GITLAB_TOKEN",
            options.timeout,
        ),
    }
}

fn cache_path(dir: &Path, repo: &RemoteRepo) -> PathBuf {
    let key = format!(
        "{:?}\n{}\n{}\n{}",
        repo.platform,
        repo.api,
        repo.repo,
        repo.reference.as_deref().unwrap_or("")
    );
    let digest = Sha256::digest(key.as_bytes());
    let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{name}.json"))
}

/// A cached entry, or `None` when missing, corrupt (it will be replaced) or
/// for another repository.
fn read_cache(path: &Path, repo: &RemoteRepo) -> Option<CacheEntry> {
    let entry: CacheEntry = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    (entry.platform == repo.platform && entry.api == repo.api && entry.repo == repo.repo)
        .then_some(entry)
}

/// The lock of a cache entry (`<entry>.lock` beside it), held until the
/// file is dropped; `None` when it cannot be had before `deadline`.
fn lock(path: &Path, deadline: Instant) -> Option<std::fs::File> {
    let lock_path = path.with_extension("lock");
    std::fs::create_dir_all(lock_path.parent()?).ok()?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .ok()?;
    loop {
        match file.try_lock() {
            Ok(()) => return Some(file),
            Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(_) => return None,
        }
    }
}

fn write_cache(path: &Path, entry: &CacheEntry) {
    // The cache is an optimisation: failing to write it is not an error.
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let Ok(mut temp) = tempfile::NamedTempFile::new_in(dir) else {
        return;
    };
    let Ok(json) = serde_json::to_vec(entry) else {
        return;
    };
    if std::io::Write::write_all(&mut temp, &json).is_ok() {
        let _ = temp.persist(path);
    }
}

/// How deep a truncated GitHub tree is completed for `options`: the depth
/// given; else [`DEFAULT_COMPLETION_DEPTH`](crate::DEFAULT_COMPLETION_DEPTH)
/// without a budget, one level more with one (each level is requests, and
/// what the truncated answer held below is kept).
pub fn completion_depth(options: &crate::FileListOptions) -> usize {
    match (options.max_depth, options.token_budget) {
        (Some(depth), _) => depth,
        (None, None) => crate::DEFAULT_COMPLETION_DEPTH,
        (None, Some(_)) => crate::DEFAULT_COMPLETION_DEPTH + 1,
    }
}

fn is_commit_sha(reference: &str) -> bool {
    reference.len() == 40 && reference.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A listing worth caching: nothing cut by a failure or the time limit.
fn is_complete(listing: &Listing) -> bool {
    !listing
        .notes
        .iter()
        .any(|n| matches!(n, SourceNote::Truncated { .. } | SourceNote::Timeout { .. }))
}

/// Errors after which a cached listing is better than none: the API is
/// unreachable, slow, limited or broken. Not found and not allowed are
/// answers about the repository itself.
fn serve_stale_after(error: &RemoteError) -> bool {
    !matches!(
        error,
        RemoteError::NotFound { .. }
            | RemoteError::Auth { .. }
            | RemoteError::Saved { .. }
            | RemoteError::InvalidName { .. }
    )
}

fn stale(mut listing: Listing, error: &RemoteError) -> Listing {
    listing.stale = Some(error.to_string());
    listing
}

/// Fetches a repository's tree, through the cache (its name checked first:
/// one that cannot be a repository is an error before any request or cache
/// lookup): within `cache_ttl` a
/// cached listing is used without any request; past it, one request for
/// the ref's commit tells whether it still holds (a commit SHA as ref
/// never changes). The ref is resolved to its commit before the tree is
/// read, and the listing names both and its fetch time. One deadline
/// (`timeout`) covers every request. When the API fails, a cached listing
/// of any age is served, marked stale; error answers and partial listings
/// are never cached. A corrupt cache file is ignored and replaced.
pub fn fetch(repo: &RemoteRepo, options: &RemoteOptions) -> Result<Listing, RemoteError> {
    repo.validate()?;
    let client = client(repo, options);
    let path = options.cache_dir.as_ref().map(|dir| cache_path(dir, repo));
    let read = || {
        path.as_deref()
            .and_then(|p| read_cache(p, repo))
            .filter(|c| c.covers(options.max_depth))
    };
    let pinned = repo.reference.as_deref().is_some_and(is_commit_sha);
    let fresh = |entry: &CacheEntry| {
        pinned || now_secs().saturating_sub(entry.checked_at) < options.cache_ttl.as_secs()
    };
    let mut cached = read();
    if let (Some(entry), false) = (&cached, options.refresh)
        && fresh(entry)
    {
        return Ok(entry.listing.clone());
    }
    // Requests are made from here on: one process per repository and ref
    // at a time (workers sharing a cache folder), the others wait for it
    // and use what it wrote. A lock not had within the time limit is done
    // without: the listing matters more than the saving.
    let held = path
        .as_deref()
        .and_then(|p| lock(p, Instant::now() + options.timeout));
    if held.is_some() && !options.refresh {
        cached = read();
        if let Some(entry) = &cached
            && fresh(entry)
        {
            return Ok(entry.listing.clone());
        }
    }
    if let (Some(path), Some(mut entry), false) = (&path, cached.clone(), options.refresh) {
        let reference = entry.listing.reference.clone().unwrap_or_default();
        let check = match repo.platform {
            Platform::GitHub => github::check_commit(
                &client,
                &repo.api,
                &repo.repo,
                &reference,
                entry.etag.as_deref(),
            ),
            Platform::GitLab => gitlab::commit_of(&client, &repo.api, &repo.repo, &reference)
                .map(|sha| github::CommitCheck::Commit(sha, None)),
        };
        let same = |sha: &str| entry.listing.commit.as_deref() == Some(sha);
        match check {
            Ok(github::CommitCheck::Unchanged) => {
                entry.checked_at = now_secs();
                write_cache(path, &entry);
                return Ok(entry.listing);
            }
            Ok(github::CommitCheck::Commit(Some(sha), etag)) if same(&sha) => {
                entry.checked_at = now_secs();
                entry.etag = etag.or(entry.etag);
                write_cache(path, &entry);
                return Ok(entry.listing);
            }
            Ok(_) => {}
            Err(error) if serve_stale_after(&error) => return Ok(stale(entry.listing, &error)),
            Err(error) => return Err(error),
        }
    }
    let fetched = match repo.platform {
        Platform::GitHub => github::listing(
            &client,
            &repo.api,
            &repo.repo,
            repo.reference.as_deref(),
            options.max_depth,
        ),
        Platform::GitLab => {
            gitlab::listing(&client, &repo.api, &repo.repo, repo.reference.as_deref())
        }
    };
    match fetched {
        Ok(mut listing) => {
            listing.fetched_at = i64::try_from(now_secs()).ok();
            if let Some(path) = &path
                && is_complete(&listing)
            {
                write_cache(
                    path,
                    &CacheEntry {
                        platform: repo.platform,
                        api: repo.api.clone(),
                        repo: repo.repo.clone(),
                        checked_at: now_secs(),
                        etag: None,
                        listing: listing.clone(),
                    },
                );
            }
            Ok(listing)
        }
        Err(error) => match cached {
            Some(entry) if serve_stale_after(&error) => Ok(stale(entry.listing, &error)),
            _ => Err(error),
        },
    }
}

/// Largest file [`fetch_file`] returns (an AGENTS.md is far smaller).
pub const MAX_FILE_BYTES: usize = 256 * 1024;

/// The text of one file of the repository at `commit` (`AGENTS.md` for
/// `agentctx context --github`): `None` when there is no such file or it is
/// larger than [`MAX_FILE_BYTES`]. Not cached: one small request.
pub fn fetch_file(
    repo: &RemoteRepo,
    commit: &str,
    path: &str,
    options: &RemoteOptions,
) -> Result<Option<String>, RemoteError> {
    repo.validate()?;
    let client = client(repo, options);
    let encoded_path: Vec<String> = path.split('/').map(http::encode).collect();
    let (url, accept) = match repo.platform {
        Platform::GitHub => (
            format!(
                "{}/repos/{}/contents/{}?ref={}",
                repo.api,
                repo.repo,
                encoded_path.join("/"),
                http::encode(commit)
            ),
            "application/vnd.github.raw+json",
        ),
        Platform::GitLab => (
            format!(
                "{}/projects/{}/repository/files/{}/raw?ref={}",
                repo.api,
                gitlab::project_id(&repo.repo),
                http::encode(path),
                http::encode(commit)
            ),
            "text/plain",
        ),
    };
    let answer = client.get(&url, accept)?;
    if answer.status == 404 {
        return Ok(None);
    }
    if !(200..300).contains(&answer.status) {
        return Err(client.status_error(&answer, path));
    }
    Ok((answer.body.len() <= MAX_FILE_BYTES).then_some(answer.body))
}

/// A listing from saved API responses (`--from-json`): a GitHub tree
/// response (named `owner/repo@sha` from its own `url` and `sha`, else
/// `root_name`), or GitLab pages (one array or several concatenated;
/// named `root_name`).
pub fn from_json(
    platform: Platform,
    text: &str,
    source_name: &str,
    root_name: &str,
) -> Result<Listing, RemoteError> {
    let saved = |detail: String| RemoteError::Saved {
        source_name: source_name.to_owned(),
        platform: platform.name(),
        detail,
    };
    let mut listing = Listing {
        root_name: root_name.to_owned(),
        ..Listing::default()
    };
    match platform {
        Platform::GitHub => {
            let (entries, truncated, name) = github::parse(text).map_err(saved)?;
            listing.entries = entries;
            if let Some(name) = name {
                listing.root_name = name;
            }
            if truncated {
                listing.notes.push(SourceNote::Truncated {
                    by: "GitHub".to_owned(),
                });
            }
        }
        Platform::GitLab => {
            listing.entries = gitlab::parse(text).map_err(saved)?;
            listing.notes.push(SourceNote::NoSizes {
                source: "GitLab".to_owned(),
            });
        }
    }
    Ok(listing)
}
