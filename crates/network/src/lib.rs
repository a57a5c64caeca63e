//! The network under a coding agent's rules. A sandboxed command (or the
//! whole agent, under `agentctx run`) lives in a network namespace with
//! only loopback; the [`Relay`] inside listens on the proxy's port and on
//! the loopback ports the rules name, and carries every connection to the
//! [`Proxy`] outside through a Unix socket. The proxy reads the request
//! (HTTP `CONNECT` or plain HTTP in absolute form), judges the host by the
//! [`Policy`], resolves the name itself, connects only to the addresses it
//! judged, and checks that a TLS client asks for the name the tunnel was
//! opened for.
//!
//! The policy: `allow` and `deny` lists of hosts (`example.com`,
//! `*.example.com` for the names below it, `*` for every name, addresses
//! and ranges, each with an optional `:port`); deny wins; what no allow
//! rule names is refused; a loopback, link-local, private or cloud
//! metadata address is refused unless a rule names it (a name, a `*.`
//! domain or an address range, never `*`).
//!
//! ```
//! use agentctx_network::{Host, Policy, Proxy};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let folder = tempfile::tempdir()?;
//! let policy = Policy::builder().allow("example.com:443")?.build();
//! let proxy = Proxy::start(&folder.path().join("proxy.sock"), policy)?;
//! // A client that asks for another host gets a 403 with the reason.
//! use std::io::{Read as _, Write as _};
//! let mut client = std::os::unix::net::UnixStream::connect(proxy.socket())?;
//! client.write_all(b"CONNECT evil.test:443 HTTP/1.1\r\n\r\n")?;
//! let mut answer = String::new();
//! client.read_to_string(&mut answer)?;
//! assert!(answer.starts_with("HTTP/1.1 403"));
//! assert!(answer.contains("evil.test:443 is not in the network rules' allow list"));
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod handoff;
mod policy;
mod proxy;
mod relay;
mod sni;

pub use policy::{Host, HostRule, PatternError, Policy, PolicyBuilder, Refusal, Special, special};
pub use proxy::{Proxy, proxy_url};
pub use relay::Relay;
