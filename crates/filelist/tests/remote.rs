//! Remote listings against a real HTTP server on 127.0.0.1 started by the
//! tests, replaying fixture responses written from the documented shapes.
//! No test reaches the internet.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentctx_filelist::remote::{fetch, from_json};
use agentctx_filelist::{
    FileListOptions, Platform, RemoteError, RemoteOptions, RemoteRepo, render_remote,
};

#[derive(Clone)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    delay: Duration,
}

fn ok(body: String) -> Reply {
    Reply {
        status: 200,
        headers: Vec::new(),
        body,
        delay: Duration::ZERO,
    }
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/api")
            .join(path),
    )
    .unwrap()
}

/// A small HTTP/1.1 server: one reply per request target (path and query),
/// every request recorded. 404 for anything else.
struct Server {
    base: String,
    hits: Arc<Mutex<Vec<String>>>,
    routes: Arc<Mutex<BTreeMap<String, Reply>>>,
}

impl Server {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let hits = Arc::new(Mutex::new(Vec::new()));
        let routes: Arc<Mutex<BTreeMap<String, Reply>>> = Arc::new(Mutex::new(BTreeMap::new()));
        let (h, r) = (Arc::clone(&hits), Arc::clone(&routes));
        std::thread::spawn(move || {
            for stream in listener.incoming().take(500) {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).is_err() {
                    continue;
                }
                let mut authorization = String::new();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).is_err() || line == "\r\n" || line.is_empty() {
                        break;
                    }
                    if line.to_ascii_lowercase().starts_with("authorization:")
                        || line.to_ascii_lowercase().starts_with("private-token:")
                    {
                        authorization = line.trim().to_owned();
                    }
                }
                let target = request_line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("")
                    .to_owned();
                h.lock()
                    .unwrap()
                    .push(format!("{target} {authorization}").trim().to_owned());
                let reply = r.lock().unwrap().get(&target).cloned().unwrap_or(Reply {
                    status: 404,
                    headers: vec![],
                    body: "{\"message\":\"Not Found\"}".into(),
                    delay: Duration::ZERO,
                });
                std::thread::sleep(reply.delay);
                let mut head = format!(
                    "HTTP/1.1 {} X\r\nContent-Length: {}\r\nConnection: close\r\nContent-Type: application/json\r\n",
                    reply.status,
                    reply.body.len()
                );
                for (k, v) in &reply.headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(reply.body.as_bytes());
            }
        });
        Self { base, hits, routes }
    }

    fn route(&self, target: &str, reply: Reply) {
        self.routes.lock().unwrap().insert(target.to_owned(), reply);
    }

    fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }
}

fn options(cache: Option<PathBuf>) -> RemoteOptions {
    RemoteOptions {
        token: None,
        timeout: Duration::from_secs(2),
        max_files: 500,
        cache_dir: cache,
        cache_ttl: Duration::from_secs(3600),
        refresh: false,
    }
}

fn github(server: &Server, spec: &str) -> RemoteRepo {
    RemoteRepo::parse(Platform::GitHub, spec, Some(&server.base))
}

fn render(listing: &agentctx_filelist::Listing) -> String {
    let opts = FileListOptions {
        max_depth: Some(10),
        ..FileListOptions::default()
    };
    render_remote(listing, &opts).unwrap().text
}

fn github_server() -> Server {
    let s = Server::start();
    s.route("/repos/acme/app", ok(fixture("github/repo.json")));
    s.route(
        "/repos/acme/app/git/trees/main?recursive=1",
        ok(fixture("github/tree.json")),
    );
    s.route(
        "/repos/acme/app/commits/main",
        ok("c0ffee0000000000000000000000000000000001".into()),
    );
    s
}

fn gitlab_server() -> Server {
    let s = Server::start();
    let first = "/projects/acme%2Fapp/repository/tree?recursive=true&ref=main&per_page=100&pagination=keyset";
    let page = |n: usize| {
        format!(
            "/projects/acme%2Fapp/repository/tree?pagination=keyset&page_token=p{n}&recursive=true&ref=main&per_page=100"
        )
    };
    for n in 1..=4 {
        let mut reply = ok(fixture(&format!("gitlab/page{n}.json")));
        if n < 4 {
            reply.headers.push((
                "Link".into(),
                format!("<{}{}>; rel=\"next\"", s.base, page(n + 1)),
            ));
        }
        let target = if n == 1 { first.to_owned() } else { page(n) };
        s.route(&target, reply);
    }
    s.route("/projects/acme%2Fapp", ok(fixture("gitlab/project.json")));
    s
}

#[test]
fn github_tree_renders_with_submodule_marked() {
    let s = github_server();
    let listing = fetch(&github(&s, "acme/app"), &options(None)).unwrap();
    let text = render(&listing);
    assert!(
        text.starts_with("<project_files root=\"acme/app@main\" format=\"tree\">\n"),
        "{text}"
    );
    assert!(text.contains("third_party/\n  dep/ @submodule\n"), "{text}");
    assert!(
        text.contains("src/\n  util/\n    mod.rs\n  lib.rs\n  main.rs\n"),
        "{text}"
    );
    assert!(
        s.hits().iter().any(|h| h.starts_with("/repos/acme/app "))
            || s.hits().contains(&"/repos/acme/app".to_owned()),
        "default branch asked: {:?}",
        s.hits()
    );
}

#[test]
fn github_and_gitlab_trees_of_one_repository_render_identically() {
    let gh = github_server();
    let gl = gitlab_server();
    let a = render(&fetch(&github(&gh, "acme/app@main"), &options(None)).unwrap());
    let b = render(
        &fetch(
            &RemoteRepo::parse(Platform::GitLab, "acme/app@main", Some(&gl.base)),
            &options(None),
        )
        .unwrap(),
    );
    assert_eq!(a, b);
}

#[test]
fn gitlab_keyset_pages_across_three_link_hops_and_no_sizes() {
    let s = gitlab_server();
    let listing = fetch(
        &RemoteRepo::parse(Platform::GitLab, "acme/app", Some(&s.base)),
        &options(None),
    )
    .unwrap();
    assert_eq!(listing.entries.len(), 11);
    assert_eq!(
        s.hits()
            .iter()
            .filter(|h| h.contains("repository/tree"))
            .count(),
        4
    );
    let opts = FileListOptions {
        sizes: true,
        max_depth: Some(10),
        ..FileListOptions::default()
    };
    let text = render_remote(&listing, &opts).unwrap().text;
    assert!(text.contains("GitLab gives no sizes"), "{text}");
}

#[test]
fn github_truncated_tree_is_completed_breadth_first() {
    let s = github_server();
    s.route(
        "/repos/acme/app/git/trees/main?recursive=1",
        ok(fixture("github/tree-truncated.json")),
    );
    s.route(
        "/repos/acme/app/git/trees/main",
        ok(fixture("github/subtree-root.json")),
    );
    for d in ["docs", "src", "src-util", "third_party"] {
        s.route(
            &format!("/repos/acme/app/git/trees/tree-{d}"),
            ok(fixture(&format!("github/subtree-{d}.json"))),
        );
    }
    let complete = render(&fetch(&github(&s, "acme/app@main"), &options(None)).unwrap());
    let full = github_server();
    assert_eq!(
        complete,
        render(&fetch(&github(&full, "acme/app@main"), &options(None)).unwrap())
    );
    // A subtree that cannot be fetched: partial, with the reason.
    s.route(
        "/repos/acme/app/git/trees/tree-src-util",
        Reply {
            status: 500,
            ..ok(String::new())
        },
    );
    let partial = render(&fetch(&github(&s, "acme/app@main"), &options(None)).unwrap());
    assert!(
        partial.contains("partial: truncated by GitHub"),
        "{partial}"
    );
}

fn error_for(reply: Reply) -> RemoteError {
    let s = Server::start();
    s.route("/repos/acme/app/git/trees/main?recursive=1", reply);
    let mut o = options(None);
    o.token = Some("SECRET-TOKEN-123".into());
    o.timeout = Duration::from_secs(1);
    let error = fetch(&github(&s, "acme/app@main"), &o).unwrap_err();
    assert!(
        !error.to_string().contains("SECRET-TOKEN-123"),
        "a token must never be shown"
    );
    assert!(error.to_string().starts_with("acme/app: "), "{error}");
    assert!(
        s.hits().iter().all(|h| h
            .to_ascii_lowercase()
            .ends_with("authorization: bearer secret-token-123")),
        "{:?}",
        s.hits()
    );
    error
}

#[test]
fn rate_limit_says_when_it_resets() {
    let reply = Reply {
        status: 403,
        headers: vec![
            ("x-ratelimit-remaining".into(), "0".into()),
            ("x-ratelimit-reset".into(), "1795255200".into()),
        ],
        ..ok("{}".into())
    };
    let error = error_for(reply);
    assert!(matches!(error, RemoteError::RateLimited { .. }));
    assert!(
        error.to_string().contains("resets at 2026-11-21T10:00:00Z"),
        "{error}"
    );
    assert!(matches!(
        error_for(Reply {
            status: 429,
            headers: vec![("retry-after".into(), "60".into())],
            ..ok("{}".into())
        }),
        RemoteError::RateLimited { .. }
    ));
}

#[test]
fn authentication_errors() {
    assert!(matches!(
        error_for(Reply {
            status: 401,
            ..ok("{}".into())
        }),
        RemoteError::Auth { status: 401, .. }
    ));
    let error = error_for(Reply {
        status: 403,
        ..ok("{}".into())
    });
    assert!(matches!(error, RemoteError::Auth { status: 403, .. }));
    assert!(error.to_string().contains("GITHUB_TOKEN"), "{error}");
}

#[test]
fn not_found_or_private() {
    let error = error_for(Reply {
        status: 404,
        ..ok("{}".into())
    });
    assert!(matches!(error, RemoteError::NotFound { .. }), "{error:?}");
}

#[test]
fn slow_server_hits_the_timeout() {
    let error = error_for(Reply {
        delay: Duration::from_millis(1800),
        ..ok(fixture("github/tree.json"))
    });
    assert!(matches!(error, RemoteError::Timeout { .. }), "{error:?}");
}

#[test]
fn malformed_json_is_a_clear_error() {
    let error = error_for(ok("{\"tree\": [ oops".into()));
    assert!(matches!(error, RemoteError::BadJson { .. }), "{error:?}");
    let error = error_for(ok("{\"tree\": 7}".into()));
    assert!(matches!(error, RemoteError::BadJson { .. }), "{error:?}");
}

#[test]
fn connection_refused() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let repo = RemoteRepo::parse(
        Platform::GitHub,
        "acme/app@main",
        Some(&format!("http://127.0.0.1:{port}")),
    );
    let error = fetch(&repo, &options(None)).unwrap_err();
    assert!(matches!(error, RemoteError::Connection { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("acme/app: cannot connect to 127.0.0.1"),
        "{error}"
    );
}

#[test]
fn a_gitlab_page_failing_after_others_gives_a_partial_listing() {
    let s = gitlab_server();
    s.route("/projects/acme%2Fapp/repository/tree?pagination=keyset&page_token=p3&recursive=true&ref=main&per_page=100", Reply { status: 502, ..ok(String::new()) });
    let listing = fetch(
        &RemoteRepo::parse(Platform::GitLab, "acme/app@main", Some(&s.base)),
        &options(None),
    )
    .unwrap();
    let text = render(&listing);
    assert!(
        text.contains("partial: truncated by GitLab: page 3 failed"),
        "{text}"
    );
}

#[test]
fn cache_hit_makes_no_request_and_a_new_commit_invalidates() {
    let cache = tempfile::tempdir().unwrap();
    let s = github_server();
    let repo = github(&s, "acme/app@main");
    let first = fetch(&repo, &options(Some(cache.path().to_path_buf()))).unwrap();
    let after_first = s.hits().len();
    let second = fetch(&repo, &options(Some(cache.path().to_path_buf()))).unwrap();
    assert_eq!(first, second);
    assert_eq!(
        s.hits().len(),
        after_first,
        "a fresh cache entry makes no request"
    );

    // Past the TTL, the same commit: one cheap request, no re-listing.
    let mut stale = options(Some(cache.path().to_path_buf()));
    stale.cache_ttl = Duration::ZERO;
    fetch(&repo, &stale).unwrap();
    let new_hits: Vec<String> = s.hits()[after_first..].to_vec();
    assert_eq!(new_hits, ["/repos/acme/app/commits/main"]);

    // The ref moved: listed again.
    s.route(
        "/repos/acme/app/commits/main",
        ok("c0ffee0000000000000000000000000000000002".into()),
    );
    let before = s.hits().len();
    fetch(&repo, &stale).unwrap();
    assert!(
        s.hits()[before..]
            .iter()
            .any(|h| h.contains("git/trees/main?recursive=1")),
        "{:?}",
        s.hits()
    );
}

#[test]
fn corrupt_cache_is_replaced() {
    let cache = tempfile::tempdir().unwrap();
    let s = github_server();
    let repo = github(&s, "acme/app@main");
    fetch(&repo, &options(Some(cache.path().to_path_buf()))).unwrap();
    for entry in std::fs::read_dir(cache.path()).unwrap() {
        std::fs::write(entry.unwrap().path(), "{ not json").unwrap();
    }
    assert!(fetch(&repo, &options(Some(cache.path().to_path_buf()))).is_ok());
    let text = std::fs::read_to_string(
        std::fs::read_dir(cache.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path(),
    )
    .unwrap();
    assert!(
        text.starts_with('{') && text.contains("\"listing\""),
        "rewritten"
    );
}

#[test]
fn saved_json_of_both_platforms() {
    let gh = from_json(
        Platform::GitHub,
        &fixture("github/tree.json"),
        "tree.json",
        "acme/app@main",
    )
    .unwrap();
    let gl = from_json(
        Platform::GitLab,
        &fixture("gitlab/pages-concatenated.json"),
        "pages.json",
        "acme/app@main",
    )
    .unwrap();
    assert_eq!(render(&gh), render(&gl));
    let error =
        from_json(Platform::GitLab, "{\"not\": \"an array\"}", "bad.json", "x").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("bad.json: not a GitLab tree listing"),
        "{error}"
    );
}

#[test]
fn the_gitlab_token_never_goes_to_a_host_a_link_header_names() {
    let s = gitlab_server();
    let elsewhere = Server::start();
    let next = "/projects/acme%2Fapp/repository/tree?pagination=keyset&page_token=p2&recursive=true&ref=main&per_page=100";
    // Page 1 points to another origin (another port: another host for the token).
    let first = "/projects/acme%2Fapp/repository/tree?recursive=true&ref=main&per_page=100&pagination=keyset";
    let mut reply = ok(fixture("gitlab/page1.json"));
    reply.headers.push((
        "Link".into(),
        format!("<{}{next}>; rel=\"next\"", elsewhere.base),
    ));
    s.route(first, reply);
    elsewhere.route(next, ok(fixture("gitlab/page4.json")));
    let mut opts = options(None);
    opts.token = Some("glpat-secret-token".into());
    let _ = fetch(
        &RemoteRepo::parse(Platform::GitLab, "acme/app", Some(&s.base)),
        &opts,
    );
    assert!(
        s.hits().iter().any(|h| h.contains("glpat-secret-token")),
        "the API host gets it"
    );
    let foreign = elsewhere.hits();
    assert!(!foreign.is_empty(), "the next page was asked for");
    assert!(
        foreign.iter().all(|h| !h.contains("glpat-secret-token")),
        "{foreign:?}"
    );
}
