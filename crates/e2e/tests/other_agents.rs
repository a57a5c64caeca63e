//! agentctx's hooks in Gemini CLI, GitHub Copilot CLI, opencode (its
//! plugin), Qwen Code and Cline CLI (its plugin): each real CLI against
//! the mock of its model API, installed with `agentctx install <agent>
//! --user` (opencode: a project install, whose plugin opencode loads from
//! the root's `.opencode/`).
//!
//! One session per agent: a read of a sibling package (an AGENTS.md the
//! agent may or may not load itself), a shell read of a folder with its own
//! AGENTS.md (which no agent loads on a shell call), a read of an excluded
//! file, a shell read of it, a denied tool (`Glob` in the rules: a
//! portable name), a command that runs (in agentctx's sandbox), a
//! sub-agent. Asserted on what the model was sent and what is on disk:
//! the initial context once and the same in every request, each denial's
//! reason seen and nothing of the secret, each AGENTS.md made known once
//! where the agent does not load it, one capture holding the sub-agent's
//! own answer, and the agent's config as it was after uninstall. The
//! hooks name agentctx by absolute path: PATH does not hold it. Run with
//! `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};

use agentctx_e2e::{AgentRun, Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::{Value, json};

/// One agent's part of the scenario.
struct Agent {
    /// `agentctx install` name.
    name: &'static str,
    /// Where the session starts, relative to the root.
    cwd: &'static str,
    /// The install's extra arguments.
    install: &'static [&'static str],
    /// The files install changes, whose bytes uninstall must restore.
    configs: fn(&Sandbox) -> Vec<PathBuf>,
    /// Writes what it needs to reach the mock (before install).
    setup: fn(&Sandbox, &MockApi),
    /// Runs it in `cwd` with a prompt.
    run: fn(&Sandbox, &MockApi, &Path, &str) -> AgentRun,
    /// Its tool calls: read a file, run a command, glob, start a sub-agent.
    read: fn(&Path) -> Block,
    shell: fn(&str) -> Block,
    /// A call of a tool the rules deny, and that tool's shared name.
    glob: Block,
    denied: &'static str,
    sub_agent: fn(&str) -> Block,
    /// The sub-agent's last turn, given its answer.
    sub_answer: fn(&str) -> Vec<Block>,
    /// Whether its context shows agentctx's tags as text (`[project_files`)
    /// because it escapes `<`.
    plain: bool,
    /// Whether it loads a sibling package's AGENTS.md after a read itself.
    loads_sibling: bool,
    /// Whether a sub-agent can be given context of its own (the rules'
    /// extension): Copilot CLI's `subagentStart`, opencode's child session.
    tells_sub_agent: bool,
    /// Whether it runs a command a hook changed, so the command runs in
    /// agentctx's sandbox (Qwen Code does not).
    sandboxed: bool,
    /// `fixtures/agents/` folder prefix and the variable `scripts/e2e`
    /// sets to the version, for `AGENTCTX_E2E_RECORD` (none: opencode,
    /// whose payloads are agentctx's plugin's).
    fixtures: Option<(&'static str, &'static str)>,
}

/// The project: a chain of AGENTS.md, a sibling package, a tools folder
/// with its own AGENTS.md, an excluded folder, rules that deny `Glob`.
fn project() -> Sandbox {
    let s = Sandbox::new();
    s.write("AGENTS.md", "ROOT-RULES-E2E\n");
    s.write("packages/AGENTS.md", "PACKAGES-RULES-E2E\n");
    s.write("packages/api/AGENTS.md", "API-RULES-E2E\n");
    s.write("packages/api/src/server.ts", "export const server = 1;\n");
    s.write("packages/web/AGENTS.md", "WEB-RULES-E2E\n");
    s.write(
        "packages/web/src/app.tsx",
        "export const app = 'WEB-APP-SOURCE';\n",
    );
    s.write("tools/AGENTS.md", "TOOLS-RULES-E2E\n");
    s.write("tools/run.sh", "echo TOOLS-RUN-SOURCE\n");
    s.write("secrets/token.txt", "SECRET-TOKEN-E2E\n");
    s.write(
        ".coding-agent-rules.yaml",
        "system_prompt_extension: RULES-EXTENSION-E2E\ndenied_tools: [Glob, Grep]\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.commit();
    s
}

/// The scenario; returns the main conversation's requests.
fn scenario(agent: &Agent) -> (Sandbox, Vec<Value>) {
    let s = project();
    let cwd = match agent.cwd {
        "" => s.root.clone(),
        relative => s.root.join(relative),
    };
    let main = format!("E2E-HOOKS:{}", agent.name);
    let sub = format!("E2E-SUB:{}", agent.name);
    let answer = format!("SUB-AGENT-ANSWER-{}", agent.name);
    // Where the agent runs a changed command, the line says whether it
    // ran in the sandbox; where it does not (Qwen Code), a line with words
    // only known at run time is denied under these rules, so it is plain.
    let tools = s.root.join("tools/run.sh").display().to_string();
    let allowed_command = if agent.sandboxed {
        format!("cat {tools}; echo \"in-sandbox:${{AGENTCTX_COMMAND:+yes}}\"")
    } else {
        format!("cat {tools}")
    };
    let mock = MockApi::start(
        Script::new()
            .conversation(
                &main,
                vec![
                    vec![(agent.read)(&s.root.join("packages/web/src/app.tsx"))],
                    vec![(agent.shell)(&allowed_command)],
                    vec![(agent.read)(&s.root.join("secrets/token.txt"))],
                    vec![(agent.shell)(&format!(
                        "cat {}",
                        s.root.join("secrets/token.txt").display()
                    ))],
                    vec![agent.glob.clone()],
                    vec![(agent.sub_agent)(&format!(
                        "{sub} Read the web app and report."
                    ))],
                    vec![Block::text("MAIN-DONE")],
                ],
            )
            .conversation(&sub, vec![(agent.sub_answer)(&answer)]),
    );
    (agent.setup)(&s, &mock);
    let configs = (agent.configs)(&s);
    let before: Vec<Option<Vec<u8>>> = configs.iter().map(|c| std::fs::read(c).ok()).collect();
    let install = s.install(agent.name, agent.install);
    assert_eq!(install.code, Some(0), "{}", install.stderr);
    let installed: Vec<Option<Vec<u8>>> = configs.iter().map(|c| std::fs::read(c).ok()).collect();
    if agent.fixtures.is_some() {
        s.record_other_hooks(&configs[0]);
    }

    let run = (agent.run)(&s, &mock, &cwd, &format!("{main} go"));
    let requests = mock.conversation(&main);
    let log =
        std::fs::read_to_string(s.home.join(".local/state/agentctx/hook.log")).unwrap_or_default();
    let context = format!(
        "{} requests\nstdout:\n{}\nstderr:\n{}\nhook.log:\n{log}",
        requests.len(),
        run.stdout,
        run.stderr
    );
    assert!(requests.len() >= 7, "{context}");
    let texts: Vec<String> = requests.iter().map(text_of_request).collect();
    let last = texts.last().unwrap();

    // The initial context: once, the same bytes in every request.
    let tag = if agent.plain {
        "[project_files"
    } else {
        "<project_files"
    };
    assert_eq!(
        texts[0].matches(tag).count(),
        1,
        "{tag}\n{}\n{context}",
        texts[0]
    );
    let close = if agent.plain {
        "[/project_files]"
    } else {
        "</project_files>"
    };
    let block = |text: &str| {
        let start = text.find(tag).expect("the file list");
        let end = start + text[start..].find(close).expect("its end");
        text[start..end].to_owned()
    };
    let first = block(&texts[0]);
    for text in &texts {
        assert_eq!(block(text), first, "the initial context changed");
    }
    assert_eq!(
        texts[0].matches("RULES-EXTENSION-E2E").count(),
        1,
        "{}",
        texts[0]
    );
    // The chain is the agent's own: each body once, never twice.
    for body in ["ROOT-RULES-E2E", "API-RULES-E2E"] {
        let count = texts[0].matches(body).count();
        assert!(count <= 1, "{body} sent {count} times\n{}", texts[0]);
    }

    // Denials: the reason reached the model, the secret did not.
    for text in &texts {
        assert!(
            !text.contains("SECRET-TOKEN-E2E"),
            "the secret was read\n{text}"
        );
    }
    let denied = format!("denied_tools entry `{}`", agent.denied);
    for expected in [
        "Denied: file `",
        "exclude pattern `secrets/`",
        denied.as_str(),
    ] {
        assert!(
            last.contains(expected),
            "{expected} not sent\n{last}\n{context}"
        );
    }
    // The allowed command ran (in the sandbox, as agentctx rewrote it,
    // where the agent takes a changed command).
    assert!(last.contains("TOOLS-RUN-SOURCE"), "{last}");
    assert_eq!(
        last.contains("in-sandbox:yes"),
        agent.sandboxed,
        "where the command ran\n{last}"
    );

    // Nested AGENTS.md: the tools folder's (a shell read: no agent follows
    // it) once; the sibling's once, from the agent or from agentctx.
    let tools = last.matches("tools/AGENTS.md").count();
    assert_eq!(tools, 1, "tools/AGENTS.md named {tools} times\n{last}");
    let web_notices = last.matches("packages/web/AGENTS.md (mtime").count();
    let web_bodies = last.matches("WEB-RULES-E2E").count();
    if agent.loads_sibling {
        assert_eq!(
            web_notices, 0,
            "agentctx repeated the agent's sibling\n{last}"
        );
    } else {
        assert_eq!(
            web_notices, 1,
            "the sibling's AGENTS.md was not made known\n{last}"
        );
    }
    assert!(web_bodies <= 1, "{last}");

    // The sub-agent: its own context, where the agent lets agentctx give it.
    let sub_requests = mock.conversation(&sub);
    assert!(!sub_requests.is_empty(), "no sub-agent request\n{context}");
    let sub_first = text_of_request(&sub_requests[0]);
    assert_eq!(
        sub_first.contains("RULES-EXTENSION-E2E"),
        agent.tells_sub_agent,
        "{sub_first}"
    );

    // One capture, holding the sub-agent's own answer.
    let captures = s.capture_texts();
    let ours: Vec<&String> = captures.iter().filter(|t| t.contains(&answer)).collect();
    assert_eq!(ours.len(), 1, "captures: {captures:#?}\n{context}");
    assert!(ours[0].contains(agent.name), "{}", ours[0]);

    if let Some((folder, variable)) = agent.fixtures
        && let Ok(version) = std::env::var(variable)
    {
        s.record_other_fixtures(&format!("{folder}-{version}"), &cwd);
    }

    // Uninstall: every file as it was, when the agent left it as install did.
    let ran: Vec<Option<Vec<u8>>> = configs.iter().map(|c| std::fs::read(c).ok()).collect();
    let mut args = vec!["uninstall", agent.name];
    args.extend(agent.install.iter().filter(|a| **a == "--user"));
    let uninstall = s.agentctx(&s.root, &args);
    assert_eq!(uninstall.code, Some(0), "{}", uninstall.stderr);
    for (i, config) in configs.iter().enumerate() {
        let now = std::fs::read(config).ok();
        if ran[i] == installed[i] {
            assert_eq!(now, before[i], "{} not restored", config.display());
        } else {
            // The agent wrote to it too (Qwen Code adds `$version`): only
            // agentctx's entries went.
            let now = String::from_utf8_lossy(now.as_deref().unwrap_or_default()).into_owned();
            assert!(!now.contains("agentctx"), "{}: {now}", config.display());
        }
    }
    (s, requests)
}

fn text_turn(answer: &str) -> Vec<Block> {
    vec![Block::text(answer)]
}

#[test]
#[ignore = "needs the real Gemini CLI: scripts/e2e"]
fn gemini_cli_under_agentctx_hooks() {
    let (s, requests) = scenario(&Agent {
        name: "gemini",
        cwd: "",
        install: &["--user"],
        configs: |s| vec![s.home.join(".gemini/settings.json")],
        setup: |s, _| s.gemini_settings(),
        run: |s, mock, cwd, prompt| s.gemini(mock.base_url(), cwd, prompt),
        read: |path| Block::tool("read_file", json!({"file_path": path})),
        shell: |command| {
            Block::tool(
                "run_shell_command",
                json!({"command": command, "description": "e2e"}),
            )
        },
        glob: Block::tool("glob", json!({"pattern": "**/*.ts"})),
        denied: "Glob",
        sub_agent: |prompt| {
            Block::tool(
                "invoke_agent",
                json!({"agent_name": "generalist", "prompt": prompt}),
            )
        },
        sub_answer: |answer| {
            vec![Block::tool(
                "complete_task",
                json!({"result": {"response": answer}}),
            )]
        },
        plain: true,
        loads_sibling: true,
        tells_sub_agent: false,
        sandboxed: true,
        fixtures: Some(("gemini-cli", "AGENTCTX_E2E_GEMINI_CLI_VERSION")),
    });
    // Gemini CLI loads AGENTS.md itself once install set context.fileName.
    let first = text_of_request(&requests[0]);
    assert!(first.contains("ROOT-RULES-E2E"), "{first}");
    assert!(
        !first.contains("&lt;project_files"),
        "escaped context\n{first}"
    );
    drop(s);
}

#[test]
#[ignore = "needs the real Copilot CLI: scripts/e2e"]
fn copilot_cli_under_agentctx_hooks() {
    scenario(&Agent {
        name: "copilot",
        cwd: "packages/api",
        install: &["--user"],
        configs: |s| vec![s.home.join(".copilot/settings.json")],
        setup: |_, _| {},
        run: |s, mock, cwd, prompt| s.copilot(mock.base_url(), cwd, prompt, &[]),
        read: |path| Block::tool("view", json!({"path": path})),
        shell: |command| {
            Block::tool(
                "bash",
                json!({"command": command, "description": "e2e", "mode": "sync"}),
            )
        },
        glob: Block::tool("glob", json!({"pattern": "**/*.ts"})),
        denied: "Glob",
        sub_agent: |prompt| {
            Block::tool(
                "task",
                json!({"description": "Read web app", "agent_type": "general-purpose", "name": "one", "prompt": prompt}),
            )
        },
        sub_answer: text_turn,
        plain: false,
        loads_sibling: true,
        tells_sub_agent: true,
        sandboxed: true,
        fixtures: Some(("copilot-cli", "AGENTCTX_E2E_COPILOT_CLI_VERSION")),
    });
}

#[test]
#[ignore = "needs the real opencode: scripts/e2e"]
fn opencode_under_agentctx_plugin() {
    scenario(&Agent {
        name: "opencode",
        cwd: "packages/api",
        install: &[],
        configs: |s| vec![s.root.join(".opencode/plugin/agentctx.js")],
        setup: |s, mock| s.opencode_config(mock.base_url()),
        run: |s, _, cwd, prompt| s.opencode(cwd, prompt),
        read: |path| Block::tool("read", json!({"filePath": path})),
        shell: |command| Block::tool("bash", json!({"command": command, "description": "e2e"})),
        glob: Block::tool("glob", json!({"pattern": "**/*.ts"})),
        denied: "Glob",
        sub_agent: |prompt| {
            Block::tool(
                "task",
                json!({"description": "Read web app", "subagent_type": "general", "prompt": prompt}),
            )
        },
        sub_answer: text_turn,
        plain: false,
        loads_sibling: false,
        tells_sub_agent: true,
        sandboxed: true,
        fixtures: None,
    });
}

#[test]
#[ignore = "needs the real Qwen Code: scripts/e2e"]
fn qwen_code_under_agentctx_hooks() {
    scenario(&Agent {
        name: "qwen",
        cwd: "packages/api",
        install: &["--user"],
        configs: |s| vec![s.home.join(".qwen/settings.json")],
        setup: |s, _| s.qwen_settings(),
        run: |s, mock, cwd, prompt| s.qwen(mock.base_url(), cwd, prompt),
        read: |path| Block::tool("read_file", json!({"file_path": path})),
        shell: |command| {
            Block::tool(
                "run_shell_command",
                json!({"command": command, "description": "e2e"}),
            )
        },
        glob: Block::tool("glob", json!({"pattern": "**/*.ts"})),
        denied: "Glob",
        sub_agent: |prompt| {
            Block::tool(
                "agent",
                json!({"description": "Read web app", "subagent_type": "general-purpose", "prompt": prompt}),
            )
        },
        sub_answer: text_turn,
        plain: true,
        loads_sibling: false,
        tells_sub_agent: false,
        sandboxed: false,
        fixtures: Some(("qwen-code", "AGENTCTX_E2E_QWEN_CODE_VERSION")),
    });
}

#[test]
#[ignore = "needs the real Cline CLI: scripts/e2e"]
fn cline_cli_under_agentctx_plugin() {
    let (s, requests) = scenario(&Agent {
        name: "cline",
        cwd: "packages/api",
        install: &["--user"],
        configs: |s| vec![s.home.join(".cline/plugins/agentctx.js")],
        setup: |s, mock| s.cline_auth(mock.base_url()),
        run: |s, _, cwd, prompt| s.cline(cwd, prompt),
        read: |path| Block::tool("read_files", json!({"files": [{"path": path}]})),
        shell: |command| Block::tool("run_commands", json!({"commands": [command]})),
        // Cline has no glob tool; its search is `Grep` to the rules.
        glob: Block::tool("search_codebase", json!({"queries": ["server"]})),
        denied: "Grep",
        sub_agent: |prompt| {
            Block::tool(
                "spawn_agent",
                json!({"systemPrompt": "You are a helper.", "task": prompt}),
            )
        },
        sub_answer: text_turn,
        plain: false,
        loads_sibling: false,
        tells_sub_agent: true,
        sandboxed: true,
        fixtures: None,
    });
    // Cline sends the cwd's AGENTS.md itself; agentctx the chain above it.
    let first = text_of_request(&requests[0]);
    for body in ["ROOT-RULES-E2E", "PACKAGES-RULES-E2E", "API-RULES-E2E"] {
        assert_eq!(first.matches(body).count(), 1, "{body}\n{first}");
    }
    drop(s);
}

/// Where each agent reads a project install from: the project's settings
/// written at the root, a session started in `packages/api`, a read of an
/// excluded file; whether agentctx's hook ran is whether it was denied.
fn project_install_runs_from(
    sub: &str,
    name: &str,
    setup: fn(&Sandbox, &MockApi),
    run: fn(&Sandbox, &MockApi, &Path, &str) -> AgentRun,
    read: fn(&Path) -> Block,
) -> bool {
    let s = project();
    let marker = format!("E2E-PROJECT:{name}");
    let mock = MockApi::start(Script::new().conversation(
        &marker,
        vec![
            vec![read(&s.root.join("secrets/token.txt"))],
            vec![Block::text("DONE")],
        ],
    ));
    setup(&s, &mock);
    let install = s.install(name, &[]);
    assert_eq!(install.code, Some(0), "{}", install.stderr);
    let cwd = if sub.is_empty() {
        s.root.clone()
    } else {
        s.root.join(sub)
    };
    let out = run(&s, &mock, &cwd, &format!("{marker} go"));
    let requests = mock.conversation(&marker);
    assert!(requests.len() >= 2, "{}\n{}", out.stdout, out.stderr);
    text_of_request(requests.last().unwrap()).contains("exclude pattern `secrets/`")
}

#[test]
#[ignore = "needs the real agents: scripts/e2e"]
fn which_project_installs_run_in_a_subdirectory() {
    // Gemini CLI, Copilot CLI and Qwen Code read a project's settings
    // from the folder a session starts in only; opencode finds the root's
    // `.opencode/` from below (measured 2026-11-26), and Cline CLI the git
    // root's `.cline/plugins` (2026-11-27).
    let gemini = project_install_runs_from(
        "packages/api",
        "gemini",
        |s, _| s.gemini_settings(),
        |s, mock, cwd, prompt| s.gemini(mock.base_url(), cwd, prompt),
        |path| Block::tool("read_file", json!({"file_path": path})),
    );
    let copilot = project_install_runs_from(
        "packages/api",
        "copilot",
        |_, _| {},
        |s, mock, cwd, prompt| s.copilot(mock.base_url(), cwd, prompt, &[]),
        |path| Block::tool("view", json!({"path": path})),
    );
    let qwen = project_install_runs_from(
        "packages/api",
        "qwen",
        |s, _| s.qwen_settings(),
        |s, mock, cwd, prompt| s.qwen(mock.base_url(), cwd, prompt),
        |path| Block::tool("read_file", json!({"file_path": path})),
    );
    let opencode = project_install_runs_from(
        "packages/api",
        "opencode",
        |s, mock| s.opencode_config(mock.base_url()),
        |s, _, cwd, prompt| s.opencode(cwd, prompt),
        |path| Block::tool("read", json!({"filePath": path})),
    );
    let cline = project_install_runs_from(
        "packages/api",
        "cline",
        |s, mock| s.cline_auth(mock.base_url()),
        |s, _, cwd, prompt| s.cline(cwd, prompt),
        |path| Block::tool("read_files", json!({"files": [{"path": path}]})),
    );
    let qwen_root = project_install_runs_from(
        "",
        "qwen",
        |s, _| s.qwen_settings(),
        |s, mock, cwd, prompt| s.qwen(mock.base_url(), cwd, prompt),
        |path| Block::tool("read_file", json!({"file_path": path})),
    );
    println!(
        "gemini {gemini} copilot {copilot} qwen {qwen} (root {qwen_root}) opencode {opencode} cline {cline}"
    );
    assert_eq!(
        (gemini, copilot, qwen, opencode, cline),
        (false, false, false, true, true)
    );
    assert!(qwen_root, "Qwen Code runs a project's hooks at its root");
}
