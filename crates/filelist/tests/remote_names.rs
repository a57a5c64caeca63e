//! Repository names are checked before any request (issue 35): a name that
//! cannot be a repository of its platform is an error naming what is
//! wrong, and no request is made and no cache entry read or written for it.

#![cfg(feature = "remote")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::Path;
use std::time::Duration;

use agentctx_filelist::remote::{fetch, fetch_file};
use agentctx_filelist::{Platform, RemoteError, RemoteOptions, RemoteRepo};

#[path = "support/server.rs"]
mod server;
use server::Server;

fn options(cache: &Path) -> RemoteOptions {
    RemoteOptions {
        token: None,
        timeout: Duration::from_secs(2),
        max_depth: 10,
        cache_dir: Some(cache.to_path_buf()),
        cache_ttl: Duration::from_secs(3600),
        refresh: false,
    }
}

#[test]
fn a_name_that_cannot_be_a_repository_is_refused_before_any_request() {
    let s = Server::start();
    let cache = tempfile::tempdir().unwrap();
    for (platform, spec, why) in [
        (
            Platform::GitHub,
            "not a repo",
            "`not a repo` is not a GitHub repository: 1 part where OWNER/REPO has 2 \
             (expected OWNER/REPO[@REF])",
        ),
        (Platform::GitHub, "acme", "1 part where OWNER/REPO has 2"),
        (
            Platform::GitHub,
            "acme/app/extra",
            "3 parts where OWNER/REPO has 2",
        ),
        (Platform::GitHub, "acme/app name", "a space in `app name`"),
        (Platform::GitHub, "acme/app@a..b", "ref `a..b`"),
        (Platform::GitHub, "acme/%2e%2e", "`%` in `%2e%2e`"),
        (
            Platform::GitLab,
            "project",
            "`project` is not a GitLab repository: 1 part where GROUP/PROJECT has at least 2",
        ),
        (Platform::GitLab, "group/../project", "`..` is not a name"),
    ] {
        let repo = RemoteRepo::parse(platform, spec, Some(&s.base));
        for error in [
            fetch(&repo, &options(cache.path())).unwrap_err(),
            fetch_file(&repo, "main", "AGENTS.md", &options(cache.path())).unwrap_err(),
        ] {
            assert!(
                matches!(error, RemoteError::InvalidName { .. }),
                "{spec}: {error:?}"
            );
            assert!(error.to_string().contains(why), "{spec}: {error}");
        }
    }
    assert_eq!(s.hits(), Vec::<String>::new(), "no request was made");
    assert!(
        std::fs::read_dir(cache.path()).unwrap().next().is_none(),
        "no cache entry or lock"
    );
    // The control: a name that can exist is asked for, of the same server.
    let repo = RemoteRepo::parse(Platform::GitHub, "acme/app@main", Some(&s.base));
    let error = fetch(&repo, &options(cache.path())).unwrap_err();
    assert!(matches!(error, RemoteError::NotFound { .. }), "{error:?}");
    assert!(!s.hits().is_empty());
}
