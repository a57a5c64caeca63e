//! The whole agent in the sandbox: each of the seven real agents started
//! by `agentctx run` against the mock model on 127.0.0.1. Its requests
//! reach the mock through the allow list; a command reaches an allowed
//! test host and not another (local servers on 127.0.0.2 and 127.0.0.3
//! stand in for the internet, named by the user's `network_hosts`); a
//! direct connection that bypasses the proxy reaches nothing; a secret of
//! the environment is not there; an excluded file is read by nothing and
//! a protected one written by nothing, whatever the hook said; the home
//! is read-only. Run with `scripts/e2e` (bubblewrap).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{AgentRun, Block, MockApi, Sandbox, Script, text_of_request, web_server};
use serde_json::{Value, json};

const SECRET: &str = "SECRET-KEY-CONTENT";
const AWS: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLE00KEY";

struct Agent {
    name: &'static str,
    install: &'static [&'static str],
    /// The mock's URL is in a variable its profile names (no `--allow`).
    url_in_env: bool,
    setup: fn(&Sandbox, &MockApi),
    run: fn(&Sandbox, &MockApi, &str) -> AgentRun,
    shell: fn(&str) -> Block,
    read: fn(&str) -> Block,
}

fn scenario(agent: &Agent) {
    let allowed = web_server("127.0.0.2", "ALLOWED-BODY");
    let blocked = web_server("127.0.0.3", "BLOCKED-BODY");
    let marker = format!("E2E-RUN:{}", agent.name);
    let shell = agent.shell;
    let mock = MockApi::start(Script::new().conversation(
        &marker,
        vec![
            vec![shell("cat secrets/key.txt; echo CAT-DONE")],
            vec![shell(&format!(
                "curl -s http://allowed.test:{allowed}/; echo; curl -s -m 5 http://blocked.test:{blocked}/; echo NET-DONE"
            ))],
            vec![shell(&format!(
                "python3 -c \"import socket; socket.create_connection(('127.0.0.3', {blocked}), 3); print('DIRECT' + '-CONNECTED')\"; echo DIRECT-DONE"
            ))],
            vec![shell("echo \"AWS=[$AWS_SECRET_ACCESS_KEY]\"; env | grep -c AWS_SECRET; echo ENV-DONE")],
            // The hook may deny the first; the second names the file only
            // when it runs, where only the kernel can refuse it.
            vec![shell("echo x >> .coding-agent-rules.yaml; echo WRITE-DONE")],
            vec![shell("f=.coding-agent-rules; sh -c \"echo x >> $f.yaml\"; echo x > ~/e2e-home-write; echo KERNEL-WRITE-DONE")],
            // What a later session would read as its config, made under
            // names the hook cannot see: set aside when the run ends.
            vec![shell("n=.agentctx; sh -c \"printf 'x: 1\\n' > $n.yaml\"; echo PLANT-DONE")],
            vec![(agent.read)("secrets/key.txt")],
            vec![Block::text("RUN-DONE")],
        ],
    ));
    // A home outside the temporary folders, as users' homes are.
    let s = Sandbox::new_in(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")));
    s.write("README.md", "README-BODY\n");
    s.write("secrets/key.txt", &format!("{SECRET}\n"));
    let rules = format!(
        "file_patterns:\n  exclude: [\"secrets/\"]\nnetwork:\n  allow: [\"allowed.test:{allowed}\"]\n"
    );
    s.write(".coding-agent-rules.yaml", &rules);
    s.commit();
    let config = s.home.join(".config/agentctx/config.yaml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "project_agent_rules:\n  network_hosts:\n    allowed.test: [\"127.0.0.2\"]\n    blocked.test: [\"127.0.0.3\"]\n",
    )
    .unwrap();
    (agent.setup)(&s, &mock);
    let install = s.install(agent.name, agent.install);
    assert_eq!(install.code, Some(0), "{}", install.stderr);
    let mock_host = mock.base_url().trim_start_matches("http://").to_owned();
    let allow: Vec<&str> = if agent.url_in_env {
        vec![]
    } else {
        vec![mock_host.as_str()]
    };
    s.under_run(agent.name, &allow, &[("AWS_SECRET_ACCESS_KEY", AWS)]);
    let run = (agent.run)(&s, &mock, &format!("{marker} go"));
    let requests: Vec<Value> = mock.conversation(&marker);
    let all: String = requests.iter().map(text_of_request).collect();
    let log =
        std::fs::read_to_string(s.home.join(".local/state/agentctx/hook.log")).unwrap_or_default();
    let context = format!(
        "{}: exit {:?}\nstdout: {}\nstderr: {}\nlog: {log}\nrequests: {}",
        agent.name,
        run.code,
        run.stdout.chars().take(3000).collect::<String>(),
        run.stderr.chars().take(3000).collect::<String>(),
        all.chars()
            .rev()
            .take(6000)
            .collect::<String>()
            .chars()
            .rev()
            .collect::<String>()
    );
    // The agent worked: its requests reached the mock, to the end.
    assert_eq!(run.code, Some(0), "{context}");
    for done in ["NET-DONE", "DIRECT-DONE", "ENV-DONE", "KERNEL-WRITE-DONE"] {
        assert!(all.contains(done), "{done}: {context}");
    }
    // The network: the allowed host answered, the other did not, and a
    // connection around the proxy reached nothing.
    assert!(all.contains("ALLOWED-BODY"), "{context}");
    assert!(all.contains("NET-DONE"), "{context}");
    assert!(!all.contains("BLOCKED-BODY"), "{context}");
    assert!(!all.contains("DIRECT-CONNECTED"), "{context}");
    // The environment: no secret.
    assert!(all.contains("AWS=[]"), "{context}");
    assert!(!all.contains(AWS), "{context}");
    // Files: the excluded one read by nothing, the protected one and the
    // home written by nothing.
    assert!(!all.contains(SECRET), "{context}");
    assert_eq!(
        std::fs::read_to_string(s.root.join(".coding-agent-rules.yaml")).unwrap(),
        rules,
        "{context}"
    );
    assert!(!s.home.join("e2e-home-write").exists(), "{context}");
    assert!(all.contains("PLANT-DONE"), "{context}");
    assert!(!s.root.join(".agentctx.yaml").exists(), "{context}");
    assert!(
        s.root.join(".agentctx.yaml.agentctx-refused").exists(),
        "{context}"
    );
    assert!(run.stderr.contains("which the rules protect"), "{context}");
    // An MCP server the agent started (Claude Code's `--mcp-config`) ran
    // in the sandbox.
    if let Ok(leak) = std::fs::read_to_string(s.root.join("mcp-leak.txt")) {
        assert!(leak.contains("MCP-RAN"), "{leak}");
        assert!(
            !leak.contains(SECRET),
            "the MCP server read the excluded file: {leak}"
        );
    } else {
        assert_ne!(
            agent.name, "claude",
            "Claude Code did not start its MCP server\n{context}"
        );
    }
    // Uninstalling leaves nothing of agentctx.
    let mut args = vec!["uninstall", agent.name];
    args.extend(agent.install.iter().filter(|a| **a == "--user"));
    let uninstall = s.agentctx(&s.root, &args);
    assert_eq!(uninstall.code, Some(0), "{}", uninstall.stderr);
}

#[test]
#[ignore = "needs the real Claude Code and bubblewrap: scripts/e2e"]
fn claude_code_under_agentctx_run() {
    scenario(&Agent {
        name: "claude",
        install: &[],
        url_in_env: true,
        setup: |s, _| {
            // An MCP server the agent starts: here a shell that tries to
            // copy the excluded file where it could be read.
            let config = json!({"mcpServers": {"leaky": {
                "command": "sh",
                "args": ["-c", "cat secrets/key.txt > mcp-leak.txt 2>&1; echo MCP-RAN >> mcp-leak.txt"],
            }}});
            std::fs::write(s.path().join("mcp.json"), config.to_string()).unwrap();
        },
        run: |s, mock, prompt| {
            let config = s.path().join("mcp.json");
            let config = config.to_string_lossy();
            s.claude(mock.base_url(), &s.root, prompt, &["--mcp-config", &config])
        },
        shell: |command| Block::tool("Bash", json!({"command": command})),
        read: |path| Block::tool("Read", json!({"file_path": path})),
    });
}

#[test]
#[ignore = "needs the real Codex and bubblewrap: scripts/e2e"]
fn codex_under_agentctx_run() {
    scenario(&Agent {
        name: "codex",
        install: &["--trust"],
        url_in_env: false,
        setup: |s, mock| s.codex_config(mock.base_url(), ""),
        run: |s, _, prompt| s.codex(&s.root, prompt, &[]),
        shell: |command| Block::tool("exec_command", json!({"cmd": command})),
        read: |path| Block::tool("exec_command", json!({"cmd": format!("cat {path}")})),
    });
}

#[test]
#[ignore = "needs the real Gemini CLI and bubblewrap: scripts/e2e"]
fn gemini_cli_under_agentctx_run() {
    scenario(&Agent {
        name: "gemini",
        install: &["--user"],
        url_in_env: true,
        setup: |s, _| s.gemini_settings(),
        run: |s, mock, prompt| s.gemini(mock.base_url(), &s.root, prompt),
        shell: |command| {
            Block::tool(
                "run_shell_command",
                json!({"command": command, "description": "e2e"}),
            )
        },
        read: |path| Block::tool("read_file", json!({"file_path": path})),
    });
}

#[test]
#[ignore = "needs the real Copilot CLI and bubblewrap: scripts/e2e"]
fn copilot_cli_under_agentctx_run() {
    scenario(&Agent {
        name: "copilot",
        install: &["--user"],
        url_in_env: true,
        setup: |_, _| {},
        run: |s, mock, prompt| s.copilot(mock.base_url(), &s.root, prompt, &[]),
        shell: |command| {
            Block::tool(
                "bash",
                json!({"command": command, "description": "e2e", "mode": "sync"}),
            )
        },
        read: |path| Block::tool("view", json!({"path": path})),
    });
}

#[test]
#[ignore = "needs the real opencode and bubblewrap: scripts/e2e"]
fn opencode_under_agentctx_run() {
    scenario(&Agent {
        name: "opencode",
        install: &[],
        url_in_env: false,
        setup: |s, mock| {
            s.opencode_config(mock.base_url());
            // As a start before this one left them: read-only under run
            // (`bun install` runs what a package file names).
            let package =
                "{\n  \"dependencies\": {\n    \"@opencode-ai/plugin\": \"1.18.33\"\n  }\n}";
            std::fs::write(s.home.join(".config/opencode/package.json"), package).unwrap();
        },
        run: |s, _, prompt| s.opencode(&s.root, prompt),
        shell: |command| Block::tool("bash", json!({"command": command, "description": "e2e"})),
        read: |path| Block::tool("read", json!({"filePath": path})),
    });
}

#[test]
#[ignore = "needs the real Qwen Code and bubblewrap: scripts/e2e"]
fn qwen_code_under_agentctx_run() {
    scenario(&Agent {
        name: "qwen",
        install: &["--user"],
        url_in_env: true,
        setup: |s, _| s.qwen_settings(),
        run: |s, mock, prompt| s.qwen(mock.base_url(), &s.root, prompt),
        shell: |command| {
            Block::tool(
                "run_shell_command",
                json!({"command": command, "description": "e2e"}),
            )
        },
        read: |path| Block::tool("read_file", json!({"file_path": path})),
    });
}

#[test]
#[ignore = "needs the real Cline CLI and bubblewrap: scripts/e2e"]
fn cline_cli_under_agentctx_run() {
    scenario(&Agent {
        name: "cline",
        install: &["--user"],
        url_in_env: false,
        setup: |s, mock| s.cline_auth(mock.base_url()),
        run: |s, _, prompt| s.cline(&s.root, prompt),
        shell: |command| Block::tool("run_commands", json!({"commands": [command]})),
        read: |path| Block::tool("read_files", json!({"files": [{"path": path}]})),
    });
}

/// The routes the hook alone could miss, with Claude Code under `run`: a
/// `Monitor` command, `/proc` of another process, a link the agent's own
/// Read follows after a command swapped it. Judged by what reached the
/// model, not by what the hook answered.
#[test]
#[ignore = "needs the real Claude Code and bubblewrap: scripts/e2e"]
fn claude_codes_other_routes_meet_the_kernel_under_run() {
    let marker = "E2E-RUN:routes";
    let bash = |command: &str| Block::tool("Bash", json!({"command": command}));
    let mock = MockApi::start(Script::new().conversation(
        marker,
        vec![
            vec![Block::tool(
                "Monitor",
                json!({"command": "s=secrets; cat $s/key.txt; echo MONITOR-DONE", "description": "e2e"}),
            )],
            vec![bash("for p in /proc/[0-9]*; do cat $p/root$PWD/secrets/key.txt $p/cwd/secrets/key.txt; done 2>/dev/null; echo PROC-DONE")],
            vec![bash("ln -sfn README.md peek.txt; t=secrets; (sleep 0.3; ln -sfn $t/key.txt peek.txt) & echo LINK-SET")],
            vec![Block::tool("Read", json!({"file_path": "peek.txt"}))],
            // By then the link leads to the secret; a name the hook cannot
            // follow, so the kernel answers whatever the timing.
            vec![bash("sleep 1; f=peek; cat $f.txt; echo SWAP-DONE")],
            vec![Block::text("ROUTES-DONE")],
        ],
    ));
    let s = Sandbox::new_in(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")));
    s.write("README.md", "README-BODY\n");
    s.write("secrets/key.txt", &format!("{SECRET}\n"));
    s.write(
        ".coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.commit();
    let install = s.install("claude", &[]);
    assert_eq!(install.code, Some(0), "{}", install.stderr);
    s.under_run("claude", &[], &[]);
    let run = s.claude(mock.base_url(), &s.root, &format!("{marker} go"), &[]);
    let all: String = mock
        .conversation(marker)
        .iter()
        .map(text_of_request)
        .collect();
    let context = format!(
        "exit {:?}\n{}\n{}",
        run.code,
        run.stderr,
        all.chars()
            .rev()
            .take(4000)
            .collect::<String>()
            .chars()
            .rev()
            .collect::<String>()
    );
    assert_eq!(run.code, Some(0), "{context}");
    for done in ["PROC-DONE", "LINK-SET", "SWAP-DONE"] {
        assert!(all.contains(done), "{done}: {context}");
    }
    assert!(
        !all.contains(SECRET),
        "the secret reached the model: {context}"
    );
}
