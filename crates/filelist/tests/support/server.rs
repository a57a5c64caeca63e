//! A small HTTP/1.1 server on 127.0.0.1 for tests: one scripted reply
//! per request target, every request recorded (target, credential header
//! and `If-None-Match`). A reply with an `ETag` header answers a request
//! whose `If-None-Match` names it with 304 and no body (HTTP's rule, and
//! GitHub's documented behaviour: not recorded from GitHub, which this
//! machine cannot reach). Shared by the file list's remote tests and the CLI's
//! `context --github` test (included by `#[path]`).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub delay: Duration,
}

pub fn ok(body: String) -> Reply {
    Reply {
        status: 200,
        headers: Vec::new(),
        body,
        delay: Duration::ZERO,
    }
}

/// A small HTTP/1.1 server: one reply per request target (path and query),
/// every request recorded. 404 for anything else.
pub struct Server {
    pub base: String,
    hits: Arc<Mutex<Vec<String>>>,
    routes: Arc<Mutex<BTreeMap<String, Reply>>>,
}

impl Server {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let hits = Arc::new(Mutex::new(Vec::new()));
        let routes: Arc<Mutex<BTreeMap<String, Reply>>> = Arc::new(Mutex::new(BTreeMap::new()));
        let (h, r) = (Arc::clone(&hits), Arc::clone(&routes));
        std::thread::spawn(move || {
            for stream in listener.incoming().take(2000) {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).is_err() {
                    continue;
                }
                let mut authorization = String::new();
                let mut if_none_match = String::new();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).is_err() || line == "\r\n" || line.is_empty() {
                        break;
                    }
                    if line.to_ascii_lowercase().starts_with("authorization:")
                        || line.to_ascii_lowercase().starts_with("private-token:")
                    {
                        authorization = line.trim().to_owned();
                    }
                    if let Some((name, value)) = line.split_once(':')
                        && name.eq_ignore_ascii_case("if-none-match")
                    {
                        if_none_match = value.trim().to_owned();
                    }
                }
                let target = request_line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("")
                    .to_owned();
                let conditional = if if_none_match.is_empty() {
                    String::new()
                } else {
                    format!(" if-none-match={if_none_match}")
                };
                h.lock().unwrap().push(
                    format!("{target} {authorization}{conditional}")
                        .trim()
                        .to_owned(),
                );
                let mut reply = r.lock().unwrap().get(&target).cloned().unwrap_or(Reply {
                    status: 404,
                    headers: vec![],
                    body: "{\"message\":\"Not Found\"}".into(),
                    delay: Duration::ZERO,
                });
                let tag = reply
                    .headers
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("etag"))
                    .map(|(_, v)| v.clone());
                if !if_none_match.is_empty() && tag.as_deref() == Some(if_none_match.as_str()) {
                    reply.status = 304;
                    reply.body = String::new();
                }
                std::thread::sleep(reply.delay);
                let mut head = format!(
                    "HTTP/1.1 {} X\r\nContent-Length: {}\r\nConnection: close\r\nContent-Type: application/json\r\n",
                    reply.status,
                    reply.body.len()
                );
                for (k, v) in &reply.headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(reply.body.as_bytes());
            }
        });
        Self { base, hits, routes }
    }

    pub fn route(&self, target: &str, reply: Reply) {
        self.routes.lock().unwrap().insert(target.to_owned(), reply);
    }

    pub fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }
}
