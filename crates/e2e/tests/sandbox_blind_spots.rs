//! The sandbox's blind spots an attack pass found on 92ba8df (issue 35),
//! each run for real through `agentctx exec` as the hook's rewritten
//! command runs it, judged by its effect (did a secret come back, did a
//! protected file change, was something left that runs outside later),
//! each with a positive control that shows the command did run. Run with
//! `scripts/e2e` (bubblewrap).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::Path;

use agentctx_e2e::attack::{SECRET, attack_project, exec_with, leaked, programs};

fn parent() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
}

/// Class 1: bubblewrap's reaper (process 1) entered the command's folder
/// before the masks were made, so `/proc/1/cwd` led beneath them. No
/// `/proc` entry of any process in the sandbox (cwd, root, a task's, an
/// inherited descriptor) may reach an excluded path.
#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn no_proc_entry_of_any_process_in_the_sandbox_reaches_behind_the_masks() {
    let s = attack_project(parent());
    let home = s.home.display().to_string();
    let root = s.root.display().to_string();
    let attacks = [
        "cat \"/proc/$((0+1))/cwd/secrets/key.txt\"".to_owned(),
        "cat /proc/1/task/1/cwd/secrets/key.txt".to_owned(),
        format!("cat /proc/1/root{root}/secrets/key.txt"),
        format!(
            "cat /proc/1/cwd/../{}/.ssh/id_ed25519",
            relative_to(&s.root, &s.home)
        ),
        format!("cat /proc/1/root{home}/.ssh/id_ed25519"),
        // Every process's every folder and descriptor, whatever its number.
        "for p in /proc/[0-9]*; do for e in cwd root task/*/cwd fd/*; do \
           cat \"$p/$e/secrets/key.txt\" \"$p/$e/cfg/prod/db.txt\" 2>/dev/null; \
           cat \"$p/$e\" 2>/dev/null | head -c 200; done; done"
            .to_owned(),
        // A process that sits in the project while another looks.
        "(cd cfg && sleep 2) & sleep 0.3; for p in /proc/[0-9]*; do \
           cat \"$p/cwd/prod/db.txt\" \"$p/cwd/../secrets/key.txt\" 2>/dev/null; done; wait"
            .to_owned(),
    ];
    for program in programs(&s) {
        // The positive control: the same routes reach what is readable.
        let control = exec_with(
            &s,
            &program,
            &[],
            "cat /proc/1/cwd/README.md /proc/1/task/1/cwd/cfg/dev/db.txt; readlink /proc/1/cwd",
        );
        assert_eq!(
            control.stdout,
            format!("README\ndev\n{root}\n"),
            "{}: {}",
            program.display(),
            control.stderr
        );
        for attack in &attacks {
            let run = exec_with(&s, &program, &[], attack);
            assert!(
                !leaked(&run),
                "{}: `{attack}` read a secret: {}{}",
                program.display(),
                run.stdout,
                run.stderr
            );
        }
    }
}

/// A descriptor the agent (or whatever started `agentctx exec`) left open
/// on a folder of the project would lead around every mask through
/// `/proc/self/fd`: only the standard streams reach the command.
#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_folder_left_open_by_the_caller_does_not_reach_the_sandbox() {
    let s = attack_project(parent());
    let program = agentctx_e2e::agentctx_bin();
    let run = |command: &str| {
        // bash opens the secrets' folder as descriptor 7 and starts
        // agentctx exec with it, as a careless caller would.
        let out = std::process::Command::new("bash")
            .env_clear()
            .env("HOME", &s.home)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .arg("-c")
            .arg(format!(
                "exec 7<secrets 8<README.md; exec \"$0\" exec --session attack --required -- '{command}'"
            ))
            .arg(&program)
            .current_dir(&s.root)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    };
    // Control: the descriptors were open in the caller.
    let control = std::process::Command::new("bash")
        .arg("-c")
        .arg("exec 7<secrets; ls /proc/self/fd/7/")
        .current_dir(&s.root)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&control.stdout).contains("key.txt"));
    let out = run("echo RAN; cat /proc/self/fd/7/key.txt; cat /proc/self/fd/8; ls /proc/self/fd");
    assert!(out.contains("RAN"), "{out}");
    assert!(!out.contains(SECRET), "{out}");
    assert!(
        !out.contains("README"),
        "descriptor 8 reached the command: {out}"
    );
}

/// `to` relative to `from` (both absolute, `to` beside or below `from`'s
/// parent).
fn relative_to(from: &Path, to: &Path) -> String {
    let common = from
        .ancestors()
        .find(|a| to.starts_with(a))
        .expect("a common folder");
    let ups = from.strip_prefix(common).unwrap().components().count();
    let down = to.strip_prefix(common).unwrap();
    let mut out = "../".repeat(ups.saturating_sub(1));
    out.push_str(&down.display().to_string());
    out
}

/// Class 8: a FIFO where agentctx reads a file (`.git/HEAD`, a
/// `.gitignore`, an `AGENTS.md`) made every later `agentctx exec` of the
/// project hang and the next session start wait out the hook's deadline
/// (20 s) with no context. Nothing agentctx opens may block.
#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_fifo_planted_where_agentctx_reads_blocks_nothing() {
    let s = attack_project(parent());
    let program = agentctx_e2e::agentctx_bin();
    let started = std::time::Instant::now();
    let plant = exec_with(
        &s,
        &program,
        &[],
        "rm .git/HEAD && mkfifo .git/HEAD && mkfifo .gitignore && mkdir -p deep && \
         mkfifo deep/.gitignore deep/AGENTS.md AGENTS.md && echo PLANTED",
    );
    // Control: the command ran and made them.
    assert!(plant.stdout.contains("PLANTED"), "{}", plant.stderr);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "the planting command's own exec took {:?}",
        started.elapsed()
    );
    let timed = |what: &str, f: &dyn Fn() -> agentctx_e2e::AgentRun| {
        let started = std::time::Instant::now();
        let run = f();
        let took = started.elapsed();
        assert!(
            took < std::time::Duration::from_secs(5),
            "{what} took {took:?}: {}",
            run.stderr
        );
        run
    };
    let next = timed("the next exec", &|| {
        exec_with(&s, &program, &[], "echo NEXT")
    });
    assert!(next.stdout.contains("NEXT"), "{}", next.stderr);
    // git outside reads a HEAD again.
    let git = std::process::Command::new("git")
        .args(["rev-parse", "--abbrev-ref", "HEAD"])
        .current_dir(&s.root)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&git.stdout).trim(), "main");
    // A FIFO left at HEAD by something agentctx never saw (no pending
    // record): the session start still answers, with its file list.
    std::fs::remove_file(s.root.join(".git/HEAD")).unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(s.root.join(".git/HEAD"))
            .status()
            .unwrap()
            .success()
    );
    let start = format!(
        r#"{{"session_id":"after-fifo","cwd":"{}","hook_event_name":"SessionStart","source":"startup"}}"#,
        s.root.display()
    );
    let run = timed("the next session start", &|| {
        s.agentctx_with_input(&s.root, &["hook", "--agent", "claude"], &start)
    });
    assert!(
        run.stdout.contains("<project_files"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert!(run.stdout.contains("README.md"), "{}", run.stdout);
}

/// Class 4: agent configuration that did not exist yet. Copilot CLI runs
/// `.github/hooks/*.json` of the folder a session starts in, outside any
/// sandbox: in the root and the session's folder they cannot be made (the
/// folders exist, empty and read-only); in any other folder they are set
/// aside when the command ends. Claude Code starts the servers of a
/// `.mcp.json` in any folder above the project: one made there (a project
/// under /tmp) is set aside.
#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn agent_configuration_that_did_not_exist_yet_cannot_be_left_behind() {
    // Under /tmp: the folders above the project are writable there.
    let s = agentctx_e2e::Sandbox::new();
    s.write("README.md", "README\n");
    s.write("sub/main.rs", "fn main() {}\n");
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.commit();
    agentctx_e2e::attack::start_session_in(&s, "config", "claude", &s.root.join("sub"));
    let program = agentctx_e2e::agentctx_bin();
    let above = s.root.parent().unwrap().join(".mcp.json");
    let run = agentctx_e2e::attack::exec_in(
        &s,
        &program,
        &s.root.join("sub"),
        "config",
        &[],
        &format!(
            "cd ..; mkdir -p .github/hooks .github/workflows; echo '{{}}' > .github/hooks/x.json; echo root=$?; \
             echo '{{}}' > sub/.github/hooks/x.json; echo sub=$?; \
             mkdir -p other/.github/hooks && echo '{{}}' > other/.github/hooks/y.json; echo other=$?; \
             echo '{{\"mcpServers\":{{}}}}' > '{}'; echo above=$?; \
             mkdir -p .clinerules/hooks && printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .clinerules/hooks/PreToolUse; echo cline=$?; \
             mkdir -p .cline/plugins && echo 'export default {{}}' > .cline/plugins/x.js; echo plugin=$?; \
             echo 'on: push' > .github/workflows/ci.yml; echo workflow=$?",
            above.display()
        ),
    );
    // The command ran: it wrote what it may, and the kernel refused the rest.
    assert!(
        run.stdout.contains("workflow=0"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert!(run.stdout.contains("root=1"), "{}", run.stdout);
    assert!(run.stdout.contains("sub=1"), "{}", run.stdout);
    assert!(run.stdout.contains("other=0"), "{}", run.stdout);
    assert!(s.root.join(".github/workflows/ci.yml").is_file());
    // Nothing is left where an agent would load it.
    assert!(!s.root.join(".github/hooks/x.json").exists());
    assert!(!s.root.join("sub/.github/hooks/x.json").exists());
    assert!(
        !s.root.join("other/.github/hooks").exists(),
        "{}",
        run.stderr
    );
    assert!(!above.exists(), "{}", run.stderr);
    // Cline CLI's hooks and plugins, which it runs at its next session
    // outside any sandbox: made by the command, set aside when it ended.
    assert!(run.stdout.contains("cline=0"), "{}", run.stdout);
    assert!(run.stdout.contains("plugin=0"), "{}", run.stdout);
    assert!(!s.root.join(".clinerules").exists(), "{}", run.stderr);
    assert!(!s.root.join(".cline").exists(), "{}", run.stderr);
    assert!(run.stderr.contains("was moved to"), "{}", run.stderr);
    // The placeholders are empty folders, invisible to git.
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(&s.root)
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&status.stdout).contains("hooks"),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );
}

/// Class 5: Gemini CLI and Qwen Code load a project's `.env` into their
/// environment, and their hooks (bash) inherit it. Where either is used on
/// the machine, `.env` is protected where they load it: read-only in the
/// sandbox, set aside when a command makes one, denied to file tools;
/// elsewhere it is the project's file like any other.
#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_loaded_env_file_cannot_be_written_where_an_agent_loads_it() {
    let s = attack_project(parent());
    s.write(".env", "APP=1\n");
    let program = agentctx_e2e::agentctx_bin();
    let attack = "echo 'BASH_ENV=/tmp/hookrc' >> .env; echo env=$?; \
                  echo 'BASH_ENV=/tmp/hookrc' > sub/.env; echo sub=$?";
    // No agent that loads it on this machine: the project's file.
    let run = exec_with(&s, &program, &[], attack);
    assert!(run.stdout.contains("env=0"), "{}{}", run.stdout, run.stderr);
    std::fs::write(s.root.join(".env"), "APP=1\n").unwrap();
    let _ = std::fs::remove_file(s.root.join("sub/.env"));
    // Gemini CLI used here.
    std::fs::create_dir_all(s.home.join(".gemini")).unwrap();
    let run = exec_with(&s, &program, &[], attack);
    assert!(run.stdout.contains("env=1"), "{}{}", run.stdout, run.stderr);
    assert_eq!(
        std::fs::read_to_string(s.root.join(".env")).unwrap(),
        "APP=1\n"
    );
    assert!(!s.root.join("sub/.env").exists(), "{}", run.stderr);
    // The file tools too.
    let write = format!(
        r#"{{"session_id":"attack","cwd":"{root}","hook_event_name":"PreToolUse","permission_mode":"bypassPermissions","tool_name":"Write","tool_input":{{"file_path":"{root}/.env","content":"BASH_ENV=/tmp/x"}}}}"#,
        root = s.root.display()
    );
    let reply = s.agentctx_with_input(&s.root, &["hook", "--agent", "claude"], &write);
    let reply: serde_json::Value = serde_json::from_str(&reply.stdout).unwrap();
    assert_eq!(
        reply["hookSpecificOutput"]["permissionDecision"], "deny",
        "{reply}"
    );
}
