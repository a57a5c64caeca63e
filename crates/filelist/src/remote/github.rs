//! GitHub: the ref resolved to its commit (`GET .../commits/{ref}`), then
//! `GET {api}/repos/{owner}/{repo}/git/trees/{sha}?recursive=1`; a
//! truncated answer completed level by level, down to the depth shown.

use std::collections::HashSet;

use serde::Deserialize;

use super::http::{Client, RemoteError, encode};
use crate::listing::{Entry, Listing, SourceNote};

/// A tree answer. `tree` is required: an error body (`{"message": ...}`,
/// even with status 200) is an error, never an empty repository.
#[derive(Deserialize)]
struct Tree {
    #[serde(default)]
    sha: Option<String>,
    #[serde(default)]
    url: Option<String>,
    tree: Vec<Item>,
    #[serde(default)]
    truncated: bool,
}

#[derive(Deserialize)]
struct Item {
    path: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    size: Option<u64>,
    #[serde(default)]
    sha: Option<String>,
    #[serde(default)]
    mode: Option<String>,
}

#[derive(Deserialize)]
struct Repo {
    default_branch: Option<String>,
}

fn entry(prefix: &str, item: &Item) -> Option<Entry> {
    let path = if prefix.is_empty() {
        item.path.clone()
    } else {
        format!("{prefix}/{}", item.path)
    };
    match item.kind.as_str() {
        "blob" => Some(Entry {
            size: item.size,
            // mode 120000: a symbolic link.
            symlink: item.mode.as_deref() == Some("120000"),
            ..Entry::file(path)
        }),
        "tree" => Some(Entry::dir(path)),
        // A submodule: shown as a directory, never entered.
        "commit" => Some(Entry {
            submodule: true,
            ..Entry::dir(path)
        }),
        _ => None,
    }
}

/// A saved tree response: its entries, whether GitHub truncated it, and
/// `owner/repo@sha` when its `url` and `sha` say (a saved answer names the
/// repository it came from).
pub fn parse(text: &str) -> Result<(Vec<Entry>, bool, Option<String>), String> {
    let tree: Tree = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let name = match (&tree.url, &tree.sha) {
        (Some(url), Some(sha)) => url
            .split_once("/repos/")
            .and_then(|(_, rest)| rest.split_once("/git/trees/"))
            .map(|(owner_repo, _)| format!("{owner_repo}@{sha}")),
        _ => None,
    };
    Ok((
        tree.tree.iter().filter_map(|i| entry("", i)).collect(),
        tree.truncated,
        name,
    ))
}

/// The commit `reference` points at: `Ok(None)` when there is no such ref.
fn resolve(client: &Client, base: &str, reference: &str) -> Result<Option<String>, RemoteError> {
    if super::is_commit_sha(reference) {
        return Ok(Some(reference.to_ascii_lowercase()));
    }
    let url = format!("{base}/commits/{}", encode(reference));
    let answer = client.get(&url, "application/vnd.github.sha")?;
    // 422: "No commit found for SHA": not a ref either.
    if answer.status == 404 || answer.status == 422 {
        return Ok(None);
    }
    if !(200..300).contains(&answer.status) {
        return Err(client.status_error(&answer, &format!("ref {reference}")));
    }
    let sha = answer.body.trim();
    if !super::is_commit_sha(sha) {
        return Err(client.bad_json(format!("ref {reference}: not a commit id: {}", cut(sha))));
    }
    Ok(Some(sha.to_ascii_lowercase()))
}

/// The first 80 characters of an unexpected body, for an error message.
fn cut(body: &str) -> String {
    body.chars().take(80).collect()
}

/// The ref asked for, else the default branch, else `main`, else `master`
/// (the first that exists), resolved to its commit and listed.
pub fn listing(
    client: &Client,
    api: &str,
    owner_repo: &str,
    reference: Option<&str>,
    max_depth: usize,
) -> Result<Listing, RemoteError> {
    let base = format!("{}/repos/{owner_repo}", api.trim_end_matches('/'));
    let candidates = super::ref_candidates(reference, || {
        client
            .get(&base, "application/vnd.github+json")
            .ok()
            .filter(|a| a.status == 200)
            .and_then(|a| serde_json::from_str::<Repo>(&a.body).ok())
            .and_then(|r| r.default_branch)
    });
    for reference in &candidates {
        let Some(sha) = resolve(client, &base, reference)? else {
            continue;
        };
        let url = format!("{base}/git/trees/{sha}?recursive=1");
        let answer = client.get(&url, "application/vnd.github+json")?;
        if !(200..300).contains(&answer.status) {
            return Err(client.status_error(&answer, &format!("tree {reference}")));
        }
        let tree: Tree = serde_json::from_str(&answer.body)
            .map_err(|e| client.bad_json(format!("{e}: {}", cut(&answer.body))))?;
        let mut listing = Listing {
            root_name: format!("{owner_repo}@{sha}"),
            reference: Some(reference.clone()),
            commit: Some(sha.clone()),
            ..Listing::default()
        };
        listing.entries = tree.tree.iter().filter_map(|i| entry("", i)).collect();
        if tree.truncated {
            complete_truncated(client, &base, &sha, &mut listing, max_depth);
        }
        return Ok(listing);
    }
    Err(RemoteError::NotFound {
        repo: client.repo.clone(),
        what: format!("ref {}", candidates.join(", ")),
    })
}

/// GitHub cut the recursive listing (it stops at 100,000 entries or
/// 7 MB): the trees above `max_depth` are read one level at a time, from
/// the root down, so every directory that can be shown has all its
/// children. What the first answer held is kept. When the fetch's time
/// runs out or a request fails first, the listing is marked partial.
fn complete_truncated(
    client: &Client,
    base: &str,
    commit: &str,
    listing: &mut Listing,
    max_depth: usize,
) {
    let mut known: HashSet<String> = listing.entries.iter().map(|e| e.path.clone()).collect();
    // Directories whose children are shown: the root at depth 0 and each
    // directory above `max_depth`.
    let mut level: Vec<(String, String)> = vec![(String::new(), commit.to_owned())];
    let mut depth = 0;
    let mut complete = true;
    while !level.is_empty() && depth < max_depth {
        let mut next = Vec::new();
        for (prefix, sha) in &level {
            let url = format!("{base}/git/trees/{sha}");
            let tree = match client.get(&url, "application/vnd.github+json") {
                Ok(a) if (200..300).contains(&a.status) => {
                    serde_json::from_str::<Tree>(&a.body).ok()
                }
                _ => None,
            };
            let Some(tree) = tree else {
                complete = false;
                break;
            };
            for item in &tree.tree {
                let Some(e) = entry(prefix, item) else {
                    continue;
                };
                if item.kind == "tree"
                    && let Some(sub) = &item.sha
                {
                    next.push((e.path.clone(), sub.clone()));
                }
                if known.insert(e.path.clone()) {
                    listing.entries.push(e);
                }
            }
        }
        if !complete {
            break;
        }
        level = next;
        depth += 1;
    }
    if complete && !level.is_empty() {
        // Below `max_depth` nothing is shown without a budget; what the
        // first answer held there is kept, and the footer says how far
        // the listing is known to be complete.
        listing
            .notes
            .push(SourceNote::CompleteTo { depth: max_depth });
    }
    if !complete {
        listing.notes.push(SourceNote::Truncated {
            by: "GitHub (completion stopped: time limit or a failed request)".to_owned(),
        });
    }
}

/// What a conditional check of a ref's commit found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommitCheck {
    /// 304: the commit the entity tag stands for is still the ref's.
    Unchanged,
    /// The ref's commit (`None`: no such ref) and the answer's entity tag.
    Commit(Option<String>, Option<String>),
}

/// The ref's commit, asked with `If-None-Match: etag` when there is one.
pub fn check_commit(
    client: &Client,
    api: &str,
    owner_repo: &str,
    reference: &str,
    etag: Option<&str>,
) -> Result<CommitCheck, RemoteError> {
    let base = format!("{}/repos/{owner_repo}", api.trim_end_matches('/'));
    let url = format!("{base}/commits/{}", encode(reference));
    let answer = client.get_if(&url, "application/vnd.github.sha", etag)?;
    if answer.status == 304 && etag.is_some() {
        return Ok(CommitCheck::Unchanged);
    }
    if answer.status == 404 || answer.status == 422 {
        return Ok(CommitCheck::Commit(None, None));
    }
    if !(200..300).contains(&answer.status) {
        return Err(client.status_error(&answer, &format!("ref {reference}")));
    }
    let sha = answer.body.trim();
    if !super::is_commit_sha(sha) {
        return Err(client.bad_json(format!("ref {reference}: not a commit id: {}", cut(sha))));
    }
    Ok(CommitCheck::Commit(
        Some(sha.to_ascii_lowercase()),
        answer.etag,
    ))
}
