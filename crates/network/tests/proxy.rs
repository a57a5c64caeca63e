//! The proxy and the relay on real sockets: a tunnel to an allowed test
//! server, a refusal with its reason, a TLS client asking for another
//! name, plain HTTP rewritten to the origin form, the relay's port.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::Arc;

use agentctx_network::{Policy, Proxy, Relay};

/// A server on 127.0.0.1 that answers each connection with what the first
/// line it read was, then closes.
fn line_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut bytes = Vec::new();
                let _ = reader.read_until(b'\n', &mut bytes);
                let line = String::from_utf8_lossy(&bytes);
                let mut out = stream;
                let _ = write!(out, "got {line}");
            });
        }
    });
    port
}

fn policy_for(port: u16) -> Policy {
    Policy::builder()
        .host("server.test", vec!["127.0.0.1".parse().expect("ip")])
        .and_then(|b| b.allow(&format!("server.test:{port}")))
        .expect("policy")
        .build()
}

fn ask(proxy: &Proxy, request: &str, then: &[u8]) -> String {
    let mut client = UnixStream::connect(proxy.socket()).expect("connect");
    client.write_all(request.as_bytes()).expect("request");
    client.write_all(then).expect("then");
    client
        .shutdown(std::net::Shutdown::Write)
        .expect("shutdown");
    let mut answer = String::new();
    let _ = client.read_to_string(&mut answer);
    answer
}

#[test]
fn a_tunnel_to_an_allowed_host_reaches_it() {
    let port = line_server();
    let dir = tempfile::tempdir().expect("dir");
    let proxy = Proxy::start(&dir.path().join("p.sock"), policy_for(port)).expect("proxy");
    let answer = ask(
        &proxy,
        &format!("CONNECT server.test:{port} HTTP/1.1\r\n\r\n"),
        b"hello\n",
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("got hello\n"), "{answer}");
}

#[test]
fn a_host_not_allowed_gets_the_reason() {
    let port = line_server();
    let dir = tempfile::tempdir().expect("dir");
    let proxy = Proxy::start(&dir.path().join("p.sock"), policy_for(port)).expect("proxy");
    // Another port of the same server, and this machine by address.
    let answer = ask(
        &proxy,
        &format!(
            "CONNECT server.test:{} HTTP/1.1\r\n\r\n",
            port.wrapping_add(1)
        ),
        b"",
    );
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    assert!(
        answer.contains("is not in the network rules' allow list"),
        "{answer}"
    );
    let answer = ask(
        &proxy,
        &format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n"),
        b"",
    );
    assert!(
        answer.contains(&format!("127.0.0.1:{port} is not in")),
        "{answer}"
    );
    let answer = ask(
        &proxy,
        "GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n",
        b"",
    );
    assert!(answer.contains("cloud metadata address"), "{answer}");
    let all_noted = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        proxy.refusals().len() == 3
    });
    assert!(all_noted, "{:?}", proxy.refusals());
}

/// The first bytes a TLS client sends for `name`.
fn client_hello(name: &str) -> Vec<u8> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_root_certificates(rustls::RootCertStore::empty())
        .with_no_client_auth();
    let server = rustls::pki_types::ServerName::try_from(name.to_owned()).expect("name");
    let mut conn = rustls::ClientConnection::new(Arc::new(config), server).expect("client");
    let mut out = Vec::new();
    conn.write_tls(&mut out).expect("hello");
    out
}

#[test]
fn a_tls_client_must_ask_for_the_tunnels_host() {
    let port = line_server();
    let dir = tempfile::tempdir().expect("dir");
    let proxy = Proxy::start(&dir.path().join("p.sock"), policy_for(port)).expect("proxy");
    let request = format!("CONNECT server.test:{port} HTTP/1.1\r\n\r\n");
    let fronted = ask(&proxy, &request, &client_hello("evil.test"));
    assert!(fronted.starts_with("HTTP/1.1 200"), "{fronted}");
    assert!(
        !fronted.contains("got"),
        "the server got the hello: {fronted}"
    );
    // Noted by the connection's thread once both halves are closed.
    let noted = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        proxy
            .refusals()
            .iter()
            .any(|r| r.contains("TLS server name `evil.test`"))
    });
    assert!(noted, "{:?}", proxy.refusals());
    let honest = ask(&proxy, &request, &client_hello("server.test"));
    assert!(
        honest.contains("got \u{16}"),
        "the hello did not reach the server: {honest:?}"
    );
}

#[test]
fn plain_http_reaches_the_server_in_origin_form() {
    let port = line_server();
    let dir = tempfile::tempdir().expect("dir");
    let proxy = Proxy::start(&dir.path().join("p.sock"), policy_for(port)).expect("proxy");
    let answer = ask(
        &proxy,
        &format!(
            "GET http://server.test:{port}/a?b=1 HTTP/1.1\r\nHost: server.test\r\nProxy-Authorization: x\r\n\r\n"
        ),
        b"",
    );
    assert_eq!(answer, "got GET /a?b=1 HTTP/1.1\r\n");
}

#[test]
fn the_relay_carries_its_port_to_the_proxy() {
    let port = line_server();
    let dir = tempfile::tempdir().expect("dir");
    let proxy = Proxy::start(&dir.path().join("p.sock"), policy_for(port)).expect("proxy");
    let free = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    Relay {
        socket: proxy.socket().to_path_buf(),
        proxy_port: free,
        forwards: vec![],
    }
    .start()
    .expect("relay");
    let mut client = TcpStream::connect(("127.0.0.1", free)).expect("connect");
    write!(
        client,
        "CONNECT server.test:{port} HTTP/1.1\r\n\r\nthrough\n"
    )
    .expect("write");
    client
        .shutdown(std::net::Shutdown::Write)
        .expect("shutdown");
    let mut answer = String::new();
    client.read_to_string(&mut answer).expect("read");
    assert!(answer.ends_with("got through\n"), "{answer}");
}
