//! The relay inside the network namespace: the proxy's port on loopback,
//! and each loopback port the rules name, each connection handed to the
//! proxy outside over its Unix socket (`handoff.rs`).

use std::io::{self, Write as _};
use std::net::{Ipv4Addr, Ipv6Addr, TcpListener};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::handoff::{Accepted, HELLO, send};

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
    /// Connects to the proxy, listens on every port now (so a command
    /// started next finds them) and hands each connection to the proxy,
    /// which serves it itself.
    ///
    /// # Errors
    /// The proxy cannot be reached, or its port cannot be listened on (a
    /// forwarded port that cannot is left out: another program of the
    /// sandbox holds it).
    pub fn start(&self) -> io::Result<()> {
        let mut control = UnixStream::connect(&self.socket)?;
        control.write_all(&[HELLO])?;
        let control = Arc::new(Mutex::new(control));
        let proxy = TcpListener::bind((Ipv4Addr::LOCALHOST, self.proxy_port))?;
        spawn(proxy, Arc::clone(&control), Accepted::Proxy)?;
        for &port in &self.forwards {
            for listener in [
                TcpListener::bind((Ipv4Addr::LOCALHOST, port)),
                TcpListener::bind((Ipv6Addr::LOCALHOST, port)),
            ]
            .into_iter()
            .flatten()
            {
                spawn(listener, Arc::clone(&control), Accepted::Forward(port))?;
            }
        }
        Ok(())
    }
}

fn spawn(listener: TcpListener, control: Arc<Mutex<UnixStream>>, how: Accepted) -> io::Result<()> {
    std::thread::Builder::new()
        .name("agentctx-relay".to_owned())
        .spawn(move || {
            for client in listener.incoming().flatten() {
                // Handed over and closed here: the proxy holds it now.
                let sent = control.lock().map(|control| send(&*control, &client, how));
                if !matches!(sent, Ok(Ok(()))) {
                    let _ = client.shutdown(std::net::Shutdown::Both);
                }
            }
        })
        .map(drop)
}
