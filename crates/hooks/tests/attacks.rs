//! The attack suite: a prompt-injected or careless agent trying to reach
//! excluded files or to switch its rules off, with the payload shapes
//! Claude Code 2.1.330 and Codex 0.169 really send (fixtures/agents/,
//! recorded by the end-to-end suite). Each test asserts the decision and
//! the rule that made it, in default and, where it differs, strict mode.
//! docs/SECURITY.md lists every class and what covers it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use common::{Project, RULES, denied_by, patch};

use agentctx_hooks::handle;
use agentctx_session::Host;
use agentctx_types::Agent;
use serde_json::json;

// --- Context leaks -------------------------------------------------------

#[cfg(unix)]
#[test]
fn an_agents_md_linked_to_a_key_or_proc_never_enters_the_context() {
    let mut p = Project::new("");
    p.config.claude_code.agents_md = agentctx_types::AgentsMdBodies::Agentctx;
    std::fs::create_dir_all(p.home.join(".ssh")).unwrap();
    std::fs::write(p.home.join(".ssh/id_rsa"), "-----BEGIN PRIVATE KEY-----").unwrap();
    std::os::unix::fs::symlink(p.home.join(".ssh/id_rsa"), p.root.join("AGENTS.md")).unwrap();
    std::fs::create_dir_all(p.root.join("sub")).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", p.root.join("sub/AGENTS.md")).unwrap();
    let env = p.env();
    let host = Host::new(&p.config, &env, Some(&p.root));
    let start = json!({"session_id": "s", "cwd": p.root.join("sub"), "hook_event_name": "SessionStart", "source": "startup"});
    let outcome = handle(start.to_string().as_bytes(), Some(Agent::Claude), &host);
    let text = serde_json::to_string(&outcome.reply).unwrap();
    assert!(!text.contains("PRIVATE KEY"), "{text}");
    assert!(!text.contains("HOME="), "{text}");
    assert!(
        outcome
            .notes
            .iter()
            .any(|n| n.contains("outside the project root")),
        "{:?}",
        outcome.notes
    );
    // Nor is the resolver pointed at them.
    let read = json!({"session_id": "s", "cwd": p.root, "hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": {"file_path": p.root.join("sub/x.rs")}});
    let outcome = handle(read.to_string().as_bytes(), Some(Agent::Claude), &host);
    assert!(outcome.reply.is_none(), "{:?}", outcome.reply);
}

#[cfg(unix)]
#[test]
fn a_rule_file_linked_outside_the_project_is_an_error_not_a_prompt() {
    let p = Project::new("");
    std::fs::write(p.home.join("secret.md"), "TOP SECRET").unwrap();
    std::os::unix::fs::symlink(
        p.home.join("secret.md"),
        p.root.join(".coding-agent-rules.md"),
    )
    .unwrap();
    let rules = agentctx_rules::Rules::load(&p.root, &p.config.project_agent_rules).unwrap();
    assert!(rules.prompt_extension().is_none());
    assert!(
        rules
            .error()
            .unwrap()
            .to_string()
            .contains("outside the project root")
    );
}

// --- Input the parser rejects --------------------------------------------

#[test]
fn a_lone_surrogate_or_deep_nesting_is_read_and_judged() {
    let p = Project::new(RULES);
    let raw = format!(
        r#"{{"session_id":"s","cwd":"{}","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":"secrets/x","content":"\ud800"}}}}"#,
        p.root.display()
    );
    denied_by(
        p.run_raw(Agent::Claude, raw.as_bytes()),
        "exclude pattern `secrets/`",
    );
    let mut deep = json!("secrets/key");
    for _ in 0..200 {
        deep = json!([deep]);
    }
    denied_by(
        p.claude("mcp__fs__read", json!({"a": deep})),
        "exclude pattern `secrets/`",
    );
}

#[test]
fn an_unreadable_tool_call_is_denied_when_rules_restrict_and_allowed_when_not() {
    let p = Project::new(RULES);
    let raw = format!(
        r#"{{"cwd":"{}","hook_event_name":"PreToolUse","tool_input": ]"#,
        p.root.display()
    );
    denied_by(
        p.run_raw(Agent::Claude, raw.as_bytes()),
        "could not read this tool call",
    );
    // Nothing restricted at all (no rules, agentctx's own protection off).
    let mut free = Project::new("");
    free.config.project_agent_rules.protect_config = false;
    let raw = format!(
        r#"{{"cwd":"{}","hook_event_name":"PreToolUse","tool_input": ]"#,
        free.root.display()
    );
    assert!(free.run_raw(Agent::Claude, raw.as_bytes()).is_none());
}

// --- Codex apply_patch ----------------------------------------------------

#[test]
fn patch_headers_are_read_as_codex_reads_them() {
    let p = Project::new(RULES);
    denied_by(
        p.codex("apply_patch", patch(" *** Add File: secrets/a\n+x")),
        "exclude pattern `secrets/`",
    );
    denied_by(
        p.codex(
            "apply_patch",
            patch("\t*** Update File: app/.env\n@@\n-a\n+b"),
        ),
        "exclude pattern `**/.env`",
    );
    denied_by(
        p.codex(
            "apply_patch",
            patch("*** Add File: ~/.ssh/authorized_keys\n+ssh-ed25519 AAAA"),
        ),
        "exclude pattern `~/.ssh/`",
    );
    assert!(
        p.codex("apply_patch", patch("*** Add File: src/new.rs\n+x"))
            .is_none()
    );
}

// --- Search tools ---------------------------------------------------------

#[test]
fn a_search_whose_scope_holds_excluded_files_is_denied() {
    let p = Project::new(RULES);
    p.file(".env", "KEY=1");
    // Claude Code's Grep runs without them (ripgrep `--glob` exclusions
    // after the agent's own); a shell search and Codex are denied.
    let payload = p.payload(
        "claude-code-2.1.330/claude-PreToolUse-Read.json",
        "Grep",
        json!({"pattern": "KEY", "glob": "*.rs"}),
    );
    let outcome = p.outcome(
        agentctx_types::Agent::Claude,
        payload.to_string().as_bytes(),
        &p.root,
        false,
    );
    let reply = outcome
        .reply
        .expect("a narrowed search")
        .hook_specific_output;
    assert_eq!(
        reply.permission_decision,
        Some(agentctx_types::PermissionDecision::Allow)
    );
    let narrowed = reply.updated_input.expect("the search's new input");
    assert_eq!(narrowed["glob"], "*.rs !**/.env !**/secrets");
    assert_eq!(narrowed["pattern"], "KEY");
    denied_by(
        p.claude("Bash", json!({"command": "grep -r KEY ."})),
        "Denied: a search of",
    );
    denied_by(
        p.codex("Bash", json!({"command": "rg KEY"})),
        "Denied: a search of",
    );
    // Claude Code trims a search's path and resolves `..` by text: the
    // rules see the folder it searches (found by the attack pass).
    p.file("secrets/key", "KEY=3");
    for path in [format!("{} ", p.root.display()), "secrets\n".to_owned()] {
        let payload = p.payload(
            "claude-code-2.1.330/claude-PreToolUse-Read.json",
            "Grep",
            json!({"pattern": "KEY", "path": path}),
        );
        let outcome = p.outcome(
            agentctx_types::Agent::Claude,
            payload.to_string().as_bytes(),
            &p.root,
            false,
        );
        let reply = outcome.reply.expect("judged").hook_specific_output;
        let narrowed = reply.updated_input.map(|i| i["glob"].to_string());
        assert!(
            reply.permission_decision == Some(agentctx_types::PermissionDecision::Deny)
                || narrowed.is_some_and(|g| g.contains("!**/.env") || g.contains("secrets")),
            "{path:?}"
        );
    }
    p.file("a/.env", "KEY=2");
    p.file("clean/sub/x.txt", "x");
    std::os::unix::fs::symlink("../clean/sub", p.root.join("a/lnk")).unwrap();
    denied_by(
        p.claude(
            "Grep",
            json!({"pattern": "KEY", "path": p.root.join("a/lnk/..")}),
        ),
        "Denied: a search of",
    );
    // A name ripgrep would take for a pattern cannot be left out exactly.
    let q = Project::new("file_patterns:\n  exclude: [\"**/*.env\"]\n");
    q.file("a b.env", "KEY=1");
    denied_by(
        q.claude("Grep", json!({"pattern": "KEY"})),
        "Denied: a search of",
    );
    denied_by(
        p.claude("Glob", json!({"pattern": "**/*.pem", "path": p.root})),
        "secrets",
    );
    assert!(
        p.claude("Grep", json!({"pattern": "fn", "path": p.root.join("src")}))
            .is_none()
    );
    // With an include list, the included directory itself may be searched.
    let q = Project::new("file_patterns:\n  include: [\"src/**\"]\n");
    assert!(
        q.claude("Grep", json!({"pattern": "fn", "path": q.root.join("src")}))
            .is_none()
    );
    assert!(
        q.claude("LS", json!({"path": q.root.join("src")}))
            .is_none()
    );
    denied_by(
        q.claude("Grep", json!({"pattern": "fn"})),
        "matches no include pattern",
    );
}

// --- Symlinks, .., hard links ----------------------------------------------

#[cfg(unix)]
#[test]
fn a_symlink_followed_by_dotdot_is_judged_where_the_kernel_goes() {
    let p = Project::new(RULES);
    p.file("secrets/sub/inner", "x");
    std::fs::create_dir_all(p.root.join("links")).unwrap();
    std::os::unix::fs::symlink("../secrets/sub", p.root.join("links/tosub")).unwrap();
    denied_by(
        p.claude(
            "Read",
            json!({"file_path": p.root.join("links/tosub/../key")}),
        ),
        "exclude pattern `secrets/`",
    );
}

#[cfg(unix)]
#[test]
fn hard_links_to_excluded_files_are_denied_in_both_modes() {
    let p = Project::new(RULES);
    std::fs::hard_link(p.root.join("secrets/key"), p.root.join("innocent.txt")).unwrap();
    // Default mode judges it against the names the sandbox's walk masks
    // (this was a documented gap before).
    denied_by(
        p.claude("Read", json!({"file_path": p.root.join("innocent.txt")})),
        "another name (a hard link)",
    );
    // Strict mode too.
    let p = p.strict();
    denied_by(
        p.claude("Read", json!({"file_path": p.root.join("innocent.txt")})),
        "hard link",
    );
}

// --- MCP arguments and shell commands --------------------------------------

#[test]
fn mcp_arguments_are_judged_by_their_shape_not_their_name() {
    let p = Project::new(RULES);
    denied_by(
        p.claude(
            "mcp__fs__copy",
            json!({"source": "secrets/key", "destination": "out.txt"}),
        ),
        "secrets/",
    );
    denied_by(
        p.claude(
            "mcp__fs__read_many",
            json!({"paths": ["README.md", "./secrets/key"]}),
        ),
        "secrets/",
    );
    assert!(
        p.claude(
            "mcp__fs__read_many",
            json!({"paths": ["README.md", "src/main.rs"]})
        )
        .is_none()
    );
}

#[test]
fn shell_commands_are_checked_best_effort_and_strictly_in_strict_mode() {
    let p = Project::new(RULES);
    denied_by(
        p.claude(
            "Bash",
            json!({"command": "cat secrets/key", "description": "x"}),
        ),
        "exclude pattern `secrets/`",
    );
    denied_by(
        p.codex(
            "Bash",
            json!({"command": "cd src && head -n 3 ../secrets/key"}),
        ),
        "secrets/",
    );
    assert!(
        p.codex("Bash", json!({"command": "cat src/main.rs | wc -l"}))
            .is_none()
    );
    // Default mode cannot see through expansions; strict mode denies them.
    assert!(
        p.claude("Bash", json!({"command": "cat $(echo secrets)/key"}))
            .is_none()
    );
    let p = p.strict();
    denied_by(
        p.claude("Bash", json!({"command": "cat $(echo secrets)/key"})),
        "strict mode",
    );
    denied_by(
        p.claude("Bash", json!({"command": "eval cat README.md"})),
        "`eval` runs code",
    );
    denied_by(
        p.claude("Bash", json!({"command": "for f in *; do cat $f; done"})),
        "`$f` is only known when the shell runs it",
    );
    denied_by(
        p.claude("Bash", json!({"command": "cat /etc/hosts"})),
        "outside the project root",
    );
    assert!(
        p.claude("Bash", json!({"command": "cat README.md src/main.rs"}))
            .is_none()
    );
}

// --- The agent rewriting its own rules --------------------------------------

#[test]
fn the_agent_cannot_rewrite_its_rules_config_or_hooks() {
    let p = Project::new(RULES);
    for (tool, path) in [
        ("Write", ".coding-agent-rules.yaml"),
        ("Edit", ".agentctx.yaml"),
        ("Write", ".claude/settings.json"),
        ("Write", ".claude/settings.local.json"),
        ("Write", ".coding-agent-rules.md"),
    ] {
        denied_by(
            p.claude(
                tool,
                json!({"file_path": p.root.join(path), "content": "x"}),
            ),
            "may not change its own rules",
        );
    }
    denied_by(
        p.codex("apply_patch", patch("*** Add File: .codex/hooks.json\n+{}")),
        "may not change",
    );
    denied_by(
        p.claude(
            "Bash",
            json!({"command": "echo '{}' > .coding-agent-rules.yaml"}),
        ),
        "may not change",
    );
    denied_by(
        p.claude(
            "Write",
            json!({"file_path": p.home.join(".claude/settings.json"), "content": "{}"}),
        ),
        "hook settings",
    );
    // Reading them is fine; and the protection can be switched off.
    assert!(
        p.claude(
            "Read",
            json!({"file_path": p.root.join(".coding-agent-rules.yaml")})
        )
        .is_none()
    );
    let mut open = Project::new(RULES);
    open.config.project_agent_rules.protect_config = false;
    assert!(
        open.claude(
            "Write",
            json!({"file_path": open.root.join(".coding-agent-rules.yaml"), "content": "x"})
        )
        .is_none()
    );
}

// --- Scale, tool names, case, which project --------------------------------

#[test]
fn thousands_of_patterns_still_deny() {
    let mut rules = String::from("file_patterns:\n  exclude:\n");
    for i in 0..4_000 {
        rules.push_str(&format!(
            "    - \"generated/very/long/path/prefix/number/{i}/**/*.tmp\"\n"
        ));
    }
    rules.push_str("    - \"secrets/\"\n");
    let p = Project::new(&rules);
    denied_by(
        p.claude("Read", json!({"file_path": p.root.join("secrets/key")})),
        "exclude pattern `secrets/`",
    );
    assert!(
        p.claude("Read", json!({"file_path": p.root.join("src/main.rs")}))
            .is_none()
    );
}

#[test]
fn both_spellings_of_an_mcp_tool_are_one_tool() {
    let p = Project::new("denied_tools: [mcp__github__delete_file]\n");
    denied_by(
        p.claude("mcp__github__delete_file", json!({})),
        "denied_tools entry",
    );
    let rules = agentctx_rules::Rules::load(&p.root, &p.config.project_agent_rules).unwrap();
    assert!(!rules.check_tool("github/delete_file").allowed);
    let q = Project::new("denied_tools: [github/delete_file]\n");
    let rules = agentctx_rules::Rules::load(&q.root, &q.config.project_agent_rules).unwrap();
    assert!(!rules.check_tool("mcp__github__delete_file").allowed);
}

#[test]
fn excludes_fold_unicode_case() {
    let p = Project::new(RULES);
    for path in ["École/x", "ÉCOLE/x", "école/x"] {
        denied_by(
            p.claude("Read", json!({"file_path": p.root.join(path)})),
            "école/",
        );
    }
}

#[cfg(unix)]
#[test]
fn the_session_keeps_its_project_through_cd_and_symlinks() {
    let p = Project::new(RULES);
    let env = p.env();
    let host = Host::new(&p.config, &env, None);
    let start = json!({"session_id": "s1", "cwd": p.root, "hook_event_name": "SessionStart", "source": "startup"});
    handle(start.to_string().as_bytes(), Some(Agent::Claude), &host);
    // A nested repository with no rules of its own.
    let nested = p.root.join("vendor/lib");
    std::fs::create_dir_all(nested.join(".git")).unwrap();
    std::fs::write(nested.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let mut call = p.payload(
        "claude-code-2.1.330/claude-PreToolUse-Read.json",
        "Read",
        json!({"file_path": "../../secrets/key"}),
    );
    call["session_id"] = "s1".into();
    call["cwd"] = nested.to_str().unwrap().into();
    denied_by(p.run(Agent::Claude, &call), "exclude pattern `secrets/`");
    // The project reached through a symlink is the same project.
    let link = p.home.join("repo-link");
    std::os::unix::fs::symlink(&p.root, &link).unwrap();
    call["cwd"] = link.to_str().unwrap().into();
    call["tool_input"] = json!({"file_path": "secrets/key"});
    denied_by(p.run(Agent::Claude, &call), "exclude pattern `secrets/`");
    call["tool_input"] = json!({"file_path": "src/main.rs"});
    assert!(
        p.run(Agent::Claude, &call).is_none(),
        "not denied as outside the root"
    );
}

#[test]
fn outside_the_root_without_rules_nothing_is_restricted() {
    let p = Project::new("");
    assert!(
        p.claude("Read", json!({"file_path": "/etc/hosts"}))
            .is_none()
    );
    assert!(
        p.claude(
            "Write",
            json!({"file_path": p.home.join(".claude/projects/x/memory/note.md"), "content": "x"})
        )
        .is_none()
    );
}
