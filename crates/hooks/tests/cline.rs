//! Cline CLI 3.0.65's dialect on the hook payloads its real CLI sent
//! (fixtures/agents/cline-cli-3.0.65/, recorded by a hook file for each
//! event): agentctx's plugin sends the same payload from the same call.
//! Denials in the shape the plugin reads (`cancel` with its reason), every
//! input shape Cline takes judged, commands run in the sandbox through
//! `overrideInput`, the chain above the cwd at a run's start, sub-agents
//! and their capture.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use agentctx_types::Agent;
use common::Project;
use serde_json::{Value, json};

/// The root session's id, as Cline writes them.
const SESSION: &str = "1795748557193_zzcu3";

/// A recorded payload with its placeholders pointing at `project`, in a
/// session started in `cwd` (the plugin says where; a hook file runs
/// there).
fn recorded(p: &Project, name: &str, cwd: &std::path::Path) -> Value {
    let path = format!(
        "{}/../../fixtures/agents/cline-cli-3.0.65/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let text = text
        .replace("{{REPO}}", p.root.to_str().unwrap())
        .replace("{{HOME}}", p.home.to_str().unwrap())
        .replace("{{SESSION_ID}}", SESSION);
    let mut payload = serde_json::from_str::<Value>(&text).unwrap()["stdin"].clone();
    payload["cwd"] = json!(cwd);
    // Where `cline` was started: agentctx's plugin says it.
    payload["cline_cwd"] = json!(cwd);
    // A sub-agent's parent is the main agent, not itself.
    if payload["parent_agent_id"].is_string() {
        payload["parent_agent_id"] = json!("agent_main");
        payload["agent_id"] = json!("agent_sub");
    }
    payload
}

/// The reply Cline's plugin reads, run as the CLI runs it (with its
/// program, so commands can be sandboxed).
fn hook(p: &Project, payload: &Value) -> Value {
    let env = p.env();
    let mut host = agentctx_session::Host::new(&p.config, &env, Some(&p.root));
    let program = p.home.join("bin/agentctx");
    host.program = Some(&program);
    let outcome = agentctx_hooks::handle_event(
        payload.to_string().as_bytes(),
        Some(Agent::Cline),
        None,
        &host,
    );
    outcome.output.unwrap_or(Value::Null)
}

/// `read_files` of `input` in a session at the root.
fn read_files(p: &Project, input: Value) -> Value {
    let mut call = recorded(p, "PreToolUse-read_files.json", &p.root);
    call["tool_call"]["input"] = input;
    hook(p, &call)
}

fn stopped(reply: &Value) -> bool {
    reply["cancel"] == true
        && reply["errorMessage"]
            .as_str()
            .is_some_and(|r| !r.is_empty())
}

#[test]
fn a_read_of_an_excluded_file_is_stopped_with_its_reason_in_every_shape() {
    let p = Project::new("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let secret = p.root.join("secrets/key");
    let secret = secret.to_str().unwrap();
    let reply = read_files(&p, json!({"files": [{"path": secret}]}));
    assert!(stopped(&reply), "{reply}");
    assert!(
        reply["errorMessage"]
            .as_str()
            .unwrap()
            .contains("exclude pattern `secrets/`"),
        "{reply}"
    );
    // The shapes Cline also takes (p10 read the key through five of them).
    for input in [
        json!(secret),
        json!([secret]),
        json!({"file_path": secret}),
        json!({"filePath": secret}),
        json!({"files": secret}),
        json!({"files": {"path": secret}}),
        json!({"file_paths": "secrets/key"}),
        json!({"paths": ["README.md", {"file_path": "secrets/key"}]}),
        json!({"files": [{"path": "README.md"}], "file_path": "secrets/key"}),
    ] {
        assert!(stopped(&read_files(&p, input.clone())), "{input}");
    }
    // One it does not know is refused, since something is restricted.
    let reply = read_files(&p, json!({"targets": ["secrets/key"]}));
    assert!(stopped(&reply), "{reply}");
    // A relative path from a payload that does not say where Cline was
    // started (a hook file's) cannot be judged.
    let mut call = recorded(&p, "PreToolUse-read_files.json", &p.root);
    call.as_object_mut().unwrap().remove("cline_cwd");
    call["tool_call"]["input"] = json!({"files": [{"path": "README.md"}]});
    assert!(stopped(&hook(&p, &call)));
    // Nor a file that does not exist (Cline would open a similar name).
    assert!(stopped(&read_files(
        &p,
        json!({"files": [{"path": "secrets/k\u{e9}y"}]})
    )));
    // What is allowed runs unchanged.
    assert_eq!(
        read_files(&p, json!({"files": [{"path": "README.md"}]})),
        Value::Null
    );
}

#[test]
fn a_command_runs_in_the_sandbox_through_override_input() {
    let p = Project::new("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let mut call = recorded(&p, "PreToolUse-run_commands.json", &p.root);
    call["tool_call"]["input"] = json!({"commands": ["cat README.md"]});
    let reply = hook(&p, &call);
    let commands = reply["overrideInput"]["commands"]
        .as_array()
        .expect("a changed input");
    assert_eq!(commands.len(), 1, "{reply}");
    let line = commands[0].as_str().unwrap();
    assert!(line.contains(" exec --session "), "{line}");
    assert!(line.contains("--agent cline"), "{line}");
    assert!(line.ends_with("'cat README.md'"), "{line}");
    // Several run as one line, each in a subshell from the session's folder.
    call["tool_call"]["input"] = json!({"commands": ["cd src && ls", "ls"]});
    let reply = hook(&p, &call);
    let line = reply["overrideInput"]["commands"][0].as_str().unwrap();
    assert!(line.contains("(\ncd src && ls\n)\n(\nls\n)"), "{line}");
    // A program with its arguments is judged as what it runs.
    call["tool_call"]["input"] = json!({"commands": [{"command": "cat", "args": ["secrets/key"]}]});
    assert!(stopped(&hook(&p, &call)));
    // One that would hide the next from the judge does not run.
    call["tool_call"]["input"] = json!({"commands": ["echo 'x", "cat secrets/key #'"]});
    assert!(stopped(&hook(&p, &call)));
}

#[test]
fn a_run_start_gives_the_chain_above_the_cwd_that_cline_leaves_out() {
    let p = Project::new("system_prompt_extension: EXT\n");
    p.file("AGENTS.md", "ROOT-RULES\n");
    p.file("packages/AGENTS.md", "PACKAGES-RULES\n");
    p.file("packages/api/AGENTS.md", "API-RULES\n");
    let cwd = p.root.join("packages/api");
    let start = recorded(&p, "TaskStart.json", &cwd);
    let reply = hook(&p, &start);
    let text = reply["contextModification"].as_str().expect("context");
    for part in ["EXT", "ROOT-RULES", "PACKAGES-RULES", "<project_files"] {
        assert!(text.contains(part), "{part}\n{text}");
    }
    // Cline sends the cwd's own AGENTS.md in its rules.
    assert!(!text.contains("API-RULES"), "{text}");
    // A session at the root: Cline sends the root's, agentctx no chain.
    let p = Project::new("");
    p.file("AGENTS.md", "ROOT-RULES\n");
    let reply = hook(&p, &recorded(&p, "TaskStart.json", &p.root));
    let text = reply["contextModification"].as_str().expect("context");
    assert!(!text.contains("ROOT-RULES"), "{text}");
}

#[test]
fn a_sub_agent_gets_its_own_context_and_its_answer_is_captured_once() {
    let p = Project::new("system_prompt_extension: EXT\n");
    let start = recorded(&p, "TaskStart-subagent.json", &p.root);
    let reply = hook(&p, &start);
    assert!(
        reply["contextModification"]
            .as_str()
            .is_some_and(|t| t.contains("EXT")),
        "{reply}"
    );
    let done = recorded(&p, "PostToolUse-spawn_agent.json", &p.root);
    hook(&p, &done);
    hook(&p, &done);
    // The sub-agent's own TaskComplete captures nothing more.
    hook(&p, &recorded(&p, "TaskComplete-subagent.json", &p.root));
    let memory = p.home.join(".agent-kit/MEMORY");
    let files: Vec<_> = common::walk(&memory)
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "md"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains("SUBAGENT-ONE-BODY"), "{text}");
    assert!(text.contains("cline"), "{text}");
}

#[test]
fn a_sub_agents_calls_are_judged_in_the_root_session() {
    let p = Project::new("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let mut call = recorded(&p, "PreToolUse-subagent-read_files.json", &p.root);
    call["tool_call"]["input"] = json!({"files": [{"path": "secrets/key"}]});
    assert!(stopped(&hook(&p, &call)));
    let anchors = p.home.join(".local/state/agentctx/anchors");
    let names: Vec<String> = std::fs::read_dir(&anchors)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| n.starts_with(SESSION)), "{names:?}");
}

#[test]
fn a_cline_payload_without_agent_is_told_apart() {
    let p = Project::new("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let mut call = recorded(&p, "PreToolUse-read_files.json", &p.root);
    call["tool_call"]["input"] = json!({"files": [{"path": "secrets/key"}]});
    let env = p.env();
    let host = agentctx_session::Host::new(&p.config, &env, Some(&p.root));
    let outcome = agentctx_hooks::handle_event(call.to_string().as_bytes(), None, None, &host);
    let reply = outcome.output.unwrap();
    assert!(stopped(&reply), "{reply}");
}

#[test]
fn a_patch_is_judged_by_the_files_cline_reads_in_it() {
    let p = Project::new("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let mut call = recorded(&p, "PreToolUse-read_files.json", &p.root);
    call["tool_call"]["name"] = json!("apply_patch");
    for patch in [
        // Cline adds a missing envelope.
        "*** Add File: .cline/plugins/evil.js\n+x\n",
        // And trims a byte-order mark from a path, as JavaScript trims.
        "*** Begin Patch\n*** Add File: \u{feff}.clinerules/hooks/PreToolUse\n+x\n*** End Patch",
        "*** Begin Patch\n*** Update File: secrets/key\n*** Move to: out.txt\n*** End Patch",
    ] {
        call["tool_call"]["input"] = json!({"input": patch});
        assert!(stopped(&hook(&p, &call)), "{patch}");
    }
    call["tool_call"]["input"] = json!({"input": "*** Add File: notes.txt\n+x\n"});
    assert_eq!(hook(&p, &call), Value::Null);
}

#[test]
fn what_cline_loads_at_its_next_session_cannot_be_written() {
    let p = Project::new("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let mut call = recorded(&p, "PreToolUse-read_files.json", &p.root);
    call["tool_call"]["name"] = json!("editor");
    for path in [
        ".agents/skills/evil/SKILL.md",
        ".cline/plugins/x.js",
        "sub/.clinerules/hooks/PreToolUse",
    ] {
        call["tool_call"]["input"] = json!({"path": path, "new_text": "x"});
        assert!(stopped(&hook(&p, &call)), "{path}");
    }
    // `old_text: null` is no text to replace: the file is written whole,
    // and a rule that denies writing applies.
    let p = Project::new("denied_tools: [Write]\n");
    let mut call = recorded(&p, "PreToolUse-read_files.json", &p.root);
    call["tool_call"]["name"] = json!("editor");
    call["tool_call"]["input"] = json!({"path": "new.txt", "new_text": "x", "old_text": null});
    assert!(stopped(&hook(&p, &call)));
    call["tool_call"]["input"] = json!({"path": "new.txt", "new_text": "x", "old_text": "y"});
    assert_eq!(hook(&p, &call), Value::Null);
}

#[test]
fn another_spelling_of_an_excluded_or_protected_path_is_judged_as_cline_opens_it() {
    let p = Project::new("file_patterns:\n  exclude: [\"secrets/\"]\n");
    let root = p.root.display().to_string();
    for path in [
        format!("{root}/sub/../secrets/key"),
        format!("{root}/./secrets//key"),
        // Cline's `/proc/self` is its own process, not the hook's: a path
        // through it is a link a command could change.
        "/proc/self/cwd/secrets/key".to_owned(),
        format!("/proc/self/root{root}/secrets/key"),
    ] {
        assert!(
            stopped(&read_files(&p, json!({"files": [{"path": path}]}))),
            "{path}"
        );
    }
    let mut call = recorded(&p, "PreToolUse-read_files.json", &p.root);
    call["tool_call"]["name"] = json!("editor");
    for path in [
        "sub/../.cline/plugins/a.js",
        "/proc/self/cwd/.clinerules/hooks/x",
        ".clinerules",
    ] {
        call["tool_call"]["input"] = json!({"path": path, "new_text": "x"});
        assert!(stopped(&hook(&p, &call)), "{path}");
    }
}
