//! The server name a TLS client asks for, read from its first bytes
//! (rustls parses the ClientHello; nothing is decrypted).

use std::io::Read;

/// The most a ClientHello may take before the tunnel is refused.
const LIMIT: usize = 64 * 1024;

/// What the client sent first.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Opening {
    /// A TLS ClientHello and the server name in it (none: no SNI).
    Tls(Option<String>),
    /// Not TLS (a plain protocol through the tunnel), or nothing.
    Other,
}

/// Reads from `client` until its first bytes tell what it opens with;
/// returns that and every byte read (to be sent on unchanged).
///
/// # Errors
/// A read fails, or a TLS opening that is not a readable ClientHello
/// within 64 KiB.
pub(crate) fn read_opening(client: &mut impl Read) -> std::io::Result<(Opening, Vec<u8>)> {
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    let n = client.read(&mut chunk)?;
    seen.extend_from_slice(&chunk[..n]);
    // A TLS record of type handshake (22) starts every ClientHello.
    if seen.first() != Some(&0x16) {
        return Ok((Opening::Other, seen));
    }
    let mut acceptor = rustls::server::Acceptor::default();
    let mut fed = 0;
    loop {
        let mut rest = &seen[fed..];
        fed += acceptor.read_tls(&mut rest)?;
        match acceptor.accept() {
            Ok(Some(accepted)) => {
                let name = accepted.client_hello().server_name().map(str::to_owned);
                return Ok((Opening::Tls(name), seen));
            }
            Ok(None) => {}
            Err((error, _)) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("not a TLS ClientHello: {error}"),
                ));
            }
        }
        if seen.len() >= LIMIT {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "a TLS ClientHello over 64 KiB",
            ));
        }
        let n = client.read(&mut chunk)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        seen.extend_from_slice(&chunk[..n]);
    }
}
