//! `agentctx mem serve`: a read-only viewer of captures and events.
//! Server-rendered HTML with a little CSS; no scripts. Listens on 127.0.0.1
//! unless `--bind` says otherwise, and answers only requests whose Host
//! header names the bound address (DNS rebinding).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};

use agentctx_agentmem::{Filter, Record};

use crate::cli::ServeArgs;
use crate::commands::{Invocation, Outcome};

const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1d1d1f}\
a{color:#0b57d0}table{border-collapse:collapse;width:100%}td,th{padding:.3rem .5rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}\
.cat{font-size:12px;font-weight:600;letter-spacing:.03em}form{margin:1rem 0}input,select{font:inherit;margin-right:.4rem}\
pre{background:#f6f8fa;padding:.8rem;overflow:auto}nav a{margin-right:1rem}.meta{color:#666;font-size:13px}";

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Markdown to HTML; raw HTML in the capture is shown as text, never run:
/// captures hold whatever agents wrote.
pub fn markdown_to_html(text: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, html};
    let events = Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH).map(
        |event| match event {
            Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
            other => other,
        },
    );
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body><nav><a href=\"/\">Captures</a><a href=\"/events\">Events</a></nav>{body}</body></html>",
        escape(title)
    )
}

pub fn run(inv: &Invocation, args: &ServeArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let address = args.bind.clone().unwrap_or_else(|| "127.0.0.1".to_owned());
    let listener = TcpListener::bind((address.as_str(), args.port))
        .map_err(|e| anyhow::anyhow!("cannot listen on {address}:{}: {e}", args.port))?;
    let local = listener.local_addr()?;
    writeln!(out, "listening on http://{local}/")?;
    out.flush()?;
    let allowed_hosts = allowed_hosts(&address, local.port());
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        if let Err(error) = handle(inv, stream, &allowed_hosts) {
            tracing::debug!("request failed: {error}");
        }
    }
    Ok(Outcome::Success)
}

fn allowed_hosts(address: &str, port: u16) -> Vec<String> {
    let mut hosts = vec![format!("{address}:{port}")];
    if address == "127.0.0.1" {
        hosts.push(format!("localhost:{port}"));
    }
    hosts
}

fn handle(inv: &Invocation, mut stream: TcpStream, allowed_hosts: &[String]) -> anyhow::Result<()> {
    stream.set_read_timeout(Some(std::time::Duration::from_secs(5)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut host = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("host")
        {
            host = Some(value.trim().to_owned());
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let (status, body) = if !host
        .as_ref()
        .is_some_and(|h| allowed_hosts.iter().any(|a| a == h))
    {
        (
            403,
            page(
                "Forbidden",
                "<h1>Forbidden</h1><p>This viewer answers only requests for its own address.</p>",
            ),
        )
    } else if method != "GET" {
        (405, page("Method not allowed", "<h1>Read-only</h1>"))
    } else {
        route(inv, target)
    };
    let reason = match status {
        200 => "OK",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Error",
    };
    write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nX-Content-Type-Options: nosniff\r\nContent-Security-Policy: default-src 'none'; style-src 'unsafe-inline'\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    Ok(())
}

fn query_params(query: &str) -> BTreeMap<String, String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.replace('+', " ").into_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(hex);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn route(inv: &Invocation, target: &str) -> (u16, String) {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let params = query_params(query);
    let result = match path {
        "/" => list_page(inv, &params),
        "/capture" => capture_page(inv, params.get("id").map(String::as_str).unwrap_or("")),
        "/events" => Ok(events_page(inv)),
        _ => return (404, page("Not found", "<h1>Not found</h1>")),
    };
    match result {
        Ok(html) => (200, html),
        Err(error) => (
            200,
            page(
                "Error",
                &format!(
                    "<h1>Cannot show this</h1><p>{}</p>",
                    escape(&format!("{error:#}"))
                ),
            ),
        ),
    }
}

fn list_page(inv: &Invocation, params: &BTreeMap<String, String>) -> anyhow::Result<String> {
    let store = crate::commands::memstore::open(inv)?;
    let get = |k: &str| params.get(k).filter(|v| !v.trim().is_empty()).cloned();
    let filter = Filter {
        categories: get("category").into_iter().collect(),
        agent: get("agent"),
        source: get("source"),
        project: get("project"),
        since: get("since"),
        until: get("until"),
        limit: 200,
    };
    let q = get("q").unwrap_or_default();
    let total = store.count(&q, &filter)?;
    let rows: Vec<(Record, String)> = if q.trim().is_empty() {
        store
            .list(&filter)?
            .into_iter()
            .map(|r| (r, String::new()))
            .collect()
    } else {
        store
            .search(&q, &filter)?
            .into_iter()
            .map(|h| (h.record, h.snippet))
            .collect()
    };
    let mut body = String::from("<h1>Captures</h1><form method=\"get\" action=\"/\">");
    let field = |name: &str, label: &str| {
        format!(
            "<input name=\"{name}\" placeholder=\"{label}\" value=\"{}\">",
            escape(params.get(name).map(String::as_str).unwrap_or(""))
        )
    };
    body.push_str(&field("q", "search: words, \"phrases\", prefix*"));
    body.push_str("<select name=\"category\"><option value=\"\">any category</option>");
    for category in [
        "RESEARCH",
        "DECISION",
        "IMPLEMENTATION",
        "DESIGN",
        "SECURITY",
    ] {
        let selected = if get("category")
            .as_deref()
            .is_some_and(|c| c.eq_ignore_ascii_case(category))
        {
            " selected"
        } else {
            ""
        };
        body.push_str(&format!("<option{selected}>{category}</option>"));
    }
    body.push_str("</select>");
    for (name, label) in [
        ("agent", "agent"),
        ("source", "source"),
        ("project", "project dir"),
        ("since", "since YYYY-MM-DD"),
        ("until", "until"),
    ] {
        body.push_str(&field(name, label));
    }
    body.push_str("<button>Show</button></form>");
    let shown = if usize::try_from(total).is_ok_and(|t| t > rows.len()) {
        format!("{total} captures, the first {} shown", rows.len())
    } else {
        format!("{total} captures")
    };
    body.push_str(&format!("<p class=\"meta\">{shown}</p><table><tr><th>When</th><th>Category</th><th>Agent</th><th>Completion</th></tr>"));
    for (record, snippet) in &rows {
        body.push_str(&format!(
            "<tr><td>{}</td><td class=\"cat\">{}</td><td>{}</td><td><a href=\"/capture?id={}\">{}</a>{}</td></tr>",
            escape(&record.time.chars().take(16).collect::<String>()),
            escape(&record.category),
            escape(&record.agent),
            encode(&record.id),
            escape(if record.completion.is_empty() { &record.id } else { &record.completion }),
            if snippet.is_empty() { String::new() } else { format!("<div class=\"meta\">{}</div>", escape(snippet)) }
        ));
    }
    body.push_str("</table>");
    Ok(page("Captures", &body))
}

fn capture_page(inv: &Invocation, id: &str) -> anyhow::Result<String> {
    let record = crate::commands::memstore::open(inv)?.find(id)?;
    let text = std::fs::read_to_string(&record.path)?;
    let content = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map_or(text.as_str(), |(_, body)| body);
    let meta = format!(
        "<p class=\"meta\">{} · {} · {} · {}</p>",
        escape(&record.time),
        escape(&record.agent),
        escape(&record.source),
        escape(&record.path.display().to_string())
    );
    Ok(page(
        &record.completion,
        &format!("{meta}{}", markdown_to_html(content)),
    ))
}

fn events_page(inv: &Invocation) -> String {
    let path = inv.config.config.agentmem.events_path.clone();
    let Some(path) = path else {
        return page(
            "Events",
            "<h1>Events</h1><p>No events file: set AGENTMEM_EVENTS_PATH.</p>",
        );
    };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut body = format!(
        "<h1>Events</h1><p class=\"meta\">{}</p><table><tr><th>When</th><th>Outcome</th><th>Source</th><th>Session</th><th>Capture or error</th></tr>",
        escape(&path.display().to_string())
    );
    for line in text.lines().rev().take(500) {
        let Ok(event) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let s = |k: &str| {
            event
                .get(k)
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_owned()
        };
        let detail = if s("capture_path").is_empty() {
            s("error")
        } else {
            s("capture_path")
        };
        body.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&s("timestamp")),
            escape(&s("outcome")),
            escape(&format!("{} / {}", s("source_app"), s("source"))),
            escape(&s("session_id")),
            escape(&detail)
        ));
    }
    body.push_str("</table>");
    page("Events", &body)
}
