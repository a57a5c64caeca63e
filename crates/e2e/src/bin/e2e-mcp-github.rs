//! A stand-in MCP server named `github` for the end-to-end suite (stdio,
//! newline-delimited JSON-RPC): `delete_file` and `get_file_contents`,
//! each of which leaves a marker file in `$E2E_MCP_MARKERS` when called,
//! so a test can tell whether a call really ran.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test tooling")]

use std::io::{BufRead, Write};

use serde_json::{Value, json};

fn main() {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = request.get("id").cloned() else {
            continue; // a notification
        };
        let result = match request["method"].as_str().unwrap_or("") {
            "initialize" => json!({
                "protocolVersion": request["params"]["protocolVersion"].as_str().unwrap_or("2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "github", "version": "0.0.0"},
            }),
            "tools/list" => json!({"tools": [
                tool("delete_file", "Delete a file in a repository."),
                tool("get_file_contents", "Read a file in a repository."),
            ]}),
            "tools/call" => {
                let name = request["params"]["name"].as_str().unwrap_or("");
                if let Some(dir) = std::env::var_os("E2E_MCP_MARKERS") {
                    let _ = std::fs::create_dir_all(&dir);
                    let _ = std::fs::write(std::path::Path::new(&dir).join(name), "called");
                }
                json!({"content": [{"type": "text", "text": format!("MCP-{name}-RAN")}]})
            }
            _ => json!({}),
        };
        let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
        writeln!(stdout, "{reply}").unwrap();
        stdout.flush().unwrap();
    }
}

fn tool(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {
            "owner": {"type": "string"}, "repo": {"type": "string"},
            "path": {"type": "string"}, "message": {"type": "string"},
        }},
    })
}
