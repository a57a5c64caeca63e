//! The real Claude Code (the version `scripts/e2e` installs) with agentctx
//! installed, against the mock model API. Each test asserts on what the
//! model was sent (the mock's recorded requests) and on the disk.
//!
//! Run with `scripts/e2e`; in `cargo test --workspace` these are ignored
//! because they need the agent.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::PathBuf;

use agentctx_e2e::{Block, MockApi, Sandbox, Script, agentctx_bin, e2e_bin, text_of_request};
use serde_json::{Value, json};

/// The project every test starts from: a root and two nested AGENTS.md, a
/// rule file, a secret, a custom sub-agent, agentctx installed (project
/// scope), and a recorder of every hook payload in the user settings.
fn project() -> Sandbox {
    let s = Sandbox::new();
    s.write("AGENTS.md", "ROOT-AGENTS-BODY: keep diffs small.\n");
    s.write(
        "packages/api/AGENTS.md",
        "API-AGENTS-BODY: validate input.\n",
    );
    s.write("packages/api/src/server.ts", "export const server = 1;\n");
    s.write(
        "packages/web/AGENTS.md",
        "WEB-AGENTS-BODY: no inline styles.\n",
    );
    s.write("packages/web/src/app.tsx", "x\n");
    s.write("secrets/key.txt", "SECRET-KEY-CONTENT\n");
    s.write(
        ".coding-agent-rules.yaml",
        "system_prompt_extension: \"RULES-EXTENSION: answer briefly.\"\ndenied_tools: [github/delete_file]\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.write(
        ".claude/agents/researcher.md",
        "---\nname: researcher\ndescription: Researches the code base.\ntools: Read, Edit, Write\n---\nYou research.\n",
    );
    s.commit();
    let run = s.install("claude", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    s.record_claude_hooks(&[]);
    s
}

/// The MCP config that gives the session the stand-in `github` server.
fn mcp_config(s: &Sandbox) -> PathBuf {
    let path = s.path().join("mcp.json");
    let config = json!({"mcpServers": {"github": {
        "command": e2e_bin("e2e-mcp-github"),
        "env": {"E2E_MCP_MARKERS": s.path().join("mcp-called")},
    }}});
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// The tool result the model got for the tool call it made at `turn`
/// (the request of turn+1 ends with it).
fn tool_result(requests: &[Value], turn: usize) -> String {
    let request = &requests[turn + 1];
    let messages = request["messages"].as_array().unwrap();
    let assistant_at = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m["role"] == "assistant")
        .map(|(i, _)| i)
        .nth(turn)
        .unwrap();
    agentctx_e2e::tool_results_text(&messages[assistant_at + 1..])
}

/// The text the model got after the tool call of `turn` (tool result and
/// the system messages Claude Code adds after it).
fn after_turn(requests: &[Value], turn: usize) -> String {
    let request = &requests[turn + 1];
    let messages = request["messages"].as_array().unwrap();
    let assistant_at = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m["role"] == "assistant")
        .map(|(i, _)| i)
        .nth(turn)
        .unwrap();
    let rest = json!({"messages": messages[assistant_at + 1..].to_vec()});
    text_of_request(&rest)
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn claude_tour_context_reminders_denials_subagents_and_captures() {
    let s = project();
    let root = s.root.display().to_string();
    let outside = s.path().join("outside.txt");
    std::fs::write(&outside, "OUTSIDE-CONTENT\n").unwrap();
    let memory_dir = s.home.join(".claude/projects/memory-note");
    let main = vec![
        vec![Block::tool(
            "Read",
            json!({"file_path": format!("{root}/packages/api/src/server.ts")}),
        )],
        vec![Block::tool(
            "Edit",
            json!({"file_path": format!("{root}/packages/web/src/app.tsx"), "old_string": "x", "new_string": "y"}),
        )],
        vec![Block::tool(
            "Edit",
            json!({"file_path": format!("{root}/packages/web/src/app.tsx"), "old_string": "y", "new_string": "z"}),
        )],
        vec![Block::tool(
            "Write",
            json!({"file_path": format!("{root}/secrets/leak.txt"), "content": "leak"}),
        )],
        vec![Block::tool(
            "mcp__github__delete_file",
            json!({"owner": "acme", "repo": "app", "path": "README.md", "message": "rm"}),
        )],
        vec![Block::tool("Read", json!({"file_path": outside}))],
        vec![Block::tool(
            "Write",
            json!({"file_path": memory_dir.join("note.md"), "content": "remember"}),
        )],
        vec![Block::tool(
            "Agent",
            json!({"description": "Map API routes", "prompt": "E2E-SUB:one map the routes", "subagent_type": "researcher", "run_in_background": false}),
        )],
        vec![Block::text("MAIN-DONE")],
    ];
    let sub = vec![
        vec![Block::tool(
            "Write",
            json!({"file_path": format!("{root}/packages/web/src/new.ts"), "content": "export {};\n"}),
        )],
        vec![Block::text(
            "🎯 COMPLETED: [AGENT:researcher] mapped the API routes\n\nSUB-ONE-BODY: three routes.",
        )],
    ];
    let mock = MockApi::start(
        Script::new()
            .conversation("E2E-MAIN:tour", main)
            .conversation("E2E-SUB:one", sub),
    );
    let mcp = mcp_config(&s);
    let run = s.claude(
        mock.base_url(),
        &s.root,
        "E2E-MAIN:tour go",
        &["--mcp-config", mcp.to_str().unwrap(), "--strict-mcp-config"],
    );
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = mock.conversation("E2E-MAIN:tour");
    assert!(requests.len() >= 9, "{} main requests", requests.len());

    // Initial context: ours once, no AGENTS.md body twice, no timestamp.
    let first = text_of_request(&requests[0]);
    assert_eq!(count(&first, "RULES-EXTENSION"), 1, "{first}");
    assert_eq!(count(&first, "<project_files"), 1);
    assert_eq!(
        count(&first, "ROOT-AGENTS-BODY"),
        1,
        "Claude Code gives the root body once: {first}"
    );
    assert!(!first.contains("generated="));

    // Read under packages/api: Claude Code gives the body, agentctx adds nothing.
    let after_read = after_turn(&requests, 0);
    assert_eq!(count(&after_read, "API-AGENTS-BODY"), 1, "{after_read}");
    assert!(!after_read.contains("agents.resolve.paths"), "{after_read}");

    // Edit under packages/web: Claude Code gives nothing, agentctx the path, intact.
    let after_edit = after_turn(&requests, 1);
    assert!(
        after_edit.contains("<agentctx-reminder type=\"agents.resolve.paths\">"),
        "{after_edit}"
    );
    assert!(after_edit.contains(&format!("{root}/packages/web/AGENTS.md (mtime: ")));
    assert!(
        !after_edit.contains("&lt;"),
        "nothing escaped: {after_edit}"
    );
    assert!(
        !after_turn(&requests, 2).contains("agents.resolve.paths"),
        "once"
    );
    let last = text_of_request(requests.last().unwrap());
    assert_eq!(count(&last, "packages/web/AGENTS.md (mtime: "), 1);

    // Denials under bypassPermissions, with the reason, and nothing done.
    let denied_write = tool_result(&requests, 3);
    assert!(
        denied_write.contains("exclude pattern `secrets/`"),
        "{denied_write}"
    );
    assert!(!s.root.join("secrets/leak.txt").exists());
    let denied_mcp = tool_result(&requests, 4);
    assert!(
        denied_mcp.contains("denied_tools entry `github/delete_file`"),
        "{denied_mcp}"
    );
    assert!(!s.path().join("mcp-called/delete_file").exists());

    // Outside the root without an include list: no false denial.
    assert!(tool_result(&requests, 5).contains("OUTSIDE-CONTENT"));
    assert!(
        memory_dir.join("note.md").is_file(),
        "{}",
        tool_result(&requests, 6)
    );

    // The sub-agent: the rules' extension at its start, its own reminders.
    let sub = mock.conversation("E2E-SUB:one");
    assert!(sub.len() >= 2, "{} sub-agent requests", sub.len());
    let sub_first = text_of_request(&sub[0]);
    assert_eq!(count(&sub_first, "RULES-EXTENSION"), 1, "{sub_first}");
    let sub_after = after_turn(&sub, 0);
    assert!(
        sub_after.contains("packages/web/AGENTS.md (mtime: "),
        "the sub-agent is told too: {sub_after}"
    );
    assert!(s.root.join("packages/web/src/new.ts").is_file());

    // The capture: the sub-agent's output, with the call's description and id.
    let files = s.captures();
    assert_eq!(files.len(), 1, "{files:?}");
    let capture = std::fs::read_to_string(&files[0]).unwrap();
    assert!(capture.contains("SUB-ONE-BODY"), "{capture}");
    assert!(
        capture.contains("description: \"Map API routes\""),
        "{capture}"
    );
    assert!(capture.contains("call_id: \"toolu_e2e_"), "{capture}");
    s.record_claude_fixtures();
}

/// The context SessionStart gave, as the model read it.
fn session_start_context(request: &Value) -> String {
    let text = text_of_request(request);
    let start = text
        .find("SessionStart hook additional context: ")
        .expect("the SessionStart context reached the model");
    let end = text[start..]
        .find("</project_files>")
        .expect("the file list")
        + start;
    text[start..end].to_owned()
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn initial_context_is_byte_identical_across_sessions_and_reaches_subdirectories() {
    let s = project();
    let script =
        || Script::new().conversation("E2E-MAIN:hello", vec![vec![Block::text("HELLO-DONE")]]);
    let mock = MockApi::start(script());
    let one = s.claude(mock.base_url(), &s.root, "E2E-MAIN:hello", &[]);
    assert_eq!(one.code, Some(0), "{}", one.stderr);
    let two = s.claude(mock.base_url(), &s.root, "E2E-MAIN:hello", &[]);
    assert_eq!(two.code, Some(0), "{}", two.stderr);
    let requests = mock.conversation("E2E-MAIN:hello");
    assert_eq!(requests.len(), 2);
    let (a, b) = (
        session_start_context(&requests[0]),
        session_start_context(&requests[1]),
    );
    assert_eq!(a, b, "byte-identical across sessions");
    // A session started in a subdirectory runs the hooks too.
    let sub = MockApi::start(script());
    let run = s.claude(
        sub.base_url(),
        &s.root.join("packages/api"),
        "E2E-MAIN:hello",
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let first = text_of_request(&sub.conversation("E2E-MAIN:hello")[0]);
    assert_eq!(count(&first, "RULES-EXTENSION"), 1, "{first}");
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn when_agentctx_cannot_run_tool_calls_are_blocked_not_waved_through() {
    let s = Sandbox::new();
    s.write("AGENTS.md", "ROOT\n");
    s.commit();
    // agentctx installed from a copy that then disappears.
    let copy = s.path().join("bin/agentctx");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(agentctx_bin(), &copy).unwrap();
    let run = s.agentctx(
        &s.root,
        &["install", "claude", "--program", copy.to_str().unwrap()],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    std::fs::remove_file(&copy).unwrap();
    let target = s.root.join("written.txt");
    let mock = MockApi::start(Script::new().conversation(
        "E2E-MAIN:gone",
        vec![
            vec![Block::tool(
                "Write",
                json!({"file_path": target, "content": "x"}),
            )],
            vec![Block::text("GONE-DONE")],
        ],
    ));
    let run = s.claude(mock.base_url(), &s.root, "E2E-MAIN:gone", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!target.exists(), "the Write must not run");
    let requests = mock.conversation("E2E-MAIN:gone");
    let result = tool_result(&requests, 0);
    assert!(result.contains("cannot run"), "{result}");
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn uninstall_leaves_the_settings_as_they_were() {
    let s = Sandbox::new();
    let original = "{\n  \"permissions\":   {\"allow\": [\"Read\"]}\n}\n";
    let settings = s.write(".claude/settings.local.json", original);
    s.commit();
    assert_eq!(s.install("claude", &[]).code, Some(0));
    assert_ne!(std::fs::read_to_string(&settings).unwrap(), original);
    let mock = MockApi::start(
        Script::new().conversation("E2E-MAIN:un", vec![vec![Block::text("UN-DONE")]]),
    );
    let run = s.claude(mock.base_url(), &s.root, "E2E-MAIN:un", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        s.home.join(".local/state/agentctx/hook.log").is_file(),
        "the hooks ran"
    );
    assert_eq!(s.agentctx(&s.root, &["uninstall", "claude"]).code, Some(0));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
}

/// Not a check but a measurement (benches/claude-hooks.sh): Claude Code's
/// own timing of agentctx's hooks over a session of 40 tool calls.
#[test]
#[ignore = "a benchmark: benches/claude-hooks.sh"]
fn bench_claude_times_the_hooks() {
    let s = project();
    let root = s.root.display().to_string();
    let mut turns = Vec::new();
    for i in 0..20 {
        let dir = if i % 2 == 0 { "api" } else { "web" };
        let file = if i % 2 == 0 {
            "src/server.ts"
        } else {
            "src/app.tsx"
        };
        turns.push(vec![Block::tool(
            "Read",
            json!({"file_path": format!("{root}/packages/{dir}/{file}")}),
        )]);
        turns.push(vec![Block::tool(
            "Write",
            json!({"file_path": format!("{root}/packages/{dir}/gen{i}.ts"), "content": "x"}),
        )]);
    }
    turns.push(vec![Block::text("BENCH-DONE")]);
    let mock = MockApi::start(Script::new().conversation("E2E-MAIN:bench", turns));
    let run = s.claude(mock.base_url(), &s.root, "E2E-MAIN:bench", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let timings = s.claude_hook_timings();
    println!(
        "Claude Code's timing of agentctx hook ({}):",
        agentctx_bin().display()
    );
    for (event, mut ms) in timings {
        ms.sort_unstable();
        let median = ms[ms.len() / 2];
        println!(
            "  {event:<14} runs {:>3}  median {median:>3} ms  min {:>3} ms  max {:>3} ms",
            ms.len(),
            ms[0],
            ms[ms.len() - 1]
        );
    }
}

/// The model requests since `from` (main-loop requests carry the tools).
fn model_requests_since(mock: &MockApi, from: usize) -> Vec<Value> {
    mock.requests()
        .into_iter()
        .skip(from)
        .filter(|r| r.path.starts_with("/v1/messages") && !r.path.contains("count_tokens"))
        .map(|r| r.body)
        .collect()
}

/// The text of the main agent's last model request after request `from`
/// (the main agent's requests carry tools; internal agents' do not).
fn last_main_request_since(mock: &MockApi, from: usize) -> String {
    let requests = model_requests_since(mock, from);
    text_of_request(
        requests
            .iter()
            .rev()
            .find(|r| r["tools"].is_array())
            .expect("a request of the main agent"),
    )
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn resume_and_compact_keep_the_context_once_and_capture_no_internal_agent() {
    let s = project();
    let root = s.root.display().to_string();
    let mock = MockApi::start(Script::new().conversation(
        "E2E-MAIN:long",
        vec![
            vec![Block::tool("Edit", json!({"file_path": format!("{root}/packages/web/src/app.tsx"), "old_string": "x", "new_string": "y"}))],
            vec![Block::text("LONG-DONE")],
        ],
    ));
    let first = s.claude(mock.base_url(), &s.root, "E2E-MAIN:long", &[]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let id = first.session_id().expect("a session id");

    // Resume: the context is there once, nothing is said twice.
    let before = mock.requests().len();
    let resumed = s.claude(
        mock.base_url(),
        &s.root,
        "E2E-MAIN:resumed",
        &["--resume", &id],
    );
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    let last = last_main_request_since(&mock, before);
    assert_eq!(count(&last, "RULES-EXTENSION"), 1, "{last}");
    assert_eq!(count(&last, "packages/web/AGENTS.md (mtime: "), 1, "{last}");

    // /compact: its summary agent is internal, and the context comes back once.
    let before = mock.requests().len();
    let compact = s.claude(mock.base_url(), &s.root, "/compact", &["--resume", &id]);
    assert_eq!(compact.code, Some(0), "{}", compact.stderr);
    let after = s.claude(
        mock.base_url(),
        &s.root,
        "E2E-MAIN:after",
        &["--resume", &id],
    );
    assert_eq!(after.code, Some(0), "{}", after.stderr);
    let last = last_main_request_since(&mock, before);
    assert_eq!(count(&last, "RULES-EXTENSION"), 1, "{last}");
    assert_eq!(count(&last, "<project_files"), 1, "{last}");
    assert!(s.captures().is_empty(), "{:?}", s.captures());
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn a_changed_or_new_agents_md_is_reported_again_and_claude_md_projects_get_the_bodies() {
    let s = project();
    let root = s.root.display().to_string();
    let api = s.root.join("packages/api/AGENTS.md");
    let api_path = api.clone();
    let read = || {
        vec![Block::tool(
            "Read",
            json!({"file_path": format!("{root}/packages/api/src/server.ts")}),
        )]
    };
    let mock = MockApi::start(Script::new().conversation(
        "E2E-MAIN:change",
        vec![
            read(),
            vec![Block::tool("Bash", json!({"command": format!("printf 'API-AGENTS-BODY v2\\n' > {} && touch -d '2030-01-01' {}", api_path.display(), api_path.display()), "description": "change the file"}))],
            read(),
            vec![Block::tool("Write", json!({"file_path": format!("{root}/packages/new/AGENTS.md"), "content": "NEW-AGENTS-BODY\n"}))],
            vec![Block::tool("Write", json!({"file_path": format!("{root}/packages/new/x.ts"), "content": "x\n"}))],
            vec![Block::text("CHANGE-DONE")],
        ],
    ));
    let run = s.claude(mock.base_url(), &s.root, "E2E-MAIN:change", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let requests = mock.conversation("E2E-MAIN:change");
    assert!(!after_turn(&requests, 0).contains("agents.resolve.paths"));
    // The change is news once: after the shell command that made it (its
    // command line names the file) or after the next Read.
    let changed = format!("{}{}", after_turn(&requests, 1), after_turn(&requests, 2));
    assert_eq!(
        count(&changed, &format!("{} (mtime: ", api.display())),
        1,
        "the change is news, once: {changed}"
    );
    // A new AGENTS.md written by the agent itself: it was just given, no reminder
    // for that Write; the next file in its folder is news only if it changed since.
    let new_file = after_turn(&requests, 4);
    assert!(!new_file.contains("&lt;"), "{new_file}");

    // A project with a CLAUDE.md: Claude Code leaves AGENTS.md out, agentctx gives it.
    let c = project();
    c.write("CLAUDE.md", "CLAUDE-BODY\n");
    c.commit();
    let mock = MockApi::start(
        Script::new().conversation("E2E-MAIN:claude-md", vec![vec![Block::text("CM-DONE")]]),
    );
    let run = c.claude(mock.base_url(), &c.root, "E2E-MAIN:claude-md", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let first = text_of_request(&mock.conversation("E2E-MAIN:claude-md")[0]);
    assert_eq!(
        count(&first, "ROOT-AGENTS-BODY"),
        1,
        "agentctx gives it, once: {first}"
    );
    assert_eq!(count(&first, "CLAUDE-BODY"), 1, "{first}");

    // A CLAUDE.md that imports AGENTS.md: Claude Code brings the body in itself.
    let i = project();
    i.write("CLAUDE.md", "CLAUDE-BODY\n@AGENTS.md\n");
    i.commit();
    let mock = MockApi::start(
        Script::new().conversation("E2E-MAIN:import", vec![vec![Block::text("IM-DONE")]]),
    );
    let run = i.claude(mock.base_url(), &i.root, "E2E-MAIN:import", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let first = text_of_request(&mock.conversation("E2E-MAIN:import")[0]);
    assert_eq!(
        count(&first, "ROOT-AGENTS-BODY"),
        1,
        "once, through the import: {first}"
    );
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn replacing_the_builtin_loader_gives_the_chain_and_path_reminders_once() {
    let s = project();
    let run = s.install("claude", &["--replace-agents-md-loader"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let root = s.root.display().to_string();
    let mock = MockApi::start(Script::new().conversation(
        "E2E-MAIN:own",
        vec![
            vec![Block::tool(
                "Read",
                json!({"file_path": format!("{root}/packages/api/src/server.ts")}),
            )],
            vec![Block::text("OWN-DONE")],
        ],
    ));
    let run = s.claude(mock.base_url(), &s.root, "E2E-MAIN:own", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let requests = mock.conversation("E2E-MAIN:own");
    let first = text_of_request(&requests[0]);
    assert_eq!(count(&first, "ROOT-AGENTS-BODY"), 1, "{first}");
    assert!(
        first.contains("<agents_context scope=\"initial\">"),
        "{first}"
    );
    let after = after_turn(&requests, 0);
    assert!(!after.contains("API-AGENTS-BODY"), "no body: {after}");
    assert!(after.contains("packages/api/AGENTS.md (mtime: "), "{after}");
    // Uninstall takes the option out of the user settings again.
    assert_eq!(s.agentctx(&s.root, &["uninstall", "claude"]).code, Some(0));
    let user = std::fs::read_to_string(s.home.join(".claude/settings.json")).unwrap();
    assert!(!user.contains("instructionFiles"), "{user}");
}

/// Not a check but a measurement (benches/claude-hooks.sh): what the model
/// is sent in a session that reads one file in each of 4 packages with a
/// 2 KB AGENTS.md each, with Claude Code's loader (bodies) and with it
/// replaced by agentctx (paths), when the model does not open the files.
#[test]
#[ignore = "a benchmark: benches/claude-hooks.sh"]
fn bench_builtin_loader_against_path_reminders() {
    let body = "Use the package's own error type. ".repeat(60);
    for replace in [false, true] {
        let s = project();
        for package in ["a", "b", "c", "d"] {
            s.write(
                &format!("packages/{package}/AGENTS.md"),
                &format!("{package}: {body}\n"),
            );
            s.write(&format!("packages/{package}/src/lib.ts"), "x\n");
        }
        s.commit();
        if replace {
            let run = s.install("claude", &["--replace-agents-md-loader"]);
            assert_eq!(run.code, Some(0));
        }
        let root = s.root.display().to_string();
        let mut turns: Vec<Vec<Block>> = ["a", "b", "c", "d"]
            .iter()
            .map(|p| {
                vec![Block::tool(
                    "Read",
                    json!({"file_path": format!("{root}/packages/{p}/src/lib.ts")}),
                )]
            })
            .collect();
        turns.push(vec![Block::text("MEASURE-DONE")]);
        let mock = MockApi::start(Script::new().conversation("E2E-MAIN:measure", turns));
        let run = s.claude(mock.base_url(), &s.root, "E2E-MAIN:measure", &[]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let requests = mock.conversation("E2E-MAIN:measure");
        let first = text_of_request(&requests[0]).len();
        let last = text_of_request(requests.last().unwrap()).len();
        let sent: usize = requests.iter().map(|r| text_of_request(r).len()).sum();
        println!(
            "{:<34} first request {first:>6} B, last {last:>6} B, all {} requests {sent:>7} B",
            if replace {
                "agentctx paths (loader replaced)"
            } else {
                "Claude Code's loader (bodies)"
            },
            requests.len()
        );
    }
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn denials_hold_under_accept_edits_and_bypass_permissions() {
    let s = project();
    s.write(
        ".coding-agent-rules.yaml",
        "denied_tools: [Bash]\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.commit();
    let root = s.root.display().to_string();
    let key = format!("{root}/secrets/key.txt");
    for mode in ["acceptEdits", "bypassPermissions"] {
        let marker = format!("E2E-MAIN:deny-{mode}");
        let mock = MockApi::start(Script::new().conversation(
            &marker,
            vec![
                vec![Block::tool("Read", json!({"file_path": key}))],
                vec![Block::tool("Edit", json!({"file_path": key, "old_string": "SECRET", "new_string": "LEAKED"}))],
                vec![Block::tool("Bash", json!({"command": format!("touch {root}/bash-ran"), "description": "touch a file"}))],
                vec![Block::tool(
                    "Write",
                    json!({"file_path": format!("{root}/.coding-agent-rules.yaml"), "content": "denied_tools: []\n"}),
                )],
                vec![Block::text("DENY-DONE")],
            ],
        ));
        let run = s.claude(
            mock.base_url(),
            &s.root,
            &marker,
            &["--permission-mode", mode],
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let requests = mock.conversation(&marker);
        let read = tool_result(&requests, 0);
        assert!(
            read.contains("exclude pattern `secrets/`"),
            "{mode}: {read}"
        );
        assert!(!read.contains("SECRET-KEY-CONTENT"), "{mode}: {read}");
        let edit = tool_result(&requests, 1);
        assert!(
            edit.contains("exclude pattern `secrets/`"),
            "{mode}: {edit}"
        );
        let bash = tool_result(&requests, 2);
        assert!(bash.contains("denied_tools entry `Bash`"), "{mode}: {bash}");
        assert!(!s.root.join("bash-ran").exists(), "{mode}");
        // The agent cannot switch its rules off.
        let rewrite = tool_result(&requests, 3);
        assert!(
            rewrite.contains("may not change its own rules"),
            "{mode}: {rewrite}"
        );
        assert!(
            std::fs::read_to_string(s.root.join(".coding-agent-rules.yaml"))
                .unwrap()
                .contains("Bash")
        );
        assert_eq!(
            std::fs::read_to_string(s.root.join("secrets/key.txt")).unwrap(),
            "SECRET-KEY-CONTENT\n"
        );
    }
}

#[test]
#[ignore = "needs the real Claude Code: scripts/e2e"]
fn capture_on_stop_keeps_the_main_answer_once() {
    let s = project();
    s.write(".agentctx.yaml", "agentmem:\n  capture_on_stop: true\n");
    let mock = MockApi::start(Script::new().conversation(
        "E2E-MAIN:stop",
        vec![vec![Block::text(
            "🎯 COMPLETED: [AGENT:engineer] shipped the release\n\nMAIN-ANSWER-BODY",
        )]],
    ));
    let run = s.claude(mock.base_url(), &s.root, "E2E-MAIN:stop", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let texts = s.capture_texts();
    assert_eq!(texts.len(), 1, "{texts:#?}");
    assert!(texts[0].contains("MAIN-ANSWER-BODY"), "{texts:#?}");
}
