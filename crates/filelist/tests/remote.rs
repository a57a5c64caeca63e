//! Remote listings against a real HTTP server on 127.0.0.1 started by the
//! tests, replaying fixture responses written from the documented shapes
//! (a guess at GitHub's and GitLab's answers: this machine cannot reach
//! them to record real ones). No test reaches the internet.

#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentctx_filelist::remote::{fetch, from_json};
use agentctx_filelist::{
    FileListOptions, Platform, RemoteError, RemoteOptions, RemoteRepo, render_remote,
};

#[path = "support/server.rs"]
mod server;
use server::{Reply, Server, ok};

fn fixture(path: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/api")
            .join(path),
    )
    .unwrap()
}

const SHA: &str = "c0ffee0000000000000000000000000000000001";

fn options(cache: Option<PathBuf>) -> RemoteOptions {
    RemoteOptions {
        token: None,
        timeout: Duration::from_secs(2),
        max_depth: 10,
        cache_dir: cache,
        cache_ttl: Duration::from_secs(3600),
        refresh: false,
    }
}

/// The cache's entries (its `.lock` files aside).
fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect()
}

fn github(server: &Server, spec: &str) -> RemoteRepo {
    RemoteRepo::parse(Platform::GitHub, spec, Some(&server.base))
}

fn gitlab(server: &Server, spec: &str) -> RemoteRepo {
    RemoteRepo::parse(Platform::GitLab, spec, Some(&server.base))
}

/// Rendered without the fetch time (it differs between fetches).
fn render(listing: &agentctx_filelist::Listing) -> String {
    let opts = FileListOptions {
        max_depth: Some(10),
        ..FileListOptions::default()
    };
    let listing = agentctx_filelist::Listing {
        fetched_at: None,
        ..listing.clone()
    };
    render_remote(&listing, &opts).unwrap().text
}

fn github_server() -> Server {
    let s = Server::start();
    s.route("/repos/acme/app", ok(fixture("github/repo.json")));
    s.route("/repos/acme/app/commits/main", ok(SHA.into()));
    s.route(
        &format!("/repos/acme/app/git/trees/{SHA}?recursive=1"),
        ok(fixture("github/tree.json")),
    );
    s
}

fn gitlab_page(n: usize) -> String {
    if n == 1 {
        format!(
            "/projects/acme%2Fapp/repository/tree?recursive=true&ref={SHA}&per_page=100&pagination=keyset"
        )
    } else {
        format!(
            "/projects/acme%2Fapp/repository/tree?pagination=keyset&page_token=p{n}&recursive=true&ref={SHA}&per_page=100"
        )
    }
}

fn gitlab_server() -> Server {
    let s = Server::start();
    for n in 1..=4 {
        let mut reply = ok(fixture(&format!("gitlab/page{n}.json")));
        if n < 4 {
            reply.headers.push((
                "Link".into(),
                format!("<{}{}>; rel=\"next\"", s.base, gitlab_page(n + 1)),
            ));
        }
        s.route(&gitlab_page(n), reply);
    }
    s.route("/projects/acme%2Fapp", ok(fixture("gitlab/project.json")));
    s.route(
        "/projects/acme%2Fapp/repository/commits/main",
        ok(format!("{{\"id\": \"{SHA}\"}}")),
    );
    s
}

#[test]
fn github_tree_renders_with_submodule_marked_and_names_its_commit() {
    let s = github_server();
    let listing = fetch(&github(&s, "acme/app"), &options(None)).unwrap();
    let text = render(&listing);
    assert!(
        text.starts_with(&format!(
            "<project_files root=\"acme/app@{SHA}\" format=\"tree\" ref=\"main\">\n"
        )),
        "{text}"
    );
    assert!(text.contains("third_party/\n  dep/ @submodule\n"), "{text}");
    assert!(
        text.contains("src/\n  util/\n    mod.rs\n  lib.rs\n  main.rs\n"),
        "{text}"
    );
    assert!(
        s.hits().contains(&"/repos/acme/app".to_owned()),
        "default branch asked: {:?}",
        s.hits()
    );
    // The fetch time is in the header.
    let with_time = render_remote(&listing, &FileListOptions::default())
        .unwrap()
        .text;
    assert!(with_time.contains(" fetched=\"20"), "{with_time}");
}

#[test]
fn github_and_gitlab_trees_of_one_repository_render_identically() {
    let gh = github_server();
    let gl = gitlab_server();
    let a = render(&fetch(&github(&gh, "acme/app@main"), &options(None)).unwrap());
    let b = render(&fetch(&gitlab(&gl, "acme/app@main"), &options(None)).unwrap());
    assert_eq!(a, b);
}

#[test]
fn gitlab_keyset_pages_across_three_link_hops_and_no_sizes() {
    let s = gitlab_server();
    let listing = fetch(&gitlab(&s, "acme/app"), &options(None)).unwrap();
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

fn truncated_server() -> Server {
    let s = github_server();
    s.route(
        &format!("/repos/acme/app/git/trees/{SHA}?recursive=1"),
        ok(fixture("github/tree-truncated.json")),
    );
    s.route(
        &format!("/repos/acme/app/git/trees/{SHA}"),
        ok(fixture("github/subtree-root.json")),
    );
    for d in ["docs", "src", "src-util", "third_party"] {
        s.route(
            &format!("/repos/acme/app/git/trees/tree-{d}"),
            ok(fixture(&format!("github/subtree-{d}.json"))),
        );
    }
    s
}

#[test]
fn github_truncated_tree_is_completed_level_by_level() {
    let s = truncated_server();
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
        partial.contains("partial: truncated by GitHub (completion stopped"),
        "{partial}"
    );
}

#[test]
fn a_truncated_tree_is_completed_only_down_to_the_depth_shown() {
    let s = truncated_server();
    let mut o = options(None);
    o.max_depth = 1;
    let listing = fetch(&github(&s, "acme/app@main"), &o).unwrap();
    let subtrees: Vec<String> = s
        .hits()
        .into_iter()
        .filter(|h| h.contains("git/trees/tree-"))
        .collect();
    assert!(subtrees.is_empty(), "below depth 1: {subtrees:?}");
    let text = render_remote(
        &listing,
        &FileListOptions {
            max_depth: Some(1),
            ..FileListOptions::default()
        },
    )
    .unwrap()
    .text;
    assert!(
        text.contains("GitHub truncated its answer: complete to depth 1"),
        "{text}"
    );
}

/// The error a tree answer gives (the ref resolves).
fn error_for(reply: Reply) -> RemoteError {
    let s = Server::start();
    s.route("/repos/acme/app/commits/main", ok(SHA.into()));
    s.route(
        &format!("/repos/acme/app/git/trees/{SHA}?recursive=1"),
        reply,
    );
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
    // No such ref: every candidate named.
    let s = Server::start();
    let error = fetch(&github(&s, "acme/app"), &options(None)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "acme/app: not found, or private (ref main, master)"
    );
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
fn an_error_body_is_an_error_and_never_cached() {
    for body in [
        "{\"message\":\"Not Found\"}",
        "{\"message\":\"Moved Permanently\"}",
    ] {
        let cache = tempfile::tempdir().unwrap();
        let s = Server::start();
        s.route("/repos/acme/app/commits/main", ok(SHA.into()));
        s.route(
            &format!("/repos/acme/app/git/trees/{SHA}?recursive=1"),
            ok(body.into()),
        );
        let error = fetch(
            &github(&s, "acme/app@main"),
            &options(Some(cache.path().to_path_buf())),
        )
        .unwrap_err();
        assert!(matches!(error, RemoteError::BadJson { .. }), "{error:?}");
        assert!(error.to_string().contains("message"), "{error}");
        assert_eq!(entries(cache.path()).len(), 0);
    }
    // A ref answer that is not a commit id is an error too.
    let s = Server::start();
    s.route(
        "/repos/acme/app/commits/main",
        ok("{\"message\":\"Moved\"}".into()),
    );
    let error = fetch(&github(&s, "acme/app@main"), &options(None)).unwrap_err();
    assert!(matches!(error, RemoteError::BadJson { .. }), "{error:?}");
}

#[test]
fn refs_are_percent_encoded() {
    let s = github_server();
    s.route("/repos/acme/app/commits/feature%2Fx", ok(SHA.into()));
    s.route("/repos/acme/app/commits/x%26y%231", ok(SHA.into()));
    for (spec, reference) in [
        ("acme/app@feature/x", "feature/x"),
        ("acme/app@x&y#1", "x&y#1"),
    ] {
        let listing = fetch(&github(&s, spec), &options(None)).unwrap();
        assert_eq!(listing.reference.as_deref(), Some(reference));
        assert_eq!(listing.commit.as_deref(), Some(SHA));
    }
    let g = gitlab_server();
    g.route(
        "/projects/acme%2Fapp/repository/commits/feature%2Fx",
        ok(format!("{{\"id\": \"{SHA}\"}}")),
    );
    let listing = fetch(&gitlab(&g, "acme/app@feature/x"), &options(None)).unwrap();
    assert_eq!(listing.entries.len(), 11);
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
fn a_gitlab_page_failing_after_others_gives_a_partial_listing_never_cached() {
    let cache = tempfile::tempdir().unwrap();
    let s = gitlab_server();
    s.route(
        &gitlab_page(3),
        Reply {
            status: 502,
            ..ok(String::new())
        },
    );
    let listing = fetch(
        &gitlab(&s, "acme/app@main"),
        &options(Some(cache.path().to_path_buf())),
    )
    .unwrap();
    let text = render(&listing);
    assert!(
        text.contains("partial: truncated by GitLab: page 3 failed"),
        "{text}"
    );
    assert!(
        text.contains(" partial=\"truncated by GitLab: page 3 failed"),
        "{text}"
    );
    assert_eq!(entries(cache.path()).len(), 0);
}

#[test]
fn one_deadline_covers_every_request() {
    let s = gitlab_server();
    for n in 2..=4 {
        let mut reply = ok(fixture(&format!("gitlab/page{n}.json")));
        if n < 4 {
            reply.headers.push((
                "Link".into(),
                format!("<{}{}>; rel=\"next\"", s.base, gitlab_page(n + 1)),
            ));
        }
        reply.delay = Duration::from_millis(500);
        s.route(&gitlab_page(n), reply);
    }
    let mut o = options(None);
    o.timeout = Duration::from_millis(1200);
    let started = std::time::Instant::now();
    let listing = fetch(&gitlab(&s, "acme/app@main"), &o).unwrap();
    let took = started.elapsed();
    // Three pages of 0.5 s each would take 1.5 s: the deadline stops them.
    assert!(took < Duration::from_millis(1450), "{took:?}");
    assert!(
        listing
            .notes
            .iter()
            .any(|n| matches!(n, agentctx_filelist::SourceNote::Truncated { .. })),
        "{:?}",
        listing.notes
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
    assert_eq!(
        first, second,
        "the fetch time too: byte-stable while cached"
    );
    assert_eq!(
        s.hits().len(),
        after_first,
        "a fresh cache entry makes no request"
    );

    // Past the TTL, the same commit: one cheap request, no re-listing.
    let mut stale = options(Some(cache.path().to_path_buf()));
    stale.cache_ttl = Duration::ZERO;
    assert_eq!(fetch(&repo, &stale).unwrap(), first);
    let new_hits: Vec<String> = s.hits()[after_first..].to_vec();
    assert_eq!(new_hits, ["/repos/acme/app/commits/main"]);

    // The ref moved: listed again.
    let moved = "c0ffee0000000000000000000000000000000002";
    s.route("/repos/acme/app/commits/main", ok(moved.into()));
    s.route(
        &format!("/repos/acme/app/git/trees/{moved}?recursive=1"),
        ok(fixture("github/tree.json")),
    );
    let before = s.hits().len();
    let relisted = fetch(&repo, &stale).unwrap();
    assert_eq!(relisted.commit.as_deref(), Some(moved));
    assert!(
        s.hits()[before..]
            .iter()
            .any(|h| h.contains(&format!("git/trees/{moved}?recursive=1"))),
        "{:?}",
        s.hits()
    );
}

#[test]
fn a_stale_cache_entry_is_served_when_the_api_fails() {
    let cache = tempfile::tempdir().unwrap();
    let s = github_server();
    let repo = github(&s, "acme/app@main");
    let first = fetch(&repo, &options(Some(cache.path().to_path_buf()))).unwrap();
    s.route(
        "/repos/acme/app/commits/main",
        Reply {
            status: 503,
            ..ok(String::new())
        },
    );
    let mut expired = options(Some(cache.path().to_path_buf()));
    expired.cache_ttl = Duration::ZERO;
    let served = fetch(&repo, &expired).unwrap();
    assert_eq!(served.entries, first.entries);
    assert_eq!(
        served.stale.as_deref(),
        Some("acme/app: GitHub answered HTTP 503")
    );
    let text = render(&served);
    assert!(
        text.contains(" stale=\"acme/app: GitHub answered HTTP 503\""),
        "{text}"
    );
    // Not found is an answer about the repository: no stale listing.
    s.route(
        "/repos/acme/app/commits/main",
        Reply {
            status: 401,
            ..ok(String::new())
        },
    );
    assert!(fetch(&repo, &expired).is_err());
}

#[test]
fn corrupt_cache_is_replaced() {
    let cache = tempfile::tempdir().unwrap();
    let s = github_server();
    let repo = github(&s, "acme/app@main");
    fetch(&repo, &options(Some(cache.path().to_path_buf()))).unwrap();
    for entry in entries(cache.path()) {
        std::fs::write(entry, "{ not json").unwrap();
    }
    assert!(fetch(&repo, &options(Some(cache.path().to_path_buf()))).is_ok());
    let text = std::fs::read_to_string(&entries(cache.path())[0]).unwrap();
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
    // A saved GitHub answer names its repository and commit.
    let named = from_json(
        Platform::GitHub,
        &format!(
            "{{\"sha\": \"{SHA}\", \"url\": \"https://api.github.com/repos/acme/app/git/trees/{SHA}\", \"tree\": [], \"truncated\": false}}"
        ),
        "tree.json",
        "tree.json",
    )
    .unwrap();
    assert_eq!(named.root_name, format!("acme/app@{SHA}"));
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
    // Page 1 points to another origin (another port: another host for the token).
    let mut reply = ok(fixture("gitlab/page1.json"));
    reply.headers.push((
        "Link".into(),
        format!("<{}{}>; rel=\"next\"", elsewhere.base, gitlab_page(2)),
    ));
    s.route(&gitlab_page(1), reply);
    elsewhere.route(&gitlab_page(2), ok(fixture("gitlab/page4.json")));
    let mut opts = options(None);
    opts.token = Some("glpat-secret-token".into());
    let _ = fetch(&gitlab(&s, "acme/app"), &opts);
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

/// 100 listings of a repository whose ref does not move, each past the
/// cache's lifetime: one tree request, then one commit check each, sent
/// with the last answer's entity tag and answered 304 (which GitHub does
/// not count against an authenticated client's rate limit).
#[test]
fn an_unchanged_ref_is_checked_with_its_entity_tag() {
    let cache = tempfile::tempdir().unwrap();
    let s = github_server();
    let mut reply = ok(SHA.into());
    reply.headers.push(("ETag".into(), "\"sha-tag-1\"".into()));
    s.route("/repos/acme/app/commits/main", reply);
    let repo = github(&s, "acme/app@main");
    let mut stale = options(Some(cache.path().to_path_buf()));
    stale.cache_ttl = Duration::ZERO;
    let first = fetch(&repo, &stale).unwrap();
    for _ in 0..99 {
        assert_eq!(fetch(&repo, &stale).unwrap(), first);
    }
    let hits = s.hits();
    let trees = hits.iter().filter(|h| h.contains("git/trees/")).count();
    let checks: Vec<&String> = hits
        .iter()
        .filter(|h| h.contains("/commits/main"))
        .collect();
    let conditional = checks
        .iter()
        .filter(|h| h.contains("if-none-match=\"sha-tag-1\""))
        .count();
    assert_eq!(trees, 1, "{hits:?}");
    // The listing's own resolution, the first check (learns the tag), 98
    // conditional checks.
    assert_eq!(checks.len(), 100, "{hits:?}");
    assert_eq!(conditional, 98, "{hits:?}");
}

/// Workers sharing a cache folder: while one fetches, the others wait for
/// its answer instead of asking the API themselves.
#[test]
fn concurrent_fetches_of_one_repository_make_one_set_of_requests() {
    let cache = tempfile::tempdir().unwrap();
    let s = github_server();
    let mut slow = ok(fixture("github/tree.json"));
    slow.delay = Duration::from_millis(300);
    s.route(
        &format!("/repos/acme/app/git/trees/{SHA}?recursive=1"),
        slow,
    );
    let repo = github(&s, "acme/app@main");
    let listings: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..16)
            .map(|_| {
                let options = options(Some(cache.path().to_path_buf()));
                let repo = &repo;
                scope.spawn(move || fetch(repo, &options).unwrap())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(listings.iter().all(|l| *l == listings[0]));
    let trees = s.hits().iter().filter(|h| h.contains("git/trees/")).count();
    assert_eq!(trees, 1, "{:?}", s.hits());
}
