//! The network side of the rules: the session's [`Policy`] (what the
//! proxy of a sandboxed command or of `agentctx run` enforces) and the
//! judgement of the URLs a tool call names (WebFetch, MCP arguments), by
//! the same policy.

use std::net::IpAddr;
use std::time::Duration;

use agentctx_network::{Host as NetHost, PatternError, Policy, Refusal, Special};
use agentctx_rules::Rules;
use agentctx_session::Host;
use serde_json::Value;

/// How long the hook waits for a URL's name to resolve.
const RESOLVE_TIME: Duration = Duration::from_millis(1500);

/// The network policy of a session of `rules`, with `extra` allowed (an
/// agent's model API under `agentctx run`): `None` when the network is
/// not confined (no `network` in the rule file or the config, not strict
/// mode, and nothing `extra`).
///
/// # Errors
/// An entry of the config's `network` or `network_hosts` that cannot be
/// read (the rule file's were checked when it was read).
pub fn network_policy(
    host: &Host<'_>,
    rules: &Rules,
    extra: &[String],
) -> Result<Option<Policy>, PatternError> {
    let config = &host.config.project_agent_rules;
    let doc = rules.doc();
    let strict = doc.strict || config.strict;
    if doc.network.is_none() && config.network.is_none() && !strict && extra.is_empty() {
        return Ok(None);
    }
    let mut builder = Policy::builder();
    let doc_network = doc.network.iter();
    for entry in doc_network.clone().flat_map(|n| &n.allow) {
        builder = builder.allow(&entry.text)?;
    }
    for entry in doc_network.flat_map(|n| &n.deny) {
        builder = builder.deny(&entry.text)?;
    }
    if let Some(network) = &config.network {
        for entry in &network.allow {
            builder = builder.allow(entry)?;
        }
        for entry in &network.deny {
            builder = builder.deny(entry)?;
        }
    }
    for entry in extra {
        builder = builder.allow(entry)?;
    }
    for (name, addrs) in &config.network_hosts {
        let parsed: Result<Vec<IpAddr>, _> = addrs.iter().map(|a| a.parse::<IpAddr>()).collect();
        let parsed = parsed.map_err(|_| PatternError {
            pattern: format!("network_hosts.{name}: {}", addrs.join(", ")),
            reason: "not an IP address",
        })?;
        builder = builder.host(name, parsed)?;
    }
    Ok(Some(builder.build()))
}

/// The URLs a call names: a fetch tool's `url` (and the URLs in Gemini
/// CLI's `prompt`), every argument of an MCP tool that is a URL.
pub fn urls_in(normalized_tool: &str, input: &Value) -> Vec<String> {
    let mut urls = Vec::new();
    if normalized_tool == "WebFetch" {
        for key in ["url", "uri", "href"] {
            if let Some(url) = input.get(key).and_then(Value::as_str) {
                urls.push(url.trim().to_owned());
            }
        }
        // Gemini CLI's and Qwen Code's `web_fetch` take the URLs inside a
        // prompt.
        if let Some(prompt) = input.get("prompt").and_then(Value::as_str) {
            urls.extend(
                prompt
                    .split(|c: char| {
                        c.is_whitespace() || matches!(c, '<' | '>' | '"' | '\'' | '(' | ')')
                    })
                    .filter(|w| is_url(w))
                    .map(|w| w.trim_end_matches(['.', ',', ';']).to_owned()),
            );
        }
    } else if normalized_tool.contains('/') {
        collect_urls(input, &mut urls, 0);
    }
    urls
}

fn is_url(text: &str) -> bool {
    let lower = text.get(..8).unwrap_or(text).to_ascii_lowercase();
    ["http://", "https://", "ws://", "wss://", "ftp://"]
        .iter()
        .any(|s| lower.starts_with(s))
}

fn collect_urls(value: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 32 {
        return;
    }
    match value {
        Value::String(s) if is_url(s.trim()) => out.push(s.trim().to_owned()),
        Value::Array(items) => items.iter().for_each(|v| collect_urls(v, out, depth + 1)),
        Value::Object(map) => map.values().for_each(|v| collect_urls(v, out, depth + 1)),
        _ => {}
    }
}

/// The first place on the network a shell line names (a URL in its words
/// or program texts, a bare host of `curl`, `nc`, `ssh`, ...), as a URL;
/// `None` when it names none or cannot be read.
pub fn reached_in_line(line: &str) -> Option<String> {
    let script = agentctx_shell::parse_shell(line).ok()?;
    crate::reach::urls(&script).into_iter().next()
}

/// The judgement of one URL: with a policy, what the proxy would say
/// (the name resolved here, within 1.5 s); without, only cloud metadata
/// and link-local addresses are refused, which nothing on a developer's
/// machine needs to fetch and which hand out a cloud machine's
/// credentials.
///
/// # Errors
/// The sentence the model reads.
pub fn judge_url(policy: Option<&Policy>, url: &str) -> Result<(), String> {
    let uri: http::Uri = url
        .parse()
        .map_err(|_| format!("`{url}` is not a URL agentctx can read, so its host cannot be checked against the network rules"))?;
    let Some(authority) = uri.authority() else {
        return Err(format!("`{url}` names no host"));
    };
    let port = authority.port_u16().unwrap_or(match uri.scheme_str() {
        Some("http" | "ws") => 80,
        Some("ftp") => 21,
        _ => 443,
    });
    let host = NetHost::parse(authority.host()).map_err(|r| r.to_string())?;
    // The names `network_hosts` fixes, as the proxy resolves them.
    let addrs = match policy.and_then(|p| p.fixed(&host)) {
        Some(fixed) => Some(fixed.to_vec()),
        None => resolve(&host, port),
    };
    let refusal = match policy {
        // A name with no answer here is judged by name: the fetch itself
        // finds no address either, or the proxy judges what it finds.
        Some(policy) => policy
            .judge(&host, port, addrs.as_deref().unwrap_or(&[]))
            .err(),
        None => {
            let everything = Policy::builder()
                .allow("*")
                .map(|b| b.build())
                .unwrap_or_default();
            match everything.judge(&host, port, addrs.as_deref().unwrap_or(&[])) {
                Err(
                    r @ Refusal::Special {
                        kind: Special::Metadata | Special::LinkLocal,
                        ..
                    },
                ) => Some(r),
                _ => None,
            }
        }
    };
    match refusal {
        None => Ok(()),
        Some(refusal) => Err(format!("{url}: {refusal}")),
    }
}

/// The addresses of a name, within [`RESOLVE_TIME`]; `None` when no
/// answer came.
fn resolve(host: &NetHost, port: u16) -> Option<Vec<IpAddr>> {
    let NetHost::Name(name) = host else {
        return Some(Vec::new());
    };
    let name = name.clone();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("agentctx-resolve".to_owned())
        .spawn(move || {
            use std::net::ToSocketAddrs as _;
            let addrs: Option<Vec<IpAddr>> = (name.as_str(), port)
                .to_socket_addrs()
                .ok()
                .map(|a| a.map(|s| s.ip()).collect());
            let _ = send.send(addrs);
        })
        .ok()?;
    receive.recv_timeout(RESOLVE_TIME).ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_of_fetch_tools_and_mcp_arguments() {
        let input = serde_json::json!({"url": "http://169.254.169.254/latest/"});
        assert_eq!(
            urls_in("WebFetch", &input),
            vec!["http://169.254.169.254/latest/"]
        );
        let gemini = serde_json::json!({"prompt": "Summarize https://example.com/a, and http://10.0.0.1/x."});
        assert_eq!(
            urls_in("WebFetch", &gemini),
            vec!["https://example.com/a", "http://10.0.0.1/x"]
        );
        let mcp = serde_json::json!({"target": {"href": " https://x.test/ "}, "n": 1, "text": "see https://y.test"});
        assert_eq!(urls_in("fetch/get", &mcp), vec!["https://x.test/"]);
        assert!(urls_in("Read", &input).is_empty());
    }

    #[test]
    fn without_rules_only_metadata_and_link_local_are_refused() {
        for refused in [
            "http://169.254.169.254/latest/meta-data/iam/",
            "http://[fd00:ec2::254]/",
            "http://169.254.1.1/",
            "http://[::ffff:169.254.169.254]/",
            "http://metadata.google.internal/computeMetadata/v1/",
        ] {
            assert!(judge_url(None, refused).is_err(), "{refused}");
        }
        for allowed in [
            "http://127.0.0.1:3000/",
            "http://10.0.0.1/",
            "https://203.0.113.9/",
        ] {
            assert_eq!(judge_url(None, allowed), Ok(()), "{allowed}");
        }
    }

    #[test]
    fn with_rules_what_the_proxy_would_refuse() {
        let policy = Policy::builder()
            .allow("localhost:3000")
            .and_then(|b| b.allow("203.0.113.0/24"))
            .map(|b| b.build())
            .unwrap_or_default();
        assert_eq!(judge_url(Some(&policy), "http://localhost:3000/x"), Ok(()));
        assert_eq!(judge_url(Some(&policy), "https://203.0.113.9/"), Ok(()));
        let refused = judge_url(Some(&policy), "http://127.0.0.1:22/").unwrap_err();
        assert!(
            refused.contains("not in the network rules' allow list"),
            "{refused}"
        );
        assert!(judge_url(Some(&policy), "not a url").is_err());
    }
}
