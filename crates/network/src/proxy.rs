//! The proxy on the machine's side: a Unix socket that the network
//! namespace's relay reaches, serving HTTP `CONNECT` tunnels and plain
//! HTTP requests in absolute form, each judged by the [`Policy`].

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::handoff::{Accepted, HELLO, receive};
use crate::policy::{Host, Policy, Refusal};
use crate::sni::{Opening, read_opening};

/// The most a request's head may take.
const HEAD_LIMIT: usize = 64 * 1024;
/// How long a client may take to send its request's head.
const HEAD_TIME: Duration = Duration::from_secs(30);
/// How long a connection to a destination may take.
const CONNECT_TIME: Duration = Duration::from_secs(10);
/// How many refusals are kept to be told.
const KEPT: usize = 64;

/// The proxy, serving until it is dropped.
#[derive(Debug)]
pub struct Proxy {
    socket: PathBuf,
    refusals: Arc<Mutex<Vec<String>>>,
}

impl Proxy {
    /// Serves `policy` on a new Unix socket at `socket` (its folder must
    /// be private to the user: whoever can reach the socket can use the
    /// rules' allow list) in a thread of its own, one thread per
    /// connection.
    ///
    /// # Errors
    /// The socket cannot be made.
    pub fn start(socket: &Path, policy: Policy) -> io::Result<Self> {
        let _ = std::fs::remove_file(socket);
        let listener = UnixListener::bind(socket)?;
        let policy = Arc::new(policy);
        let refusals = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&refusals);
        std::thread::Builder::new()
            .name("agentctx-proxy".to_owned())
            .spawn(move || {
                for client in listener.incoming().flatten() {
                    let policy = Arc::clone(&policy);
                    let kept = Arc::clone(&kept);
                    let _ = std::thread::Builder::new()
                        .name("agentctx-proxy-conn".to_owned())
                        .spawn(move || accepted(client, &policy, &kept));
                }
            })?;
        Ok(Self {
            socket: socket.to_path_buf(),
            refusals,
        })
    }

    /// The socket.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// What was refused so far, each once, in order.
    pub fn refusals(&self) -> Vec<String> {
        self.refusals.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// One connection to the socket: a relay's control connection, whose
/// sockets are each served in a thread, or a client of its own.
fn accepted(mut client: UnixStream, policy: &Arc<Policy>, kept: &Arc<Mutex<Vec<String>>>) {
    let mut first = [0u8; 1];
    match client.read(&mut first) {
        Ok(1) if first[0] == HELLO => {}
        Ok(1) => {
            if let Err(refusal) = serve(client, policy, &first) {
                note(kept, refusal.to_string());
            }
            return;
        }
        _ => return,
    }
    while let Ok(Some((fd, how))) = receive(&client) {
        let socket = TcpStream::from(fd);
        let policy = Arc::clone(policy);
        let kept = Arc::clone(kept);
        let _ = std::thread::Builder::new()
            .name("agentctx-proxy-conn".to_owned())
            .spawn(move || {
                let outcome = match how {
                    Accepted::Proxy => serve(socket, &policy, &[]),
                    Accepted::Forward(port) => forward_port(socket, &policy, port),
                };
                if let Err(refusal) = outcome {
                    note(&kept, refusal.to_string());
                }
            });
    }
}

/// A connection to a forwarded loopback port: this machine's port, when
/// the rules name it.
fn forward_port<S: Stream>(client: S, policy: &Policy, port: u16) -> Result<(), Refusal> {
    let upstream = connect(policy, &Host::Name("localhost".to_owned()), port)?;
    splice(&client, upstream);
    Ok(())
}

/// What the proxy serves: a Unix connection, or a socket a relay handed.
pub(crate) trait Stream: Read + Write + AsFd + Send + Sized + 'static {
    /// Another handle on the same connection.
    fn dup(&self) -> io::Result<Self>;
    /// Ends one or both halves.
    fn end(&self, how: Shutdown);
    /// How long a read may wait.
    fn read_timeout(&self, time: Option<Duration>) -> io::Result<()>;
}

impl Stream for UnixStream {
    fn dup(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn end(&self, how: Shutdown) {
        let _ = self.shutdown(how);
    }
    fn read_timeout(&self, time: Option<Duration>) -> io::Result<()> {
        self.set_read_timeout(time)
    }
}

impl Stream for TcpStream {
    fn dup(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn end(&self, how: Shutdown) {
        let _ = self.shutdown(how);
    }
    fn read_timeout(&self, time: Option<Duration>) -> io::Result<()> {
        self.set_read_timeout(time)
    }
}

fn note(kept: &Mutex<Vec<String>>, text: String) {
    if let Ok(mut list) = kept.lock()
        && list.len() < KEPT
        && !list.contains(&text)
    {
        list.push(text);
    }
}

/// A request's head and what came after it in the same read.
struct Head {
    method: String,
    target: String,
    version: String,
    headers: Vec<(String, String)>,
    rest: Vec<u8>,
}

fn read_head<S: Stream>(client: &mut S, first: &[u8]) -> Result<Head, Refusal> {
    let bad = |why: &str| Refusal::Request(why.to_owned());
    client
        .read_timeout(Some(HEAD_TIME))
        .map_err(|e| bad(&e.to_string()))?;
    let mut buf = first.to_vec();
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        if buf.len() > HEAD_LIMIT {
            return Err(bad("a request head over 64 KiB"));
        }
        let n = client.read(&mut chunk).map_err(|e| bad(&e.to_string()))?;
        if n == 0 {
            return Err(bad("the client closed before its request"));
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    client.read_timeout(None).map_err(|e| bad(&e.to_string()))?;
    let rest = buf[end + 4..].to_vec();
    let text =
        std::str::from_utf8(&buf[..end]).map_err(|_| bad("a request head that is not text"))?;
    let mut lines = text.split("\r\n");
    let mut first = lines.next().unwrap_or("").split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (first.next(), first.next(), first.next(), first.next())
    else {
        return Err(bad("not an HTTP request line"));
    };
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Ok(Head {
        method: method.to_owned(),
        target: target.to_owned(),
        version: version.to_owned(),
        headers,
        rest,
    })
}

fn serve<S: Stream>(mut client: S, policy: &Policy, first: &[u8]) -> Result<(), Refusal> {
    let head = read_head(&mut client, first)?;
    let outcome = if head.method.eq_ignore_ascii_case("CONNECT") {
        tunnel(&mut client, policy, head)
    } else {
        forward(&mut client, policy, head)
    };
    if let Err(refusal) = &outcome {
        let body = format!("agentctx: {refusal}\n");
        let _ = write!(
            client,
            "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    }
    outcome
}

/// `host:port` of a `CONNECT`.
fn authority(text: &str) -> Result<(Host, u16), Refusal> {
    let authority: http::uri::Authority = text
        .parse()
        .map_err(|_| Refusal::Request(format!("`{text}` is not host:port")))?;
    let port = authority
        .port_u16()
        .ok_or_else(|| Refusal::Request(format!("`{text}` has no port")))?;
    Ok((Host::parse(authority.host())?, port))
}

fn connect(policy: &Policy, host: &Host, port: u16) -> Result<TcpStream, Refusal> {
    let addrs = policy.resolve(host, port)?;
    let mut last = None;
    for addr in &addrs {
        match TcpStream::connect_timeout(addr, CONNECT_TIME) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = Some((addr, e)),
        }
    }
    Err(Refusal::Request(match last {
        Some((addr, e)) => format!("cannot connect to {host}:{port} ({addr}): {e}"),
        None => format!("no address for {host}:{port}"),
    }))
}

fn tunnel<S: Stream>(client: &mut S, policy: &Policy, head: Head) -> Result<(), Refusal> {
    let (host, port) = authority(&head.target)?;
    let mut upstream = connect(policy, &host, port)?;
    client
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .map_err(|e| Refusal::Request(e.to_string()))?;
    // What the server says goes back at once (a server may speak first:
    // SSH, MySQL, SMTP); what the client says is looked at first.
    let (Ok(mut client_out), Ok(upstream_in)) = (client.dup(), upstream.try_clone()) else {
        return Err(Refusal::Request("cannot share the connection".to_owned()));
    };
    let down = std::thread::spawn(move || {
        let _ = pump(&mut &upstream_in, &mut client_out);
        client_out.end(Shutdown::Write);
    });
    let checked = check_opening(client, &host, port, &head.rest);
    let outcome = match checked {
        Ok(seen) => upstream
            .write_all(&seen)
            .map_err(|e| Refusal::Request(e.to_string())),
        Err(refusal) => Err(refusal),
    };
    match outcome {
        Ok(()) => {
            let _ = pump(client, &mut upstream);
            let _ = upstream.shutdown(Shutdown::Write);
        }
        Err(_) => {
            let _ = upstream.shutdown(Shutdown::Both);
            client.end(Shutdown::Both);
        }
    }
    let _ = down.join();
    // Past the `200`: a refusal is not answered with a 403 any more.
    outcome.map_err(|r| Refusal::Request(format!("{r} (the tunnel was closed)")))
}

/// The client's first bytes, read and judged: a TLS client must ask for
/// the name the tunnel was asked for. A name is checked against the one
/// the TLS client asks the server for: one server often holds many names
/// (a CDN), and the one sent is the one served. A tunnel to an address
/// goes to that address.
fn check_opening<S: Stream>(
    client: &mut S,
    host: &Host,
    port: u16,
    rest: &[u8],
) -> Result<Vec<u8>, Refusal> {
    let (opening, seen) = read_opening(&mut rest.chain(&mut *client))
        .map_err(|e| Refusal::Request(format!("{host}:{port}: {e}")))?;
    if let (Host::Name(_), Opening::Tls(Some(sni))) = (host, &opening)
        && Host::parse(sni).as_ref().ok() != Some(host)
    {
        return Err(Refusal::ServerName {
            host: host.clone(),
            sni: sni.clone(),
        });
    }
    Ok(seen)
}

fn forward<S: Stream>(client: &mut S, policy: &Policy, head: Head) -> Result<(), Refusal> {
    let uri: http::Uri = head
        .target
        .parse()
        .map_err(|_| Refusal::Request(format!("`{}` is not a URL", head.target)))?;
    if uri.scheme_str() != Some("http") {
        return Err(Refusal::Request(format!(
            "`{}`: only http:// URLs are sent in plain; https goes through CONNECT",
            head.target
        )));
    }
    let authority = uri
        .authority()
        .ok_or_else(|| Refusal::Request(format!("`{}` has no host", head.target)))?;
    let host = Host::parse(authority.host())?;
    let port = authority.port_u16().unwrap_or(80);
    let mut upstream = connect(policy, &host, port)?;
    let path = uri
        .path_and_query()
        .map_or("/", http::uri::PathAndQuery::as_str);
    let mut out = format!("{} {path} {}\r\n", head.method, head.version);
    for (name, value) in &head.headers {
        if !name.to_ascii_lowercase().starts_with("proxy-") {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    out.push_str("\r\n");
    upstream
        .write_all(out.as_bytes())
        .and_then(|()| upstream.write_all(&head.rest))
        .map_err(|e| Refusal::Request(e.to_string()))?;
    splice(client, upstream);
    Ok(())
}

/// Copies both ways until each side has ended its half.
fn splice<S: Stream>(client: &S, upstream: TcpStream) {
    let (Ok(mut client_in), Ok(mut client_out), Ok(mut upstream_out)) =
        (client.dup(), client.dup(), upstream.try_clone())
    else {
        return;
    };
    let up = std::thread::spawn(move || {
        let _ = pump(&mut client_in, &mut upstream_out);
        let _ = upstream_out.shutdown(Shutdown::Write);
    });
    let mut upstream = upstream;
    let _ = pump(&mut upstream, &mut client_out);
    client_out.end(Shutdown::Write);
    let _ = up.join();
}

/// Copies until the end: through a pipe with `splice`, so the bytes never
/// cross into this process (a download through the relay and the proxy
/// costs two more hops; copied by hand they cost more than the download),
/// else with a buffer.
pub(crate) fn pump<R, W>(from: &mut R, to: &mut W) -> io::Result<u64>
where
    R: Read + AsFd,
    W: Write + AsFd,
{
    match spliced(&*from, &*to) {
        Ok(total) => Ok(total),
        Err(Spliced::Unsupported) => copied(from, to),
        Err(Spliced::Failed(e)) => Err(e),
    }
}

enum Spliced {
    /// `splice` is not there (another kernel): nothing was moved yet.
    Unsupported,
    Failed(io::Error),
}

/// The most a `splice` moves at once.
const SPLICE_CHUNK: usize = 1 << 20;

fn spliced(from: &impl AsFd, to: &impl AsFd) -> Result<u64, Spliced> {
    use rustix::pipe::{SpliceFlags, pipe, splice};
    let (pipe_out, pipe_in) = pipe().map_err(|_| Spliced::Unsupported)?;
    let mut total = 0u64;
    let mut first = true;
    loop {
        let moved = match splice(from, None, &pipe_in, None, SPLICE_CHUNK, SpliceFlags::MOVE) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(rustix::io::Errno::INTR) => continue,
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) if first => {
                return Err(Spliced::Unsupported);
            }
            Err(e) => return Err(Spliced::Failed(e.into())),
        };
        first = false;
        let mut left = moved;
        while left > 0 {
            match splice(&pipe_out, None, to, None, left, SpliceFlags::MOVE) {
                Ok(0) => return Err(Spliced::Failed(io::ErrorKind::WriteZero.into())),
                Ok(n) => left -= n,
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(Spliced::Failed(e.into())),
            }
        }
        total += moved as u64;
    }
}

fn copied(from: &mut impl Read, to: &mut impl Write) -> io::Result<u64> {
    let mut buf = vec![0u8; 128 * 1024];
    let mut total = 0u64;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        to.write_all(&buf[..n])?;
        total += n as u64;
    }
}

/// The address a proxy client inside the namespace reaches.
pub fn proxy_url(port: u16) -> String {
    format!("http://127.0.0.1:{port}")
}
