//! The real Codex (the version `scripts/e2e` installs) with agentctx
//! installed, against the mock Responses API. Each test asserts on what
//! the model was sent and on the disk. Run with `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use agentctx_e2e::{Block, MockApi, Sandbox, Script, text_of_request};
use serde_json::{Value, json};

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// A project with a root and a nested AGENTS.md, rules, a secret, Codex
/// configured for the mock, the hook recorder, and agentctx installed for
/// Codex with its hooks trusted (`--trust`).
fn project(mock: &MockApi) -> Sandbox {
    let s = Sandbox::new();
    s.write("AGENTS.md", "ROOT-AGENTS-BODY: keep diffs small.\n");
    s.write(
        "packages/api/AGENTS.md",
        "API-AGENTS-BODY: validate input.\n",
    );
    s.write("packages/api/src/server.ts", "export const v = 1;\n");
    s.write("packages/web/AGENTS.md", "WEB-AGENTS-BODY\n");
    s.write("packages/web/app.ts", "export {};\n");
    s.write("secrets/key.txt", "SECRET-KEY-CONTENT\n");
    s.write(
        ".coding-agent-rules.yaml",
        "system_prompt_extension: \"RULES-EXTENSION: answer briefly.\"\ndenied_tools: [view_image]\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    s.commit();
    s.codex_config(mock.base_url(), "");
    s.record_codex_hooks();
    let run = s.install("codex", &["--trust"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    s
}

/// The output the model got for the call it made at `turn` (a
/// `function_call_output` or `custom_tool_call_output`).
fn call_output(requests: &[Value], turn: usize) -> String {
    let items = requests[turn + 1]["input"].as_array().unwrap();
    let calls: Vec<&Value> = items
        .iter()
        .filter(|i| {
            matches!(
                i["type"].as_str(),
                Some("function_call" | "custom_tool_call")
            )
        })
        .collect();
    let call_id = calls[turn]["call_id"].as_str().unwrap();
    items
        .iter()
        .filter(|i| {
            i["call_id"] == call_id && i["type"].as_str().is_some_and(|t| t.ends_with("_output"))
        })
        .map(|i| match &i["output"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// What the model got after the call of `turn`: the output and any
/// developer message Codex added with it.
fn after_call(requests: &[Value], turn: usize) -> String {
    let items = requests[turn + 1]["input"].as_array().unwrap();
    let call_at = items
        .iter()
        .enumerate()
        .filter(|(_, i)| {
            matches!(
                i["type"].as_str(),
                Some("function_call" | "custom_tool_call")
            )
        })
        .map(|(at, _)| at)
        .nth(turn)
        .unwrap();
    text_of_request(&json!({"input": items[call_at + 1..].to_vec()}))
}

#[test]
#[ignore = "needs the real Codex: scripts/e2e"]
fn codex_tour_trust_context_shell_reads_patches_and_denials() {
    let mock = MockApi::start(Script::new().conversation(
        "E2E-CODEX:tour",
        vec![
            vec![Block::tool("exec_command", json!({"cmd": "cat packages/api/src/server.ts"}))],
            vec![Block::tool("exec_command", json!({"cmd": "sed -n '1,5p' packages/api/src/server.ts"}))],
            vec![Block::tool("apply_patch", json!({"patch": "*** Begin Patch\n*** Add File: packages/web/new.ts\n+export const n = 1;\n*** End Patch\n"}))],
            vec![Block::tool("apply_patch", json!({"patch": "*** Begin Patch\n  *** Add File: secrets/leak.txt\n+leak\n*** End Patch\n"}))],
            vec![Block::tool("view_image", json!({"path": "packages/web/app.ts"}))],
            vec![Block::tool("exec_command", json!({"cmd": "cat secrets/key.txt"}))],
            vec![Block::text("🎯 COMPLETED: [AGENT:engineer] toured the project\n\nTOUR-BODY")],
        ],
    ));
    let s = project(&mock);
    let root = s.root.display().to_string();
    let run = s.codex(&s.root, "E2E-CODEX:tour go", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert!(
        !run.stderr.contains("deprecated"),
        "no warnings: {}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("Ignored unsupported"),
        "{}",
        run.stderr
    );
    let requests = mock.conversation("E2E-CODEX:tour");
    assert!(
        requests.len() >= 6,
        "{} requests: {}",
        requests.len(),
        run.stderr
    );

    // Trusted hooks ran: the initial context, once, without Codex's own AGENTS.md again.
    let first = text_of_request(&requests[0]);
    assert_eq!(
        count(&first, "RULES-EXTENSION"),
        1,
        "the SessionStart hook ran: {first}"
    );
    assert_eq!(
        count(&first, "ROOT-AGENTS-BODY"),
        1,
        "Codex loads it; agentctx does not: {first}"
    );
    assert_eq!(count(&first, "<project_files"), 1);

    // A shell read under packages/api: the nested AGENTS.md, once.
    let after_cat = after_call(&requests, 0);
    assert!(
        after_cat.contains(&format!("{root}/packages/api/AGENTS.md (mtime: ")),
        "{after_cat}"
    );
    assert!(
        !after_call(&requests, 1).contains("agents.resolve.paths"),
        "once"
    );
    // apply_patch under packages/web.
    assert!(after_call(&requests, 2).contains("packages/web/AGENTS.md (mtime: "));
    assert!(s.root.join("packages/web/new.ts").is_file());
    // apply_patch into secrets/ (an indented header, as Codex accepts it): denied.
    let denied = call_output(&requests, 3);
    assert!(denied.contains("exclude pattern `secrets/`"), "{denied}");
    assert!(!s.root.join("secrets/leak.txt").exists());
    // A denied tool.
    let image = call_output(&requests, 4);
    assert!(image.contains("denied_tools entry `view_image`"), "{image}");
    // A shell read of an excluded file (best effort in default mode).
    let cat = call_output(&requests, 5);
    assert!(cat.contains("exclude pattern `secrets/`"), "{cat}");
    assert!(!cat.contains("SECRET-KEY-CONTENT"), "{cat}");
    let last = text_of_request(requests.last().unwrap());
    assert_eq!(count(&last, "packages/api/AGENTS.md (mtime: "), 1);
    // The plain turn's answer is captured once (the Stop hook; CODEX_HOME is
    // not ~/.codex here).
    let texts = s.capture_texts();
    assert_eq!(texts.len(), 1, "{texts:#?}");
    assert!(texts[0].contains("TOUR-BODY"), "{texts:#?}");
    s.record_codex_fixtures();
}

#[test]
#[ignore = "needs the real Codex: scripts/e2e"]
fn without_the_trust_step_codex_runs_no_hook_and_install_says_so() {
    let mock = MockApi::start(Script::new().conversation(
        "E2E-CODEX:untrusted",
        vec![vec![Block::text("UNTRUSTED-DONE")]],
    ));
    let s = Sandbox::new();
    s.write("AGENTS.md", "ROOT\n");
    s.write(
        ".coding-agent-rules.yaml",
        "system_prompt_extension: \"RULES-EXTENSION\"\n",
    );
    s.commit();
    s.codex_config(mock.base_url(), "");
    let run = s.install("codex", &[]);
    assert!(run.stdout.contains("Hooks need review"), "{}", run.stdout);
    let run = s.codex(&s.root, "E2E-CODEX:untrusted", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let first = text_of_request(&mock.conversation("E2E-CODEX:untrusted")[0]);
    assert!(
        !first.contains("RULES-EXTENSION"),
        "untrusted hooks do not run: {first}"
    );
    // The trust step, then the same session start runs them.
    let run = s.install("codex", &["--trust"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let run = s.codex(&s.root, "E2E-CODEX:untrusted", &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let again = text_of_request(mock.conversation("E2E-CODEX:untrusted").last().unwrap());
    assert_eq!(count(&again, "RULES-EXTENSION"), 1, "{again}");
}

/// Appends the trust of every handler of `hooks_json` to `config` as
/// Codex 0.169.0's TUI writes it when the user picks "Trust all and
/// continue" (recorded: fixtures/agents/codex-0.169.0/tui-trust/): a blank
/// line, an empty `[hooks.state]` header, then one table per handler in
/// Codex's event order, each holding only `trusted_hash`; the file made 0600.
fn trust_as_the_tui_does(config: &std::path::Path, hooks_json: &std::path::Path) {
    // `user_prompt_submit` was not in the recording (agentctx added the
    // entry later): its place is that of Codex's event list
    // (../shared/agents/PROTOCOLS.md), which the recorded order follows.
    const ORDER: [&str; 7] = [
        "pre_tool_use",
        "post_tool_use",
        "session_start",
        "user_prompt_submit",
        "subagent_start",
        "subagent_stop",
        "stop",
    ];
    let mut entries = agentctx_install::codex_trust_entries(
        hooks_json,
        &std::fs::read_to_string(hooks_json).unwrap(),
    );
    let rank = |key: &str| {
        ORDER
            .iter()
            .position(|e| key.contains(&format!(":{e}:")))
            .unwrap()
    };
    entries.sort_by_key(|(key, _)| rank(key));
    let mut text = std::fs::read_to_string(config).unwrap();
    text.push_str("\n[hooks.state]\n");
    for (key, hash) in entries {
        text.push_str(&format!(
            "\n[hooks.state.{key:?}]\ntrusted_hash = {hash:?}\n"
        ));
    }
    std::fs::write(config, text).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(config, std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[test]
#[ignore = "needs the real Codex: scripts/e2e"]
fn uninstall_after_trusting_in_codex_tui_takes_that_trust_out() {
    let mock = MockApi::start(
        Script::new().conversation("E2E-CODEX:tui", vec![vec![Block::text("TUI-DONE")]]),
    );
    let s = Sandbox::new();
    s.write(
        ".coding-agent-rules.yaml",
        "system_prompt_extension: \"RULES-EXTENSION\"\n",
    );
    s.commit();
    s.codex_config(mock.base_url(), "");
    let config = s.codex_home().join("config.toml");
    let before = std::fs::read_to_string(&config).unwrap();
    for scope in [&[][..], &["--user"][..]] {
        // Installed without --trust, as install's advice suggests, then
        // trusted in Codex's own review screen.
        let mut args = vec!["--program"];
        let program = agentctx_e2e::agentctx_bin().display().to_string();
        args.push(&program);
        args.extend_from_slice(scope);
        let mut install = vec!["install", "codex"];
        install.extend_from_slice(&args);
        let run = s.agentctx(&s.root, &install);
        assert_eq!(run.code, Some(0), "{scope:?}: {}", run.stderr);
        let hooks_json = if scope.is_empty() {
            s.root.join(".codex/hooks.json")
        } else {
            s.codex_home().join("hooks.json")
        };
        trust_as_the_tui_does(&config, &hooks_json);
        // Trusted: the hooks run.
        let run = s.codex(&s.root, "E2E-CODEX:tui", &[]);
        assert_eq!(run.code, Some(0), "{scope:?}: {}", run.stderr);
        let last = text_of_request(mock.conversation("E2E-CODEX:tui").last().unwrap());
        assert_eq!(
            count(&last, "RULES-EXTENSION"),
            1,
            "{scope:?}: the TUI's trust works"
        );
        // Uninstall: exit 0, the hooks and their trust gone, the rest as it was.
        let mut uninstall = vec!["uninstall", "codex"];
        uninstall.extend_from_slice(scope);
        let run = s.agentctx(&s.root, &uninstall);
        assert_eq!(
            run.code,
            Some(0),
            "{scope:?}: {}\n{}",
            run.stdout,
            run.stderr
        );
        assert!(!hooks_json.exists(), "{scope:?}");
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            before,
            "{scope:?}"
        );
        let run = s.codex(&s.root, "E2E-CODEX:tui", &[]);
        assert_eq!(run.code, Some(0), "{scope:?}: {}", run.stderr);
        let last = text_of_request(mock.conversation("E2E-CODEX:tui").last().unwrap());
        assert_eq!(
            count(&last, "RULES-EXTENSION"),
            0,
            "{scope:?}: no hook runs"
        );
        assert!(!run.stderr.contains("hook"), "{scope:?}: {}", run.stderr);
    }
}

#[test]
#[ignore = "needs the real Codex: scripts/e2e"]
fn codex_uninstall_leaves_codex_home_and_the_project_as_they_were() {
    let mock = MockApi::start(Script::new());
    let s = Sandbox::new();
    s.write("README.md", "x\n");
    s.commit();
    s.codex_config(mock.base_url(), "");
    let config = s.codex_home().join("config.toml");
    let before = std::fs::read_to_string(&config).unwrap();
    for scope in [&[][..], &["--user"][..]] {
        let mut extra = vec!["--trust"];
        extra.extend_from_slice(scope);
        assert_eq!(s.install("codex", &extra).code, Some(0));
        let mut args = vec!["uninstall", "codex"];
        args.extend_from_slice(scope);
        let run = s.agentctx(&s.root, &args);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            before,
            "{scope:?}"
        );
        assert!(!s.root.join(".codex").exists(), "{scope:?}");
        assert!(!s.codex_home().join("hooks.json").exists(), "{scope:?}");
    }
}

#[test]
#[ignore = "needs the real Codex: scripts/e2e"]
fn codex_sub_agents_are_told_separately_and_each_output_is_captured_once() {
    let mock = MockApi::start(
        Script::new()
            .conversation(
                "E2E-CODEX:multi",
                vec![
                    vec![Block::tool("apply_patch", json!({"patch": "*** Begin Patch\n*** Add File: packages/api/src/main.ts\n+export const m = 1;\n*** End Patch\n"}))],
                    vec![Block::tool("tool_search", json!({"query": "spawn sub-agent", "limit": 5}))],
                    vec![Block::tool("multi_agent_v1.spawn_agent", json!({"message": "E2E-CODEX-SUB:one map the API"}))],
                    vec![Block::tool("multi_agent_v1.wait_agent", json!({"targets": ["{{SPAWNED_AGENT}}"], "timeout_ms": 30000}))],
                    vec![Block::text("🎯 COMPLETED: [AGENT:engineer] coordinated the API mapping\n\nPARENT-BODY")],
                ],
            )
            .conversation(
                "E2E-CODEX-SUB:one",
                vec![
                    vec![Block::tool("apply_patch", json!({"patch": "*** Begin Patch\n*** Add File: packages/api/src/sub.ts\n+export const s = 1;\n*** End Patch\n"}))],
                    vec![Block::text("🎯 COMPLETED: [AGENT:researcher] mapped the API routes\n\nSUB-BODY")],
                ],
            ),
    );
    let s = project(&mock);
    let run = s.codex(&s.root, "E2E-CODEX:multi go", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let main = mock.conversation("E2E-CODEX:multi");
    let sub = mock.conversation("E2E-CODEX-SUB:one");
    for (i, r) in mock.requests().iter().enumerate() {
        eprintln!("request {i} {} {:?}", r.path, r.conversation);
        if std::env::var_os("E2E_DUMP").is_some() {
            for item in r.body["input"].as_array().into_iter().flatten().skip(3) {
                eprintln!(
                    "   {}",
                    item.to_string().chars().take(300).collect::<String>()
                );
            }
        }
    }
    assert!(!sub.is_empty(), "the sub-agent ran: {}", run.stderr);
    assert!(after_call(&main, 0).contains("packages/api/AGENTS.md (mtime: "));
    // The sub-agent: the rules' extension at its start, and its own reminder.
    let sub_first = text_of_request(&sub[0]);
    assert_eq!(count(&sub_first, "RULES-EXTENSION"), 1, "{sub_first}");
    assert!(
        after_call(&sub, 0).contains("packages/api/AGENTS.md (mtime: "),
        "told again"
    );
    let files = s.captures();
    let texts: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    eprintln!("{files:#?}");
    assert_eq!(
        texts.iter().filter(|t| t.contains("SUB-BODY")).count(),
        1,
        "{texts:#?}"
    );
    assert_eq!(
        texts.iter().filter(|t| t.contains("PARENT-BODY")).count(),
        1,
        "{texts:#?}"
    );
    assert_eq!(texts.len(), 2, "{texts:#?}");
    assert!(
        !texts.iter().any(|t| t.contains("timed_out")),
        "no wait_agent JSON: {texts:#?}"
    );
    s.record_codex_fixtures();
}
