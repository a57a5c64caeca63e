//! Each agent's dialect on the payloads its real CLI sent (fixtures/agents/,
//! recorded 2026-11-23): denials in the shape the agent reads, context it
//! does not escape, sub-agent identity, capture, portable tool names.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use agentctx_hooks::handle_event;
use agentctx_session::Host;
use agentctx_types::Agent;
use common::Project;
use serde_json::{Value, json};

/// A recorded payload (`stdin`) with its placeholders pointing at `project`
/// (the session's folder is the root).
fn recorded(project: &Project, agent_dir: &str, name: &str) -> Value {
    let path = format!(
        "{}/../../fixtures/agents/{agent_dir}/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let text = text
        .replace("{{CWD}}", project.root.to_str().unwrap())
        .replace("{{REPO}}", project.root.to_str().unwrap())
        .replace("{{HOME}}", project.home.to_str().unwrap());
    let value: Value = serde_json::from_str(&text).unwrap();
    value.get("stdin").cloned().unwrap_or(value)
}

/// The payload agentctx's opencode plugin builds from a recorded plugin
/// call (as `install/opencode_plugin.js` does).
fn opencode_payload(project: &Project, name: &str) -> Value {
    let call = recorded(project, "opencode-1.18.33", name);
    let input = &call["input"];
    let output = &call["output"];
    let after = call["hook"] == "tool.execute.after";
    let mut payload = json!({
        "cwd": project.root,
        "session_id": input["sessionID"],
        "hook_event_name": if after { "PostToolUse" } else { "PreToolUse" },
        "tool_name": input["tool"],
        "tool_input": if after { input["args"].clone() } else { output["args"].clone() },
        "tool_use_id": input["callID"],
    });
    if after {
        payload["tool_response"] =
            json!({"output": output["output"], "metadata": output["metadata"]});
    }
    payload
}

/// Runs the hook as `agent` (with `event` when the install names it).
fn run(project: &Project, agent: Agent, event: Option<&str>, payload: &Value) -> Option<Value> {
    let env = project.env();
    let mut host = Host::new(&project.config, &env, Some(&project.root));
    host.program = None;
    handle_event(payload.to_string().as_bytes(), Some(agent), event, &host).output
}

/// What the agent does with a call after reading the reply.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// It refuses the call, with the reason.
    Denied,
    /// It runs the call (as it was, or as the reply changed it).
    Runs,
}

/// The verdict `agent` reads in `reply`, from the one field that agent
/// reads: `hookSpecificOutput.permissionDecision` for Claude Code, Codex,
/// Qwen Code and agentctx's opencode plugin (it throws on that field of
/// `hookSpecificOutput`), a top-level `decision` for Gemini CLI, a flat
/// `permissionDecision` for Copilot CLI. A key the agent does not read
/// fails the test: a denial there would be none.
fn verdict(agent: Agent, reply: Option<&Value>) -> Verdict {
    let Some(reply) = reply else {
        return Verdict::Runs;
    };
    let (top, inner, decision, reason): (&[&str], &[&str], &Value, &Value) = match agent {
        Agent::Gemini => (
            &["decision", "reason", "hookSpecificOutput"],
            &["hookEventName", "tool_input", "additionalContext"],
            &reply["decision"],
            &reply["reason"],
        ),
        Agent::Copilot => (
            &[
                "permissionDecision",
                "permissionDecisionReason",
                "modifiedArgs",
                "additionalContext",
            ],
            &[],
            &reply["permissionDecision"],
            &reply["permissionDecisionReason"],
        ),
        _ => (
            &["hookSpecificOutput"],
            &[
                "hookEventName",
                "additionalContext",
                "permissionDecision",
                "permissionDecisionReason",
                "updatedInput",
            ],
            &reply["hookSpecificOutput"]["permissionDecision"],
            &reply["hookSpecificOutput"]["permissionDecisionReason"],
        ),
    };
    let keys = |value: &Value, known: &[&str]| {
        for key in value.as_object().map(|o| o.keys()).into_iter().flatten() {
            assert!(
                known.contains(&key.as_str()),
                "{agent} does not read `{key}`: {reply}"
            );
        }
    };
    keys(reply, top);
    keys(&reply["hookSpecificOutput"], inner);
    match decision {
        Value::Null => Verdict::Runs,
        _ if decision == "allow" => Verdict::Runs,
        _ if decision == "deny" => {
            assert!(
                reason.as_str().is_some_and(|r| !r.is_empty()),
                "{agent}: a denial without its reason: {reply}"
            );
            Verdict::Denied
        }
        _ => panic!("{agent}: a decision agentctx never gives: {reply}"),
    }
}

/// The hook denies `payload` in the field `agent` reads.
fn denied(p: &Project, agent: Agent, payload: &Value) -> bool {
    verdict(agent, run(p, agent, None, payload).as_ref()) == Verdict::Denied
}

/// The hook lets `payload` run, as `agent` reads it.
fn runs(p: &Project, agent: Agent, payload: &Value) -> bool {
    verdict(agent, run(p, agent, None, payload).as_ref()) == Verdict::Runs
}

#[test]
fn a_denial_counts_only_in_the_field_the_agent_reads() {
    let claude = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "R"}});
    let gemini = json!({"decision": "deny", "reason": "R"});
    let copilot = json!({"permissionDecision": "deny", "permissionDecisionReason": "R"});
    for agent in [Agent::Claude, Agent::Codex, Agent::Qwen, Agent::Opencode] {
        assert_eq!(verdict(agent, Some(&claude)), Verdict::Denied, "{agent}");
    }
    assert_eq!(verdict(Agent::Gemini, Some(&gemini)), Verdict::Denied);
    assert_eq!(verdict(Agent::Copilot, Some(&copilot)), Verdict::Denied);
    assert_eq!(verdict(Agent::Copilot, None), Verdict::Runs);
    let context =
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "x"}});
    assert_eq!(verdict(Agent::Claude, Some(&context)), Verdict::Runs);
    // Another agent's shape is not read: the checks refuse it.
    for (agent, reply) in [
        (Agent::Gemini, &claude),
        (Agent::Copilot, &claude),
        (Agent::Claude, &gemini),
        (Agent::Qwen, &copilot),
        (Agent::Opencode, &gemini),
    ] {
        let read = std::panic::catch_unwind(|| verdict(agent, Some(reply)));
        assert!(read.is_err(), "{agent} {reply}");
    }
}

fn set(payload: &mut Value, pointer: &str, value: Value) {
    *payload.pointer_mut(pointer).unwrap() = value;
}

#[test]
fn gemini_denies_a_read_a_shell_read_and_a_denied_tool_in_its_own_shape() {
    let p = Project::new("denied_tools: [Glob]\nfile_patterns:\n  exclude: [\"secrets/\"]\n");
    let mut read = recorded(&p, "gemini-cli-0.61.0", "BeforeTool-read_file.json");
    set(
        &mut read,
        "/tool_input/file_path",
        json!(p.root.join("secrets/key")),
    );
    let reply = run(&p, Agent::Gemini, None, &read).expect("a denial");
    assert_eq!(reply["decision"], "deny", "{reply}");
    assert!(
        reply["reason"].as_str().unwrap().contains("secrets/"),
        "{reply}"
    );

    // A shell command that names its folder: its relative paths are there.
    let mut shell = recorded(&p, "gemini-cli-0.61.0", "BeforeTool-run_shell_command.json");
    set(&mut shell, "/tool_input/command", json!("cat key"));
    shell["tool_input"]["dir_path"] = json!("secrets");
    let reply = run(&p, Agent::Gemini, None, &shell).expect("a denial");
    assert_eq!(reply["decision"], "deny", "{reply}");

    // `Glob` in the rules is Gemini CLI's `glob`.
    let glob = recorded(&p, "gemini-cli-0.61.0", "BeforeTool-glob.json");
    let reply = run(&p, Agent::Gemini, None, &glob).expect("a denial");
    assert!(
        reply["reason"]
            .as_str()
            .unwrap()
            .contains("denied_tools entry `Glob`"),
        "{reply}"
    );

    // A search of the folder that holds secrets/ is a read of it.
    let grep = recorded(&p, "gemini-cli-0.61.0", "BeforeTool-grep_search.json");
    assert!(denied(&p, Agent::Gemini, &grep));
    // A read of another file runs.
    set(
        &mut read,
        "/tool_input/file_path",
        json!(p.root.join("README.md")),
    );
    assert!(runs(&p, Agent::Gemini, &read));
}

#[test]
fn an_agents_own_tool_name_in_the_rules_still_matches() {
    let p = Project::new("denied_tools: [read_file]\n");
    let read = recorded(&p, "gemini-cli-0.61.0", "BeforeTool-read_file.json");
    let reply = run(&p, Agent::Gemini, None, &read).expect("a denial");
    assert!(
        reply["reason"].as_str().unwrap().contains("`read_file`"),
        "{reply}"
    );
    // An allow list naming the agent's own name allows it.
    let p = Project::new("allowed_tools: [read_file]\n");
    let read = recorded(&p, "gemini-cli-0.61.0", "BeforeTool-read_file.json");
    assert_eq!(run(&p, Agent::Gemini, None, &read), None);
    // And the shared name allows every agent's read.
    let p = Project::new("allowed_tools: [Read]\n");
    let read = recorded(&p, "qwen-code-0.15.10", "PreToolUse-read_file.json");
    assert_eq!(run(&p, Agent::Qwen, None, &read), None);
    let write = recorded(&p, "qwen-code-0.15.10", "PreToolUse-write_file.json");
    assert!(denied(&p, Agent::Qwen, &write));
}

#[test]
fn gemini_mcp_tools_are_named_by_their_server() {
    let p = Project::new("denied_tools: [github/get_file_contents]\n");
    let call = recorded(
        &p,
        "gemini-cli-0.61.0",
        "BeforeTool-mcp_github_get_file_contents.json",
    );
    assert!(denied(&p, Agent::Gemini, &call));
    let p = Project::new("denied_tools: [github/create_issue]\n");
    let call = recorded(
        &p,
        "gemini-cli-0.61.0",
        "BeforeTool-mcp_github_get_file_contents.json",
    );
    assert!(runs(&p, Agent::Gemini, &call));
}

#[test]
fn opencode_reads_file_path_and_bash_workdir() {
    let p = Project::new("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let mut read = opencode_payload(&p, "tool.execute.before-read.json");
    set(
        &mut read,
        "/tool_input/filePath",
        json!(p.root.join("secrets/key")),
    );
    let reply = run(&p, Agent::Opencode, None, &read).expect("a denial");
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "{reply}");

    let mut bash = opencode_payload(&p, "tool.execute.before-bash.json");
    set(&mut bash, "/tool_input/command", json!("cat key"));
    bash["tool_input"]["workdir"] = json!(p.root.join("secrets"));
    assert!(denied(&p, Agent::Opencode, &bash));
    let allowed = opencode_payload(&p, "tool.execute.before-bash.json");
    assert_eq!(run(&p, Agent::Opencode, None, &allowed), None);
    set(
        &mut read,
        "/tool_input/filePath",
        json!(p.root.join("README.md")),
    );
    assert!(runs(&p, Agent::Opencode, &read));
}

#[test]
fn copilot_gets_flat_decisions_and_top_level_context() {
    let p = Project::new("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let mut read = recorded(&p, "copilot-cli-1.0.102", "PreToolUse-Read.json");
    set(
        &mut read,
        "/tool_input/path",
        json!(p.root.join("secrets/key")),
    );
    let reply = run(&p, Agent::Copilot, None, &read).expect("a denial");
    assert_eq!(reply["permissionDecision"], "deny", "{reply}");
    assert!(reply.get("hookSpecificOutput").is_none());
    set(
        &mut read,
        "/tool_input/path",
        json!(p.root.join("README.md")),
    );
    assert!(runs(&p, Agent::Copilot, &read));

    // sessionStart: the rules' extension and the file list, at top level;
    // never the AGENTS.md chain Copilot sends itself.
    p.file("AGENTS.md", "ROOT-RULES\n");
    let start = recorded(&p, "copilot-cli-1.0.102", "sessionStart.json");
    let reply = run(&p, Agent::Copilot, Some("sessionStart"), &start).expect("context");
    let text = reply["additionalContext"].as_str().unwrap();
    assert!(text.contains("<project_files"), "{text}");
    assert!(!text.contains("ROOT-RULES"), "{text}");
}

#[test]
fn a_copilot_sub_agents_calls_are_its_parents_session() {
    let p = Project::new("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let mut call = recorded(&p, "copilot-cli-1.0.102", "PreToolUse-Read.json");
    call["session_id"] = json!("sub-1");
    call["agent_id"] = json!("sub-1");
    call["parent_agent_id"] = json!("main-1");
    set(&mut call, "/tool_input/path", json!("secrets/key"));
    assert!(denied(&p, Agent::Copilot, &call));
    // The sub-agent's state sits beside its parent's session.
    let sessions = p.home.join(".local/state/agentctx/anchors");
    let names: Vec<String> = std::fs::read_dir(&sessions)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(names.iter().any(|n| n.starts_with("main-1")), "{names:?}");
}

#[test]
fn qwen_and_gemini_context_is_plain_text() {
    let p = Project::new("");
    p.file("lib/AGENTS.md", "LIB\n");
    p.file("lib/util.ts", "x\n");
    let mut post = recorded(&p, "qwen-code-0.15.10", "PostToolUse-read_file.json");
    set(
        &mut post,
        "/tool_input/file_path",
        json!(p.root.join("lib/util.ts")),
    );
    let reply = run(&p, Agent::Qwen, None, &post).expect("a reminder");
    let text = reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(text.contains("lib/AGENTS.md"), "{text}");
    assert!(!text.contains('<'), "{text}");
    assert!(text.contains("[agentctx-reminder type="), "{text}");

    let mut gemini = recorded(&p, "gemini-cli-0.61.0", "AfterTool-read_file.json");
    set(
        &mut gemini,
        "/tool_input/file_path",
        json!(p.root.join("lib/util.ts")),
    );
    let reply = run(&p, Agent::Gemini, None, &gemini).expect("a reminder");
    assert_eq!(reply["hookSpecificOutput"]["hookEventName"], "AfterTool");
    let text = reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        text.contains("lib/AGENTS.md") && !text.contains('<'),
        "{text}"
    );
}

#[test]
fn gemini_with_agents_md_in_context_file_name_gets_no_nested_body_twice() {
    let p = Project::new("");
    p.file("lib/AGENTS.md", "LIB\n");
    p.file("lib/util.ts", "x\n");
    std::fs::create_dir_all(p.home.join(".gemini")).unwrap();
    std::fs::write(
        p.home.join(".gemini/settings.json"),
        r#"{"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}"#,
    )
    .unwrap();
    let mut gemini = recorded(&p, "gemini-cli-0.61.0", "AfterTool-read_file.json");
    set(
        &mut gemini,
        "/tool_input/file_path",
        json!(p.root.join("lib/util.ts")),
    );
    assert_eq!(run(&p, Agent::Gemini, None, &gemini), None);
    // A shell read is not one Gemini CLI follows: agentctx tells.
    p.file("tools/AGENTS.md", "TOOLS\n");
    p.file("tools/run.sh", "x\n");
    let mut shell = recorded(&p, "gemini-cli-0.61.0", "AfterTool-read_file.json");
    shell["tool_name"] = json!("run_shell_command");
    shell["tool_input"] = json!({"command": "cat tools/run.sh"});
    assert!(run(&p, Agent::Gemini, None, &shell).is_some());
}

#[test]
fn opencode_leaves_out_only_what_it_loads_below_the_cwd() {
    let p = Project::new("");
    p.file("packages/api/lib/AGENTS.md", "LIB\n");
    p.file("packages/api/lib/a.ts", "x\n");
    p.file("packages/web/AGENTS.md", "WEB\n");
    p.file("packages/web/b.ts", "x\n");
    let cwd = p.root.join("packages/api");
    let mut read = opencode_payload(&p, "tool.execute.after-read.json");
    read["cwd"] = json!(cwd);
    read["tool_input"] = json!({"filePath": cwd.join("lib/a.ts")});
    assert_eq!(
        run(&p, Agent::Opencode, None, &read),
        None,
        "below the cwd: opencode's"
    );
    read["tool_input"] = json!({"filePath": p.root.join("packages/web/b.ts")});
    let reply = run(&p, Agent::Opencode, None, &read).expect("the sibling's");
    let text = reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(text.contains("packages/web/AGENTS.md"), "{text}");
}

#[test]
fn sub_agent_output_is_captured_once_per_agent() {
    for (agent, dir, name, marker) in [
        (
            Agent::Gemini,
            "gemini-cli-0.61.0",
            "AfterTool-invoke_agent.json",
            "SUB-AGENT-ANSWER-gemini",
        ),
        (
            Agent::Opencode,
            "opencode-1.18.33",
            "tool.execute.after-task.json",
            "SUBAGENT-ONE-BODY",
        ),
        (
            Agent::Copilot,
            "copilot-cli-1.0.102",
            "SubagentStop.json",
            "SUB-AGENT-ANSWER-copilot",
        ),
        (Agent::Qwen, "qwen-code-0.15.10", "SubagentStop.json", ""),
    ] {
        let p = Project::new("");
        let payload = if agent == Agent::Opencode {
            opencode_payload(&p, name)
        } else {
            recorded(&p, dir, name)
        };
        run(&p, agent, None, &payload);
        run(&p, agent, None, &payload);
        let memory = p.home.join(".agent-kit/MEMORY");
        let files: Vec<_> = common::walk(&memory)
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "md"))
            .collect();
        assert_eq!(files.len(), 1, "{agent}: {files:?}");
        let text = std::fs::read_to_string(&files[0]).unwrap();
        assert!(text.contains(marker), "{agent}: {text}");
        assert!(!text.contains("Termination Reason"), "{agent}: {text}");
        assert!(text.contains(agent.as_str()), "{agent}: {text}");
    }
    // The PostToolUse of Copilot's and Qwen Code's sub-agent tool leaves
    // it to their SubagentStop.
    let p = Project::new("");
    run(
        &p,
        Agent::Qwen,
        None,
        &recorded(&p, "qwen-code-0.15.10", "PostToolUse-agent.json"),
    );
    run(
        &p,
        Agent::Copilot,
        None,
        &recorded(&p, "copilot-cli-1.0.102", "PostToolUse-Agent.json"),
    );
    assert!(
        common::walk(&p.home.join(".agent-kit/MEMORY"))
            .iter()
            .all(|f| f.extension().is_none_or(|e| e != "md"))
    );
}

#[test]
fn qwen_s_first_prompt_gives_the_initial_context_when_session_start_did_not_fire() {
    let p = Project::new("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let prompt = recorded(&p, "qwen-code-0.15.10", "UserPromptSubmit.json");
    let reply = run(&p, Agent::Qwen, None, &prompt).expect("the initial context");
    let out = &reply["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "UserPromptSubmit");
    let text = out["additionalContext"].as_str().unwrap();
    assert!(text.contains("[project_files"), "{text}");
    // Once.
    assert_eq!(run(&p, Agent::Qwen, None, &prompt), None);
}

// What an attack pass on the dialects found (2026-11-26), one test each:
// every call here was allowed before its fix.

fn call(p: &Project, tool: &str, input: Value) -> Value {
    json!({
        "session_id": "attack", "cwd": p.root, "hook_event_name": "PreToolUse",
        "tool_name": tool, "tool_input": input,
    })
}

fn gemini_call(p: &Project, tool: &str, input: Value) -> Value {
    let mut payload = call(p, tool, input);
    payload["hook_event_name"] = json!("BeforeTool");
    payload
}

const EXCLUDE: &str = "file_patterns:\n  exclude: [\"secrets/\"]\n";

#[test]
fn opencode_apply_patch_is_read_as_a_patch() {
    let p = Project::new(EXCLUDE);
    let patch = "*** Begin Patch\n*** Update File: secrets/key\n@@\n-SECRET\n+X\n*** End Patch";
    let payload = call(&p, "apply_patch", json!({"patchText": patch}));
    assert!(denied(&p, Agent::Opencode, &payload));
    let plugin = "*** Begin Patch\n*** Add File: .opencode/plugin/evil.js\n+x\n*** End Patch";
    let payload = call(&p, "apply_patch", json!({"patchText": plugin}));
    assert!(denied(&p, Agent::Opencode, &payload));
    let source = "*** Begin Patch\n*** Update File: src/main.rs\n@@\n-fn main() {}\n+fn main() {  }\n*** End Patch";
    let payload = call(&p, "apply_patch", json!({"patchText": source}));
    assert!(runs(&p, Agent::Opencode, &payload));
}

#[test]
fn gemini_paths_are_judged_as_gemini_opens_them() {
    let p = Project::new(EXCLUDE);
    for (tool, input) in [
        ("read_file", json!({"file_path": "@secrets/key"})),
        ("read_file", json!({"file_path": "%73ecrets/key"})),
        (
            "write_file",
            json!({"file_path": "@.gemini/settings.json", "content": "{}"}),
        ),
        (
            "write_file",
            json!({"file_path": "%2egemini/settings.json", "content": "{}"}),
        ),
        (
            "grep_search",
            json!({"pattern": "x", "dir_path": "%73ecrets"}),
        ),
        // `replace` would look for `key` elsewhere: secrets/key.
        (
            "replace",
            json!({"file_path": "key", "old_string": "a", "new_string": "b"}),
        ),
        ("read_file", json!({"file_path": "~/../secrets/key"})),
    ] {
        let payload = gemini_call(&p, tool, input.clone());
        assert!(denied(&p, Agent::Gemini, &payload), "{tool} {input}");
    }
    // An existing relative file is judged as itself.
    let payload = gemini_call(
        &p,
        "replace",
        json!({"file_path": "README.md", "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(run(&p, Agent::Gemini, None, &payload), None);
    for path in ["@README.md", "%73rc/main.rs", "~/../src/main.rs"] {
        let payload = gemini_call(&p, "read_file", json!({"file_path": path}));
        assert!(runs(&p, Agent::Gemini, &payload), "{path}");
    }
}

#[test]
fn a_tilde_folder_is_a_folder_to_opencode() {
    let p = Project::new(EXCLUDE);
    let payload = call(
        &p,
        "bash",
        json!({"command": "cat key", "workdir": "~/../secrets"}),
    );
    assert!(denied(&p, Agent::Opencode, &payload));
    let payload = call(&p, "read", json!({"filePath": "~/../secrets/key"}));
    assert!(denied(&p, Agent::Opencode, &payload));
    let payload = call(&p, "read", json!({"filePath": "~/../README.md"}));
    assert!(runs(&p, Agent::Opencode, &payload));
}

#[test]
fn every_copilot_search_path_is_judged() {
    let p = Project::new(EXCLUDE);
    let payload = call(
        &p,
        "Grep",
        json!({"pattern": "SECRET", "paths": ["secrets"], "path": "src"}),
    );
    assert!(denied(&p, Agent::Copilot, &payload));
    let payload = call(
        &p,
        "Grep",
        json!({"pattern": "SECRET", "paths": ["src", "secrets"], "files": []}),
    );
    assert!(denied(&p, Agent::Copilot, &payload));
    let payload = call(
        &p,
        "Grep",
        json!({"pattern": "SECRET", "paths": ["src"], "path": "src"}),
    );
    assert!(runs(&p, Agent::Copilot, &payload));
}

#[test]
fn an_mcp_server_name_holding_the_separator_still_matches_its_rule() {
    let p = Project::new("denied_tools: [\"my-server/*\", \"my_fs/*\"]\n");
    let payload = call(&p, "my-server-delete_file", json!({"path": "README.md"}));
    assert!(denied(&p, Agent::Copilot, &payload));
    let payload = call(&p, "my_fs_write_file", json!({"path": "README.md"}));
    assert!(denied(&p, Agent::Opencode, &payload));
    let payload = call(&p, "other-server-delete_file", json!({"path": "README.md"}));
    assert!(runs(&p, Agent::Copilot, &payload));
    let payload = call(&p, "other_fs_write_file", json!({"path": "README.md"}));
    assert!(runs(&p, Agent::Opencode, &payload));
}

#[test]
fn an_unreadable_gemini_tool_call_is_denied() {
    let p = Project::new(EXCLUDE);
    let deep = format!("{}{}", "[".repeat(1_100), "]".repeat(1_100));
    let raw = format!(
        r#"{{"session_id":"s","cwd":"{}","hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{{"file_path":"secrets/key","x":{deep}}}}}"#,
        p.root.display()
    );
    let env = p.env();
    let host = Host::new(&p.config, &env, Some(&p.root));
    let outcome = handle_event(raw.as_bytes(), Some(Agent::Gemini), None, &host);
    assert_eq!(
        verdict(Agent::Gemini, outcome.output.as_ref()),
        Verdict::Denied,
        "{:?}",
        outcome.notes
    );
    // The same call, readable and of another file, runs.
    let raw = raw
        .replace("secrets/key", "README.md")
        .replace(&deep, "[[]]");
    let outcome = handle_event(raw.as_bytes(), Some(Agent::Gemini), None, &host);
    assert_eq!(
        verdict(Agent::Gemini, outcome.output.as_ref()),
        Verdict::Runs,
        "{:?}",
        outcome.notes
    );
}

#[test]
fn the_agents_config_folders_are_protected_anywhere() {
    let p = Project::new(EXCLUDE);
    for path in [
        "opencode.json",
        "sub/opencode.jsonc",
        "sub/.github/hooks/x.json",
        // Cline CLI runs these at its next session (docs/integrations/cline-cli.md).
        ".clinerules/hooks/PreToolUse",
        ".cline/plugins/x.js",
        "sub/.clinerules/r.md",
        // Another spelling: a case-insensitive file system opens it as is.
        ".CLINERULES/hooks/PreToolUse",
        "./sub/../.cline/hooks/TaskStart",
    ] {
        let payload = call(&p, "write", json!({"filePath": path, "content": "{}"}));
        assert!(denied(&p, Agent::Opencode, &payload), "{path}");
    }
    let extension = p.home.join(".gemini/extensions/x/hooks/hooks.json");
    let payload = gemini_call(
        &p,
        "write_file",
        json!({"file_path": extension, "content": "{}"}),
    );
    assert!(denied(&p, Agent::Gemini, &payload));
    let payload = gemini_call(
        &p,
        "write_file",
        json!({"file_path": "sub/hooks/x.json", "content": "{}"}),
    );
    assert!(runs(&p, Agent::Gemini, &payload));
    // A workflow file is the project's own.
    let payload = call(
        &p,
        "write",
        json!({"filePath": ".github/workflows/ci.yml", "content": "x"}),
    );
    assert_eq!(run(&p, Agent::Opencode, None, &payload), None);
}

// A second pass (2026-11-26).

#[test]
fn gemini_nul_bytes_at_slashes_and_file_urls_are_judged_as_opened() {
    let p = Project::new(EXCLUDE);
    for (tool, input) in [
        ("read_file", json!({"file_path": "@\\secrets/key"})),
        ("read_file", json!({"file_path": "@/secrets/key"})),
        ("read_file", json!({"file_path": "secr\u{0}ets/key"})),
        (
            "write_file",
            json!({"file_path": ".gem\u{0}ini/settings.json", "content": "{}"}),
        ),
        (
            "read_file",
            json!({"file_path": format!("file://{}/secrets/key", p.root.display())}),
        ),
        (
            "replace",
            json!({"file_path": format!("{}/.coding-agent-rules.ya\u{0}ml", p.root.display()), "old_string": "a", "new_string": "b"}),
        ),
        // A `path` beside `dir_path` does not hide it.
        (
            "grep_search",
            json!({"pattern": "x", "dir_path": "secrets", "path": "src"}),
        ),
    ] {
        let payload = gemini_call(&p, tool, input.clone());
        assert!(denied(&p, Agent::Gemini, &payload), "{tool} {input}");
    }
    for (tool, input) in [
        ("read_file", json!({"file_path": "@/README.md"})),
        (
            "read_file",
            json!({"file_path": format!("file://{}/README.md", p.root.display())}),
        ),
        (
            "grep_search",
            json!({"pattern": "x", "dir_path": "src", "path": "src"}),
        ),
    ] {
        let payload = gemini_call(&p, tool, input.clone());
        assert!(runs(&p, Agent::Gemini, &payload), "{tool} {input}");
    }
}

#[test]
fn copilot_paths_as_one_string_is_judged() {
    let p = Project::new(EXCLUDE);
    // From a folder without secrets, the string names the one with them.
    let mut payload = call(
        &p,
        "Grep",
        json!({"pattern": "SECRET", "paths": "../secrets"}),
    );
    payload["cwd"] = json!(p.root.join("src"));
    assert!(denied(&p, Agent::Copilot, &payload));
    payload["tool_input"]["paths"] = json!("../src");
    assert!(runs(&p, Agent::Copilot, &payload));
}

#[test]
fn opencode_mcp_resource_tools_belong_to_their_server() {
    let p = Project::new("denied_tools: [\"github/*\"]\n");
    for tool in ["read_mcp_resource", "list_mcp_resources"] {
        let payload = call(
            &p,
            tool,
            json!({"server": "github", "uri": "repo://o/r/contents/x"}),
        );
        assert!(denied(&p, Agent::Opencode, &payload), "{tool}");
        let payload = call(
            &p,
            tool,
            json!({"server": "gitlab", "uri": "repo://o/r/contents/x"}),
        );
        assert!(runs(&p, Agent::Opencode, &payload), "{tool}");
    }
}

#[test]
fn asking_agentctx_about_an_excluded_file_is_not_reading_it() {
    let p = Project::new(EXCLUDE);
    for (agent, tool) in [
        (Agent::Claude, "mcp__agentctx__rules_check"),
        (Agent::Copilot, "agentctx-rules_check"),
        (Agent::Opencode, "agentctx_rules_check"),
        (Agent::Qwen, "mcp__agentctx__agents_resolve"),
    ] {
        let payload = call(
            &p,
            tool,
            json!({"path": "secrets/key", "paths": ["secrets/key"]}),
        );
        assert!(runs(&p, agent, &payload), "{agent} {tool}");
    }
    // Another tool of another server naming it is judged.
    let payload = call(&p, "mcp__fs__read_file", json!({"path": "secrets/key"}));
    assert!(denied(&p, Agent::Claude, &payload));
    let payload = call(&p, "mcp__fs__read_file", json!({"path": "README.md"}));
    assert!(runs(&p, Agent::Claude, &payload));
}

#[test]
fn a_changed_agents_md_is_news_even_where_the_agent_loads_nested_files() {
    let p = Project::new("");
    p.file("lib/AGENTS.md", "LIB\n");
    p.file("lib/util.ts", "x\n");
    let mut post = recorded(&p, "copilot-cli-1.0.102", "PostToolUse-Read.json");
    set(
        &mut post,
        "/tool_input/path",
        json!(p.root.join("lib/util.ts")),
    );
    // Copilot CLI gave the body with its view: nothing from agentctx.
    assert_eq!(run(&p, Agent::Copilot, None, &post), None);
    // Changed since: Copilot never gives it again, agentctx says so once.
    let file = p.root.join("lib/AGENTS.md");
    std::fs::write(&file, "LIB, CHANGED\n").unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let reply = run(&p, Agent::Copilot, None, &post).expect("the change");
    let text = reply["additionalContext"].as_str().unwrap();
    assert!(text.contains("lib/AGENTS.md"), "{text}");
    assert_eq!(run(&p, Agent::Copilot, None, &post), None, "once");
}

// A third pass (2026-11-26).

#[test]
fn qwen_gets_the_context_with_the_prompt_after_each_start_it_drops() {
    let p = Project::new(EXCLUDE);
    let prompt = recorded(&p, "qwen-code-0.15.10", "UserPromptSubmit.json");
    let start = |source: &str| {
        let mut start = prompt.clone();
        start["hook_event_name"] = json!("SessionStart");
        start["source"] = json!(source);
        start
    };
    let given = |p: &Project| {
        run(p, Agent::Qwen, None, &prompt).is_some_and(|r| {
            r["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .is_some_and(|t| t.contains("[project_files"))
        })
    };
    // Interactive: SessionStart fires (its answer is dropped), then the prompt.
    run(&p, Agent::Qwen, None, &start("startup"));
    assert!(given(&p), "the first prompt");
    assert!(!given(&p), "once");
    run(&p, Agent::Qwen, None, &start("compact"));
    assert!(given(&p), "after a compaction");
    run(&p, Agent::Qwen, None, &start("resume"));
    assert!(!given(&p), "a resumed conversation keeps it");
}

#[test]
fn a_resumed_opencode_task_is_captured_again() {
    let p = Project::new("");
    let mut first = opencode_payload(&p, "tool.execute.after-task.json");
    run(&p, Agent::Opencode, None, &first);
    first["tool_use_id"] = json!("call_resumed");
    first["tool_response"]["output"] = json!(
        "<task id=\"x\" state=\"completed\">\n<task_result>\nTHE SECOND RUN\n</task_result>\n</task>"
    );
    run(&p, Agent::Opencode, None, &first);
    let captures: Vec<String> = common::walk(&p.home.join(".agent-kit/MEMORY"))
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "md"))
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    assert_eq!(captures.len(), 2, "{captures:#?}");
    assert!(captures.iter().any(|c| c.contains("THE SECOND RUN")));
}

// Before stopping (2026-11-26): a careless or prompt-injected agent's moves
// through each dialect. They hold; the tests keep them held.

/// Each agent's read of `path`, in its own payload shape.
fn read_call(agent: Agent, session: &str, cwd: &std::path::Path, path: &str) -> Value {
    let (event, tool, input) = match agent {
        Agent::Gemini => ("BeforeTool", "read_file", json!({"file_path": path})),
        Agent::Copilot => ("PreToolUse", "Read", json!({"path": path})),
        Agent::Opencode => ("PreToolUse", "read", json!({"filePath": path})),
        _ => ("PreToolUse", "read_file", json!({"file_path": path})),
    };
    json!({
        "session_id": session, "cwd": cwd, "hook_event_name": event,
        "tool_name": tool, "tool_input": input,
    })
}

const OTHERS: [Agent; 4] = [Agent::Gemini, Agent::Copilot, Agent::Opencode, Agent::Qwen];

#[test]
fn a_sessions_rules_hold_when_its_cwd_moves_to_a_project_without_rules() {
    let p = Project::new(EXCLUDE);
    let elsewhere = tempfile::tempdir().unwrap();
    let other = std::fs::canonicalize(elsewhere.path()).unwrap();
    std::fs::create_dir_all(other.join(".git")).unwrap();
    std::fs::write(other.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let secret = p.root.join("secrets/key").display().to_string();
    for agent in OTHERS {
        let session = format!("moved-{agent}");
        // The session starts in the project, then its calls name another.
        let first = read_call(agent, &session, &p.root, "README.md");
        assert!(runs(&p, agent, &first), "{agent}");
        let moved = read_call(agent, &session, &other, &secret);
        assert!(denied(&p, agent, &moved), "{agent}");
        let readme = p.root.join("README.md").display().to_string();
        let moved = read_call(agent, &session, &other, &readme);
        assert!(runs(&p, agent, &moved), "{agent}");
    }
}

#[test]
fn a_sub_agent_in_another_folder_keeps_its_parents_rules() {
    let p = Project::new(EXCLUDE);
    let elsewhere = tempfile::tempdir().unwrap();
    let other = std::fs::canonicalize(elsewhere.path()).unwrap();
    let secret = p.root.join("secrets/key").display().to_string();
    let first = read_call(Agent::Copilot, "parent-1", &p.root, "README.md");
    assert_eq!(run(&p, Agent::Copilot, None, &first), None);
    // Copilot CLI: the sub-agent's own id, with its parent's.
    let mut sub = read_call(Agent::Copilot, "sub-1", &other, &secret);
    sub["agent_id"] = json!("sub-1");
    sub["parent_agent_id"] = json!("parent-1");
    assert!(denied(&p, Agent::Copilot, &sub));
    // opencode: the plugin sends a child's calls under the parent's session.
    let mut child = read_call(Agent::Opencode, "parent-1", &other, &secret);
    child["agent_id"] = json!("ses_child");
    assert!(denied(&p, Agent::Opencode, &child));
    let readme = p.root.join("README.md").display().to_string();
    let mut child = read_call(Agent::Opencode, "parent-1", &other, &readme);
    child["agent_id"] = json!("ses_child");
    assert!(runs(&p, Agent::Opencode, &child));
    sub["tool_input"]["path"] = json!(readme);
    assert!(runs(&p, Agent::Copilot, &sub));
}

#[test]
fn other_spellings_of_an_excluded_path_are_the_path_for_every_agent() {
    let p = Project::new(EXCLUDE);
    std::os::unix::fs::symlink(p.root.join("secrets"), p.root.join("link")).unwrap();
    let root = p.root.display().to_string();
    for agent in OTHERS {
        for path in [
            format!("{root}/src/../secrets/key"),
            format!("{root}/./secrets//key"),
            format!("{root}/link/key"),
        ] {
            let call = read_call(agent, &format!("spell-{agent}"), &p.root, &path);
            assert!(denied(&p, agent, &call), "{agent} {path}");
        }
        for path in [
            format!("{root}/secrets/../src/main.rs"),
            format!("{root}/.//README.md"),
        ] {
            let call = read_call(agent, &format!("spell-{agent}"), &p.root, &path);
            assert!(runs(&p, agent, &call), "{agent} {path}");
        }
    }
}

#[test]
fn every_env_file_loader_s_home_env_is_protected_when_one_loader_is_used() {
    // Gemini CLI is used here (its user folder exists), Qwen Code not yet:
    // a `~/.qwen/.env` planted now would steer Qwen Code's hooks once it
    // is installed.
    let p = Project::new(EXCLUDE);
    std::fs::create_dir_all(p.home.join(".gemini")).unwrap();
    for file in [".qwen/.env", ".gemini/.env", ".env"] {
        let path = p.home.join(file);
        let payload = call(
            &p,
            "write",
            json!({"filePath": path, "content": "BASH_ENV=/tmp/x"}),
        );
        assert!(denied(&p, Agent::Opencode, &payload), "{file}");
    }
}

#[test]
fn user_settings_moved_by_an_agents_variable_are_protected_there() {
    // GEMINI_CLI_HOME and COPILOT_HOME move the files install writes
    // agentctx's hooks into: an agent could edit them out there.
    let p = Project::new("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let moved = p.home.parent().unwrap().join("moved");
    let gemini = moved.join("g/.gemini/settings.json");
    let copilot = moved.join("c/settings.json");
    let env = agentctx_config::Environment::from_pairs([
        ("HOME", p.home.to_str().unwrap()),
        ("GEMINI_CLI_HOME", moved.join("g").to_str().unwrap()),
        ("COPILOT_HOME", moved.join("c").to_str().unwrap()),
    ]);
    for file in [&gemini, &copilot] {
        let payload = json!({
            "session_id": "moved", "cwd": p.root, "hook_event_name": "PreToolUse",
            "tool_name": "Write", "tool_input": {"file_path": file, "content": "{}"},
        });
        let mut host = Host::new(&p.config, &env, Some(&p.root));
        host.program = None;
        let reply = handle_event(
            payload.to_string().as_bytes(),
            Some(Agent::Claude),
            None,
            &host,
        )
        .output
        .expect("a denial");
        assert_eq!(
            reply["hookSpecificOutput"]["permissionDecision"],
            "deny",
            "{}: {reply}",
            file.display()
        );
    }
}
