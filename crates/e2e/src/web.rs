//! Stand-ins for the internet in the network tests: HTTP servers on other
//! loopback addresses (127.0.0.2, 127.0.0.3), which the user's
//! `network_hosts` names.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;

/// An HTTP server on `ip` that answers every request with `body`, in a
/// thread for the rest of the test; its port.
pub fn web_server(ip: &str, body: &'static str) -> u16 {
    let listener = TcpListener::bind((ip, 0)).expect("a loopback address");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut stream = stream;
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    port
}
