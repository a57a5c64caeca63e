//! File lists of fixture trees in every format (snapshots), the edge cases
//! the issue lists, and agreement with `git ls-files`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::fs;
use std::path::{Path, PathBuf};

use agentctx_filelist::{FileListFormat, FileListOptions, list_local};

/// A copy of `fixtures/trees/<name>` outside any git repository (inside
/// this one, the index would list the fixture's files as tracked), kept
/// until the test ends.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl std::ops::Deref for Fixture {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.root
    }
}

fn fixture(name: &str) -> Fixture {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/trees")
        .join(name);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(name);
    copy_tree(&source, &root);
    Fixture {
        root: fs::canonicalize(&root).unwrap(),
        _dir: dir,
    }
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn list(
    root: &Path,
    format: FileListFormat,
    tweak: impl FnOnce(&mut FileListOptions),
) -> agentctx_filelist::FileListReport {
    let mut options = FileListOptions {
        format,
        ..FileListOptions::default()
    };
    tweak(&mut options);
    list_local(root, &options).unwrap()
}

/// Runs git in `dir`; its stdout.
fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git must be installed (.ci/run installs it)");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn text(root: &Path, format: FileListFormat) -> String {
    list(root, format, |_| {}).text
}

#[test]
fn monorepo_in_every_format() {
    let root = fixture("monorepo");
    insta::assert_snapshot!("monorepo_tree", text(&root, FileListFormat::Tree));
    insta::assert_snapshot!("monorepo_flat", text(&root, FileListFormat::Flat));
    insta::assert_snapshot!("monorepo_compact", text(&root, FileListFormat::Compact));
}

#[test]
fn nested_gitignore_files_and_dot_ignore_are_honoured_outside_git() {
    let root = fixture("nested-gitignore");
    // Default excludes off: they hold `*.log` themselves.
    let listing = list(&root, FileListFormat::Flat, |o| o.default_excludes = false).text;
    insta::assert_snapshot!("nested_gitignore_flat", listing);
    for hidden in ["a.log", "build/", "generated/", "draft-1.md"] {
        assert!(
            !listing.contains(hidden),
            "{hidden} must be ignored:\n{listing}"
        );
    }
    assert!(
        listing.contains("src/keep.log"),
        "a negated pattern re-includes:\n{listing}"
    );
}

#[test]
fn deep_chain_collapses_single_child_directories() {
    let root = fixture("deep-chain");
    let tree = list(&root, FileListFormat::Tree, |o| o.max_depth = Some(10)).text;
    insta::assert_snapshot!("deep_chain_tree", tree);
    assert!(tree.contains("src/\n  main/java/com/acme/app/\n"), "{tree}");
    // A depth given by hand cuts exactly there (`tree -L 3`); the default
    // has no depth limit: the whole small tree.
    insta::assert_snapshot!(
        "deep_chain_depth_3",
        list(&root, FileListFormat::Tree, |o| o.max_depth = Some(3)).text
    );
    assert_eq!(text(&root, FileListFormat::Tree), tree);
}

#[test]
fn numbered_files_are_grouped_in_every_format_unless_asked_not_to() {
    let root = fixture("numbered");
    let tree = text(&root, FileListFormat::Tree);
    insta::assert_snapshot!("numbered_tree", tree);
    assert!(tree.contains("case-{001..120}.json (120 files)"), "{tree}");
    assert!(
        tree.contains("frame_{1,2,9,10}.png (4 files)"),
        "numeric order, not byte order, and the gap shown:\n{tree}"
    );
    assert!(
        tree.contains("notes1.txt\n") && tree.contains("notes2.txt\n"),
        "two files are not a run:\n{tree}"
    );
    let flat = text(&root, FileListFormat::Flat);
    assert!(
        flat.contains("tests/data/case-{001..120}.json (120 files)"),
        "{flat}"
    );
    // Compact would be larger than the whole tree here: the tree is given.
    let compact = text(&root, FileListFormat::Compact);
    assert!(compact.contains("format=\"tree\""), "{compact}");
    let ungrouped = list(&root, FileListFormat::Flat, |o| o.group = false);
    let lines: Vec<&str> = ungrouped
        .text
        .lines()
        .filter(|l| l.starts_with("tests/data/"))
        .collect();
    assert_eq!(lines.len(), 1 + 120, "the directory and one line per file");
    assert_eq!(ungrouped.files_shown, 127);
}

#[test]
fn default_excludes_and_vscode_settings() {
    let listing = text(&fixture("monorepo"), FileListFormat::Flat);
    assert!(
        !listing.contains("dist/") && !listing.contains("debug.log"),
        "{listing}"
    );
    assert!(
        listing.contains(".vscode/settings.json") && listing.contains(".vscode/launch.json"),
        "{listing}"
    );
    assert!(!listing.contains("workspace-cache.json"), "{listing}");
    assert!(
        listing.contains("packages/"),
        "packages/ is not excluded by default:\n{listing}"
    );
    let all = list(&fixture("monorepo"), FileListFormat::Flat, |o| {
        o.default_excludes = false
    })
    .text;
    assert!(
        all.contains("dist/bundle.js") && all.contains("debug.log"),
        "{all}"
    );
}

#[test]
fn exclude_of_a_directory_removes_everything_under_it() {
    let listing = list(&fixture("monorepo"), FileListFormat::Flat, |o| {
        o.exclude = vec!["docs".into()]
    })
    .text;
    assert!(
        !listing.contains("docs/"),
        "`docs` must take docs/x.md with it:\n{listing}"
    );
    let listing = list(&fixture("monorepo"), FileListFormat::Flat, |o| {
        o.exclude = vec!["docs/".into()]
    })
    .text;
    assert!(!listing.contains("docs/"), "{listing}");
}

#[test]
fn include_lists_only_matching_files_and_the_directories_leading_to_them() {
    let l = list(&fixture("monorepo"), FileListFormat::Flat, |o| {
        o.include = vec!["*.ts".into()];
        o.max_depth = Some(10);
    });
    let lines: Vec<&str> = l
        .text
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('('))
        .collect();
    assert!(
        lines.iter().all(|l| l.ends_with('/') || l.ends_with(".ts")),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"packages/api/src/routes/users.ts"),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.starts_with("docs")), "{lines:?}");
}

#[test]
fn sizes_and_dates_follow_names() {
    let root = tempfile::tempdir().unwrap();
    let file = root.path().join("main.rs");
    fs::write(&file, "x".repeat(3482)).unwrap();
    let f = fs::File::options().write(true).open(&file).unwrap();
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_219_200))
        .unwrap();
    let l = list(root.path(), FileListFormat::Tree, |o| {
        o.sizes = true;
        o.mtimes = true;
    });
    assert!(l.text.contains("\nmain.rs 3482 2026-11-21\n"), "{}", l.text);
}

#[test]
fn header_names_the_root_and_the_time_and_no_timestamp_leaves_it_out() {
    let root = fixture("deep-chain");
    let l = list(&root, FileListFormat::Tree, |o| {
        o.generated = Some(1_795_255_200);
        o.max_depth = Some(10);
    });
    assert!(l.text.starts_with("<project_files root=\"deep-chain\" format=\"tree\" generated=\"2026-11-21T10:00:00Z\">\n"), "{}", l.text);
    let l = list(&root, FileListFormat::Tree, |o| o.max_depth = Some(10));
    assert!(
        l.text
            .starts_with("<project_files root=\"deep-chain\" format=\"tree\">\n")
    );
    assert!(l.text.ends_with(")\n</project_files>\n"));
}

#[test]
fn output_is_deterministic() {
    // The walk is parallel: the same tree walked by one thread (in order)
    // and by several (in whatever order they finish) gives the same bytes.
    let root = fixture("monorepo");
    for format in [
        FileListFormat::Tree,
        FileListFormat::Flat,
        FileListFormat::Compact,
    ] {
        let serial = list(&root, format, |o| o.threads = 1).text;
        for threads in [0, 2, 8] {
            for _ in 0..3 {
                assert_eq!(list(&root, format, |o| o.threads = threads).text, serial);
            }
        }
    }
}

#[test]
fn max_depth_cut_is_summarised_and_reported() {
    let root = fixture("deep-chain");
    let l = list(&root, FileListFormat::Tree, |o| o.max_depth = Some(6));
    // `src/main/java/com/acme/app/` is six levels on one line: what lies
    // below it is what depth 6 cuts, counted on the chain's line.
    assert!(
        l.text
            .contains("\n  main/java/com/acme/app/ (2 files, 1 dir)\n"),
        "{}",
        l.text
    );
    // Even a single file below the limit stays hidden (`tree -L 6`).
    assert!(
        l.text.contains("\n  test/java/com/acme/app/ (1 file)\n"),
        "{}",
        l.text
    );
    let l = list(&root, FileListFormat::Tree, |o| o.max_depth = Some(2));
    assert!(
        l.text.contains("\n  main/ (2 files, 5 dirs)\n"),
        "{}",
        l.text
    );
    assert!(
        l.partial_reasons.iter().any(|r| r == "max_depth 2"),
        "{:?}",
        l.partial_reasons
    );
    assert!(l.text.contains("partial: max_depth 2"), "{}", l.text);
}

#[test]
fn breadth_first_selection_shows_every_top_level_entry_despite_a_huge_target() {
    let root = tempfile::tempdir().unwrap();
    let target = root.path().join("target/debug/deps");
    fs::create_dir_all(&target).unwrap();
    // Names without digits, so that no run groups them into one line.
    let letters = |mut i: usize| {
        let mut name = String::new();
        for _ in 0..4 {
            name.push(char::from(b'a' + u8::try_from(i % 26).unwrap()));
            i /= 26;
        }
        name
    };
    for i in 0..50_000 {
        fs::write(target.join(format!("lib{}.rlib", letters(i))), "").unwrap();
    }
    for name in [
        "src/main.rs",
        "src/lib.rs",
        "tests/it.rs",
        "Cargo.toml",
        "README.md",
        "zz-last/file.txt",
    ] {
        let p = root.path().join(name);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, "x").unwrap();
    }
    let l = list(root.path(), FileListFormat::Tree, |o| {
        o.default_excludes = false;
        o.max_files = Some(500);
        o.max_depth = Some(10);
    });
    for top in [
        "src/",
        "tests/",
        "target/",
        "zz-last/",
        "Cargo.toml",
        "README.md",
    ] {
        assert!(
            l.text.lines().any(|line| line.starts_with(top)),
            "{top} missing"
        );
    }
    // 500 entries: one line each (a chain's links share their head's line),
    // besides the lines that summarise what is hidden.
    let entries = l
        .text
        .lines()
        .filter(|line| {
            !line.starts_with('<')
                && !line.starts_with('(')
                && !line.trim_start().starts_with("... (")
        })
        .count();
    assert_eq!(entries, 500, "{}", &l.text[..300]);
    assert_eq!(l.files_total, 50_006);
    assert!(
        l.text.contains("partial: max_files 500 of 50006 files"),
        "{}",
        &l.text[l.text.len() - 300..]
    );
    // The cut directory says what it hides.
    assert!(l.text.contains(" files)"), "a summary line is expected");
}

#[test]
fn huge_node_modules_is_pruned_not_walked() {
    let root = tempfile::tempdir().unwrap();
    let nm = root.path().join("node_modules");
    for i in 0..2_000 {
        let dir = nm.join(format!("pkg{i}"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("index.js"), "").unwrap();
    }
    fs::write(root.path().join("package.json"), "{}").unwrap();
    let l = list(root.path(), FileListFormat::Tree, |_| {});
    assert_eq!((l.files_total, l.dirs_total), (1, 0));
    assert!(!l.text.contains("node_modules"));
}

#[cfg(unix)]
#[test]
fn non_utf8_name_is_shown_lossily_and_counted() {
    use std::os::unix::ffi::OsStrExt;
    let root = tempfile::tempdir().unwrap();
    fs::write(
        root.path()
            .join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt")),
        "",
    )
    .unwrap();
    fs::write(root.path().join("ok.txt"), "").unwrap();
    let l = list(root.path(), FileListFormat::Flat, |_| {});
    assert!(l.text.contains("caf\u{fffd}.txt"), "{}", l.text);
    assert!(l.text.contains("1 name not valid UTF-8"), "{}", l.text);
    assert_eq!(l.files_total, 2);
}

#[cfg(unix)]
#[test]
fn unreadable_directory_does_not_stop_the_walk_and_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let locked = root.path().join("locked");
    fs::create_dir_all(locked.join("inner")).unwrap();
    fs::write(root.path().join("visible.txt"), "").unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let root_can_read = fs::read_dir(&locked).is_ok();
    let l = if root_can_read {
        // Running as root (as CI does), permissions do not lock anything:
        // make the walk fail on a directory another way, a link it is told
        // to follow to a folder that is not there (a symlink cycle is
        // reported as one: `a_symlink_cycle_with_follow_is_...`).
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink(root.path().join("gone"), locked.join("inner/gone")).unwrap();
        list(root.path(), FileListFormat::Tree, |o| o.follow_links = true)
    } else {
        list(root.path(), FileListFormat::Tree, |_| {})
    };
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    assert!(l.text.contains("visible.txt"), "{}", l.text);
    assert!(
        l.partial_reasons
            .iter()
            .any(|r| r.contains("unreadable") && r.contains("locked")),
        "{:?}",
        l.partial_reasons
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_cycle_with_follow_is_reported_as_a_cycle_with_its_path() {
    let root = tempfile::tempdir().unwrap();
    fs::create_dir_all(root.path().join("a/inner")).unwrap();
    fs::write(root.path().join("a/inner/kept.txt"), "").unwrap();
    // One link back to its parent's parent, one to the root itself.
    std::os::unix::fs::symlink("..", root.path().join("a/inner/up")).unwrap();
    std::os::unix::fs::symlink(root.path(), root.path().join("a/to_root")).unwrap();
    for threads in [1, 2] {
        let l = list(root.path(), FileListFormat::Tree, |o| {
            o.follow_links = true;
            o.threads = threads;
        });
        assert!(l.text.contains("kept.txt"), "{}", l.text);
        assert_eq!(
            l.partial_reasons,
            ["2 symlink cycles not followed: a/inner/up -> a, a/to_root -> ."],
            "{}",
            l.text
        );
        assert!(!l.text.contains("unreadable"), "{}", l.text);
    }
    // Not following links, a link is only a name: no cycle to report.
    let l = list(root.path(), FileListFormat::Tree, |_| {});
    assert!(l.partial_reasons.is_empty(), "{:?}", l.partial_reasons);
    assert!(l.text.contains("up@"), "{}", l.text);
}

#[test]
fn counts_equal_git_ls_files_plus_untracked_not_ignored() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let git = |args: &[&str]| git_in(r, args);
    git(&["init", "-q"]);
    for (path, text) in [
        (".gitignore", "secret.txt\ntmp/\n"),
        ("src/a.rs", ""),
        ("src/b.rs", ""),
        ("docs/x.md", ""),
        ("secret.txt", ""),
        ("tmp/scratch", ""),
        ("untracked.md", ""),
        (".hidden/config", ""),
    ] {
        let p = r.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    git(&["add", ".gitignore", "src", "docs"]);
    git(&[
        "-c",
        "user.email=t@t",
        "-c",
        "user.name=t",
        "commit",
        "-qm",
        "init",
    ]);
    let expected = git(&["ls-files", "--cached", "--others", "--exclude-standard"])
        .lines()
        .count();
    let l = list(r, FileListFormat::Flat, |o| o.max_files = Some(10_000));
    assert_eq!(l.files_total, expected as u64);
    assert_eq!(expected, 6, "the fixture's own arithmetic");
}

/// Tracked files are listed even where the default excludes or a
/// `.gitignore` would hide them; untracked ones there stay hidden; the
/// user's excludes apply to both.
#[cfg(feature = "git-index")]
#[test]
fn tracked_files_are_never_hidden_by_the_default_excludes() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path().join("repo");
    fs::create_dir_all(&r).unwrap();
    let git = |args: &[&str]| git_in(&r, args);
    git(&["init", "-q"]);
    for path in [
        ".gitignore",
        "tests/suite/add/out/expected.txt",
        "tests/suite/add/build/mod.rs",
        "vendor/lib/vendored.c",
        "generated.log",
        "secrets/excluded.txt",
        "build/untracked.o",
        "src/main.rs",
    ] {
        let p = r.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, if path == ".gitignore" { "*.log\n" } else { "" }).unwrap();
    }
    git(&[
        "add",
        "-f",
        ".gitignore",
        "tests",
        "vendor",
        "generated.log",
        "secrets",
        "src",
    ]);
    let l = list(&r, FileListFormat::Flat, |o| {
        o.max_files = Some(10_000);
        o.max_depth = Some(10);
        o.exclude = vec!["secrets/".into()];
    });
    for shown in [
        "tests/suite/add/out/expected.txt",
        "tests/suite/add/build/mod.rs",
        "vendor/lib/vendored.c",
        "generated.log",
        "src/main.rs",
    ] {
        assert!(
            l.text.lines().any(|line| line == shown),
            "{shown} missing:\n{}",
            l.text
        );
    }
    assert!(!l.text.contains("untracked.o"), "{}", l.text);
    assert!(!l.text.contains("excluded.txt"), "{}", l.text);
    // A project root below the repository's top lists its own part.
    let sub = list(&r.join("tests"), FileListFormat::Flat, |o| {
        o.max_depth = Some(10)
    });
    assert!(
        sub.text.contains("suite/add/out/expected.txt"),
        "{}",
        sub.text
    );
    assert!(!sub.text.contains("vendored.c"), "{}", sub.text);
}
