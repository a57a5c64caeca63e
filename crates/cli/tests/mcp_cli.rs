//! The server through the SDK's own client, over stdio, as an agent runs
//! it (`agentctx mcp` as a child process): the tools listed and filtered,
//! their input schemas, what each answers, budgets and paging, byte
//! stability.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};

#[path = "../../filelist/tests/support/server.rs"]
mod server;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

fn agentctx() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_agentctx"))
}

/// A project: a git repository with rules, a nested AGENTS.md and a secret.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let write = |p: &str, text: &str| {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(".git/HEAD", "ref: refs/heads/main\n");
    write("AGENTS.md", "ROOT-RULES\n");
    write("packages/api/AGENTS.md", "API-RULES\n");
    write("packages/api/src/main.rs", "fn main() {}\n");
    write("secrets/key.txt", "SECRET\n");
    write(
        ".coding-agent-rules.yaml",
        "system_prompt_extension: EXTENSION-TEXT\nfile_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    for i in 0..300 {
        write(&format!("src/file{i:03}.rs"), "x\n");
    }
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    dir
}

async fn start(dir: &Path, args: &[&str]) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(agentctx());
    command
        .arg("mcp")
        .args(args)
        .current_dir(dir.join("repo"))
        .env_clear()
        .env("HOME", dir.join("home"))
        .env("PATH", "/usr/bin:/bin");
    ().serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
}

async fn call(client: &RunningService<RoleClient, ()>, tool: &str, arguments: Value) -> String {
    let result = client
        .call_tool(
            CallToolRequestParams::new(tool.to_owned())
                .with_arguments(arguments.as_object().unwrap().clone()),
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
}

#[tokio::test(flavor = "current_thread")]
async fn nine_tools_with_the_schemas_of_their_types_and_a_filter() {
    let dir = project();
    let client = start(dir.path(), &[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names.len(), 9, "{names:?}");
    for (tool, schema) in [
        ("context", "mcp-context"),
        ("agents_resolve", "mcp-agents-resolve"),
        ("rules_check", "mcp-rules-check"),
        ("files", "mcp-files"),
        ("mem_search", "mcp-mem-query"),
        ("mem_get", "mcp-id"),
        ("mem_save", "mcp-mem-save"),
    ] {
        let listed = tools.iter().find(|t| t.name == tool).unwrap();
        let listed: Value = serde_json::to_value(&listed.input_schema).unwrap();
        let typed = serde_json::to_value(agentctx_types::schema_named(schema).unwrap()).unwrap();
        let keys = |v: &Value| {
            let mut k: Vec<String> = v["properties"]
                .as_object()
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default();
            k.sort();
            k
        };
        assert_eq!(keys(&listed), keys(&typed), "{tool}");
    }
    client.cancel().await.unwrap();
    let only = start(dir.path(), &["--tools", "context,rules_check"]).await;
    let names: Vec<String> = only
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["context", "rules_check"]);
    only.cancel().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn context_resolve_and_rules_answer_as_the_hooks_do() {
    let dir = project();
    let client = start(dir.path(), &[]).await;
    let context = call(&client, "context", json!({})).await;
    assert!(context.contains("EXTENSION-TEXT"), "{context}");
    assert!(context.contains("ROOT-RULES"), "{context}");
    assert!(context.contains("<project_files"), "{context}");
    assert_eq!(
        call(&client, "context", json!({})).await,
        context,
        "byte-stable"
    );

    let resolved = call(
        &client,
        "agents_resolve",
        json!({"paths": ["packages/api/src/main.rs"]}),
    )
    .await;
    assert!(
        resolved.contains("packages/api/AGENTS.md (mtime: "),
        "{resolved}"
    );
    assert!(
        !resolved.contains("API-RULES"),
        "paths, never bodies: {resolved}"
    );
    let again = call(
        &client,
        "agents_resolve",
        json!({"paths": ["packages/api"]}),
    )
    .await;
    assert!(
        again.starts_with("No AGENTS.md is new or changed"),
        "once: {again}"
    );

    let denied = call(&client, "rules_check", json!({"path": "secrets/key.txt"})).await;
    assert!(
        denied.starts_with("Denied: reading `secrets/key.txt`"),
        "{denied}"
    );
    assert!(denied.contains("secrets/"), "{denied}");
    let allowed = call(
        &client,
        "rules_check",
        json!({"path": "src/file001.rs", "access": "write"}),
    )
    .await;
    assert!(allowed.starts_with("Allowed: writing"), "{allowed}");
    let protected = call(
        &client,
        "rules_check",
        json!({"path": ".coding-agent-rules.yaml", "access": "write"}),
    )
    .await;
    assert!(protected.starts_with("Denied: writing"), "{protected}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn long_answers_come_in_pages_of_whole_lines_that_join_back() {
    let dir = project();
    let client = start(dir.path(), &[]).await;
    let whole = call(&client, "files", json!({"max_tokens": 100_000})).await;
    assert!(!whole.contains("[agentctx: "), "{whole}");
    let mut joined = String::new();
    let mut cursor = 0u64;
    let mut pages = 0;
    loop {
        let page = call(
            &client,
            "files",
            json!({"max_tokens": 12, "cursor": cursor}),
        )
        .await;
        pages += 1;
        match page.rsplit_once("\n[agentctx: ") {
            Some((body, footer)) => {
                joined.push_str(body);
                let next = footer.split("cursor=").nth(1).unwrap();
                cursor = next.split(' ').next().unwrap().parse().unwrap();
            }
            None => {
                joined.push_str(&page);
                break;
            }
        }
    }
    assert!(pages > 2, "{pages} pages");
    assert_eq!(joined, whole);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn memory_saved_is_found_and_read_back() {
    let dir = project();
    let client = start(dir.path(), &[]).await;
    let saved = call(
        &client,
        "mem_save",
        json!({"text": "The cache warms at start.\n\nMCP-SAVED-BODY: warm it.", "agent": "researcher"}),
    )
    .await;
    assert!(saved.starts_with("Saved as "), "{saved}");
    let id = saved
        .split("(id ")
        .nth(1)
        .unwrap()
        .trim_end_matches(").\n")
        .to_owned();
    let again = call(&client, "mem_save", json!({"text": "The cache warms at start.\n\nMCP-SAVED-BODY: warm it.", "agent": "researcher"})).await;
    assert!(again.starts_with("Already saved"), "{again}");
    let found = call(&client, "mem_search", json!({"query": "cache"})).await;
    assert!(found.contains(&format!("[{id}]")), "{found}");
    let body = call(&client, "mem_get", json!({"id": id})).await;
    assert!(body.contains("MCP-SAVED-BODY: warm it."), "{body}");
    let missing = call(&client, "output_get", json!({"id": "0123456789ab"})).await;
    assert!(
        missing.starts_with("agentctx: output_get failed"),
        "{missing}"
    );
    client.cancel().await.unwrap();
}

/// `install --mcp` registers the server beside the project's own servers
/// and in Codex's config; uninstall gives back the files byte for byte.
#[test]
fn install_mcp_registers_the_server_and_uninstall_restores_every_byte() {
    let dir = project();
    let root = dir.path().join("repo");
    let home = dir.path().join("home");
    let codex = dir.path().join("codex-home");
    std::fs::create_dir_all(&codex).unwrap();
    let mine = "{\n  \"mcpServers\": {\"github\": {\"command\": \"gh\"}}\n}\n";
    std::fs::write(root.join(".mcp.json"), mine).unwrap();
    let config = "model = \"gpt-5.5\" # mine\n";
    std::fs::write(codex.join("config.toml"), config).unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(agentctx())
            .args(args)
            .current_dir(&root)
            .env_clear()
            .env("HOME", &home)
            .env("CODEX_HOME", &codex)
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // The hooks name a program given here, not the test's binary: where
    // the build folder is (a temporary one) does not change the test.
    for (agent, version) in [("claude", "2.1.330"), ("codex", "0.169.0")] {
        run(&[
            "install",
            agent,
            "--mcp",
            "--agent-version",
            version,
            "--program",
            "/opt/bin/agentctx",
        ]);
    }
    let servers: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(servers["mcpServers"]["agentctx"]["args"], json!(["mcp"]));
    assert_eq!(servers["mcpServers"]["github"]["command"], "gh");
    let toml = std::fs::read_to_string(codex.join("config.toml")).unwrap();
    assert!(
        toml.contains("[mcp_servers.agentctx]") && toml.contains("# mine"),
        "{toml}"
    );
    run(&["uninstall", "claude"]);
    run(&["uninstall", "codex"]);
    assert_eq!(
        std::fs::read_to_string(root.join(".mcp.json")).unwrap(),
        mine
    );
    assert_eq!(
        std::fs::read_to_string(codex.join("config.toml")).unwrap(),
        config
    );
}

/// Gemini CLI, Copilot CLI, opencode and Qwen Code: `install X --user
/// --mcp` writes their hooks (opencode: the plugin) and MCP server from any
/// folder (no project needed), twice is once, and uninstall gives back
/// every byte.
#[test]
fn install_hooks_and_mcp_for_the_other_agents_and_uninstall_restores_every_byte() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let outside = dir.path().join("anywhere");
    std::fs::create_dir_all(&outside).unwrap();
    let gemini = home.join(".gemini/settings.json");
    std::fs::create_dir_all(gemini.parent().unwrap()).unwrap();
    let mine = "{\n  \"ui\": {\"theme\": \"GitHub\"}\n}\n";
    std::fs::write(&gemini, mine).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(agentctx())
            .args(args)
            .current_dir(&outside)
            .env_clear()
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", dir.path().join("xdg"))
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap()
    };
    for agent in ["gemini", "copilot", "opencode", "qwen"] {
        for _ in 0..2 {
            // A program given, not the test's binary (in a temporary folder
            // when the build folder is one).
            let out = run(&[
                "install",
                agent,
                "--user",
                "--mcp",
                "--program",
                "/opt/bin/agentctx",
            ]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let settings: Value = serde_json::from_str(&std::fs::read_to_string(&gemini).unwrap()).unwrap();
    assert_eq!(settings["ui"]["theme"], "GitHub");
    assert_eq!(settings["mcpServers"]["agentctx"]["args"], json!(["mcp"]));
    let opencode = dir.path().join("xdg/opencode/opencode.json");
    let config: Value = serde_json::from_str(&std::fs::read_to_string(&opencode).unwrap()).unwrap();
    assert_eq!(config["mcp"]["agentctx"]["command"][1], "mcp");
    assert!(home.join(".copilot/mcp-config.json").exists());
    assert!(home.join(".qwen/settings.json").exists());
    for agent in ["gemini", "copilot", "opencode", "qwen"] {
        let out = run(&["uninstall", agent, "--user"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(std::fs::read_to_string(&gemini).unwrap(), mine);
    assert!(!dir.path().join("xdg/opencode/plugin").exists());
    assert!(!home.join(".copilot/settings.json").exists());
    assert!(!opencode.exists());
    assert!(!home.join(".copilot/mcp-config.json").exists());
    assert!(!home.join(".qwen/settings.json").exists());
}

/// Streamable HTTP on 127.0.0.1: an `initialize` is answered; a request
/// naming another `Host` (a page that rebinds its name to 127.0.0.1) is
/// refused.
#[test]
fn http_answers_on_loopback_and_refuses_another_host() {
    use std::io::{BufRead as _, Read as _, Write as _};
    let dir = project();
    let mut child = std::process::Command::new(agentctx())
        .args(["mcp", "--http"])
        .current_dir(dir.path().join("repo"))
        .env_clear()
        .env("HOME", dir.path().join("home"))
        .env("PATH", "/usr/bin:/bin")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let address = first
        .trim()
        .strip_prefix("listening on http://")
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let post = |host: &str| {
        let mut stream = std::net::TcpStream::connect(&address).unwrap();
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .unwrap();
        write!(
            stream,
            "POST / HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        // Until the first event arrives (the stream may stay open).
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                break;
            }
            answer.extend_from_slice(&buf[..n]);
            if String::from_utf8_lossy(&answer).contains("serverInfo") {
                break;
            }
        }
        String::from_utf8_lossy(&answer).into_owned()
    };
    let answer = post(&address);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("serverInfo"), "{answer}");
    let refused = post("evil.example");
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    child.kill().unwrap();
    child.wait().unwrap();
}

/// `files` with `remote` and `file` reads lines of one file of a
/// repository that is not cloned (a scripted API on 127.0.0.1, answers in
/// GitHub's documented shapes: a guess, as this machine cannot reach it).
#[tokio::test(flavor = "current_thread")]
async fn a_remote_file_is_read_by_lines() {
    let sha = "c0ffee0000000000000000000000000000000001";
    let s = server::Server::start();
    s.route("/repos/acme/app/commits/main", server::ok(sha.into()));
    let tree = r#"{"sha": "t", "url": "x", "truncated": false, "tree": [
        {"path": "src", "mode": "040000", "type": "tree"},
        {"path": "src/lib.rs", "mode": "100644", "type": "blob", "size": 40}
    ]}"#;
    s.route(
        &format!("/repos/acme/app/git/trees/{sha}?recursive=1"),
        server::ok(tree.into()),
    );
    let body: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    s.route(
        &format!("/repos/acme/app/contents/src/lib.rs?ref={sha}"),
        server::ok(body),
    );
    let dir = project();
    let client = start(dir.path(), &["--api-url", &s.base]).await;
    let lines = call(
        &client,
        "files",
        json!({"remote": "github:acme/app@main", "file": "src/lib.rs", "lines": "3-5"}),
    )
    .await;
    assert_eq!(
        lines,
        format!("acme/app@{sha}:src/lib.rs lines 3-5 of 10\nline 3\nline 4\nline 5\n")
    );
    client.cancel().await.unwrap();
}
