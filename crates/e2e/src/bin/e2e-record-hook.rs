//! Records a hook's stdin for the end-to-end suite: `e2e-record-hook DIR`
//! writes the payload to `DIR/<nanos>-<event>[-<tool>].json`, and the
//! variables the agent set for its hooks (`AI_AGENT`, `CLAUDE*`, `CODEX*`,
//! `GEMINI*`, `COPILOT*`, `QWEN*`)
//! to `DIR/<nanos>-<event>[-<tool>].env`, and prints nothing, so it changes
//! nothing for the agent.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test tooling")]

use std::io::Read;

fn main() {
    let Some(dir) = std::env::args_os().nth(1) else {
        return;
    };
    let mut raw = String::new();
    let _ = std::io::stdin().read_to_string(&mut raw);
    let value: serde_json::Value = serde_json::from_str(&raw).unwrap_or_default();
    // Copilot CLI's camelCase payloads name no event: the recorder's
    // second argument does.
    let named = std::env::args().nth(2);
    let event = value["hook_event_name"]
        .as_str()
        .or(named.as_deref())
        .unwrap_or("unknown");
    let tool = value["tool_name"]
        .as_str()
        .map(|t| format!("-{t}"))
        .unwrap_or_default();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::path::PathBuf::from(dir);
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(format!("{nanos}-{event}{tool}.json")), raw);
    let env: std::collections::BTreeMap<String, String> = std::env::vars()
        .filter(|(name, _)| {
            name == "AI_AGENT"
                || ["CLAUDE", "CODEX", "GEMINI", "COPILOT", "QWEN"]
                    .iter()
                    .any(|prefix| name.starts_with(prefix))
        })
        .collect();
    let _ = std::fs::write(
        dir.join(format!("{nanos}-{event}{tool}.env")),
        serde_json::to_string_pretty(&env).unwrap_or_default(),
    );
}
