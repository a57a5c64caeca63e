//! The rules held by the kernel in the real Claude Code: shell commands
//! run in agentctx's sandbox (the hook rewrites them to `agentctx exec`),
//! so a read of an excluded file, a recursive search over the root, a
//! write to the rule file or the agents' settings fail whatever program
//! does them, while ordinary work (builds, tests, git, reading and writing
//! allowed files, `cd`) runs as before. And the session's project is fixed
//! at its start: a root marker the agent makes later does not move it.
//! Run with `scripts/e2e` (needs bubblewrap).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::{Value, json};

const SECRET: &str = "SECRET-KEY-CONTENT";

fn project(rules: &str) -> Sandbox {
    let s = Sandbox::new();
    s.write("README.md", "README-BODY\n");
    s.write("src/main.py", "print('MAIN-RAN')\n");
    s.write("secrets/key.txt", &format!("{SECRET}\n"));
    s.write("src/.env", &format!("ENV-{SECRET}\n"));
    s.write(".coding-agent-rules.yaml", rules);
    s.write(
        ".claude/agents/researcher.md",
        "---\nname: researcher\ndescription: Researches.\ntools: Read, Bash\n---\nYou research.\n",
    );
    s.commit();
    let run = s.install("claude", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    s
}

/// Every tool result the model got in `requests`, in order.
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
fn strict_mode_runs_shell_commands_where_the_kernel_refuses_excluded_and_protected_paths() {
    let s = project("strict: true\nfile_patterns:\n  exclude: [\"secrets/\", \"**/.env\"]\n");
    let rules_before = std::fs::read_to_string(s.root.join(".coding-agent-rules.yaml")).unwrap();
    let turns = vec![
        bash("cat README.md"),
        bash("grep -r KEY-CONTENT . ; echo GREP-DONE"),
        bash("python3 -c \"print(open('secrets/key.txt').read())\" ; echo PY-DONE"),
        bash("cat src/.env || echo ENV-DENIED"),
        bash("git show HEAD:secrets/key.txt || echo GIT-DENIED"),
        bash("cp -r secrets leaked 2>&1; cat leaked/key.txt 2>&1; echo CP-DONE"),
        bash("echo 'file_patterns: {}' >> .coding-agent-rules.yaml"),
        bash("sh -c 'echo disableAllHooks > .claude/settings.local.json'; echo SH-DONE"),
        bash("mv .claude .claude-off; echo MV-DONE"),
        bash("python3 src/main.py && git status --short | head -3 && echo STATUS-DONE"),
        bash("mkdir -p build && echo artifact > build/out.txt && cat build/out.txt"),
        bash("cd src && pwd"),
        bash("pwd"),
        vec![Block::text("STRICT-DONE")],
    ];
    let mock = MockApi::start(Script::new().conversation("E2E-MAIN:strict", turns));
    let run = s.claude(mock.base_url(), &s.root, "E2E-MAIN:strict go", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = mock.conversation("E2E-MAIN:strict");
    let all: String = requests.iter().map(text_of_request).collect();
    let log =
        std::fs::read_to_string(s.home.join(".local/state/agentctx/hook.log")).unwrap_or_default();
    assert!(!all.contains(SECRET), "the secret reached the model\n{log}");
    let results = tool_results(&requests);
    assert_eq!(results.len(), 13, "{results:#?}");
    assert!(results[0].contains("README-BODY"), "{}", results[0]);
    assert!(results[1].contains("GREP-DONE"), "{}", results[1]);
    assert!(
        results[2].contains("PY-DONE") && results[2].contains("Permission denied"),
        "{}",
        results[2]
    );
    assert!(
        results[3].contains("ENV-DENIED") || results[3].contains("Denied"),
        "{}",
        results[3]
    );
    assert!(
        results[4].contains("Denied") || results[4].contains("GIT-DENIED"),
        "{}",
        results[4]
    );
    assert!(
        results[5].contains("Denied") || results[5].contains("CP-DONE"),
        "{}",
        results[5]
    );
    assert!(results[6].contains("Denied"), "{}", results[6]);
    assert!(
        results[7].contains("Denied") || results[7].contains("Read-only"),
        "{}",
        results[7]
    );
    assert!(
        results[8].contains("Denied") || results[8].contains("busy"),
        "{}",
        results[8]
    );
    assert!(
        results[9].contains("MAIN-RAN") && results[9].contains("STATUS-DONE"),
        "{}",
        results[9]
    );
    assert!(results[10].contains("artifact"), "{}", results[10]);
    assert!(results[11].trim_end().ends_with("/src"), "{}", results[11]);
    assert!(
        results[12].trim_end().ends_with("/src"),
        "the folder a command moved to is kept: {}",
        results[12]
    );
    assert_eq!(
        std::fs::read_to_string(s.root.join(".coding-agent-rules.yaml")).unwrap(),
        rules_before
    );
    assert!(s.root.join(".claude/settings.local.json").is_file());
    assert!(!s.root.join(".claude-off").exists());
    assert!(
        s.root.join("build/out.txt").is_file(),
        "writes inside the project happen"
    );
}

#[test]
#[ignore = "needs the real Claude Code and bubblewrap: scripts/e2e"]
fn a_root_marker_made_mid_session_does_not_move_the_project() {
    let s = project("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let secret = s.root.join("secrets/key.txt");
    let mock = MockApi::start(
        Script::new()
            .conversation(
                "E2E-MAIN:escape",
                vec![
                    bash("mkdir -p esc && touch esc/.jj && printf 'project_agent_rules:\\n  enabled: false\\n' > esc/.agentctx.yaml; cd esc && pwd"),
                    vec![Block::tool("Read", json!({"file_path": secret}))],
                    vec![Block::tool(
                        "Agent",
                        json!({"description": "Look", "prompt": "E2E-SUB:escape read it", "subagent_type": "researcher"}),
                    )],
                    vec![Block::text("ESCAPE-DONE")],
                ],
            )
            .conversation(
                "E2E-SUB:escape",
                vec![
                    vec![Block::tool("Read", json!({"file_path": secret}))],
                    bash("cat ../secrets/key.txt; cat $(git rev-parse --show-toplevel)/secrets/key.txt; echo SUB-DONE"),
                    vec![Block::text("Done.")],
                ],
            ),
    );
    let run = s.claude(mock.base_url(), &s.root, "E2E-MAIN:escape go", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let log =
        std::fs::read_to_string(s.home.join(".local/state/agentctx/hook.log")).unwrap_or_default();
    for marker in ["E2E-MAIN:escape", "E2E-SUB:escape"] {
        let requests = mock.conversation(marker);
        assert!(!requests.is_empty(), "{marker} ran");
        let all: String = requests.iter().map(text_of_request).collect();
        assert!(
            !all.contains(SECRET),
            "{marker}: the secret reached the model\n{log}"
        );
    }
    let sub = tool_results(&mock.conversation("E2E-SUB:escape"));
    assert!(sub.iter().any(|r| r.contains("Denied")), "{sub:#?}");
}
