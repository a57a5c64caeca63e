//! AgentMem's shared PostgreSQL store through the binary: capture, send,
//! migrate, sync and search, against a real PostgreSQL server (Debian's
//! `postgresql`; a throwaway cluster per test binary,
//! `crates/agentmem/tests/support/pg.rs`). Each "machine" is its own HOME
//! and memory folder (`common_pg`). The readers (recall, context, viewer,
//! MCP) are in `pg_readers_cli.rs`.

#![cfg(feature = "postgres")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common_pg;
#[path = "../../agentmem/tests/support/pg.rs"]
mod support_pg;

use std::process::{Command, Output};

use common_pg::{Machine, cluster, log, rows};

/// Without the rum extension the suite stops at the cluster's start with
/// the package of the server's major version (here its absence is a share
/// folder without `rum.control`; the machine's server has it).
#[test]
fn a_server_without_rum_names_the_package_to_install() {
    let share = tempfile::tempdir().unwrap();
    let missing =
        support_pg::missing_rum(share.path(), "PostgreSQL 15.14 (Debian 15.14-0+deb12u1)")
            .expect("no rum.control: missing");
    assert!(
        missing.contains("apt-get install postgresql-15-rum"),
        "{missing}"
    );
    std::fs::create_dir_all(share.path().join("extension")).unwrap();
    std::fs::write(share.path().join("extension/rum.control"), "").unwrap();
    assert_eq!(
        support_pg::missing_rum(share.path(), "PostgreSQL 15.14"),
        None
    );
}

#[test]
fn migrations_run_concurrently_and_twice() {
    let url = cluster().create_database("migrate");
    let machines: Vec<Machine> = (0..8).map(|_| Machine::new(&url)).collect();
    // At once: eight processes started together.
    let outs: Vec<Output> = std::thread::scope(|scope| {
        let handles: Vec<_> = machines
            .iter()
            .map(|m| scope.spawn(move || m.run(&["mem", "migrate"], None)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for out in &outs {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let again = machines[0].ok(&["mem", "migrate"]);
    assert!(again.contains("nothing to do"), "{again}");
    // The test cluster offers the rum extension (its start requires it;
    // scripts/test installs it).
    assert!(
        again.contains("phrases are searched with the RUM index"),
        "{again}"
    );
    let fresh = cluster().create_database("migrate_at_once");
    let machines: Vec<Machine> = (0..8).map(|_| Machine::new(&fresh)).collect();
    let outs: Vec<Output> = std::thread::scope(|scope| {
        let handles: Vec<_> = machines
            .iter()
            .map(|m| scope.spawn(move || m.run(&["mem", "migrate"], None)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let applied = outs
        .iter()
        .filter(|o| String::from_utf8_lossy(&o.stdout).contains("applied migration 1"))
        .count();
    assert!(outs.iter().all(|o| o.status.success()));
    assert_eq!(applied, 1, "exactly one process applies it");
}

#[test]
fn fifty_machines_capturing_one_run_make_one_row() {
    let url = cluster().create_database("dedupe");
    Machine::new(&url).ok(&["mem", "migrate"]);
    let machines: Vec<Machine> = (0..50).map(|_| Machine::new(&url)).collect();
    let outs: Vec<Output> = std::thread::scope(|scope| {
        let handles: Vec<_> = machines
            .iter()
            .map(|m| {
                scope.spawn(move || m.capture("run-1", "🎯 COMPLETED: [AGENT:engineer] One run"))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for out in &outs {
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty());
    }
    assert_eq!(rows(&url), 1);
    let queued: usize = machines.iter().map(Machine::outbox).sum();
    assert_eq!(queued, 0, "every machine reached the store");
}

#[test]
fn search_finds_english_words_and_japanese_inside_words() {
    let url = cluster().create_database("search");
    let m = Machine::new(&url);
    m.ok(&["mem", "migrate"]);
    m.capture(
        "en-1",
        "🎯 COMPLETED: [AGENT:engineer] Fixed the token refresh race in the auth middleware",
    );
    m.capture(
        "ja-1",
        "🎯 COMPLETED: [AGENT:engineer] 認証フローを調査した結果を報告",
    );
    m.capture("other", "🎯 COMPLETED: [AGENT:engineer] Unrelated cleanup");
    assert_eq!(rows(&url), 3, "{}", log(&m));
    let hits = |query: &str| -> Vec<serde_json::Value> {
        serde_json::from_str(&m.ok(&["--json", "mem", "search", query])).unwrap()
    };
    let en = hits("refresh");
    assert_eq!(en.len(), 1, "{en:?}");
    assert!(
        en[0]["completion"]
            .as_str()
            .unwrap()
            .contains("token refresh")
    );
    assert_eq!(hits("\"token refresh\"").len(), 1);
    assert_eq!(hits("middle*").len(), 1);
    let ja = hits("フロー");
    assert_eq!(ja.len(), 1, "{ja:?}");
    assert!(ja[0]["completion"].as_str().unwrap().contains("認証フロー"));
    assert_eq!(hits("調査").len(), 1);
    assert_eq!(hits("認").len(), 1);
    assert!(hits("フロア").is_empty());
    // show by the short id, list and stats read the store.
    let id = ja[0]["id"].as_str().unwrap();
    assert!(m.ok(&["mem", "show", id]).contains("認証フロー"));
    let short = agentctx_agentmem::short_id(id);
    assert!(m.ok(&["mem", "show", &short]).contains("認証フロー"));
    // LIKE's wildcards in an id mean themselves: `%` names no capture.
    for id in ["%", "_", "n%"] {
        assert!(!m.run(&["mem", "show", id], None).status.success(), "{id}");
    }
    let list: Vec<serde_json::Value> =
        serde_json::from_str(&m.ok(&["--json", "mem", "list"])).unwrap();
    assert_eq!(list.len(), 3);
    let stats: serde_json::Value =
        serde_json::from_str(&m.ok(&["--json", "mem", "stats"])).unwrap();
    assert_eq!(stats["total"], 3);
    // The same answers from GIN alone (a server without the rum
    // extension): the ranking reads the newest matches instead.
    let queries = [
        "refresh",
        "\"token refresh\"",
        "middle*",
        "フロー",
        "調査",
        "認",
        "フロア",
    ];
    let with_rum: Vec<usize> = queries.iter().map(|q| hits(q).len()).collect();
    let dropped = Command::new("psql")
        .args([url.as_str(), "-qc", "DROP INDEX agentmem_captures_rum"])
        .output()
        .unwrap();
    assert!(
        dropped.status.success(),
        "psql: {}",
        String::from_utf8_lossy(&dropped.stderr)
    );
    let with_gin: Vec<usize> = queries.iter().map(|q| hits(q).len()).collect();
    assert_eq!(with_rum, with_gin);
    assert_eq!(with_gin, [1, 1, 1, 1, 1, 1, 0]);
    let again = m.ok(&["mem", "migrate"]);
    assert!(
        again.contains("phrases are searched with the RUM index"),
        "{again}"
    );
    // Another machine, with no local captures, sees them all.
    let other = Machine::new(&url);
    let list: Vec<serde_json::Value> =
        serde_json::from_str(&other.ok(&["--json", "mem", "list"])).unwrap();
    assert_eq!(list.len(), 3);
}

#[test]
fn an_unreachable_store_keeps_the_capture_and_sync_sends_it_once() {
    // Nothing listens on this port: the store is down.
    let down = "postgres://agentctx@127.0.0.1:9/agentctx?connect_timeout=2";
    let url = cluster().create_database("outbox");
    let m = Machine::new(down);
    let out = m.capture(
        "late-1",
        "🎯 COMPLETED: [AGENT:engineer] Written while offline",
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    assert_eq!(m.outbox(), 1);
    assert!(
        log(&m).contains("queued for 127.0.0.1:9/agentctx"),
        "{}",
        log(&m)
    );
    // The store is back (and migrated): sync sends it, once.
    let m = Machine {
        store: url.clone(),
        ..m
    };
    m.ok(&["mem", "migrate"]);
    let synced = m.ok(&["mem", "sync"]);
    assert!(synced.contains("1 sent"), "{synced}");
    assert_eq!(m.outbox(), 0);
    assert_eq!(rows(&url), 1);
    let again = m.ok(&["mem", "sync"]);
    assert!(again.contains("0 sent"), "{again}");
    // An unmigrated store queues too, saying what to run.
    let bare = cluster().create_database("bare");
    let n = Machine::new(&bare);
    n.capture("late-2", "🎯 COMPLETED: [AGENT:engineer] Before migrate");
    assert_eq!(n.outbox(), 1);
    assert!(
        log(&n).contains("run `agentctx mem migrate`"),
        "{}",
        log(&n)
    );
}

#[test]
fn the_next_capture_sends_what_waited() {
    let url = cluster().create_database("along");
    let m = Machine::new("postgres://agentctx@127.0.0.1:9/agentctx?connect_timeout=2");
    m.capture("w-1", "🎯 COMPLETED: [AGENT:engineer] First while offline");
    m.capture("w-2", "🎯 COMPLETED: [AGENT:engineer] Second while offline");
    assert_eq!(m.outbox(), 2);
    let m = Machine {
        store: url.clone(),
        ..m
    };
    m.ok(&["mem", "migrate"]);
    m.capture("w-3", "🎯 COMPLETED: [AGENT:engineer] Online again");
    assert_eq!(m.outbox(), 0);
    assert_eq!(rows(&url), 3);
}

#[test]
fn a_project_file_cannot_name_the_store() {
    let m = Machine::new("");
    let project = m.dir.path().join("repo");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    // A cloned repository naming its own server, or a file of its own as
    // the password (read and sent to a server the user chose).
    for (key, yaml) in [
        (
            "agentmem.store",
            "agentmem:\n  store: postgres://attacker@evil.example/db\n",
        ),
        (
            "agentmem.store_password_file",
            "agentmem:\n  store_password_file: /etc/shadow\n",
        ),
    ] {
        std::fs::write(project.join(".agentctx.yaml"), yaml).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_agentctx"))
            .env_clear()
            .env("HOME", m.dir.path())
            .current_dir(&project)
            .args(["config"])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(key), "{stderr}");
    }
}

/// The row-level-security example of docs/agentmem.md, run: a worker
/// role reads only the captures of the repositories it is given.
#[test]
fn row_level_security_limits_a_worker_to_its_repositories() {
    let url = cluster().create_database("rls");
    let admin = Machine::new(&url);
    admin.ok(&["mem", "migrate"]);
    let psql = |sql: &str| {
        let out = Command::new("psql")
            .args([url.as_str(), "-v", "ON_ERROR_STOP=1", "-Atc", sql])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    for (key, remote) in [
        ("a", "github.com/acme/app"),
        ("b", "github.com/acme/secret"),
    ] {
        psql(&format!(
            "INSERT INTO agentmem_captures (capture_key, name, short, time, category, agent, source, session,
               project, completion, description, remote, root_commit, pname, top, package, body, document, search)
             VALUES ('{key}', 'n-{key}', 's-{key}', '2026-11-25 10:00:00', 'RESEARCH', 'engineer', '', '', '',
               'about {key}', '', '{remote}', '', '', '', '', 'body', 'doc', to_tsvector('simple', 'body'))"
        ));
    }
    psql(include_str!("../../../docs/examples/agentmem-rls.sql"));
    psql("INSERT INTO agentmem_readers VALUES ('worker_a', 'github.com/acme/app')");
    let worker = Machine::new(&url.replacen("agentctx@", "worker_a@", 1));
    let list: Vec<serde_json::Value> =
        serde_json::from_str(&worker.ok(&["--json", "mem", "list"])).unwrap();
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0]["identity"]["remote"], "github.com/acme/app");
    // The owner (a superuser here) still sees both.
    let all: Vec<serde_json::Value> =
        serde_json::from_str(&admin.ok(&["--json", "mem", "list"])).unwrap();
    assert_eq!(all.len(), 2);
    // Recall's totals come from the per-project counts: the worker's is
    // its repository's, and the other repository's count is hidden too.
    let total = |m: &Machine, remote: &str| -> u64 {
        let repo = m.dir.path().join(remote.replace('/', "_"));
        common_pg::clone_of(&repo, &format!("https://{remote}"));
        let out = m.run_in(&repo, &["--json", "mem", "index"], None);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let index: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        index["matches"].as_u64().unwrap()
    };
    assert_eq!(total(&worker, "github.com/acme/app"), 1);
    assert_eq!(total(&worker, "github.com/acme/secret"), 0);
    assert_eq!(total(&admin, "github.com/acme/secret"), 1);
}

/// A clone of `https://git.example/team/<name>.git` at `dir` (only what
/// identity reads: the remote).
#[test]
fn sync_all_sends_what_was_captured_before_the_store_was_set() {
    let url = cluster().create_database("backfill");
    let before = Machine::new("");
    before.capture("old-1", "🎯 COMPLETED: [AGENT:engineer] BEFORE-STORE one");
    before.capture("old-2", "🎯 COMPLETED: [AGENT:engineer] BEFORE-STORE two");
    let m = Machine {
        store: url.clone(),
        ..before
    };
    m.ok(&["mem", "migrate"]);
    m.capture("new-1", "🎯 COMPLETED: [AGENT:engineer] AFTER-STORE");
    assert_eq!(rows(&url), 1);
    let plain = m.ok(&["mem", "sync"]);
    assert!(plain.contains("0 sent"), "{plain}");
    let all = m.ok(&["mem", "sync", "--all"]);
    assert!(all.contains("2 sent, 1 already there"), "{all}");
    assert_eq!(rows(&url), 3);
    let again = m.ok(&["mem", "sync", "--all"]);
    assert!(again.contains("0 sent, 3 already there"), "{again}");
    let found: Vec<serde_json::Value> =
        serde_json::from_str(&m.ok(&["--json", "mem", "search", "BEFORE-STORE"])).unwrap();
    assert_eq!(found.len(), 2);
}
