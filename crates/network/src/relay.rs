//! The relay inside the network namespace: the proxy's port on loopback,
//! and each loopback port the rules name, carried to the proxy's Unix
//! socket outside.

use std::io::{self, Read as _, Write as _};
use std::net::{Ipv4Addr, Ipv6Addr, Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;

use crate::proxy::pump;

/// What the relay listens on and where it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relay {
    /// The proxy's Unix socket (outside the namespace, bound into it).
    pub socket: PathBuf,
    /// The port the proxy is reached on (`HTTP_PROXY`), on `127.0.0.1`.
    pub proxy_port: u16,
    /// Loopback ports carried to this machine's own loopback through the
    /// proxy (which judges them like any destination).
    pub forwards: Vec<u16>,
}

impl Relay {
    /// Listens on every port now (so a command started next finds them)
    /// and serves each in a thread.
    ///
    /// # Errors
    /// The proxy's port cannot be listened on (a forwarded port that
    /// cannot is left out: another program of the sandbox holds it).
    pub fn start(&self) -> io::Result<()> {
        let proxy = TcpListener::bind((Ipv4Addr::LOCALHOST, self.proxy_port))?;
        let socket = self.socket.clone();
        spawn(proxy, move |client| {
            if let Ok(up) = UnixStream::connect(&socket) {
                join(client, up);
            }
        })?;
        for &port in &self.forwards {
            for listener in [
                TcpListener::bind((Ipv4Addr::LOCALHOST, port)),
                TcpListener::bind((Ipv6Addr::LOCALHOST, port)),
            ]
            .into_iter()
            .flatten()
            {
                let socket = self.socket.clone();
                spawn(listener, move |client| {
                    if let Ok(up) = open_tunnel(&socket, port) {
                        join(client, up);
                    }
                })?;
            }
        }
        Ok(())
    }
}

fn spawn(
    listener: TcpListener,
    serve: impl Fn(TcpStream) + Send + Sync + Clone + 'static,
) -> io::Result<()> {
    std::thread::Builder::new()
        .name("agentctx-relay".to_owned())
        .spawn(move || {
            for client in listener.incoming().flatten() {
                let serve = serve.clone();
                let _ = std::thread::Builder::new()
                    .name("agentctx-relay-conn".to_owned())
                    .spawn(move || serve(client));
            }
        })
        .map(drop)
}

/// A tunnel to `localhost:port` through the proxy: its answer read up to
/// the end of its head, nothing more.
fn open_tunnel(socket: &std::path::Path, port: u16) -> io::Result<UnixStream> {
    let mut up = UnixStream::connect(socket)?;
    write!(
        up,
        "CONNECT localhost:{port} HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n"
    )?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > 16 * 1024 || up.read(&mut byte)? == 0 {
            return Err(io::ErrorKind::ConnectionRefused.into());
        }
        head.push(byte[0]);
    }
    if head.starts_with(b"HTTP/1.1 200") {
        Ok(up)
    } else {
        Err(io::ErrorKind::ConnectionRefused.into())
    }
}

fn join(client: TcpStream, up: UnixStream) {
    let (Ok(client_in), Ok(mut up_out)) = (client.try_clone(), up.try_clone()) else {
        return;
    };
    let there = std::thread::spawn(move || {
        let _ = pump(&mut &client_in, &mut up_out);
        let _ = up_out.shutdown(Shutdown::Write);
    });
    let mut client_out = client;
    let _ = pump(&mut &up, &mut client_out);
    let _ = client_out.shutdown(Shutdown::Write);
    let _ = there.join();
}
