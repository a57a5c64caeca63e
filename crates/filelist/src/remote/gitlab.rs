//! GitLab: the ref resolved to its commit, then
//! `GET {api}/projects/{id}/repository/tree?recursive=true&ref={sha}`,
//! keyset pagination through `Link: <...>; rel="next"`.

use serde::Deserialize;

use super::http::{Client, RemoteError, encode, next_link};
use crate::listing::{Entry, Listing, SourceNote};

#[derive(Deserialize)]
struct Item {
    path: String,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct Project {
    default_branch: Option<String>,
}

fn entries(items: Vec<Item>) -> Vec<Entry> {
    items
        .into_iter()
        .filter_map(|i| match i.kind.as_str() {
            "blob" => Some(Entry::file(i.path)),
            "tree" => Some(Entry::dir(i.path)),
            "commit" => Some(Entry {
                submodule: true,
                ..Entry::dir(i.path)
            }),
            _ => None,
        })
        .collect()
}

/// Parses saved pages: one JSON array, or several concatenated.
pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut all = Vec::new();
    for page in serde_json::Deserializer::from_str(text).into_iter::<Vec<Item>>() {
        all.extend(entries(page.map_err(|e| e.to_string())?));
    }
    Ok(all)
}

/// `group/project` as GitLab wants it in a path: `group%2Fproject` (a
/// numeric id stays as it is).
pub fn project_id(project: &str) -> String {
    project.replace('%', "%25").replace('/', "%2F")
}

/// The commit `reference` points at: `Ok(None)` when there is no such ref.
fn resolve(client: &Client, base: &str, reference: &str) -> Result<Option<String>, RemoteError> {
    #[derive(Deserialize)]
    struct Commit {
        id: String,
    }
    let url = format!("{base}/repository/commits/{}", encode(reference));
    let answer = client.get(&url, "application/json")?;
    if answer.status == 404 {
        return Ok(None);
    }
    if !(200..300).contains(&answer.status) {
        return Err(client.status_error(&answer, &format!("ref {reference}")));
    }
    let commit: Commit = serde_json::from_str(&answer.body)
        .map_err(|e| client.bad_json(format!("ref {reference}: {e}")))?;
    if !super::is_commit_sha(&commit.id) {
        return Err(client.bad_json(format!("ref {reference}: not a commit id")));
    }
    Ok(Some(commit.id.to_ascii_lowercase()))
}

fn base_of(api: &str, project: &str) -> String {
    format!(
        "{}/projects/{}",
        api.trim_end_matches('/'),
        project_id(project)
    )
}

/// The ref asked for, else the default branch, else `main`, else
/// `master`, resolved to its commit and listed page by page. A page that
/// fails, or the fetch's time running out, after others succeeded gives a
/// partial listing, not an error.
pub fn listing(
    client: &Client,
    api: &str,
    project: &str,
    reference: Option<&str>,
) -> Result<Listing, RemoteError> {
    let base = base_of(api, project);
    let candidates = super::ref_candidates(reference, || {
        client
            .get(&base, "application/json")
            .ok()
            .filter(|a| a.status == 200)
            .and_then(|a| serde_json::from_str::<Project>(&a.body).ok())
            .and_then(|p| p.default_branch)
    });
    for reference in &candidates {
        let Some(sha) = resolve(client, &base, reference)? else {
            continue;
        };
        let first = format!(
            "{base}/repository/tree?recursive=true&ref={sha}&per_page=100&pagination=keyset"
        );
        let answer = client.get(&first, "application/json")?;
        if !(200..300).contains(&answer.status) {
            return Err(client.status_error(&answer, &format!("tree {reference}")));
        }
        let items: Vec<Item> =
            serde_json::from_str(&answer.body).map_err(|e| client.bad_json(e))?;
        let mut listing = Listing {
            root_name: format!("{project}@{sha}"),
            reference: Some(reference.clone()),
            commit: Some(sha.clone()),
            notes: vec![SourceNote::NoSizes {
                source: "GitLab".to_owned(),
            }],
            ..Listing::default()
        };
        listing.entries = entries(items);
        let mut next = next_link(answer.link.as_deref());
        let mut page = 1;
        while let Some(url) = next {
            page += 1;
            let result = client.get(&url, "application/json").and_then(|a| {
                if (200..300).contains(&a.status) {
                    let items: Vec<Item> =
                        serde_json::from_str(&a.body).map_err(|e| client.bad_json(e))?;
                    Ok((items, a.link))
                } else {
                    Err(client.status_error(&a, &format!("page {page}")))
                }
            });
            match result {
                Ok((items, link)) => {
                    listing.entries.extend(entries(items));
                    next = next_link(link.as_deref());
                }
                Err(error) => {
                    listing.notes.push(SourceNote::Truncated {
                        by: format!("GitLab: page {page} failed ({error})"),
                    });
                    break;
                }
            }
        }
        return Ok(listing);
    }
    Err(RemoteError::NotFound {
        repo: client.repo.clone(),
        what: format!("ref {}", candidates.join(", ")),
    })
}

/// The commit a ref points at, with one request.
pub fn commit_of(
    client: &Client,
    api: &str,
    project: &str,
    reference: &str,
) -> Result<Option<String>, RemoteError> {
    resolve(client, &base_of(api, project), reference)
}
