//! Recall from the shared PostgreSQL store with the real Claude Code: a
//! sub-agent's output captured on one "machine" (its own HOME, memory
//! folder and clone of the repository) reaches the model in the first
//! request of a session on another machine, whose memory folder never held
//! it, and the model's `agentctx mem show ID` reads its body from the
//! store. The store is a real PostgreSQL server in a throwaway cluster
//! (`crates/agentmem/tests/support/pg.rs`), named in each machine's user
//! config as a team would. Run with `scripts/e2e`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

#[path = "../../agentmem/tests/support/pg.rs"]
mod support_pg;

use std::path::Path;
use std::process::Command;

use agentctx_e2e::{Block, MockApi, Sandbox, Script, agentctx_bin, text_of_request};
use serde_json::json;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.email=e2e@example.invalid",
            "-c",
            "user.name=e2e",
        ])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// A machine of the team: the repository's remote, the store in the user
/// config (`~/.config/agentctx/config.yaml`), agentctx installed.
fn machine(store: &str) -> Sandbox {
    let s = Sandbox::new();
    s.write("README.md", "shared memory\n");
    s.write(
        ".claude/agents/researcher.md",
        "---\nname: researcher\ndescription: Researches the code base.\ntools: Read\n---\nYou research.\n",
    );
    s.commit();
    git(
        &s.root,
        &[
            "remote",
            "add",
            "origin",
            "https://git.example/team/shop.git",
        ],
    );
    let config = s.home.join(".config/agentctx/config.yaml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, format!("agentmem:\n  store: \"{store}\"\n")).unwrap();
    let run = s.install("claude", &["--user"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    s
}

#[test]
#[ignore = "needs the real Claude Code and PostgreSQL: scripts/e2e"]
fn a_capture_from_another_machine_is_recalled_and_fetched_from_the_shared_store() {
    let cluster = support_pg::TempCluster::start();
    let store = cluster.create_database("team");
    let a = machine(&store);
    let migrate = a.agentctx(&a.root, &["mem", "migrate"]);
    assert_eq!(migrate.code, Some(0), "{}", migrate.stderr);

    // Machine A: a sub-agent's output, captured and sent.
    let first = MockApi::start(
        Script::new()
            .conversation(
                "E2E-MAIN:a",
                vec![
                    vec![Block::tool(
                        "Agent",
                        json!({"description": "Study payments", "prompt": "E2E-SUB:pay study payments", "subagent_type": "researcher"}),
                    )],
                    vec![Block::text("MAIN-A-DONE")],
                ],
            )
            .conversation(
                "E2E-SUB:pay",
                vec![vec![Block::text(
                    "🎯 COMPLETED: [AGENT:researcher] SHARED-FINDING refunds need the ledger lock\n\nSHARED-BODY: take the ledger lock before a refund.",
                )]],
            ),
    );
    let run = a.claude(first.base_url(), &a.root, "E2E-MAIN:a go", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(a.captures().len(), 1, "{:?}", a.captures());
    let log = std::fs::read_to_string(a.home.join(".local/state/agentctx/agentmem.log"))
        .unwrap_or_default();
    assert!(log.contains("; sent to "), "{log}");

    // Machine B: another HOME, another clone, an empty memory folder.
    let b = machine(&store);
    assert!(b.captures().is_empty());
    let index = b.agentctx(&b.root, &["mem", "index"]);
    assert_eq!(index.code, Some(0), "{}", index.stderr);
    let id = index
        .stdout
        .lines()
        .find(|l| l.contains("SHARED-FINDING"))
        .and_then(|l| l.rsplit_once('['))
        .map(|(_, id)| id.trim_end_matches(']').to_owned())
        .unwrap_or_else(|| panic!("no index line: {}", index.stdout));
    let fetch = format!("{} mem show {id}", agentctx_bin().display());
    let second = MockApi::start(Script::new().conversation(
        "E2E-MAIN:b",
        vec![
            vec![Block::tool(
                "Bash",
                json!({"command": fetch, "description": "Read a finding of the team"}),
            )],
            vec![Block::text("MAIN-B-DONE")],
        ],
    ));
    let run = b.claude(second.base_url(), &b.root, "E2E-MAIN:b go", &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let requests = second.conversation("E2E-MAIN:b");
    assert!(requests.len() >= 2, "{} requests", requests.len());
    let opening = text_of_request(&requests[0]);
    assert!(
        opening.contains("<memory_index project=\"git.example/team/shop\" captures=\"1\">"),
        "{opening}"
    );
    assert!(
        opening.contains(&format!(
            "RESEARCH researcher: SHARED-FINDING refunds need the ledger lock [{id}]"
        )),
        "{opening}"
    );
    let after = text_of_request(&requests[1]);
    assert!(
        after.contains("SHARED-BODY: take the ledger lock before a refund."),
        "{after}"
    );
    // B's own memory folder still holds nothing: the body came from the store.
    assert!(b.captures().is_empty(), "{:?}", b.captures());
}
