//! What the sandbox attack suites share: a project with secrets and rules
//! whose session has started, and `agentctx exec` run exactly as the
//! hook's rewritten command runs it, with the sandbox's first program and
//! without it (bubblewrap then makes the masks itself).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::{AgentRun, Sandbox, agentctx_bin};

/// Text every secret of an attack project holds: seen in any output, it
/// leaked.
pub const SECRET: &str = "SECRET-ATTACK-CONTENT";

/// A session `attack` started by Claude Code's hook in a project (in the
/// target folder, with a home outside the temporary folders) holding
/// `secrets/key.txt`, `sub/deep/x.pem` and `cfg/prod/db.txt` (all
/// excluded) beside `README.md`, `cfg/dev/db.txt` (readable), and a home
/// whose `~/.ssh/id_ed25519` is excluded too.
pub fn attack_project(parent: &Path) -> Sandbox {
    let s = Sandbox::new_in(parent);
    s.write("README.md", "README\n");
    s.write("secrets/key.txt", &format!("{SECRET}-KEY\n"));
    s.write("sub/deep/x.pem", &format!("{SECRET}-PEM\n"));
    s.write("cfg/prod/db.txt", &format!("{SECRET}-ANCHORED\n"));
    s.write("cfg/dev/db.txt", "dev\n");
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\", \"*.pem\", \"/cfg/prod/\", \"~/.ssh/\"]\n",
    );
    s.commit();
    let ssh = s.home.join(".ssh");
    std::fs::create_dir_all(&ssh).expect("~/.ssh");
    std::fs::write(ssh.join("id_ed25519"), format!("{SECRET}-SSH\n")).expect("a key");
    start_session(&s, "attack", "claude");
    s
}

/// Starts session `id` of `agent` in the project through the hook.
pub fn start_session(s: &Sandbox, id: &str, agent: &str) {
    start_session_in(s, id, agent, &s.root);
}

/// Starts session `id` of `agent` in `cwd` (the project or a folder of
/// it) through the hook, run from there as the agent runs it.
pub fn start_session_in(s: &Sandbox, id: &str, agent: &str, cwd: &Path) {
    let start = format!(
        r#"{{"session_id":"{id}","cwd":"{}","hook_event_name":"SessionStart","source":"startup"}}"#,
        cwd.display()
    );
    let run = s.agentctx_with_input(cwd, &["hook", "--agent", agent], &start);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

/// agentctx with its first program beside it, and alone (bubblewrap then
/// makes the masks itself).
pub fn programs(s: &Sandbox) -> Vec<PathBuf> {
    let alone = s.path().join("alone");
    std::fs::create_dir_all(&alone).expect("a folder for agentctx alone");
    std::fs::copy(agentctx_bin(), alone.join("agentctx")).expect("agentctx copied");
    vec![agentctx_bin(), alone.join("agentctx")]
}

/// `program exec --session attack --required -- COMMAND` in the project,
/// with the sandbox's HOME and `env`.
pub fn exec_with(s: &Sandbox, program: &Path, env: &[(&str, &str)], command: &str) -> AgentRun {
    exec_in(s, program, &s.root, "attack", env, command)
}

/// `program exec --session SESSION --required -- COMMAND` in `cwd`.
pub fn exec_in(
    s: &Sandbox,
    program: &Path,
    cwd: &Path,
    session: &str,
    env: &[(&str, &str)],
    command_line: &str,
) -> AgentRun {
    let mut command = Command::new(program);
    command
        .env_clear()
        .env("HOME", &s.home)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .envs(env.iter().copied())
        .args([
            "exec",
            "--session",
            session,
            "--required",
            "--",
            command_line,
        ])
        .current_dir(cwd);
    run_with_deadline(command, EXEC_DEADLINE)
}

/// How long one attack command may take: past it, the run is killed and
/// reported (status `None`, "killed after" on stderr) instead of hanging
/// the suite.
pub const EXEC_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);

/// Runs `command` with no input, its output collected, killed past
/// `deadline`.
pub fn run_with_deadline(mut command: Command, deadline: std::time::Duration) -> AgentRun {
    use std::io::Read as _;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command started");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = out.read_to_end(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = err.read_to_end(&mut text);
        text
    });
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let stdout = String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned();
    let mut stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    if status.is_none() {
        stderr.push_str(&format!("\nkilled after {deadline:?}\n"));
    }
    AgentRun {
        code: status.and_then(|s| s.code()),
        stdout,
        stderr,
    }
}

/// Whether a secret's text is in the run's output.
pub fn leaked(run: &AgentRun) -> bool {
    run.stdout.contains(SECRET) || run.stderr.contains(SECRET)
}
