//! `agentctx --version`: the version, the commit and the features built in,
//! the line a bug report quotes (build.rs makes it).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use common::{TestEnv, run, workspace_root};

/// The features of this package that this build has, as build.rs lists
/// them: sorted, `default` left out. Integration tests are compiled with
/// the package's features, so `cfg!` sees the binary's.
fn features_built_in() -> String {
    let on: Vec<&str> = [
        ("postgres", cfg!(feature = "postgres")),
        ("viewer", cfg!(feature = "viewer")),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    if on.is_empty() {
        "no features".to_owned()
    } else {
        format!("features: {}", on.join(", "))
    }
}

/// `git ARGS` at the workspace root, when git is there and answers.
fn git(args: &[&str]) -> Option<String> {
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(workspace_root())
        .args(args)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

#[test]
fn version_names_the_version_the_commit_and_the_features() {
    let t = TestEnv::new();
    let (code, out, err) = run(t.cmd().arg("--version"));
    assert_eq!(code, 0, "{err}");
    let prefix = format!("agentctx {} (", env!("CARGO_PKG_VERSION"));
    let suffix = format!(", {})\n", features_built_in());
    assert!(
        out.starts_with(&prefix) && out.ends_with(&suffix),
        "{out:?} is not {prefix}COMMIT{suffix}"
    );
    let commit = &out[prefix.len()..out.len() - suffix.len()];
    if let Some(named) = option_env!("AGENTCTX_BUILD_COMMIT") {
        assert_eq!(commit, named.trim(), "the release workflow's commit wins");
        return;
    }
    let hash = commit.strip_suffix("-dirty").unwrap_or(commit);
    assert!(
        commit == "unknown commit"
            || (hash.len() == 7 && hash.chars().all(|c| c.is_ascii_hexdigit())),
        "{commit:?} is neither a short hash nor `unknown commit`"
    );
    // Built in this repository: the hash is its HEAD's.
    if let Some(head) = git(&["rev-parse", "HEAD"]) {
        assert!(head.starts_with(hash), "{commit} is not HEAD {head}");
    }
}

#[test]
fn short_flag_and_subcommands_say_the_same_version() {
    let t = TestEnv::new();
    let (_, long, _) = run(t.cmd().arg("--version"));
    let (code, short, err) = run(t.cmd().arg("-V"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(short, long);
    // The same line twice in a row: nothing in it varies between runs.
    let (_, again, _) = run(t.cmd().arg("--version"));
    assert_eq!(again, long);
}
