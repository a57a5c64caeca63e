//! Ways around the sandbox an attack pass found (2026-11-25), each now
//! refused by the kernel or undone: the kernel's settings under `/proc/sys`
//! (root), the folders of masked and protected paths renamed away, a
//! folder's times set back to fool the kept walk, protected files that did
//! not exist created by a command, a `$TMPDIR` swapped for a link to the
//! home folder. Each case runs with and without `agentctx-sandbox-init`.
//! Each also shows that its commands ran (a sandbox that runs nothing
//! leaks nothing): the files its setup makes, the tools' own errors for the
//! attack, and the same command reading what it may.
//! Run with `scripts/e2e` (bubblewrap).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};

use agentctx_e2e::{AgentRun, Sandbox, agentctx_bin};

const SECRET: &str = "SECRET-ATTACK-CONTENT";

fn project() -> Sandbox {
    let s = Sandbox::new_in(Path::new(env!("CARGO_TARGET_TMPDIR")));
    s.write("README.md", "README\n");
    s.write("secrets/key.txt", &format!("{SECRET}-KEY\n"));
    s.write("sub/deep/x.pem", &format!("{SECRET}-PEM\n"));
    s.write("cfg/prod/db.txt", &format!("{SECRET}-ANCHORED\n"));
    s.write("cfg/dev/db.txt", "dev\n");
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\", \"*.pem\", \"/cfg/prod/\"]\n",
    );
    s.commit();
    let start = format!(
        r#"{{"session_id":"attack","cwd":"{}","hook_event_name":"SessionStart","source":"startup"}}"#,
        s.root.display()
    );
    let run = s.agentctx_with_input(&s.root, &["hook", "--agent", "claude"], &start);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    s
}

/// agentctx with its first program beside it, and alone (bubblewrap then
/// makes the masks itself).
fn programs(s: &Sandbox) -> Vec<PathBuf> {
    let alone = s.path().join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    std::fs::copy(agentctx_bin(), alone.join("agentctx")).unwrap();
    vec![agentctx_bin(), alone.join("agentctx")]
}

fn exec(s: &Sandbox, program: &Path, env: &[(&str, &str)], command: &str) -> AgentRun {
    let out = std::process::Command::new(program)
        .env_clear()
        .env("HOME", &s.home)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .envs(env.iter().copied())
        .args(["exec", "--session", "attack", "--required", "--", command])
        .current_dir(&s.root)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    AgentRun {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `command` through `agentctx exec` and kills it (a timeout, an
/// interrupt) once `made` exists in the project: what it made is left for
/// the next command's look.
fn kill_once_made(s: &Sandbox, command: &str, made: &str) {
    let mut child = std::process::Command::new(agentctx_bin())
        .env_clear()
        .env("HOME", &s.home)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .args(["exec", "--session", "attack", "--required", "--", command])
        .current_dir(&s.root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..100 {
        if s.root.join(made).exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

fn leaked(run: &AgentRun) -> bool {
    run.stdout.contains(SECRET) || run.stderr.contains(SECRET)
}

/// The command ran and the kernel refused it: it exited with `code` and
/// a tool said `said` (`cat: x: Permission denied`). A sandbox that runs
/// nothing says nothing.
#[track_caller]
fn refused(run: &AgentRun, code: i32, said: &str) {
    assert_eq!(run.code, Some(code), "{run:?}");
    assert!(run.stderr.contains(said), "`{said}` not in {run:?}");
}

/// Whether Claude Code (or Codex, which reads the same shape) refuses the
/// call on the hook's `answer`: `hookSpecificOutput.permissionDecision`
/// of a `PreToolUse` reply decides; an empty answer lets it run; any other
/// shape fails the test.
#[track_caller]
fn claude_denies(answer: &str) -> bool {
    if answer.trim().is_empty() {
        return false;
    }
    let reply: serde_json::Value = serde_json::from_str(answer).unwrap();
    let keys: Vec<&String> = reply.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["hookSpecificOutput"], "{answer}");
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse", "{answer}");
    match out["permissionDecision"].as_str() {
        Some("deny") => {
            assert!(
                out["permissionDecisionReason"]
                    .as_str()
                    .is_some_and(|r| !r.is_empty()),
                "{answer}"
            );
            true
        }
        None | Some("allow") => false,
        Some(other) => panic!("a decision agentctx never gives here ({other}): {answer}"),
    }
}

/// What `made` was moved to when it was set aside, read (a file) or
/// listed (a folder); the setup that made it ran.
#[track_caller]
fn set_aside(s: &Sandbox, made: &str) -> String {
    let path = s.root.join(format!("{made}.agentctx-refused"));
    let meta = std::fs::symlink_metadata(&path)
        .unwrap_or_else(|e| panic!("{} was not set aside: {e}", path.display()));
    if meta.is_dir() {
        let mut names: Vec<String> = std::fs::read_dir(&path)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names.join(" ")
    } else if meta.is_symlink() {
        std::fs::read_link(&path).unwrap().display().to_string()
    } else {
        std::fs::read_to_string(&path).unwrap()
    }
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn the_kernels_settings_are_read_only_even_to_root() {
    let s = project();
    for program in programs(&s) {
        // The same value written back: harmless if it were allowed.
        let run = exec(
            &s,
            &program,
            &[],
            "h=$(cat /proc/sys/kernel/hostname); echo \"READ-SYSCTL=$h\"; echo \"$h\" > /proc/sys/kernel/hostname && echo WROTE-SYSCTL",
        );
        assert!(
            !run.stdout.contains("WROTE-SYSCTL"),
            "{}: {}",
            program.display(),
            run.stderr
        );
        // It read the setting and tried the write.
        assert!(
            run.stdout
                .lines()
                .any(|l| l.len() > "READ-SYSCTL=".len() && l.starts_with("READ-SYSCTL=")),
            "{run:?}"
        );
        refused(&run, 1, "/proc/sys/kernel/hostname: Read-only file system");
    }
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn folders_of_masked_and_protected_paths_cannot_be_moved_away() {
    let s = project();
    let git_config = std::fs::read_to_string(s.root.join(".git/config")).unwrap();
    for program in programs(&s) {
        // Each move ran, and the kernel refused it.
        for command in [
            "mv cfg cfg2",
            "mv sub sub2",
            "cp -a .git .git2 && git config -f .git2/config core.fsmonitor 'touch /tmp/agentctx-pwned; false' && mv .git .git-old && mv .git2 .git",
            "python3 -c \"import os; os.rename('cfg', 'cfg3')\"",
        ] {
            let run = exec(&s, &program, &[], command);
            refused(&run, 1, "Device or resource busy");
        }
        // The copy was made and changed before its move was refused.
        let copy = std::fs::read_to_string(s.root.join(".git2/config")).unwrap();
        assert!(copy.contains("fsmonitor"), "{copy}");
        for (command, missing) in [
            ("cat cfg2/prod/db.txt", "No such file or directory"),
            ("cat cfg3/prod/db.txt", "No such file or directory"),
            ("cat cfg/prod/db.txt", "Permission denied"),
            ("cat sub2/deep/x.pem", "No such file or directory"),
            ("cat sub/deep/x.pem", "Permission denied"),
        ] {
            let run = exec(&s, &program, &[], command);
            assert!(
                !leaked(&run),
                "{}: {command}: {}",
                program.display(),
                run.stdout
            );
            let path = command.trim_start_matches("cat ");
            refused(&run, 1, &format!("cat: {path}: {missing}"));
        }
        // The same reads of what the rules allow print it.
        let run = exec(&s, &program, &[], "cat cfg/dev/db.txt README.md");
        assert_eq!(run.stdout, "dev\nREADME\n", "{run:?}");
        assert_eq!(
            std::fs::read_to_string(s.root.join(".git/config")).unwrap(),
            git_config
        );
        assert!(!s.root.join(".git-old").exists());
    }
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_folder_whose_time_is_set_back_is_walked_again() {
    let s = project();
    for (i, program) in programs(&s).iter().enumerate() {
        let name = format!("late-{i}.pem");
        let deep = s.root.join("sub/deep");
        let before = std::fs::metadata(&deep).unwrap().modified().unwrap();
        // The command makes an empty file an exclude names and sets the
        // folder's time back, hoping the kept walk is used; then the user
        // saves a key there (and a note beside it).
        let run = exec(
            &s,
            program,
            &[],
            &format!("m=$(stat -c %y sub/deep); touch sub/deep/{name}; touch -d \"$m\" sub/deep"),
        );
        assert_eq!(run.code, Some(0), "{run:?}");
        assert!(deep.join(&name).exists(), "the command made it: {run:?}");
        assert_eq!(
            std::fs::metadata(&deep).unwrap().modified().unwrap(),
            before,
            "the command set the folder's time back"
        );
        std::fs::write(deep.join(&name), format!("{SECRET}-LATE\n")).unwrap();
        std::fs::write(deep.join(format!("late-{i}.txt")), format!("NOTE-{i}\n")).unwrap();
        let run = exec(
            &s,
            program,
            &[],
            &format!("cat sub/deep/late-{i}.txt sub/deep/{name}"),
        );
        assert!(!leaked(&run), "{}: {}", program.display(), run.stdout);
        assert_eq!(run.stdout, format!("NOTE-{i}\n"), "{run:?}");
        refused(&run, 1, &format!("cat: sub/deep/{name}: Permission denied"));
    }
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn protected_files_a_command_creates_are_set_aside() {
    let s = project();
    for program in programs(&s) {
        let run = exec(
            &s,
            &program,
            &[],
            "printf 'project_agent_rules:\\n  enabled: false\\n' > .agentctx.yaml; mkdir -p .codex && echo 'x = 1' > .codex/config.toml; mkdir -p .github && echo IGNORE > .github/AGENTS.md; echo RAN-TO-THE-END",
        );
        assert_eq!(run.stdout, "RAN-TO-THE-END\n", "{run:?}");
        assert_eq!(
            set_aside(&s, ".agentctx.yaml"),
            "project_agent_rules:\n  enabled: false\n"
        );
        assert!(!s.root.join(".agentctx.yaml").exists(), "{}", run.stderr);
        assert!(
            !s.root.join(".codex/config.toml").exists(),
            "{}",
            run.stderr
        );
        assert!(!s.root.join(".github/AGENTS.md").exists(), "{}", run.stderr);
        assert!(s.root.join(".agentctx.yaml.agentctx-refused").exists());
        assert!(
            run.stderr
                .contains("which the rules protect: it was moved to"),
            "{}",
            run.stderr
        );
        std::fs::remove_file(s.root.join(".agentctx.yaml.agentctx-refused")).unwrap();
        // The folder and the file it made elsewhere were set aside too.
        assert!(
            run.stderr.contains(".codex, which the rules protect"),
            "{run:?}"
        );
        assert!(
            run.stderr
                .contains(".github/AGENTS.md, which the rules protect"),
            "{run:?}"
        );
    }
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_temporary_folder_swapped_for_a_link_to_home_opens_nothing() {
    let s = project();
    let tmp = format!("/tmp/agentctx-e2e-tmpdir-{}", std::process::id());
    std::fs::create_dir_all(&tmp).unwrap();
    for program in programs(&s) {
        // The temporary folder is writable while it is one.
        let run = exec(
            &s,
            &program,
            &[("TMPDIR", &tmp)],
            &format!("echo ok > {tmp}/probe && echo WROTE-TMP"),
        );
        assert_eq!(run.stdout, "WROTE-TMP\n", "{run:?}");
        let run = exec(
            &s,
            &program,
            &[("TMPDIR", &tmp)],
            &format!("rm -rf {tmp} && ln -s \"$HOME\" {tmp}"),
        );
        assert_eq!(run.code, Some(0), "{run:?}");
        assert_eq!(
            std::fs::read_link(&tmp).unwrap(),
            s.home,
            "the link was made"
        );
        let run = exec(
            &s,
            &program,
            &[("TMPDIR", &tmp)],
            &format!("echo pwned > {tmp}/.bashrc-planted && echo WROTE-HOME"),
        );
        assert!(
            !run.stdout.contains("WROTE-HOME"),
            "{}: {}",
            program.display(),
            run.stderr
        );
        assert!(!s.home.join(".bashrc-planted").exists());
        refused(
            &run,
            1,
            &format!("{tmp}/.bashrc-planted: Read-only file system"),
        );
        let _ = std::fs::remove_file(&tmp);
        std::fs::create_dir_all(&tmp).unwrap();
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

// A second pass (2026-11-25), after the fixes above.

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn git_is_kept_from_running_what_a_command_left() {
    let s = project();
    let program = agentctx_bin();
    // `.git/commondir` naming a folder whose config runs a program. The
    // folder is outside the project, read-only in the sandbox: it is there
    // before (the command could not make it).
    let evil = s.path().join("evilgit");
    for dir in ["objects", "refs"] {
        std::fs::create_dir_all(evil.join(dir)).unwrap();
    }
    std::fs::write(
        evil.join("config"),
        format!(
            "[core]\n\tfsmonitor = \"touch {}; false\"\n",
            evil.join("PWNED").display()
        ),
    )
    .unwrap();
    let run = exec(
        &s,
        &program,
        &[],
        &format!(
            "echo {} > .git/commondir; echo x > .git/config.worktree; echo RAN",
            evil.display()
        ),
    );
    // git outside the sandbox afterwards (the user's, the agent's own).
    let status = std::process::Command::new("git")
        .args(["status", "--short"])
        .current_dir(&s.root)
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    assert_eq!(run.stdout, "RAN\n", "{run:?}");
    assert!(!s.root.join(".git/commondir").exists(), "{}", run.stderr);
    assert!(
        !s.root.join(".git/config.worktree").exists(),
        "{}",
        run.stderr
    );
    assert_eq!(
        set_aside(&s, ".git/commondir").trim(),
        evil.display().to_string()
    );
    assert_eq!(set_aside(&s, ".git/config.worktree"), "x\n");
    assert!(!evil.join("PWNED").exists(), "git ran the config's program");
    // The control: the same entry left in place does run it.
    std::fs::write(
        s.root.join(".git/commondir"),
        format!("{}\n", evil.display()),
    )
    .unwrap();
    std::process::Command::new("git")
        .args(["status", "--short"])
        .current_dir(&s.root)
        .output()
        .unwrap();
    assert!(evil.join("PWNED").exists(), "the attack is one");
    // A project that is not a repository: a `.git` the command makes.
    let plain = project();
    std::fs::remove_dir_all(plain.root.join(".git")).unwrap();
    let run = exec(
        &plain,
        &program,
        &[],
        "git init -q . && git config core.fsmonitor 'touch /tmp/agentctx-e2e-pwned; false'",
    );
    assert!(!plain.root.join(".git").exists(), "{}", run.stderr);
    assert!(
        run.stderr.contains("which the rules protect"),
        "{}",
        run.stderr
    );
    let made = std::fs::read_to_string(plain.root.join(".git.agentctx-refused/config")).unwrap();
    assert!(
        made.contains("fsmonitor"),
        "git init and config ran: {made}"
    );
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn what_a_killed_command_made_is_set_aside_before_the_next_one() {
    let s = project();
    kill_once_made(
        &s,
        "printf 'project_agent_rules:\\n  sandbox: off\\n' > .agentctx.yaml; sleep 30",
        ".agentctx.yaml",
    );
    assert!(s.root.join(".agentctx.yaml").exists(), "the kill left it");
    let run = exec(&s, &agentctx_bin(), &[], "true");
    assert!(!s.root.join(".agentctx.yaml").exists(), "{}", run.stderr);
    assert_eq!(
        set_aside(&s, ".agentctx.yaml"),
        "project_agent_rules:\n  sandbox: off\n"
    );
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn protected_names_made_in_subfolders_or_through_links_are_set_aside_there() {
    let s = project();
    let other = s.path().join("other");
    std::fs::create_dir_all(other.join(".github")).unwrap();
    std::fs::write(other.join(".github/AGENTS.md"), "OTHER PROJECT RULES\n").unwrap();
    let run = exec(
        &s,
        &agentctx_bin(),
        &[],
        &format!(
            "mkdir -p sub/.claude cfg/dev/.codex && echo '{{}}' > sub/.claude/settings.json && echo x > cfg/dev/.codex/config.toml && echo 'x: 1' > sub/.agentctx.yaml; ln -s {} .github",
            other.join(".github").display()
        ),
    );
    for (made, held) in [
        ("sub/.claude", "settings.json"),
        ("cfg/dev/.codex", "config.toml"),
        ("sub/.agentctx.yaml", "x: 1\n"),
    ] {
        assert!(!s.root.join(made).exists(), "{made}: {}", run.stderr);
        assert_eq!(set_aside(&s, made), held, "{made}");
    }
    // `.github` exists now before any command (its `hooks` and `copilot`,
    // Copilot CLI's, are kept read-only, so it is a mount point): the link
    // cannot be put in its place at all.
    assert!(
        std::fs::symlink_metadata(s.root.join(".github")).is_ok_and(|m| m.is_dir()),
        "{}",
        run.stderr
    );
    // Nothing reached the other project's folder.
    assert_eq!(
        std::fs::read_to_string(other.join(".github/AGENTS.md")).unwrap(),
        "OTHER PROJECT RULES\n"
    );
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn file_tools_keep_off_what_the_sandbox_keeps_read_only() {
    let s = project();
    for (tool, input) in [
        (
            "Write",
            serde_json::json!({"file_path": s.root.join(".git/hooks/pre-commit"), "content": "#!/bin/sh\ntouch /tmp/x\n"}),
        ),
        (
            "Write",
            serde_json::json!({"file_path": s.root.join(".git/config"), "content": "[core]\n"}),
        ),
        (
            "Write",
            serde_json::json!({"file_path": s.home.join(".bashrc"), "content": "evil\n"}),
        ),
    ] {
        let payload = serde_json::json!({
            "session_id": "attack",
            "cwd": s.root,
            "hook_event_name": "PreToolUse",
            "permission_mode": "bypassPermissions",
            "tool_name": tool,
            "tool_input": input,
            "tool_use_id": "toolu_attack",
        });
        let run = s.agentctx_with_input(
            &s.root,
            &["hook", "--agent", "claude"],
            &payload.to_string(),
        );
        assert!(claude_denies(&run.stdout), "{input}: {}", run.stdout);
    }
    // A Write the sandbox allows is allowed to the file tool too.
    let payload = serde_json::json!({
        "session_id": "attack",
        "cwd": s.root,
        "hook_event_name": "PreToolUse",
        "permission_mode": "bypassPermissions",
        "tool_name": "Write",
        "tool_input": {"file_path": s.root.join("src/new.rs"), "content": "x\n"},
        "tool_use_id": "toolu_attack",
    });
    let run = s.agentctx_with_input(
        &s.root,
        &["hook", "--agent", "claude"],
        &payload.to_string(),
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(!claude_denies(&run.stdout), "{}", run.stdout);
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_link_the_user_made_stays_and_one_put_in_place_of_a_folder_is_set_aside() {
    let s = project();
    // The user's own link, before the session: what a command makes
    // through it is set aside where it is, and the link stays.
    // (A folder outside the project would be read-only in the sandbox.)
    let shared = s.root.join("shared-github");
    std::fs::create_dir_all(&shared).unwrap();
    std::os::unix::fs::symlink(&shared, s.root.join(".github")).unwrap();
    let run = exec(&s, &agentctx_bin(), &[], "echo RULES > .github/AGENTS.md");
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        std::fs::symlink_metadata(s.root.join(".github"))
            .unwrap()
            .is_symlink()
    );
    assert!(!shared.join("AGENTS.md").exists());
    assert!(shared.join("AGENTS.md.agentctx-refused").exists());
    // A real folder replaced by a link to another project's: the link goes.
    let t = project();
    std::fs::create_dir_all(t.root.join(".github/workflows")).unwrap();
    let other = t.path().join("other/.github");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("AGENTS.md"), "OTHER\n").unwrap();
    exec(
        &t,
        &agentctx_bin(),
        &[],
        &format!(
            "rm -rf .github; ln -sn {} .github; echo MADE",
            other.display()
        ),
    );
    assert_eq!(
        std::fs::read_to_string(other.join("AGENTS.md")).unwrap(),
        "OTHER\n"
    );
    // The folder holds Copilot CLI's folders, read-only mount points: it
    // cannot be removed, so no link takes its place (the kernel refuses it
    // before the look afterwards would set one aside).
    assert!(
        std::fs::symlink_metadata(t.root.join(".github")).is_ok_and(|m| m.is_dir()),
        "the folder was replaced"
    );
    assert!(t.root.join(".github/hooks").is_dir());
}

// A third pass (2026-11-25), after the second's fixes.

/// A project whose rules also exclude a folder in the home (the home is
/// then among the folders the walk saw).
fn project_with_home_exclude() -> Sandbox {
    let s = Sandbox::new_in(Path::new(env!("CARGO_TARGET_TMPDIR")));
    s.write("README.md", "README\n");
    s.write(".claude/k.pem", &format!("{SECRET}-IN-PROTECTED\n"));
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"*.pem\", \"~/.ssh/\"]\n",
    );
    s.commit();
    std::fs::create_dir_all(s.home.join(".claude")).unwrap();
    std::fs::write(s.home.join(".claude/settings.json"), "{}\n").unwrap();
    std::fs::create_dir_all(s.home.join(".ssh")).unwrap();
    let start = format!(
        r#"{{"session_id":"attack","cwd":"{}","hook_event_name":"SessionStart","source":"startup"}}"#,
        s.root.display()
    );
    let run = s.agentctx_with_input(&s.root, &["hook", "--agent", "claude"], &start);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    s
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn nothing_outside_the_project_is_set_aside_and_masks_reach_into_protected_folders() {
    let s = project_with_home_exclude();
    // The home changes while the command runs (Claude Code writes there).
    let home = s.home.clone();
    let toucher = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        std::fs::write(home.join(".claude.json"), "{}\n").unwrap();
    });
    let run = exec(
        &s,
        &agentctx_bin(),
        &[],
        "sleep 1; cat README.md .claude/k.pem",
    );
    assert_eq!(run.stdout, "README\n", "{run:?}");
    refused(&run, 1, "cat: .claude/k.pem: Permission denied");
    toucher.join().unwrap();
    assert!(
        s.home.join(".claude/settings.json").exists(),
        "{}",
        run.stderr
    );
    assert!(!s.home.join(".claude.agentctx-refused").exists());
    assert!(
        !leaked(&run),
        "an excluded file in a protected folder: {}",
        run.stdout
    );
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn submodules_and_nested_repositories_cannot_be_made_to_run_a_program() {
    let s = project();
    let evil = s.path().join("evil.git");
    let run = exec(
        &s,
        &agentctx_bin(),
        &[],
        &format!(
            "git init -q --bare {e} 2>/dev/null; mkdir -p lib2 && echo 'gitdir: {e}' > lib2/.git; mkdir -p .git/modules/x && echo '[core]' > .git/modules/x/config",
            e = evil.display()
        ),
    );
    assert!(!s.root.join("lib2/.git").exists(), "{}", run.stderr);
    assert!(!s.root.join(".git/modules").exists(), "{}", run.stderr);
    assert_eq!(
        set_aside(&s, "lib2/.git"),
        format!("gitdir: {}\n", evil.display())
    );
    assert_eq!(set_aside(&s, ".git/modules"), "x");
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn what_a_killed_command_made_in_a_subfolder_is_set_aside_too() {
    let s = project();
    kill_once_made(
        &s,
        "mkdir -p sub/.claude && echo '{}' > sub/.claude/settings.json; sleep 30",
        "sub/.claude/settings.json",
    );
    assert!(
        s.root.join("sub/.claude/settings.json").exists(),
        "the kill left it"
    );
    let run = exec(&s, &agentctx_bin(), &[], "true");
    assert!(!s.root.join("sub/.claude").exists(), "{}", run.stderr);
    assert_eq!(set_aside(&s, "sub/.claude"), "settings.json");
}

// A fourth pass (2026-11-25).

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_broken_head_is_put_back_and_a_bare_repository_shape_is_set_aside() {
    let s = project();
    let head = std::fs::read_to_string(s.root.join(".git/HEAD")).unwrap();
    let run = exec(
        &s,
        &agentctx_bin(),
        &[],
        "echo garbage > .git/HEAD && mkdir -p objects refs && echo 'ref: refs/heads/main' > HEAD && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tfsmonitor = \"touch /tmp/agentctx-e2e-pwned\"\\n' > config",
    );
    assert_eq!(
        std::fs::read_to_string(s.root.join(".git/HEAD")).unwrap(),
        head,
        "{}",
        run.stderr
    );
    assert!(!s.root.join("HEAD").exists(), "{}", run.stderr);
    assert!(run.stderr.contains("put back"), "{}", run.stderr);
    // The whole command ran: its last file is there, its HEAD set aside.
    let config = std::fs::read_to_string(s.root.join("config")).unwrap();
    assert!(config.contains("fsmonitor"), "{config}");
    assert_eq!(set_aside(&s, "HEAD"), "ref: refs/heads/main\n");
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn mcp_configs_runtime_sockets_and_executable_caches_stay_out_of_reach() {
    let s = project();
    std::fs::write(s.root.join(".mcp.json"), "{\"mcpServers\": {}}\n").unwrap();
    let npx = s.home.join(".npm/_npx/abc/node_modules");
    std::fs::create_dir_all(&npx).unwrap();
    let runtime = s.path().join("runtime");
    std::fs::create_dir_all(runtime.join("emacs")).unwrap();
    std::fs::write(runtime.join("emacs/server"), "stand-in\n").unwrap();
    let runtime_env = runtime.display().to_string();
    // A new session, so the plan is made with this environment.
    let start = format!(
        r#"{{"session_id":"attack4","cwd":"{}","hook_event_name":"SessionStart","source":"startup"}}"#,
        s.root.display()
    );
    s.agentctx_with_input(&s.root, &["hook", "--agent", "claude"], &start);
    let out = std::process::Command::new(agentctx_bin())
        .env_clear()
        .env("HOME", &s.home)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("XDG_RUNTIME_DIR", &runtime_env)
        .args([
            "exec",
            "--session",
            "attack4",
            "--required",
            "--",
            "echo '{\"mcpServers\":{\"x\":{\"command\":\"evil\"}}}' > .mcp.json; echo evil > ~/.npm/_npx/abc/node_modules/x.js; cat \"$XDG_RUNTIME_DIR/emacs/server\"",
        ])
        .current_dir(&s.root)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        std::fs::read_to_string(s.root.join(".mcp.json")).unwrap(),
        "{\"mcpServers\": {}}\n"
    );
    assert!(!npx.join("x.js").exists());
    assert!(!stdout.contains("stand-in"), "{stdout}");
    // Each of the three ran and was refused.
    for said in [
        ".mcp.json: Read-only file system".to_owned(),
        format!("{}: Read-only file system", npx.join("x.js").display()),
        format!("cat: {}/emacs/server: Permission denied", runtime.display()),
    ] {
        assert!(stderr.contains(&said), "`{said}` not in {stderr}");
    }
    // A new one the command makes is set aside.
    std::fs::remove_file(s.root.join(".mcp.json")).unwrap();
    exec(&s, &agentctx_bin(), &[], "echo '{}' > .mcp.json");
    assert!(!s.root.join(".mcp.json").exists());
}

/// As a careless or prompt-injected agent would try it, after the fixes:
/// other spellings of the same paths, a sub-agent's call, a call whose cwd
/// moved out of the project, Codex's patch tool, an MCP tool writing a
/// protected name bare, and the prompt hook with a payload that names
/// another session's files.
#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_careless_agent_reaches_nothing_the_sandbox_keeps_by_another_way() {
    let s = project();
    let root = s.root.display().to_string();
    let elsewhere = s.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let claude = |tool: &str, input: serde_json::Value, extra: serde_json::Value| {
        let mut payload = serde_json::json!({
            "session_id": "attack",
            "cwd": s.root,
            "hook_event_name": "PreToolUse",
            "permission_mode": "bypassPermissions",
            "tool_name": tool,
            "tool_input": input,
            "tool_use_id": "toolu_attack",
        });
        for (k, v) in extra.as_object().unwrap() {
            payload[k] = v.clone();
        }
        s.agentctx_with_input(
            &s.root,
            &["hook", "--agent", "claude"],
            &payload.to_string(),
        )
        .stdout
    };
    let none = serde_json::json!({});
    for (what, tool, input, extra) in [
        (
            "dots and doubled slashes",
            "Write",
            serde_json::json!({"file_path": format!("{root}/./.git//hooks/../hooks/post-checkout"), "content": "x"}),
            none.clone(),
        ),
        (
            "relative to the cwd",
            "Edit",
            serde_json::json!({"file_path": ".git/config", "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = x"}),
            none.clone(),
        ),
        (
            "a sub-agent",
            "Write",
            serde_json::json!({"file_path": format!("{root}/.git/hooks/pre-push"), "content": "x"}),
            serde_json::json!({"agent_id": "a1", "agent_type": "engineer"}),
        ),
        (
            "a cwd outside the project",
            "Write",
            serde_json::json!({"file_path": format!("{root}/.git/hooks/pre-push"), "content": "x"}),
            serde_json::json!({"cwd": elsewhere}),
        ),
        (
            "the MCP server file, bare",
            "mcp__fs__write_file",
            serde_json::json!({"path": ".mcp.json", "content": "{}"}),
            none.clone(),
        ),
        (
            "a new git entry",
            "Write",
            serde_json::json!({"file_path": format!("{root}/.git/commondir"), "content": "/tmp/x"}),
            none.clone(),
        ),
    ] {
        let answer = claude(tool, input, extra);
        assert!(claude_denies(&answer), "{what}: {answer}");
    }
    // The same calls on a file the rules leave alone run.
    for (what, extra) in [
        ("the main agent", none.clone()),
        (
            "a sub-agent",
            serde_json::json!({"agent_id": "a1", "agent_type": "engineer"}),
        ),
        (
            "a cwd outside the project",
            serde_json::json!({"cwd": elsewhere}),
        ),
    ] {
        let input =
            serde_json::json!({"file_path": format!("{root}/./src//new.rs"), "content": "x"});
        let answer = claude("Write", input, extra);
        assert!(!claude_denies(&answer), "{what}: {answer}");
    }
    // Codex's patch tool, with a header Codex trims.
    let patch = format!(
        "*** Begin Patch\n  *** Add File: {root}/.git/hooks/pre-commit\n+#!/bin/sh\n*** End Patch\n"
    );
    let payload = serde_json::json!({
        "session_id": "attack-codex",
        "turn_id": "t1",
        "cwd": s.root,
        "hook_event_name": "PreToolUse",
        "permission_mode": "bypassPermissions",
        "tool_name": "apply_patch",
        "tool_input": {"command": patch},
        "tool_use_id": "call_1",
    });
    let run = s.agentctx_with_input(&s.root, &["hook", "--agent", "codex"], &payload.to_string());
    assert!(claude_denies(&run.stdout), "codex patch: {}", run.stdout);
    let mut allowed = payload.clone();
    allowed["tool_input"]["command"] =
        format!("*** Begin Patch\n  *** Add File: {root}/src/new.rs\n+x\n*** End Patch\n").into();
    let run = s.agentctx_with_input(&s.root, &["hook", "--agent", "codex"], &allowed.to_string());
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(!claude_denies(&run.stdout), "codex patch: {}", run.stdout);
    // The prompt hook gives nothing outside its session's project: another
    // folder named as the cwd of a session anchored here changes nothing.
    let prompt = serde_json::json!({
        "session_id": "attack-codex",
        "turn_id": "t2",
        "cwd": elsewhere,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "go",
    });
    let run = s.agentctx_with_input(&s.root, &["hook", "--agent", "codex"], &prompt.to_string());
    assert!(!run.stdout.contains("elsewhere"), "{}", run.stdout);
}
