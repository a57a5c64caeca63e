//! The AGENTS.md hierarchy: the spec's acceptance criteria and the edge cases
//! users of today's agents report. Trees are built in temp dirs because they
//! need `.git` directories, symlinks and controlled mtimes.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use agentctx_core::{
    ChainWarning, InitialChain, RootOptions, find_root, render_resolve_paths, resume_session,
    start_session,
};
use agentctx_types::{AgentsConfig, OmitReason, PositiveInt, RootSource};

struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Canonical, so that comparisons with what the library returns hold on
    /// systems where the temp dir is behind a symlink.
    fn path(&self, relative: &str) -> PathBuf {
        let base = fs::canonicalize(self.dir.path()).unwrap();
        if relative.is_empty() {
            base
        } else {
            base.join(relative)
        }
    }

    fn file(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        path
    }

    fn mkdir(&self, relative: &str) -> PathBuf {
        let path = self.path(relative);
        fs::create_dir_all(&path).unwrap();
        path
    }

    /// A real-looking git repository marker at `relative`.
    fn git_repo(&self, relative: &str) -> PathBuf {
        self.file(&format!("{relative}/.git/HEAD"), "ref: refs/heads/main\n");
        self.path(relative)
    }
}

fn set_mtime(path: &Path, secs_after_epoch: u64) {
    let file = fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs_after_epoch))
        .unwrap();
}

fn config() -> AgentsConfig {
    AgentsConfig::default()
}

fn paths(chain: &InitialChain) -> Vec<PathBuf> {
    chain.adopted.iter().map(|a| a.file.path.clone()).collect()
}

#[test]
fn initial_chain_is_loaded_once_in_order_root_to_cwd() {
    let t = Tree::new();
    t.git_repo("repo");
    let root_md = t.file("repo/AGENTS.md", "root rules\n");
    let mid_md = t.file("repo/packages/AGENTS.md", "packages rules\n");
    let foo_md = t.file("repo/packages/foo/AGENTS.md", "foo rules\n");
    t.file("repo/other/AGENTS.md", "not on the chain\n");
    let s = start_session(&t.path("repo/packages/foo"), &config(), None).unwrap();
    assert_eq!(paths(&s.chain), [root_md.clone(), mid_md, foo_md.clone()]);
    let text = s.chain.render();
    assert_eq!(text.matches("Instructions from:").count(), 3);
    assert!(text.find("root rules").unwrap() < text.find("foo rules").unwrap());
    assert!(!text.contains("not on the chain"));
    // The files the chain gave are loaded: resolving inside them says nothing.
    let mut resolver = s.resolver;
    assert!(
        resolver
            .resolve_for_path(&t.path("repo/packages/foo/x.rs"))
            .files
            .is_empty()
    );
    assert!(resolver.resolve_for_path(&root_md).files.is_empty());
    assert!(resolver.resolve_for_path(&foo_md).files.is_empty());
}

#[test]
fn initial_message_has_the_documented_shape() {
    let t = Tree::new();
    t.git_repo("repo");
    t.file("repo/AGENTS.md", "Use Rust 2024.  \n\n\n");
    t.file("repo/packages/foo/AGENTS.md", "Foo rules.\n");
    let s = start_session(&t.path("repo/packages/foo"), &config(), None).unwrap();
    let repo = t.path("repo");
    let expected = format!(
        "<agents_context scope=\"initial\">\nInstructions from: {r}/AGENTS.md\nUse Rust 2024.\n\nInstructions from: {r}/packages/foo/AGENTS.md\nFoo rules.\n</agents_context>\n",
        r = repo.display()
    );
    assert_eq!(s.chain.render(), expected);
}

#[test]
fn no_chain_gives_no_output_at_all() {
    let t = Tree::new();
    t.git_repo("repo");
    let s = start_session(&t.path("repo"), &config(), None).unwrap();
    assert_eq!(s.chain.render(), "");
}

#[test]
fn nested_file_is_reported_as_path_and_mtime_only() {
    let t = Tree::new();
    t.git_repo("repo");
    t.file("repo/AGENTS.md", "root\n");
    let nested = t.file("repo/feature/AGENTS.md", "SECRET BODY that must not leak\n");
    set_mtime(&nested, 1_738_970_000);
    let mut s = start_session(&t.path("repo"), &config(), None).unwrap();
    let found = s
        .resolver
        .resolve_for_path(&t.path("repo/feature/src/lib.rs"));
    assert_eq!(found.files.len(), 1);
    assert_eq!(found.files[0].path, nested);
    assert_eq!(found.files[0].mtime_ms, 1_738_970_000_000);
    let reminder = render_resolve_paths(&found);
    assert!(reminder.contains(&format!("- {} (mtime: 1738970000000)", nested.display())));
    assert!(!reminder.contains("SECRET BODY"));
}

#[test]
fn no_duplicate_report_on_reread() {
    let t = Tree::new();
    t.git_repo("repo");
    t.file("repo/feature/AGENTS.md", "feature\n");
    let mut s = start_session(&t.path("repo"), &config(), None).unwrap();
    assert_eq!(
        s.resolver
            .resolve_for_path(&t.path("repo/feature/a.rs"))
            .files
            .len(),
        1
    );
    assert!(
        s.resolver
            .resolve_for_path(&t.path("repo/feature/a.rs"))
            .files
            .is_empty()
    );
    assert!(
        s.resolver
            .resolve_for_path(&t.path("repo/feature/b/c.rs"))
            .files
            .is_empty()
    );
}

#[test]
fn initial_message_is_byte_stable_across_turns() {
    let t = Tree::new();
    t.git_repo("repo");
    t.file("repo/AGENTS.md", "root\n");
    t.file("repo/a/AGENTS.md", "a\n");
    let first = start_session(&t.path("repo/a"), &config(), None)
        .unwrap()
        .chain
        .render();
    // Later turns: other files appear and are touched; the initial message does not move.
    t.file("repo/b/AGENTS.md", "b\n");
    t.file("repo/a/notes.txt", "x");
    let mut later = start_session(&t.path("repo/a"), &config(), None).unwrap();
    later.resolver.resolve_for_path(&t.path("repo/b/x"));
    assert_eq!(later.chain.render().as_bytes(), first.as_bytes());
}

#[test]
fn override_and_markers_switch_the_root() {
    let t = Tree::new();
    t.git_repo("outer");
    t.file("outer/inner/.codelia", "");
    let cwd = t.mkdir("outer/inner/work");
    let found = find_root(&cwd, &RootOptions::from_config(&config(), None)).unwrap();
    assert_eq!(found.root, t.path("outer/inner"));
    assert_eq!(found.source, RootSource::Marker);
    assert_eq!(found.marker.as_deref(), Some(".codelia"));

    let mut only_git = config();
    only_git.root.markers = vec![".git".into()];
    let found = find_root(&cwd, &RootOptions::from_config(&only_git, None)).unwrap();
    assert_eq!(found.root, t.path("outer"));

    let mut fixed = config();
    fixed.root.project_root_override = Some(PathBuf::from("../.."));
    let found = find_root(&cwd, &RootOptions::from_config(&fixed, None)).unwrap();
    assert_eq!(found.root, t.path("outer"));
    assert_eq!(found.source, RootSource::Override);

    fixed.root.project_root_override = Some(t.path("missing"));
    assert!(find_root(&cwd, &RootOptions::from_config(&fixed, None)).is_err());
}

#[test]
fn no_marker_means_root_is_cwd() {
    let t = Tree::new();
    let cwd = t.mkdir("plain/dir");
    let mut markers = config();
    markers.root.markers = vec!["no-such-marker".into()];
    let found = find_root(&cwd, &RootOptions::from_config(&markers, None)).unwrap();
    assert_eq!(found.root, cwd);
    assert_eq!(found.source, RootSource::Cwd);
}

#[test]
fn mtime_change_is_reported_again() {
    let t = Tree::new();
    t.git_repo("repo");
    let nested = t.file("repo/feature/AGENTS.md", "v1\n");
    set_mtime(&nested, 1_700_000_000);
    let mut s = start_session(&t.path("repo"), &config(), None).unwrap();
    assert_eq!(s.resolver.resolve_for_path(&nested).files.len(), 1);
    assert!(s.resolver.resolve_for_path(&nested).files.is_empty());
    set_mtime(&nested, 1_700_000_100);
    let again = s.resolver.resolve_for_path(&nested);
    assert_eq!(again.files.len(), 1);
    assert_eq!(again.files[0].mtime_ms, 1_700_000_100_000);
    // The initial chain's files are re-reported when they change, too.
    let root_md = t.file("repo/AGENTS.md", "root\n");
    set_mtime(&root_md, 1_700_000_000);
    let mut s = start_session(&t.path("repo"), &config(), None).unwrap();
    set_mtime(&root_md, 1_700_000_200);
    assert_eq!(
        s.resolver.resolve_for_path(&t.path("repo/x")).files[0].path,
        root_md
    );
}

#[test]
fn stray_empty_git_directory_is_not_a_root() {
    let t = Tree::new();
    t.git_repo("repo");
    t.mkdir("repo/sub/.git");
    let cwd = t.mkdir("repo/sub/deeper");
    let found = find_root(&cwd, &RootOptions::from_config(&config(), None)).unwrap();
    assert_eq!(found.root, t.path("repo"));
}

#[test]
fn worktree_git_file_marks_the_root() {
    let t = Tree::new();
    t.git_repo("main");
    t.mkdir("main/.git/worktrees/wt");
    t.file(
        "wt/.git",
        &format!("gitdir: {}\n", t.path("main/.git/worktrees/wt").display()),
    );
    let cwd = t.mkdir("wt/src");
    let found = find_root(&cwd, &RootOptions::from_config(&config(), None)).unwrap();
    assert_eq!(found.root, t.path("wt"));
    assert_eq!(found.marker.as_deref(), Some(".git"));
}

#[test]
fn submodule_defers_to_the_superproject_whose_agents_apply() {
    let t = Tree::new();
    t.git_repo("super");
    t.mkdir("super/.git/modules/libs/dep");
    t.file(
        "super/libs/dep/.git",
        "gitdir: ../../.git/modules/libs/dep\n",
    );
    let super_md = t.file("super/AGENTS.md", "superproject rules\n");
    let dep_md = t.file("super/libs/dep/AGENTS.md", "dep rules\n");
    let cwd = t.mkdir("super/libs/dep/src");
    let s = start_session(&cwd, &config(), None).unwrap();
    assert_eq!(s.root.root, t.path("super"));
    assert_eq!(paths(&s.chain), [super_md, dep_md]);
}

#[test]
fn home_directory_is_never_chosen_by_marker() {
    let t = Tree::new();
    let home = t.git_repo("home/user");
    t.mkdir("home/user/.codelia");
    let cwd = t.mkdir("home/user/scratch/dir");
    let options = RootOptions::from_config(&config(), Some(home.clone()));
    let found = find_root(&cwd, &options).unwrap();
    assert_eq!(found.root, cwd);
    assert_eq!(found.source, RootSource::Cwd);
    // A marker below home is still found.
    t.git_repo("home/user/scratch");
    assert_eq!(
        find_root(&cwd, &options).unwrap().root,
        t.path("home/user/scratch")
    );
    // And home itself as cwd is the cwd, not a marker root.
    assert_eq!(find_root(&home, &options).unwrap().source, RootSource::Cwd);
}

#[test]
fn stop_at_fs_root_false_keeps_the_walk_inside_home() {
    let t = Tree::new();
    t.git_repo("srv");
    let cwd = t.mkdir("srv/app/x");
    let mut confined = config();
    confined.root.stop_at_fs_root = false;
    let home = Some(t.mkdir("home/user"));
    let found = find_root(&cwd, &RootOptions::from_config(&confined, home.clone())).unwrap();
    assert_eq!(found.root, cwd);
    let found = find_root(&cwd, &RootOptions::from_config(&config(), home)).unwrap();
    assert_eq!(found.root, t.path("srv"));
}

#[cfg(unix)]
#[test]
fn symlinked_agents_md_is_loaded_once() {
    let t = Tree::new();
    t.git_repo("repo");
    let real = t.file("repo/AGENTS.md", "shared rules\n");
    t.mkdir("repo/pkg");
    std::os::unix::fs::symlink(&real, t.path("repo/pkg/AGENTS.md")).unwrap();
    let mut s = start_session(&t.path("repo/pkg"), &config(), None).unwrap();
    assert_eq!(paths(&s.chain), [real]);
    assert_eq!(s.chain.render().matches("shared rules").count(), 1);
    // Nor does the resolver offer the link as news.
    assert!(
        s.resolver
            .resolve_for_path(&t.path("repo/pkg/x"))
            .files
            .is_empty()
    );
}

#[test]
fn non_utf8_agents_md_is_skipped_with_a_warning() {
    let t = Tree::new();
    t.git_repo("repo");
    let bad = t.path("repo/sub/AGENTS.md");
    fs::create_dir_all(bad.parent().unwrap()).unwrap();
    fs::write(&bad, b"caf\xe9\n").unwrap();
    let good = t.file("repo/AGENTS.md", "fine\n");
    let s = start_session(&t.path("repo/sub"), &config(), None).unwrap();
    assert_eq!(paths(&s.chain), [good]);
    assert!(
        s.chain
            .warnings
            .contains(&ChainWarning::NotUtf8 { path: bad.clone() })
    );
    assert!(
        s.chain
            .warnings
            .iter()
            .any(|w| w.to_string().contains(&bad.display().to_string()))
    );
}

#[test]
fn empty_and_whitespace_only_files_are_skipped_and_not_offered_later() {
    let t = Tree::new();
    t.git_repo("repo");
    let blank = t.file("repo/AGENTS.md", " \n\t\n");
    set_mtime(&blank, 1_700_000_000);
    let mut s = start_session(&t.path("repo"), &config(), None).unwrap();
    assert!(s.chain.adopted.is_empty());
    assert_eq!(s.chain.render(), "");
    assert!(
        s.resolver
            .resolve_for_path(&t.path("repo/x"))
            .files
            .is_empty()
    );
    // Once it has content (a new version), it is offered.
    t.file("repo/AGENTS.md", "now real\n");
    set_mtime(&blank, 1_700_000_100);
    assert_eq!(
        s.resolver.resolve_for_path(&t.path("repo/x")).files.len(),
        1
    );
}

#[test]
fn max_bytes_leaves_a_file_out_whole_and_the_resolver_offers_it_later() {
    let t = Tree::new();
    t.git_repo("repo");
    t.file("repo/AGENTS.md", &"r".repeat(60));
    let big = t.file("repo/a/AGENTS.md", &"a".repeat(60));
    let deeper = t.file("repo/a/b/AGENTS.md", "b\n");
    let mut limited = config();
    limited.initial.max_bytes = PositiveInt::new(100).unwrap();
    let mut s = start_session(&t.path("repo/a/b"), &limited, None).unwrap();
    assert_eq!(s.chain.adopted.len(), 1);
    assert!(
        !s.chain
            .render()
            .contains('a'.to_string().repeat(10).as_str())
    );
    let omitted: Vec<_> = s
        .chain
        .omitted
        .iter()
        .map(|o| (o.path.clone(), o.reason))
        .collect();
    // Adoption stops at the limit: the small deeper file is left out too.
    assert_eq!(
        omitted,
        [
            (big.clone(), OmitReason::MaxBytes),
            (deeper.clone(), OmitReason::MaxBytes)
        ]
    );
    assert_eq!(s.chain.omitted[0].size_bytes, 60);
    let found = s.resolver.resolve_for_path(&t.path("repo/a/b/file.rs"));
    let offered: Vec<_> = found.files.iter().map(|f| f.path.clone()).collect();
    assert_eq!(offered, [big, deeper]);
}

#[test]
fn max_files_limits_the_initial_chain() {
    let t = Tree::new();
    t.git_repo("repo");
    t.file("repo/AGENTS.md", "1\n");
    t.file("repo/a/AGENTS.md", "2\n");
    t.file("repo/a/b/AGENTS.md", "3\n");
    let mut limited = config();
    limited.initial.max_files = PositiveInt::new(2).unwrap();
    let s = start_session(&t.path("repo/a/b"), &limited, None).unwrap();
    assert_eq!(s.chain.adopted.len(), 2);
    assert_eq!(s.chain.omitted[0].reason, OmitReason::MaxFiles);
}

#[test]
fn deleted_then_recreated_file_is_offered_again() {
    let t = Tree::new();
    t.git_repo("repo");
    let nested = t.file("repo/feature/AGENTS.md", "v1\n");
    set_mtime(&nested, 1_700_000_000);
    let mut s = start_session(&t.path("repo"), &config(), None).unwrap();
    assert_eq!(s.resolver.resolve_for_path(&nested).files.len(), 1);
    fs::remove_file(&nested).unwrap();
    assert!(
        s.resolver
            .resolve_for_path(&t.path("repo/feature/x"))
            .files
            .is_empty()
    );
    assert!(!s.resolver.state().loaded_versions.contains_key(&nested));
    // Back with the very same mtime and size: still offered, it was forgotten.
    t.file("repo/feature/AGENTS.md", "v1\n");
    set_mtime(&nested, 1_700_000_000);
    assert_eq!(
        s.resolver
            .resolve_for_path(&t.path("repo/feature/x"))
            .files
            .len(),
        1
    );
}

#[test]
fn file_created_during_the_session_is_offered() {
    let t = Tree::new();
    t.git_repo("repo");
    let mut s = start_session(&t.path("repo"), &config(), None).unwrap();
    assert!(
        s.resolver
            .resolve_for_path(&t.path("repo/new/x.rs"))
            .files
            .is_empty()
    );
    t.file("repo/new/AGENTS.md", "new\n");
    assert_eq!(
        s.resolver
            .resolve_for_path(&t.path("repo/new/x.rs"))
            .files
            .len(),
        1
    );
}

#[test]
fn target_outside_the_root_returns_nothing() {
    let t = Tree::new();
    t.git_repo("repo");
    t.file("elsewhere/AGENTS.md", "x\n");
    let mut s = start_session(&t.path("repo"), &config(), None).unwrap();
    assert!(
        s.resolver
            .resolve_for_path(&t.path("elsewhere/file"))
            .files
            .is_empty()
    );
    assert!(
        s.resolver
            .resolve_for_path(Path::new("/etc/passwd"))
            .files
            .is_empty()
    );
    assert!(
        s.resolver
            .resolve_for_path(&t.path("repo/../elsewhere/file"))
            .files
            .is_empty()
    );
}

#[test]
fn path_that_does_not_exist_yet_uses_its_nearest_existing_ancestor() {
    let t = Tree::new();
    t.git_repo("repo");
    let md = t.file("repo/feature/AGENTS.md", "f\n");
    let mut s = start_session(&t.path("repo"), &config(), None).unwrap();
    let found = s
        .resolver
        .resolve_for_path(&t.path("repo/feature/new/dir/file.rs"));
    assert_eq!(found.files[0].path, md);
    // Relative targets are taken against the session's cwd.
    t.file("repo/rel/AGENTS.md", "r\n");
    assert_eq!(
        s.resolver
            .resolve_for_path(Path::new("rel/x.rs"))
            .files
            .len(),
        1
    );
}

#[test]
fn max_files_per_resolve_leaves_the_rest_for_the_next_call() {
    let t = Tree::new();
    t.git_repo("repo");
    for dir in ["a", "a/b", "a/b/c"] {
        t.file(&format!("repo/{dir}/AGENTS.md"), "x\n");
    }
    let mut limited = config();
    limited.resolver.max_files_per_resolve = PositiveInt::new(2).unwrap();
    let mut s = start_session(&t.path("repo"), &limited, None).unwrap();
    let first = s.resolver.resolve_for_path(&t.path("repo/a/b/c/f"));
    assert_eq!(
        first
            .files
            .iter()
            .map(|f| f.path.clone())
            .collect::<Vec<_>>(),
        [t.path("repo/a/AGENTS.md"), t.path("repo/a/b/AGENTS.md")]
    );
    let second = s.resolver.resolve_for_path(&t.path("repo/a/b/c/f"));
    assert_eq!(second.files[0].path, t.path("repo/a/b/c/AGENTS.md"));
}

#[test]
fn disabled_resolver_or_agents_report_nothing() {
    let t = Tree::new();
    t.git_repo("repo");
    t.file("repo/AGENTS.md", "root\n");
    t.file("repo/f/AGENTS.md", "f\n");
    let mut off = config();
    off.resolver.enabled = false;
    let mut s = start_session(&t.path("repo"), &off, None).unwrap();
    assert!(
        s.resolver
            .resolve_for_path(&t.path("repo/f/x"))
            .files
            .is_empty()
    );
    let mut all_off = config();
    all_off.enabled = false;
    let mut s = start_session(&t.path("repo"), &all_off, None).unwrap();
    assert_eq!(s.chain.render(), "");
    assert!(
        s.resolver
            .resolve_for_path(&t.path("repo/f/x"))
            .files
            .is_empty()
    );
}

#[test]
fn resume_reports_cwd_change_and_unseen_files_then_nothing() {
    let t = Tree::new();
    t.git_repo("repo");
    t.file("repo/AGENTS.md", "root\n");
    let api_md = t.file("repo/api/AGENTS.md", "api\n");
    let s = start_session(&t.path("repo"), &config(), None).unwrap();
    let state = s.resolver.into_state();
    let (diff, resolver) = resume_session(state, &t.path("repo/api"), &config(), None).unwrap();
    assert_eq!(diff.cwd, Some((t.path("repo"), t.path("repo/api"))));
    assert!(diff.root.is_none() && diff.markers.is_none());
    assert_eq!(
        diff.recheck
            .iter()
            .map(|f| f.path.clone())
            .collect::<Vec<_>>(),
        [api_md]
    );
    let (again, _) =
        resume_session(resolver.into_state(), &t.path("repo/api"), &config(), None).unwrap();
    assert!(again.is_empty());
}
