//! The network and the environment of `agentctx exec` under the real
//! kernel, without an agent: a session's rules recorded by its first hook,
//! then commands as the hook rewrites them. Local servers on 127.0.0.2 and
//! 127.0.0.3 stand in for the internet (the user's `network_hosts` names
//! them). Each case asserts what the command reached, not what a hook
//! said. Run with `scripts/e2e` (bubblewrap).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{AgentRun, Sandbox, web_server};

const AWS: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLE00KEY";

struct Net {
    s: Sandbox,
    allowed: u16,
    other: u16,
}

/// A session whose rule file is `rules` (`{allowed}` and `{other}` are the
/// servers' ports).
fn session(rules: &str) -> Net {
    session_with(rules, "")
}

/// [`session`] with `config` added to the user's `project_agent_rules`.
fn session_with(rules: &str, config: &str) -> Net {
    let allowed = web_server("127.0.0.2", "ALLOWED-BODY");
    let other = web_server("127.0.0.3", "OTHER-BODY");
    let s = Sandbox::new_in(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")));
    s.write("README.md", "README-BODY\n");
    let rules = rules
        .replace("{allowed}", &allowed.to_string())
        .replace("{other}", &other.to_string());
    s.write(".coding-agent-rules.yaml", &rules);
    s.commit();
    let config_file = s.home.join(".config/agentctx/config.yaml");
    std::fs::create_dir_all(config_file.parent().unwrap()).unwrap();
    std::fs::write(
        &config_file,
        format!("project_agent_rules:\n  network_hosts:\n    allowed.test: [\"127.0.0.2\"]\n    other.test: [\"127.0.0.3\"]\n{config}"),
    )
    .unwrap();
    let start = format!(
        r#"{{"session_id":"net","cwd":"{}","hook_event_name":"SessionStart","source":"startup"}}"#,
        s.root.display()
    );
    let run = s.agentctx_with_input(&s.root, &["hook", "--agent", "claude"], &start);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    Net { s, allowed, other }
}

fn exec(net: &Net, command: &str) -> AgentRun {
    net.s.agentctx_env(
        &net.s.root,
        &["exec", "--session", "net", "--", command],
        &[
            ("AWS_SECRET_ACCESS_KEY", AWS),
            ("GITHUB_TOKEN", "ghp_e2eE2Ee2eE2Ee2eE2E0123456789"),
        ],
    )
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_confined_network_reaches_only_what_the_rules_allow() {
    let net = session("network:\n  allow: [\"allowed.test:{allowed}\"]\n");
    let (allowed, other) = (net.allowed, net.other);
    let run = exec(&net, &format!("curl -s http://allowed.test:{allowed}/"));
    assert_eq!(run.stdout, "ALLOWED-BODY", "{}", run.stderr);
    for command in [
        format!("curl -s -m 5 http://other.test:{other}/"),
        format!("curl -s -m 5 http://127.0.0.3:{other}/"),
        format!("curl -s -m 5 --noproxy '*' http://127.0.0.3:{other}/"),
        format!("curl -s -m 5 -x '' http://allowed.test:{other}/"),
        format!(
            "python3 -c \"import socket; s=socket.create_connection(('127.0.0.3', {other}), 3); s.sendall(b'GET / HTTP/1.0\\r\\n\\r\\n'); print(s.recv(100))\""
        ),
        // Through the allowed host's tunnel, asking for another name.
        format!(
            "curl -s -m 5 --connect-to other.test:{other}:allowed.test:{allowed} http://other.test:{other}/"
        ),
    ] {
        let run = exec(&net, &command);
        assert!(
            !run.stdout.contains("OTHER-BODY"),
            "{command}: {}",
            run.stdout
        );
    }
    // A refusal says why, on the command's standard error (the model's).
    let run = exec(
        &net,
        &format!("curl -s -m 5 http://other.test:{other}/ >/dev/null"),
    );
    assert!(
        run.stderr.contains(&format!(
            "other.test:{other} is not in the network rules' allow list"
        )),
        "{}",
        run.stderr
    );
    // Cloud metadata, whatever the rules allow.
    let run = exec(
        &net,
        "curl -s -m 5 http://169.254.169.254/latest/meta-data/",
    );
    assert!(
        run.stdout.contains("cloud metadata address"),
        "{}",
        run.stdout
    );
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn secrets_of_the_environment_do_not_reach_a_command() {
    let net = session("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let run = exec(
        &net,
        "echo \"[$AWS_SECRET_ACCESS_KEY][$GITHUB_TOKEN]\"; env; printenv; cat /proc/self/environ",
    );
    assert!(run.stdout.starts_with("[][]"), "{}", run.stdout);
    assert!(
        !run.stdout.contains(AWS) && !run.stdout.contains("ghp_e2e"),
        "{}",
        run.stdout
    );
    // The user passes one on (for the sessions that start after).
    let net = session_with(
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
        "  pass_env: [GITHUB_TOKEN]\n",
    );
    let run = exec(&net, "echo \"[$AWS_SECRET_ACCESS_KEY][$GITHUB_TOKEN]\"");
    assert!(run.stdout.starts_with("[][ghp_e2e"), "{}", run.stdout);
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn without_a_network_section_the_network_is_the_machines() {
    // The default for existing users: a rule file without `network` keeps
    // the network as it was (docs/SECURITY.md says why).
    let net = session("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let run = exec(
        &net,
        &format!("curl -s -m 5 http://127.0.0.3:{}/", net.other),
    );
    assert_eq!(run.stdout, "OTHER-BODY", "{}", run.stderr);
    // Strict mode confines it, with nothing allowed.
    let net = session("strict: true\n");
    let run = exec(
        &net,
        &format!("curl -s -m 5 http://127.0.0.3:{}/", net.other),
    );
    assert!(!run.stdout.contains("OTHER-BODY"), "{}", run.stdout);
}

#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn exec_inside_run_is_not_a_second_sandbox() {
    let net = session("network:\n  allow: [\"allowed.test:{allowed}\"]\n");
    let agentctx = agentctx_e2e::agentctx_bin();
    let start = format!(
        r#"{{"session_id":"inner","cwd":"{}","hook_event_name":"SessionStart","source":"startup"}}"#,
        net.s.root.display()
    );
    let script = format!(
        "grep NSpid /proc/self/status; echo '{start}' | '{a}' hook --agent claude >/dev/null; '{a}' exec --session inner -- 'grep NSpid /proc/self/status; curl -s http://allowed.test:{allowed}/'",
        a = agentctx.display(),
        allowed = net.allowed,
    );
    let run = net.s.agentctx_env(
        &net.s.root,
        &["run", "--agent", "claude", "--", "bash", "-c", &script],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let depths: Vec<usize> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("NSpid:"))
        .map(|l| l.split_whitespace().count() - 1)
        .collect();
    assert_eq!(depths.len(), 2, "{}", run.stdout);
    assert_eq!(
        depths[0], depths[1],
        "a second PID namespace: {}",
        run.stdout
    );
    assert!(run.stdout.ends_with("ALLOWED-BODY"), "{}", run.stdout);
}

/// What the kernel refuses besides paths (seccomp): pushing input into
/// the terminal (which the user's shell would run after the sandbox) and
/// the kernel's key store (shared with the user's sessions outside).
#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn terminal_injection_and_the_key_store_are_refused() {
    let net = session("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let keyring = "python3 -c \"import ctypes; l=ctypes.CDLL(None, use_errno=True); r=l.syscall(248 if __import__('platform').machine()=='x86_64' else 217, b'user', b'e2e', b'v', 1, -4); print('ADD_KEY', r, ctypes.get_errno())\"";
    let run = exec(&net, keyring);
    assert!(
        run.stdout.contains("ADD_KEY -1 1"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    // With a terminal (`script` gives the command one), as an interactive
    // agent's commands have.
    let agentctx = agentctx_e2e::agentctx_bin();
    let code = "import fcntl, termios, os; fd=os.open('/dev/tty', os.O_RDWR); fcntl.ioctl(fd, termios.TIOCSTI, b'x'); print('INJECTED')";
    let inject = format!("python3 -c {}", agentctx_shell_quote(code));
    let line = format!(
        "'{}' exec --session net -- {}",
        agentctx.display(),
        agentctx_shell_quote(&inject)
    );
    let run = net.s.agentctx_env(
        &net.s.root,
        &[
            "run",
            "--agent",
            "claude",
            "--",
            "script",
            "-qfc",
            &line,
            "/dev/null",
        ],
        &[],
    );
    assert!(
        !run.stdout.contains("INJECTED"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    let direct = std::process::Command::new("script")
        .args([
            "-qfc",
            &format!("'{}' run --agent claude -- {inject}", agentctx.display()),
            "/dev/null",
        ])
        .env("HOME", &net.s.home)
        .current_dir(&net.s.root)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&direct.stdout);
    assert!(
        out.contains("Operation not permitted") && !out.contains("INJECTED"),
        "{out}"
    );
}

fn agentctx_shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// A file rule inside a folder rule (`~/.local/bin/` and
/// `~/.local/bin/moat`, `a/` and `a/b.txt`): the folder's mask covers the
/// file, and the sandbox starts (it exited 126 before).
#[test]
#[ignore = "needs bubblewrap: scripts/e2e"]
fn a_file_rule_inside_a_folder_rule_still_starts_the_sandbox() {
    let net = session(
        "file_patterns:\n  exclude: [\"~/.local/bin/\", \"~/.local/bin/moat\", \"a/\", \"a/b.txt\"]\n",
    );
    std::fs::create_dir_all(net.s.home.join(".local/bin")).unwrap();
    std::fs::write(net.s.home.join(".local/bin/moat"), "MOAT-SECRET").unwrap();
    std::fs::create_dir_all(net.s.root.join("a")).unwrap();
    std::fs::write(net.s.root.join("a/b.txt"), "B-SECRET").unwrap();
    let run = exec(&net, "cat ~/.local/bin/moat a/b.txt; echo RAN");
    assert!(run.stdout.contains("RAN"), "{}{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("SECRET"), "{}", run.stdout);
}
