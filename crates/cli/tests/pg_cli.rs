//! AgentMem's shared PostgreSQL store through the binary, against a real
//! PostgreSQL server (Debian's `postgresql`; a throwaway cluster per test
//! binary, `crates/agentmem/tests/support/pg.rs`). Each "machine" is its
//! own HOME and memory folder.

#![cfg(feature = "postgres")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

#[path = "../../agentmem/tests/support/pg.rs"]
mod support_pg;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use support_pg::TempCluster;

fn cluster() -> &'static TempCluster {
    static CLUSTER: OnceLock<TempCluster> = OnceLock::new();
    CLUSTER.get_or_init(TempCluster::start)
}

/// A machine: a HOME whose memory folder is its own.
struct Machine {
    dir: tempfile::TempDir,
    store: String,
}

impl Machine {
    fn new(store: &str) -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            store: store.to_owned(),
        }
    }

    fn memory(&self) -> PathBuf {
        self.dir.path().join("memory")
    }

    fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        self.run_in(self.dir.path(), args, stdin)
    }

    /// The environment of this machine, for a command of its own.
    fn command(&self, cwd: &std::path::Path) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentctx"));
        cmd.env_clear()
            .env("HOME", self.dir.path())
            .env("PATH", "/usr/bin:/bin")
            .env("AGENTMEM_ROOT", self.memory())
            .env("AGENTMEM_STORE", &self.store)
            .env("XDG_STATE_HOME", self.dir.path().join("state"))
            .current_dir(cwd);
        cmd
    }

    fn run_in(&self, cwd: &std::path::Path, args: &[&str], stdin: Option<&str>) -> Output {
        let mut cmd = self.command(cwd);
        cmd.args(args)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        if let Some(text) = stdin {
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
        }
        child.wait_with_output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args, None);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn capture(&self, agent_id: &str, message: &str) -> Output {
        self.run(&["mem", "capture"], Some(&hook_json(agent_id, message)))
    }

    fn outbox(&self) -> usize {
        std::fs::read_dir(self.memory().join(".agentmem/outbox"))
            .map(|d| d.count())
            .unwrap_or(0)
    }
}

fn hook_json(agent_id: &str, message: &str) -> String {
    serde_json::json!({
        "session_id": "s-1",
        "transcript_path": "/nonexistent/s-1.jsonl",
        "cwd": "/nonexistent/app",
        "hook_event_name": "SubagentStop",
        "agent_id": agent_id,
        "agent_type": "engineer",
        "agent_transcript_path": format!("/nonexistent/agent-{agent_id}.jsonl"),
        "last_assistant_message": message,
    })
    .to_string()
}

fn rows(url: &str) -> i64 {
    let out = Command::new("psql")
        .args([url, "-Atc", "SELECT count(*) FROM agentmem_captures"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(-1)
}

fn log(machine: &Machine) -> String {
    std::fs::read_to_string(machine.dir.path().join("state/agentctx/agentmem.log"))
        .unwrap_or_default()
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
    // The test cluster offers the rum extension (.ci/run installs it).
    assert!(again.contains("search ranks with the RUM index"), "{again}");
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
        .status()
        .unwrap();
    assert!(dropped.success());
    let with_gin: Vec<usize> = queries.iter().map(|q| hits(q).len()).collect();
    assert_eq!(with_rum, with_gin);
    assert_eq!(with_gin, [1, 1, 1, 1, 1, 1, 0]);
    let again = m.ok(&["mem", "migrate"]);
    assert!(again.contains("search ranks with the RUM index"), "{again}");
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
}

/// A clone of `https://git.example/team/<name>.git` at `dir` (only what
/// identity reads: the remote).
fn clone_at(dir: &std::path::Path, name: &str) {
    std::fs::create_dir_all(dir).unwrap();
    for args in [
        vec!["init", "-q"],
        vec![
            "remote",
            "add",
            "origin",
            &format!("https://git.example/team/{name}.git"),
        ],
    ] {
        let ok = Command::new("git")
            .args(&args)
            .current_dir(dir)
            .env("HOME", dir)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }
}

fn hook_json_in(cwd: &std::path::Path, agent_id: &str, agent: &str, message: &str) -> String {
    let mut hook: serde_json::Value = serde_json::from_str(&hook_json(agent_id, message)).unwrap();
    hook["cwd"] = cwd.display().to_string().into();
    hook["agent_type"] = agent.into();
    hook.to_string()
}

#[test]
fn recall_context_and_show_read_the_shared_store_from_another_machine() {
    let url = cluster().create_database("recall");
    let a = Machine::new(&url);
    a.ok(&["mem", "migrate"]);
    let a_repo = a.dir.path().join("src/billing");
    clone_at(&a_repo, "billing");
    let other = a.dir.path().join("src/web");
    clone_at(&other, "web");
    for (cwd, id, agent, message) in [
        (
            &a_repo,
            "b-1",
            "researcher",
            "🎯 COMPLETED: [AGENT:researcher] The billing retry uses exponential backoff capped at 5 minutes",
        ),
        (
            &a_repo,
            "b-2",
            "architect",
            "🎯 COMPLETED: [AGENT:architect] Chose idempotency keys for billing webhooks",
        ),
        (
            &other,
            "w-1",
            "researcher",
            "🎯 COMPLETED: [AGENT:researcher] WEB-ONLY finding about billing pages",
        ),
    ] {
        let out = a.run(
            &["mem", "capture"],
            Some(&hook_json_in(cwd, id, agent, message)),
        );
        assert!(out.status.success());
    }
    assert_eq!(rows(&url), 3, "{}", log(&a));
    // Another machine: its own HOME and memory folder (never created),
    // its clone of the same repository at another path.
    let b = Machine::new(&url);
    let b_repo = b.dir.path().join("work/billing-clone");
    clone_at(&b_repo, "billing");
    let index = b.run_in(&b_repo, &["mem", "index"], None);
    assert!(
        index.status.success(),
        "{}",
        String::from_utf8_lossy(&index.stderr)
    );
    let index = String::from_utf8(index.stdout).unwrap();
    assert!(
        index.starts_with("<memory_index project=\"git.example/team/billing\" captures=\"2\">"),
        "{index}"
    );
    // The decision first (it outranks research of the same day).
    let decision = index.find("idempotency keys").unwrap();
    let research = index.find("exponential backoff").unwrap();
    assert!(decision < research, "{index}");
    assert!(!index.contains("WEB-ONLY"), "{index}");
    assert!(!b.memory().exists(), "recall created no memory folder");
    // Filters bind their values (a category, an agent, the project).
    let research: Vec<serde_json::Value> = serde_json::from_str(&b.ok(&[
        "--json",
        "mem",
        "list",
        "--category",
        "research",
        "--agent",
        "researcher",
    ]))
    .unwrap();
    assert_eq!(research.len(), 2, "{research:?}");
    // The ids it shows are what `mem show` takes, from the store.
    let short = index
        .lines()
        .find(|l| l.contains("exponential backoff"))
        .and_then(|l| {
            l.rsplit_once('[')
                .map(|(_, id)| id.trim_end_matches(']').to_owned())
        })
        .unwrap();
    let shown = b.ok(&["mem", "show", &short]);
    assert!(
        shown.contains("## Agent Output") && shown.contains("capped at 5 minutes"),
        "{shown}"
    );
    // `mem context` ranks the store's matches and shows their output.
    let out = b.run_in(
        &b_repo,
        &["mem", "context", "--this-project", "billing"],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let block = String::from_utf8(out.stdout).unwrap();
    assert!(
        block.starts_with("<memory_context query=\"billing\">"),
        "{block}"
    );
    assert!(
        block.contains("capped at 5 minutes") && block.contains("idempotency keys"),
        "{block}"
    );
    assert!(
        block.contains(&format!(
            "postgres:{}/",
            url.split_once('@').unwrap().1.split('?').next().unwrap()
        )),
        "{block}"
    );
    assert!(!block.contains("WEB-ONLY"), "{block}");
    // A small budget cuts whole entries (token counts are made without a
    // memory folder to keep them in).
    let out = b.run_in(
        &b_repo,
        &[
            "--json",
            "mem",
            "context",
            "--this-project",
            "--max-tokens",
            "120",
            "billing",
        ],
        None,
    );
    let small: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (small["matches"].as_u64(), small["shown"].as_u64()),
        (Some(2), Some(1)),
        "{small}"
    );
}

#[test]
fn recall_falls_back_to_the_memory_folder_while_the_store_is_down() {
    let url = cluster().create_database("recall_down");
    let m = Machine::new(&url);
    m.ok(&["mem", "migrate"]);
    let repo = m.dir.path().join("src/app");
    clone_at(&repo, "app");
    m.run(
        &["mem", "capture"],
        Some(&hook_json_in(
            &repo,
            "d-1",
            "researcher",
            "🎯 COMPLETED: [AGENT:researcher] LOCAL-AND-SHARED finding",
        )),
    );
    let down = Machine {
        store: "postgres://agentctx@127.0.0.1:9/agentctx?connect_timeout=1".into(),
        ..m
    };
    let out = down.run_in(&repo, &["-v", "mem", "index"], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("LOCAL-AND-SHARED"));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("recalling from the memory folder"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn viewer_get(address: &str, target: &str) -> (u16, String) {
    use std::io::Read as _;
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET {target} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, response)
}

#[cfg(feature = "viewer")]
#[test]
fn the_viewer_reads_the_shared_store() {
    use std::io::BufRead as _;
    let url = cluster().create_database("viewer");
    let a = Machine::new(&url);
    a.ok(&["mem", "migrate"]);
    a.capture(
        "v-1",
        "🎯 COMPLETED: [AGENT:engineer] VIEWER-SHARED <b>result</b>",
    );
    let b = Machine::new(&url);
    let mut child = b
        .command(b.dir.path())
        .args(["mem", "serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .trim()
        .trim_start_matches("listening on http://")
        .trim_end_matches('/')
        .to_owned();
    let (status, list) = viewer_get(&address, "/?q=viewer");
    let (_, again) = viewer_get(&address, "/");
    let name: serde_json::Value = serde_json::from_str(&b.ok(&["--json", "mem", "list"])).unwrap();
    let id = name[0]["id"].as_str().unwrap().to_owned();
    let (page_status, page) = viewer_get(&address, &format!("/capture?id={id}"));
    let (missing, _) = viewer_get(&address, "/capture?id=nothing-like-it");
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(status, 200);
    assert!(
        list.contains("1 captures") && list.contains("VIEWER-SHARED &#60;b&#62;result"),
        "{list}"
    );
    assert!(again.contains("VIEWER-SHARED"), "{again}");
    assert_eq!(page_status, 200, "{page}");
    assert!(
        page.contains("VIEWER-SHARED") && !page.contains("<b>result"),
        "{page}"
    );
    assert_eq!(missing, 404);
}

#[tokio::test(flavor = "current_thread")]
async fn the_mcp_memory_tools_read_and_write_the_shared_store() {
    use rmcp::ServiceExt as _;
    use rmcp::model::CallToolRequestParams;
    let url = cluster().create_database("mcp");
    let a = Machine::new(&url);
    a.ok(&["mem", "migrate"]);
    let start = |m: &Machine| {
        let cmd = tokio::process::Command::from(m.command(m.dir.path()));
        let mut cmd = cmd;
        cmd.arg("mcp").stderr(Stdio::null());
        rmcp::transport::TokioChildProcess::new(cmd).unwrap()
    };
    let call = async |client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
                      tool: &str,
                      args: serde_json::Value|
           -> String {
        let result = client
            .call_tool(
                CallToolRequestParams::new(tool.to_owned())
                    .with_arguments(args.as_object().unwrap().clone()),
            )
            .await
            .unwrap();
        let value = serde_json::to_value(&result).unwrap();
        value["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["text"].as_str())
            .collect()
    };
    let writer = ().serve(start(&a)).await.unwrap();
    let saved = call(
        &writer,
        "mem_save",
        serde_json::json!({"text": "MCP-SHARED: the queue drains at night.\n\nBody of MCP-SHARED.", "agent": "researcher"}),
    )
    .await;
    assert!(saved.starts_with("Saved as "), "{saved}");
    writer.cancel().await.unwrap();
    assert_eq!(rows(&url), 1, "{}", log(&a));
    let b = Machine::new(&url);
    let reader = ().serve(start(&b)).await.unwrap();
    let found = call(
        &reader,
        "mem_search",
        serde_json::json!({"query": "queue drains", "all_projects": true}),
    )
    .await;
    assert!(found.contains("MCP-SHARED"), "{found}");
    let id = found
        .lines()
        .next()
        .and_then(|l| l.rsplit_once('['))
        .map(|(_, id)| id.trim_end_matches(']').to_owned())
        .unwrap();
    // Several calls on one server: its pooled connection serves them all.
    for _ in 0..3 {
        let body = call(&reader, "mem_get", serde_json::json!({"id": id})).await;
        assert!(body.contains("Body of MCP-SHARED."), "{body}");
    }
    let block = call(
        &reader,
        "mem_context",
        serde_json::json!({"query": "queue", "all_projects": true}),
    )
    .await;
    assert!(block.contains("Body of MCP-SHARED."), "{block}");
    reader.cancel().await.unwrap();
    let connections = Command::new("psql")
        .args([
            url.as_str(),
            "-Atc",
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'agentctx'",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&connections.stdout).trim(),
        "0",
        "the server closed its connections"
    );
}

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

#[test]
fn recall_ranks_all_of_a_project_not_only_its_newest() {
    let url = cluster().create_database("recall_bound");
    let m = Machine::new(&url);
    m.ok(&["mem", "migrate"]);
    let repo = m.dir.path().join("src/big");
    clone_at(&repo, "big");
    // 600 captures of the project over two years, kinds and ages mixed so
    // that old decisions outrank newer notes, and some times without a date.
    let insert = "INSERT INTO agentmem_captures (capture_key, name, short, time, category, agent,
        source, session, project, completion, description, remote, root_commit, pname, top, package,
        body, document, search)
      SELECT 'k' || i, 'n' || lpad(i::text, 4, '0'), substr(md5('n' || i), 1, 10),
        CASE WHEN i % 97 = 0 THEN 'garbled' ELSE
          to_char(DATE '2026-11-25' - ((i * 7919) % 730), 'YYYY-MM-DD') || ' 10:00:00' END,
        (ARRAY['DECISION', 'NOTES', 'RESEARCH', 'IMPLEMENTATION'])[1 + i % 4], 'r', 'claude-hook',
        's', '/x', 'finding ' || i, '', 'git.example/team/big', '', '', '/x', '', 'b', 'd',
        to_tsvector('simple', 'finding')
      FROM generate_series(1, 600) i";
    let ok = Command::new("psql")
        .args([url.as_str(), "-qc", insert])
        .status()
        .unwrap();
    assert!(ok.success());
    let out = m.run_in(
        &repo,
        &["-c", "agentmem.recall.max_tokens=4000", "mem", "index"],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = String::from_utf8(out.stdout).unwrap();
    let shown: Vec<&str> = index
        .lines()
        .filter(|l| l.starts_with("- "))
        .filter_map(|l| l.rsplit_once('[').map(|(_, id)| id.trim_end_matches(']')))
        .collect();
    assert!(shown.len() > 20, "{index}");
    // The same ranking over every row, in SQL.
    let all = format!(
        "SELECT short FROM agentmem_captures c ORDER BY
           (CASE upper(c.category) WHEN 'DECISION' THEN 1.0 WHEN 'IMPLEMENTATION' THEN 0.9
              WHEN 'RESEARCH' THEN 0.8 ELSE 0.7 END)
           / (1.0 + greatest(0, coalesce(DATE '{}' - c.day, 0)) / 30.0) DESC, c.time DESC, c.name
         LIMIT {}",
        jiff::Zoned::now().date(),
        shown.len()
    );
    let out = Command::new("psql")
        .args([url.as_str(), "-Atc", &all])
        .output()
        .unwrap();
    let expected: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(shown, expected);
    // Old decisions made it in among newer captures.
    assert!(index.contains("DECISION"), "{index}");
    assert!(
        index.contains("????-??-??"),
        "a time without a date ranks as today: {index}"
    );
}
