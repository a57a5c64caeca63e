//! The rules held by the kernel in the real Codex: its shell commands
//! (`exec_command`, `Bash` in its hooks) run in agentctx's sandbox, with
//! Codex's own sandbox off and on. Run with `scripts/e2e` (bubblewrap).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::json;

const SECRET: &str = "SECRET-KEY-CONTENT";

fn exec(cmd: &str) -> Vec<Block> {
    vec![Block::tool("exec_command", json!({"cmd": cmd}))]
}

fn session(own_sandbox: bool) {
    let marker = format!("E2E-CODEX:sandbox-{own_sandbox}");
    let mock = MockApi::start(Script::new().conversation(
        &marker,
        vec![
            exec("cat README.md"),
            exec("grep -r KEY-CONTENT . ; echo GREP-DONE"),
            exec("python3 -c \"print(open('secrets/key.txt').read())\" ; echo PY-DONE"),
            exec("cat secrets/key.txt"),
            exec("echo 'file_patterns: {}' >> .coding-agent-rules.yaml"),
            exec(
                "python3 -c \"open('.coding-agent-rules.yaml','a').write('x')\" ; echo WRITE-DONE",
            ),
            exec("mkdir -p build && echo artifact > build/out.txt && cat build/out.txt"),
            vec![Block::text("CODEX-SANDBOX-DONE")],
        ],
    ));
    let s = Sandbox::new();
    s.write("README.md", "README-BODY\n");
    s.write("secrets/key.txt", &format!("{SECRET}\n"));
    s.write(
        ".coding-agent-rules.yaml",
        "strict: true\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.commit();
    s.codex_config(mock.base_url(), "");
    let run = s.install("codex", &["--trust"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let rules = std::fs::read_to_string(s.root.join(".coding-agent-rules.yaml")).unwrap();
    let run = s.codex_with(&s.root, &format!("{marker} go"), &[], own_sandbox);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = mock.conversation(&marker);
    let all: String = requests.iter().map(text_of_request).collect();
    let log =
        std::fs::read_to_string(s.home.join(".local/state/agentctx/hook.log")).unwrap_or_default();
    assert!(
        !all.contains(SECRET),
        "own sandbox {own_sandbox}: the secret reached the model\n{log}"
    );
    let tail: String = all
        .chars()
        .rev()
        .take(4000)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    assert!(
        all.contains("README-BODY"),
        "own sandbox {own_sandbox}:\n{tail}\n{log}"
    );
    assert!(all.contains("GREP-DONE") && all.contains("PY-DONE") && all.contains("WRITE-DONE"));
    assert!(all.contains("artifact"), "writes inside the project happen");
    assert_eq!(
        std::fs::read_to_string(s.root.join(".coding-agent-rules.yaml")).unwrap(),
        rules,
        "own sandbox {own_sandbox}"
    );
}

#[test]
#[ignore = "needs the real Codex and bubblewrap: scripts/e2e"]
fn codex_shell_commands_run_where_the_kernel_refuses_excluded_and_protected_paths() {
    session(false);
}

#[test]
#[ignore = "needs the real Codex and bubblewrap: scripts/e2e"]
fn inside_codexs_own_sandbox_too() {
    session(true);
}
