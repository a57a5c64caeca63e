//! A minimal MCP client of `agentctx mcp`, as an agent author would write
//! one: start the server in a project, list its tools, ask for the context,
//! check a path against the rules.
//!
//! ```sh
//! cargo build -p agentctx-cli
//! cargo run -p agentctx-mcp --example client -- target/debug/agentctx /path/to/project
//! ```

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let program = args.next().unwrap_or_else(|| "agentctx".to_owned());
    let project = args.next().unwrap_or_else(|| ".".to_owned());
    let mut server = tokio::process::Command::new(program);
    server.arg("mcp").current_dir(project);
    let client = ().serve(TokioChildProcess::new(server)?).await?;

    for tool in client.list_all_tools().await? {
        println!("tool {}", tool.name);
    }
    let ask = |name: &str, arguments: serde_json::Value| {
        let arguments = arguments.as_object().cloned().unwrap_or_default();
        CallToolRequestParams::new(name.to_owned()).with_arguments(arguments)
    };
    for request in [
        ask("context", serde_json::json!({"max_tokens": 2000})),
        ask("rules_check", serde_json::json!({"path": ".env"})),
    ] {
        let result = client.call_tool(request).await?;
        for content in serde_json::to_value(&result)?["content"]
            .as_array()
            .into_iter()
            .flatten()
        {
            print!("{}", content["text"].as_str().unwrap_or_default());
        }
    }
    client.cancel().await?;
    Ok(())
}
