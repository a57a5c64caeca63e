//! `agentctx rules` and `agentctx prompt rules` through the binary.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use std::io::Write as _;
use std::process::Stdio;

use common::{TestEnv, run};

const RULES: &str = "system_prompt_extension: Prefer small diffs.\nallowed_tools: [\"github/*\", Read]\ndenied_tools: [github/delete_file]\nfile_patterns:\n  exclude: [\"**/.env\", secrets/]\n";

fn project(rules: &str) -> TestEnv {
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    t.write("project/.coding-agent-rules.yaml", rules);
    t
}

#[test]
fn check_tool_prints_one_line_per_item_and_exits_1_on_any_denial() {
    let t = project(RULES);
    let (code, stdout, _) =
        run(t
            .cmd()
            .args(["rules", "check-tool", "Read", "github/create_issue"]));
    assert_eq!(code, 0);
    assert_eq!(stdout.lines().count(), 2);
    assert!(stdout.lines().all(|l| l.starts_with("allow\t")));
    let (code, stdout, _) =
        run(t
            .cmd()
            .args(["rules", "check-tool", "Read", "github/delete_file"]));
    assert_eq!(code, 1);
    assert!(stdout.contains("deny\tgithub/delete_file\ttool `github/delete_file` is denied by denied_tools entry `github/delete_file` ("), "{stdout}");
    assert!(stdout.contains(".coding-agent-rules.yaml:3)"), "{stdout}");
}

#[test]
fn check_file_stdin_and_json() {
    let t = project(RULES);
    let mut child = t
        .cmd()
        .args(["rules", "check-file", "--stdin", "--json", "src/lib.rs"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"src/../.env\n./secrets/key\n\n/etc/passwd\nREADME.md\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let decisions: Vec<agentctx_types::RuleDecision> = serde_json::from_slice(&out.stdout).unwrap();
    let verdicts: Vec<(&str, bool)> = decisions
        .iter()
        .map(|d| (d.item.as_str(), d.allowed))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("src/lib.rs", true),
            ("src/../.env", false),
            ("./secrets/key", false),
            // Outside the root: only an include list restricts it.
            ("/etc/passwd", true),
            ("README.md", true)
        ]
    );
    assert_eq!(
        decisions[3].rule,
        agentctx_types::DecisionRule::NoRestriction
    );
}

#[test]
fn rules_show_json_names_the_source_and_warnings() {
    let t = project(&format!("{RULES}mystery: 1\n"));
    let (code, stdout, stderr) = run(t.cmd().args(["rules", "show", "--json"]));
    assert_eq!(code, 0);
    let report: agentctx_types::RulesReport = serde_json::from_str(&stdout).unwrap();
    assert!(matches!(
        report.source,
        agentctx_types::RulesSource::File {
            format: agentctx_types::RuleFileFormat::Yaml,
            ..
        }
    ));
    assert_eq!(report.rules.denied_tools, ["github/delete_file"]);
    assert_eq!(report.warnings.len(), 1);
    assert!(
        report.warnings[0].contains(":6: unknown key `mystery`"),
        "{:?}",
        report.warnings
    );
    assert!(stderr.contains("WARN"), "{stderr}");
}

#[test]
fn broken_rule_file_is_reported_and_deny_all_denies() {
    let t = project("denied_tools: [Bash\n");
    let (code, _, stderr) = run(t.cmd().args(["rules", "check-tool", "Read"]));
    assert_eq!(code, 0, "default_rules apply");
    assert!(
        stderr.contains("rule file is broken") && stderr.contains(".coding-agent-rules.yaml:"),
        "{stderr}"
    );
    let (code, stdout, _) = run(t.cmd().args([
        "-c",
        "project_agent_rules.on_error=deny_all",
        "rules",
        "check-tool",
        "Read",
    ]));
    assert_eq!(code, 1);
    assert!(stdout.starts_with("deny\tRead\t"), "{stdout}");
}

#[test]
fn lint_exits_1_on_problems_and_0_when_clean() {
    let t = project(RULES);
    let (code, stdout, _) = run(t.cmd().args(["rules", "lint"]));
    assert_eq!((code, stdout.ends_with(": ok\n")), (0, true), "{stdout}");
    let t = project("denied_tools: [\"gh*\"]\n");
    let (code, stdout, _) = run(t.cmd().args(["rules", "lint"]));
    assert_eq!(code, 1);
    assert!(
        stdout.contains(":1: denied_tools entry `gh*` can never match"),
        "{stdout}"
    );
}

#[test]
fn prompt_rules_prints_the_extension() {
    let t = project(RULES);
    let (code, stdout, _) = run(t.cmd().args(["prompt", "rules"]));
    assert_eq!((code, stdout.as_str()), (0, "Prefer small diffs.\n"));
}

#[test]
fn check_command_says_what_the_hook_would_and_where_the_rule_is() {
    let t = project("presets: [history-rewriting]\ncommands:\n  deny: [\"terraform destroy\"]\n");
    let (code, stdout, _) = run(t.cmd().args([
        "rules",
        "check-command",
        "cargo test",
        "bash -c -- 'terraform destroy -auto-approve'",
        "echo 'git push -f' | sh",
    ]));
    assert_eq!(code, 1);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "allow\tcargo test\tno command rule matches");
    assert!(lines[1].starts_with("deny\t"), "{stdout}");
    assert!(lines[1].contains(".coding-agent-rules.yaml:3"), "{stdout}");
    assert!(lines[2].starts_with("ask\t"), "{stdout}");
    assert!(lines[2].contains("preset `history-rewriting`"), "{stdout}");
    let (code, stdout, _) = run(t.cmd().args(["rules", "check-command", "cargo build"]));
    assert_eq!((code, stdout.starts_with("allow\t")), (0, true));
}
