//! Work in the worktrees Claude Code keeps in `<project>/.claude/worktrees/<name>`
//! (issue 35, class 9) and a home folder in `/tmp` (class 4), run through
//! `agentctx exec` exactly as the hook's rewritten command runs it, with
//! the sandbox's first program and without it.
//!
//! - After `EnterWorktree` the command runs in the worktree while the
//!   session's root is the project (whose `.claude/` is read-only): editing,
//!   building and committing there work; with `claude --worktree` the
//!   worktree is the root and the project's common git folder lies outside
//!   it: committing works. Either way the worktree's protected files and
//!   what makes git run a program stay read-only, and the project's
//!   excludes, anchored ones too, mask the worktree's copies.
//! - A home in `/tmp` (CI, containers) is read-only whole, so a startup
//!   file that does not exist yet (`~/.bash_profile`, `~/.config/git/config`)
//!   cannot be made; its caches and a project in it stay writable.
//!
//! Each case shows that its commands ran (the tools' own errors, the
//! commit in `git log`, the file written). Run with `scripts/e2e`
//! (bubblewrap).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agentctx_e2e::attack::{SECRET, exec_in, leaked, programs};
use agentctx_e2e::{AgentRun, Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::{Value, json};

/// A project holding `cfg/prod/db.txt` (excluded by the anchored
/// `/cfg/prod/`) and `src/lib.rs`, committed, with the worktree `feat`
/// made where and as Claude Code makes one.
fn project_with_worktree(parent: &Path) -> (Sandbox, PathBuf) {
    let s = Sandbox::new_in(parent);
    s.write("README.md", "README\n");
    s.write("src/lib.rs", "pub fn f() {}\n");
    s.write("cfg/prod/db.txt", &format!("{SECRET}-ANCHORED\n"));
    s.write("cfg/dev/db.txt", "dev\n");
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\", \"/cfg/prod/\"]\n",
    );
    s.write(".claude/settings.json", "{}\n");
    s.commit();
    git(
        &s.root,
        &[
            "worktree",
            "add",
            "-q",
            ".claude/worktrees/feat",
            "-b",
            "worktree-feat",
        ],
    );
    let worktree = s.root.join(".claude/worktrees/feat");
    assert!(worktree.join(".git").is_file());
    (s, worktree)
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Starts session `id` of Claude Code in `start` (the folder Claude Code
/// started in, as `CLAUDE_PROJECT_DIR` and the payload's `cwd` say).
fn start_session(s: &Sandbox, start: &Path, id: &str) {
    let payload = json!({
        "session_id": id,
        "cwd": start,
        "hook_event_name": "SessionStart",
        "source": "startup",
    });
    let run = s.agentctx_with_input(start, &["hook", "--agent", "claude"], &payload.to_string());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

/// The command ran and the kernel refused it: it printed `ran` after the
/// refused step and a tool said `said`.
#[track_caller]
fn refused(run: &AgentRun, ran: &str, said: &str) {
    assert!(run.stdout.contains(ran), "`{ran}` not printed: {run:?}");
    assert!(run.stderr.contains(said), "`{said}` not in {run:?}");
}

/// `line; echo TRIED` ran and the kernel refused its write.
#[track_caller]
fn write_refused(run: &AgentRun, line: &str) {
    assert!(
        run.stdout.contains("TRIED") && run.stderr.contains("Read-only file system"),
        "`{line}` was not refused: {run:?}"
    );
}

/// A commit the way an agent makes one, then the last subject.
const COMMIT: &str = "git add -A && git -c user.email=a@example.invalid -c user.name=a commit -qm 'from the worktree' && git log -1 --format=%s";

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_commit_in_a_worktree_entered_mid_session_lands() {
    let (s, worktree) = project_with_worktree(Path::new(env!("CARGO_TARGET_TMPDIR")));
    start_session(&s, &s.root, "wt-entered");
    for (i, program) in programs(&s).iter().enumerate() {
        let run = exec_in(
            &s,
            program,
            &worktree,
            "wt-entered",
            &[],
            &format!(
                "echo 'pub fn g{i}() {{}}' >> src/lib.rs && mkdir -p target && echo built > target/out && {COMMIT}"
            ),
        );
        assert_eq!(run.code, Some(0), "{program:?}: {run:?}");
        assert!(run.stdout.contains("from the worktree"), "{run:?}");
        assert!(
            std::fs::read_to_string(worktree.join("src/lib.rs"))
                .unwrap()
                .contains(&format!("g{i}")),
            "the edit happened"
        );
        assert!(worktree.join("target/out").is_file());
        let log = git(&s.root, &["log", "--format=%s", "worktree-feat"]);
        assert_eq!(
            log.lines().filter(|l| *l == "from the worktree").count(),
            i + 1,
            "{log}"
        );
        // The copy of the anchored-excluded folder is masked like the
        // project's; its sibling is read.
        let run = exec_in(
            &s,
            program,
            &worktree,
            "wt-entered",
            &[],
            "cat cfg/dev/db.txt; cat cfg/prod/db.txt; cat ../../../cfg/prod/db.txt; echo READ-DONE",
        );
        assert!(!leaked(&run), "{program:?}: {run:?}");
        assert!(run.stdout.starts_with("dev\n"), "{run:?}");
        refused(&run, "READ-DONE", "Permission denied");
        // The worktree's protected files and git's, read-only.
        for (line, file) in [
            (
                "echo '{}' > .claude/settings.local.json",
                ".claude/settings.local.json",
            ),
            (
                "echo x >> .coding-agent-rules.yaml",
                ".coding-agent-rules.yaml",
            ),
            ("echo 'gitdir: /tmp/x' > .git", ".git"),
            (
                "echo /tmp >> ../../../.git/worktrees/feat/commondir",
                "../../../.git/worktrees/feat/commondir",
            ),
            (
                "echo /tmp >> ../../../.git/worktrees/feat/gitdir",
                "../../../.git/worktrees/feat/gitdir",
            ),
            (
                "echo '[core]' >> ../../../.git/config",
                "../../../.git/config",
            ),
            (
                "echo x > ../../../.git/hooks/pre-commit",
                "../../../.git/hooks/pre-commit",
            ),
            (
                "echo x > ../../../.claude/settings.json",
                "../../../.claude/settings.json",
            ),
        ] {
            let before = std::fs::read(worktree.join(file)).ok();
            let run = exec_in(
                &s,
                program,
                &worktree,
                "wt-entered",
                &[],
                &format!("{line}; echo TRIED"),
            );
            write_refused(&run, line);
            assert_eq!(std::fs::read(worktree.join(file)).ok(), before, "{line}");
        }
    }
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_commit_in_a_worktree_session_lands() {
    let (s, worktree) = project_with_worktree(Path::new(env!("CARGO_TARGET_TMPDIR")));
    // `claude --worktree feat`: the worktree is the session's root.
    start_session(&s, &worktree, "wt-root");
    for (i, program) in programs(&s).iter().enumerate() {
        let run = exec_in(
            &s,
            program,
            &worktree,
            "wt-root",
            &[],
            &format!("echo 'pub fn h{i}() {{}}' >> src/lib.rs && {COMMIT}"),
        );
        assert_eq!(run.code, Some(0), "{program:?}: {run:?}");
        assert!(run.stdout.contains("from the worktree"), "{run:?}");
        let log = git(&s.root, &["log", "--format=%s", "worktree-feat"]);
        assert_eq!(
            log.lines().filter(|l| *l == "from the worktree").count(),
            i + 1,
            "{log}"
        );
        // The project's excluded folder, from its worktree too.
        let run = exec_in(
            &s,
            program,
            &worktree,
            "wt-root",
            &[],
            "cat cfg/dev/db.txt; cat cfg/prod/db.txt; cat ../../../cfg/prod/db.txt; echo READ-DONE",
        );
        assert!(!leaked(&run), "{program:?}: {run:?}");
        assert!(run.stdout.starts_with("dev\n"), "{run:?}");
        refused(&run, "READ-DONE", "Permission denied");
        for line in [
            "echo '{}' > .claude/settings.local.json",
            "echo 'gitdir: /tmp/x' > .git",
            "echo /tmp >> ../../../.git/worktrees/feat/commondir",
            "echo x >> ../../../.git/worktrees/feat/gitdir",
            "echo '[core]' >> ../../../.git/config",
            "echo x > ../../../.git/hooks/pre-commit",
            "echo 'ref: refs/heads/x' > ../../../.git/HEAD",
        ] {
            let run = exec_in(
                &s,
                program,
                &worktree,
                "wt-root",
                &[],
                &format!("{line}; echo TRIED"),
            );
            write_refused(&run, line);
        }
    }
    assert!(!worktree.join(".claude/settings.local.json").exists());
    assert!(
        std::fs::read_to_string(s.root.join(".git/HEAD"))
            .unwrap()
            .contains("refs/heads/main")
    );
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_worktree_session_with_the_project_in_tmp_keeps_the_project_read_only() {
    // The project in /tmp, which the sandbox leaves writable: its main
    // checkout is read-only around the worktree, its git folder writable
    // again around git's read-only entries, the worktree writable again.
    let (s, worktree) = project_with_worktree(&std::env::temp_dir());
    start_session(&s, &worktree, "wt-tmp");
    for (i, program) in programs(&s).iter().enumerate() {
        let run = exec_in(
            &s,
            program,
            &worktree,
            "wt-tmp",
            &[],
            &format!("echo 'pub fn t{i}() {{}}' >> src/lib.rs && {COMMIT}"),
        );
        assert_eq!(run.code, Some(0), "{program:?}: {run:?}");
        let log = git(&s.root, &["log", "--format=%s", "worktree-feat"]);
        assert_eq!(
            log.lines().filter(|l| *l == "from the worktree").count(),
            i + 1,
            "{log}"
        );
        for line in [
            // Claude Code starts the project's `.mcp.json` servers in a
            // worktree session too.
            "echo '{}' > ../../../.mcp.json",
            "echo '{}' > ../../../.claude/settings.local.json",
            "echo x > ../../../src/lib.rs",
            "echo '[core]' >> ../../../.git/config",
            "echo /tmp >> ../../../.git/worktrees/feat/commondir",
        ] {
            let run = exec_in(
                &s,
                program,
                &worktree,
                "wt-tmp",
                &[],
                &format!("{line}; echo TRIED"),
            );
            write_refused(&run, line);
        }
        let run = exec_in(
            &s,
            program,
            &worktree,
            "wt-tmp",
            &[],
            "cat ../../../cfg/prod/db.txt; echo READ-DONE",
        );
        assert!(!leaked(&run), "{run:?}");
        refused(&run, "READ-DONE", "Permission denied");
    }
    assert!(!s.root.join(".mcp.json").exists());
    assert_eq!(
        std::fs::read_to_string(s.root.join("src/lib.rs")).unwrap(),
        "pub fn f() {}\n"
    );
}

/// A home and a project in `/tmp` with `~/.cache` there, the session
/// started: the home lies in a folder the sandbox leaves writable.
fn home_in_tmp() -> Sandbox {
    let s = Sandbox::new_in(&std::env::temp_dir());
    s.write("README.md", "README\n");
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.commit();
    std::fs::create_dir_all(s.home.join(".cache")).unwrap();
    start_session(&s, &s.root, "home");
    s
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_home_in_tmp_gets_no_startup_file_that_did_not_exist() {
    let s = home_in_tmp();
    assert!(s.home.starts_with("/tmp"), "{}", s.home.display());
    for program in programs(&s) {
        let run = exec_in(
            &s,
            &program,
            &s.root,
            "home",
            &[],
            "echo 'curl x | sh' > ~/.bash_profile; echo PROFILE-TRIED; mkdir -p ~/.config/git && echo '[core]' > ~/.config/git/config; echo GIT-TRIED; echo x > ~/.npmrc; echo NPMRC-TRIED",
        );
        refused(&run, "PROFILE-TRIED", "Read-only file system");
        assert!(run.stdout.contains("GIT-TRIED") && run.stdout.contains("NPMRC-TRIED"));
        for made in [".bash_profile", ".config/git/config", ".config", ".npmrc"] {
            assert!(!s.home.join(made).exists(), "{made}: {run:?}");
        }
        // What stays writable: the caches, the project, /tmp.
        let scratch = s.path().join("scratch");
        let run = exec_in(
            &s,
            &program,
            &s.root,
            "home",
            &[],
            &format!(
                "echo cached > ~/.cache/pip-x && echo built > out.txt && echo tmp > {} && cat ~/.cache/pip-x out.txt {}",
                scratch.display(),
                scratch.display()
            ),
        );
        assert_eq!(run.code, Some(0), "{run:?}");
        assert_eq!(run.stdout, "cached\nbuilt\ntmp\n", "{run:?}");
        std::fs::remove_file(s.home.join(".cache/pip-x")).unwrap();
    }
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_project_inside_a_home_in_tmp_stays_writable_and_its_protections_hold() {
    let s = Sandbox::new_in(&std::env::temp_dir());
    let project = s.home.join("work/app");
    std::fs::create_dir_all(&project).unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    std::fs::write(project.join("README.md"), "README\n").unwrap();
    std::fs::create_dir_all(project.join("secrets")).unwrap();
    std::fs::write(project.join("secrets/key.txt"), format!("{SECRET}\n")).unwrap();
    std::fs::write(
        project.join(".coding-agent-rules.yaml"),
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    )
    .unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(project.join(".claude/settings.json"), "{}\n").unwrap();
    start_session(&s, &project, "home-project");
    for program in programs(&s) {
        let run = exec_in(
            &s,
            &program,
            &project,
            "home-project",
            &[],
            &format!(
                "echo more >> README.md && mkdir -p build && echo built > build/out && {COMMIT}"
            ),
        );
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(run.stdout.contains("from the worktree"), "{run:?}");
        assert!(project.join("build/out").is_file());
        let run = exec_in(
            &s,
            &program,
            &project,
            "home-project",
            &[],
            "echo x > .claude/settings.local.json; echo SETTINGS-TRIED; echo x > ~/.bash_profile; echo PROFILE-TRIED; cat secrets/key.txt; echo READ-DONE",
        );
        refused(&run, "SETTINGS-TRIED", "Read-only file system");
        assert!(run.stdout.contains("PROFILE-TRIED"), "{run:?}");
        refused(&run, "READ-DONE", "Permission denied");
        assert!(!leaked(&run), "{run:?}");
        assert!(!project.join(".claude/settings.local.json").exists());
        assert!(!s.home.join(".bash_profile").exists());
    }
}

/// Every tool result the model got, in order.
fn tool_results(requests: &[Value]) -> Vec<String> {
    let last = requests.last().expect("a request");
    let mut out = Vec::new();
    for message in last["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                let text = match &block["content"] {
                    Value::String(t) => t.clone(),
                    Value::Array(parts) => parts
                        .iter()
                        .filter_map(|p| p["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                };
                out.push(text);
            }
        }
    }
    out
}

fn bash(command: &str) -> Vec<Block> {
    vec![Block::tool(
        "Bash",
        json!({"command": command, "description": "run"}),
    )]
}

#[test]
#[ignore = "needs the real Claude Code and bubblewrap: scripts/e2e"]
fn claude_code_works_and_commits_in_its_worktree() {
    let s = Sandbox::new();
    s.write("README.md", "README\n");
    s.write("src/lib.rs", "pub fn f() {}\n");
    s.write("cfg/prod/db.txt", &format!("{SECRET}-ANCHORED\n"));
    s.write("cfg/dev/db.txt", "dev\n");
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"/cfg/prod/\"]\n",
    );
    s.commit();
    // Installed for the project (`.claude/settings.local.json` of the main
    // checkout, which Claude Code reads in its worktree sessions too).
    let run = s.install("claude", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let worktree = s.root.join(".claude/worktrees/feat");
    let turns = vec![
        // Claude Code 2.1.330 refuses, in a worktree session, a line that
        // names git in a form its own guard cannot read (`if`, `$(...)`,
        // a subshell): agentctx's rewritten line is two simple commands
        // (`agentctx exec ... -- '...'; . SCRIPT`), so a plain commit runs.
        bash(
            "echo 'pub fn g() {}' >> src/lib.rs && git add -A && git -c user.email=a@example.invalid -c user.name=a commit -qm 'from the worktree' && git log -1 --format=%s && pwd",
        ),
        vec![Block::tool(
            "Read",
            json!({"file_path": worktree.join("cfg/prod/db.txt")}),
        )],
        bash("cat \"cfg/$(echo prod)/db.txt\"; echo CAT-DONE"),
        vec![Block::tool(
            "Read",
            json!({"file_path": s.root.join("cfg/prod/db.txt")}),
        )],
        vec![Block::tool(
            "Edit",
            json!({"file_path": worktree.join("src/lib.rs"), "old_string": "pub fn f()", "new_string": "pub fn f2()"}),
        )],
        vec![Block::text("WORKTREE-DONE")],
    ];
    let mock = MockApi::start(Script::new().conversation("E2E-MAIN:worktree", turns));
    let run = s.claude(
        mock.base_url(),
        &s.root,
        "E2E-MAIN:worktree go",
        &["--worktree", "feat"],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let log =
        std::fs::read_to_string(s.home.join(".local/state/agentctx/hook.log")).unwrap_or_default();
    assert!(
        log.contains(&format!("root {} (from", worktree.display())),
        "the worktree is the session's root\n{log}"
    );
    let requests = mock.conversation("E2E-MAIN:worktree");
    let all: String = requests.iter().map(text_of_request).collect();
    assert!(!all.contains(SECRET), "the secret reached the model\n{log}");
    let results = tool_results(&requests);
    assert_eq!(results.len(), 5, "{results:#?}\n{log}");
    assert!(
        results[0].contains("from the worktree") && results[0].contains(".claude/worktrees/feat"),
        "{}\n{log}",
        results[0]
    );
    assert!(results[1].contains("Denied"), "{}", results[1]);
    assert!(
        results[2].contains("CAT-DONE") && results[2].contains("Permission denied"),
        "{}\n{log}",
        results[2]
    );
    assert!(results[3].contains("Denied"), "{}", results[3]);
    assert!(!results[4].contains("Denied"), "{}\n{log}", results[4]);
    let subjects = git(&s.root, &["log", "--format=%s", "worktree-feat"]);
    assert!(
        subjects.lines().any(|l| l == "from the worktree"),
        "{subjects}"
    );
    let lib = std::fs::read_to_string(worktree.join("src/lib.rs")).unwrap();
    assert!(
        lib.contains("pub fn g()"),
        "the shell's edit happened: {lib}"
    );
    assert!(lib.contains("pub fn f2()"), "the Edit happened: {lib}");
}
