//! The text of `agentctx --version`: the package version, the commit it was
//! built from and the cargo features built in, as `AGENTCTX_LONG_VERSION`:
//! `0.1.0 (abc1234, features: postgres, viewer)`.
//!
//! The commit comes from, in this order: `AGENTCTX_BUILD_COMMIT` (the release
//! workflow sets it, and anyone building from a tarball can), the
//! `.cargo_vcs_info.json` that `cargo package` writes into a published crate
//! (so a `cargo install agentctx-cli` names the commit it was published
//! from), then `git` when this crate's own manifest is tracked by the
//! repository around it (a crate unpacked inside someone else's repository
//! must not take that repository's commit). Otherwise `unknown commit`.
//! Plain std: a dependency for this would cost every build more than the
//! forty lines below.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!("cargo:rerun-if-env-changed=AGENTCTX_BUILD_COMMIT");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=Cargo.toml");
    let commit = from_env()
        .or_else(|| from_vcs_info(&manifest_dir))
        .or_else(|| from_git(&manifest_dir))
        .unwrap_or_else(|| "unknown commit".to_owned());
    let features = features(&manifest_dir);
    let version = env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let features = if features.is_empty() {
        "no features".to_owned()
    } else {
        format!("features: {}", features.join(", "))
    };
    println!("cargo:rustc-env=AGENTCTX_LONG_VERSION={version} ({commit}, {features})");
}

/// The commit the release workflow (or a packager) names.
fn from_env() -> Option<String> {
    let value = env::var("AGENTCTX_BUILD_COMMIT").ok()?;
    let value = value.trim();
    (!value.is_empty()).then(|| value.to_owned())
}

/// The commit `cargo package` recorded in a published crate:
/// `{"git": {"sha1": "...", "dirty": true}, "path_in_vcs": "crates/cli"}`.
/// Read with string search: the file's shape is fixed by cargo and a JSON
/// parser in the build script would be one more crate to build first.
fn from_vcs_info(manifest_dir: &Path) -> Option<String> {
    let path = manifest_dir.join(".cargo_vcs_info.json");
    println!("cargo:rerun-if-changed={}", path.display());
    let text = fs::read_to_string(&path).ok()?;
    let after = text.split("\"sha1\"").nth(1)?;
    let sha: String = after
        .chars()
        .skip_while(|c| !c.is_ascii_hexdigit())
        .take_while(char::is_ascii_hexdigit)
        .collect();
    if sha.len() < 7 {
        return None;
    }
    let dirty = text.contains("\"dirty\": true") || text.contains("\"dirty\":true");
    Some(format!(
        "{}{}",
        &sha[..7],
        if dirty { "-dirty" } else { "" }
    ))
}

/// The commit of the repository this crate is checked out in, `-dirty` when
/// tracked files differ from it (untracked files do not count, as for
/// `git describe --dirty`).
fn from_git(manifest_dir: &Path) -> Option<String> {
    // Only our own repository: the manifest must be a tracked file of it.
    git(manifest_dir, &["ls-files", "--error-unmatch", "Cargo.toml"])?;
    // Rerun when HEAD moves, the branch it names moves, or the index or a
    // tracked file changes (which may make the tree dirty or clean).
    for name in ["HEAD", "index", "packed-refs"] {
        if let Some(path) = git(manifest_dir, &["rev-parse", "--git-path", name]) {
            println!("cargo:rerun-if-changed={}", absolute(manifest_dir, &path));
        }
    }
    if let Some(reference) = git(manifest_dir, &["symbolic-ref", "-q", "HEAD"])
        && let Some(path) = git(manifest_dir, &["rev-parse", "--git-path", &reference])
    {
        println!("cargo:rerun-if-changed={}", absolute(manifest_dir, &path));
    }
    if let Some(top) = git(manifest_dir, &["rev-parse", "--show-toplevel"]) {
        let top = Path::new(&top);
        for tracked in ["crates", "Cargo.toml", "Cargo.lock"] {
            println!("cargo:rerun-if-changed={}", top.join(tracked).display());
        }
    }
    let hash = git(manifest_dir, &["rev-parse", "--short=7", "HEAD"])?;
    let status = git(
        manifest_dir,
        &["status", "--porcelain", "--untracked-files=no"],
    )?;
    Some(format!(
        "{hash}{}",
        if status.is_empty() { "" } else { "-dirty" }
    ))
}

/// `git ARGS` in `dir`: its trimmed stdout when it succeeded.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

fn absolute(dir: &Path, path: &str) -> String {
    dir.join(path).display().to_string()
}

/// The features of this crate that are on, sorted, `default` left out: the
/// names are read from the manifest's `[features]` table so a new feature
/// shows without an edit here, and each is on when cargo set
/// `CARGO_FEATURE_<NAME>`.
fn features(manifest_dir: &Path) -> Vec<String> {
    let manifest = fs::read_to_string(manifest_dir.join("Cargo.toml")).unwrap_or_default();
    let mut in_features = false;
    let mut on = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_features = line == "[features]";
            continue;
        }
        if !in_features || line.starts_with('#') {
            continue;
        }
        let Some((name, _)) = line.split_once('=') else {
            continue;
        };
        let name = name.trim();
        let key = format!(
            "CARGO_FEATURE_{}",
            name.to_ascii_uppercase().replace('-', "_")
        );
        if name != "default" && env::var_os(key).is_some() {
            on.push(name.to_owned());
        }
    }
    on.sort();
    on.dedup();
    on
}
