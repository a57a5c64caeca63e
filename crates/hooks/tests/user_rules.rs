//! The user's rules (issue 38): `project_agent_rules.user_rules` in the
//! user's config holds in every session, under a project's rule file, in a
//! project without one and in a session started in the home folder (no
//! project found); a project cannot take them away; only what restricts
//! may be written there. The payloads are Claude Code 2.1.330's recorded
//! calls with another input.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use common::{Project, denied_by};
use serde_json::json;

fn user_rules() -> agentctx_types::UserRules {
    serde_json::from_value(json!({
        "system_prompt_extension": "MINE",
        "denied_tools": ["WebFetch"],
        "file_patterns": {"exclude": ["**/.env"]},
        "commands": {"deny": ["terraform destroy"]},
        "presets": ["publishing"],
    }))
    .unwrap()
}

#[test]
fn they_hold_beside_a_projects_rule_file_which_cannot_take_them_away() {
    let mut p = Project::new(
        "system_prompt_extension: THEIRS\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    p.config.project_agent_rules.user_rules = user_rules();
    p.file("app/.env", "TOKEN=x");
    let root = p.root.to_str().unwrap().to_owned();
    denied_by(
        p.claude("Read", json!({"file_path": format!("{root}/app/.env")})),
        "project_agent_rules.user_rules",
    );
    denied_by(
        p.claude("Read", json!({"file_path": format!("{root}/secrets/key")})),
        ".coding-agent-rules.yaml",
    );
    denied_by(
        p.claude(
            "WebFetch",
            json!({"url": "https://example.com", "prompt": "x"}),
        ),
        "WebFetch",
    );
    denied_by(
        p.codex(
            "Bash",
            json!({"command": "bash -c 'terraform destroy -auto-approve'"}),
        ),
        "terraform destroy",
    );
    denied_by(
        p.codex("Bash", json!({"command": "npm publish"})),
        "publishing",
    );
    // The prompt: the user's, then the project's.
    let rules = agentctx_rules::Rules::load(&p.root, &p.config.project_agent_rules).unwrap();
    assert_eq!(rules.prompt_extension(), Some("MINE\n\nTHEIRS"));
}

#[test]
fn they_hold_without_a_rule_file() {
    let mut p = Project::new("");
    p.config.project_agent_rules.user_rules = user_rules();
    p.file(".env", "TOKEN=x");
    denied_by(
        p.claude("Bash", json!({"command": "cat .env"})),
        "user_rules",
    );
    assert_eq!(p.claude("Bash", json!({"command": "cat README.md"})), None);
}

#[test]
fn they_hold_in_a_session_started_in_the_home_folder() {
    let p = Project::new("");
    std::fs::create_dir_all(p.home.join("notes/private")).unwrap();
    std::fs::write(p.home.join("notes/private/x.md"), "PRIVATE").unwrap();
    // Started in the home folder, the CLI reads the user's config file.
    let config = p.home.join(".config/agentctx/config.yaml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "project_agent_rules:\n  user_rules:\n    file_patterns:\n      exclude: [\"~/notes/private/\"]\n",
    )
    .unwrap();
    denied_by(
        p.claude_in(
            &p.home,
            "Bash",
            json!({"command": "cat notes/private/x.md"}),
        ),
        "user_rules",
    );
}

#[test]
fn only_what_restricts_may_be_written_there() {
    for value in [
        json!({"allowed_tools": ["Read"]}),
        json!({"file_patterns": {"include": ["src/"]}}),
        json!({"network": {"allow": ["*"]}}),
    ] {
        let parsed: Result<agentctx_types::UserRules, _> = serde_json::from_value(value.clone());
        assert!(parsed.is_err(), "{value}");
    }
}
