//! GitHub: `GET {api}/repos/{owner}/{repo}/git/trees/{ref}?recursive=1`.

use std::collections::{BTreeSet, VecDeque};

use serde::Deserialize;

use super::http::{Client, RemoteError};
use crate::listing::{Entry, Listing, SourceNote};

#[derive(Deserialize)]
struct Tree {
    #[serde(default)]
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
            ..Entry::file(path)
        }),
        "tree" => Some(Entry::dir(path)),
        // A submodule: shown as a directory, never entered.
        "commit" => Some(Entry {
            submodule: true,
            ..Entry::dir(path)
        }),
        // mode 120000 (a symlink) is a blob too: listed as a file.
        _ => None,
    }
}

/// Parses one saved or fetched tree response.
pub fn parse(text: &str) -> Result<(Vec<Entry>, bool), String> {
    let tree: Tree = serde_json::from_str(text).map_err(|e| e.to_string())?;
    Ok((
        tree.tree.iter().filter_map(|i| entry("", i)).collect(),
        tree.truncated,
    ))
}

/// The default branch, else `main`, else `master` (the first whose tree exists).
pub fn listing(
    client: &Client,
    api: &str,
    owner_repo: &str,
    reference: Option<&str>,
    max_files: usize,
) -> Result<(Listing, String), RemoteError> {
    let base = format!("{}/repos/{owner_repo}", api.trim_end_matches('/'));
    let candidates = super::ref_candidates(reference, || {
        client
            .get(&base, "application/vnd.github+json")
            .ok()
            .filter(|a| a.status == 200)
            .and_then(|a| serde_json::from_str::<Repo>(&a.body).ok())
            .and_then(|r| r.default_branch)
    });
    let mut last_error = None;
    for reference in candidates {
        let url = format!("{base}/git/trees/{reference}?recursive=1");
        let answer = client.get(&url, "application/vnd.github+json")?;
        if answer.status == 404 {
            last_error = Some(client.status_error(&answer, &format!("tree {reference}")));
            continue;
        }
        if !(200..300).contains(&answer.status) {
            return Err(client.status_error(&answer, &format!("tree {reference}")));
        }
        let tree: Tree = serde_json::from_str(&answer.body).map_err(|e| client.bad_json(e))?;
        let mut listing = Listing {
            root_name: format!("{owner_repo}@{reference}"),
            ..Listing::default()
        };
        listing.entries = tree.tree.iter().filter_map(|i| entry("", i)).collect();
        if tree.truncated {
            complete_truncated(client, &base, &reference, &mut listing, max_files);
        }
        return Ok((listing, reference));
    }
    Err(last_error.unwrap_or_else(|| client.bad_json("no ref to list")))
}

/// GitHub cut the recursive listing: walk the trees non-recursively,
/// breadth-first from the root, until `max_files` files are known or the
/// trees are exhausted; a failure or the limit marks the listing partial.
fn complete_truncated(
    client: &Client,
    base: &str,
    reference: &str,
    listing: &mut Listing,
    max_files: usize,
) {
    let mut known: BTreeSet<String> = listing.entries.iter().map(|e| e.path.clone()).collect();
    let mut queue: VecDeque<(String, String)> =
        VecDeque::from([(String::new(), reference.to_owned())]);
    let mut files = listing.entries.iter().filter(|e| !e.is_dir).count();
    while let Some((prefix, sha)) = queue.pop_front() {
        if files >= max_files {
            queue.push_front((prefix, sha));
            break;
        }
        let url = format!("{base}/git/trees/{sha}");
        let tree = match client.get(&url, "application/vnd.github+json") {
            Ok(a) if (200..300).contains(&a.status) => serde_json::from_str::<Tree>(&a.body).ok(),
            _ => None,
        };
        let Some(tree) = tree else {
            queue.push_front((prefix, sha));
            break;
        };
        for item in &tree.tree {
            let Some(e) = entry(&prefix, item) else {
                continue;
            };
            if item.kind == "tree"
                && let Some(sub) = &item.sha
            {
                queue.push_back((e.path.clone(), sub.clone()));
            }
            if known.insert(e.path.clone()) {
                files += usize::from(!e.is_dir);
                listing.entries.push(e);
            }
        }
    }
    if !queue.is_empty() {
        listing.notes.push(SourceNote::Truncated {
            by: "GitHub".to_owned(),
        });
    }
}

/// The commit a ref points at, with one cheap request.
pub fn commit_of(client: &Client, api: &str, owner_repo: &str, reference: &str) -> Option<String> {
    let url = format!(
        "{}/repos/{owner_repo}/commits/{reference}",
        api.trim_end_matches('/')
    );
    let answer = client.get(&url, "application/vnd.github.sha").ok()?;
    (answer.status == 200)
        .then(|| answer.body.trim().to_owned())
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
}
