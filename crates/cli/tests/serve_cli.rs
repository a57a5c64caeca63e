//! `agentctx mem serve` over HTTP.

#![cfg(feature = "viewer")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};

use common::TestEnv;

struct Viewer {
    child: Child,
    address: String,
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(t: &TestEnv) -> Viewer {
    let root = common::fixture_memory(t);
    t.write("MEMORY/SECURITY/2026-03/2026-03-02-100000_AGENT-pentester_SECURITY_xss.md", "---\ncapture_type: \"SECURITY\"\nexecutor: \"pentester\"\nagent_completion: \"Found <b>XSS</b>\"\n---\n\n## Agent Output\n\nPayload: <script>alert('x')</script> and <img src=x onerror=alert(1)>\n");
    t.write("events.jsonl", "{\"timestamp\":\"2026-01-25 09:12:00 JST\",\"source_app\":\"claude\",\"source\":\"claude-hook\",\"session_id\":\"s-1\",\"hook_event_type\":\"SubagentStop\",\"outcome\":\"captured\",\"capture_path\":\"/m/x.md\"}\n");
    let mut child = t
        .cmd()
        .args(["mem", "serve", "--port", "0"])
        .env("AGENTMEM_ROOT", &root)
        .env("AGENTMEM_EVENTS_PATH", t.dir.path().join("events.jsonl"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .trim()
        .trim_start_matches("listening on http://")
        .trim_end_matches('/')
        .to_owned();
    Viewer { child, address }
}

fn get(viewer: &Viewer, target: &str, host: &str) -> (u16, String) {
    request(viewer, "GET", target, host)
}

fn request(viewer: &Viewer, method: &str, target: &str, host: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(&viewer.address).unwrap();
    write!(
        stream,
        "{method} {target} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

#[test]
fn the_list_page_shows_the_captures_and_filters_and_searches() {
    let t = TestEnv::new();
    let v = start(&t);
    let host = v.address.clone();
    let (status, body) = get(&v, "/", &host);
    assert_eq!(status, 200);
    assert!(
        body.contains("Chose REST with cursor pagination")
            && body.contains("認証フローを調査しました"),
        "{body}"
    );
    assert!(!body.contains("<script"), "no scripts on the page");
    let (_, filtered) = get(&v, "/?category=DECISION", &host);
    assert!(filtered.contains("Chose REST") && !filtered.contains("Found the auth race"));
    let (_, searched) = get(&v, "/?q=pagin*", &host);
    assert!(
        searched.contains("Chose REST") && searched.contains("1 captures"),
        "{searched}"
    );
    let (_, events) = get(&v, "/events", &host);
    assert!(events.contains("captured") && events.contains("/m/x.md"));
}

#[test]
fn raw_html_in_a_capture_is_escaped_not_rendered() {
    let t = TestEnv::new();
    let v = start(&t);
    let host = v.address.clone();
    let (status, body) = get(&v, "/capture?id=2026-03-02-100000", &host);
    assert_eq!(status, 200);
    assert!(
        body.contains("&lt;script&gt;alert(") && !body.contains("<script>"),
        "{body}"
    );
    assert!(!body.contains("<img src=x"), "{body}");
    // The title comes through the template's escaper (numeric entities).
    assert!(
        body.contains("Found &#60;b&#62;XSS&#60;/b&#62;") && !body.contains("<b>XSS"),
        "{body}"
    );
}

#[test]
fn a_foreign_host_header_is_rejected() {
    let t = TestEnv::new();
    let v = start(&t);
    let (status, body) = get(&v, "/", "evil.example:7878");
    assert_eq!(status, 403);
    assert!(!body.contains("Chose REST"));
    let port = v.address.rsplit(':').next().unwrap().to_owned();
    assert_eq!(get(&v, "/", &format!("localhost:{port}")).0, 200);
}

#[test]
fn status_codes_say_what_happened() {
    let t = TestEnv::new();
    let v = start(&t);
    let host = v.address.clone();
    assert_eq!(get(&v, "/capture?id=no-such-capture", &host).0, 404);
    assert_eq!(get(&v, "/capture", &host).0, 400);
    assert_eq!(get(&v, "/nowhere", &host).0, 404);
    let (status, body) = request(&v, "POST", "/", &host);
    assert_eq!(status, 405, "{body}");
    // Two captures share this prefix.
    let (status, body) = get(&v, "/capture?id=2026-", &host);
    assert_eq!(status, 400, "{body}");
    // The store's message, through the template's escaper (`"` is `&#34;`).
    assert!(
        body.contains("&#34;2026-&#34; matches more than one capture"),
        "{body}"
    );
}

#[test]
fn a_silent_client_does_not_hold_up_the_others() {
    let t = TestEnv::new();
    let v = start(&t);
    let host = v.address.clone();
    // Connections that send half a request and then nothing.
    let stalled: Vec<TcpStream> = (0..64)
        .map(|_| {
            let mut s = TcpStream::connect(&v.address).unwrap();
            s.write_all(b"GET / HTTP/1.1\r\nHost: ").unwrap();
            s
        })
        .collect();
    let started = std::time::Instant::now();
    let (status, _) = get(&v, "/", &host);
    assert_eq!(status, 200);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(3),
        "answered after {:?}",
        started.elapsed()
    );
    drop(stalled);
}
