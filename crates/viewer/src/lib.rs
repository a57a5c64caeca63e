//! A read-only web viewer of AgentMem captures and capture events
//! (`agentctx mem serve`): server-rendered HTML from escaping templates,
//! no scripts, connections served concurrently by hyper (a client that
//! stalls is dropped after [`HEADER_TIMEOUT`]), loopback unless told
//! otherwise, and only for requests that name the viewer's own address in
//! their `Host` header (DNS rebinding).
//!
//! [`Viewer::respond`] is the whole application without a socket;
//! [`Server`] puts it on one.
//!
//! ```
//! use agentctx_agentmem::{CaptureSource, StoreLocation};
//! use agentctx_viewer::{ViewRequest, Viewer};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let memory = tempfile::tempdir()?;
//! let store = CaptureSource::Local(StoreLocation { root: memory.path().to_path_buf(), index_fallback: None });
//! let viewer = Viewer::new(store, None, vec!["127.0.0.1:8080".into()]);
//!
//! let page = viewer.respond(&ViewRequest { method: "GET", host: Some("127.0.0.1:8080"), target: "/?q=auth" });
//! assert_eq!(page.status, 200);
//! assert!(page.html.contains("0 captures"));
//!
//! // Another site's page asking through a rebound name is refused.
//! let page = viewer.respond(&ViewRequest { method: "GET", host: Some("evil.example:8080"), target: "/" });
//! assert_eq!(page.status, 403);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod pages;
mod server;

use std::path::PathBuf;

use agentctx_agentmem::CaptureSource;

pub use server::{HEADER_TIMEOUT, Server};

/// The application: which store and events file it shows, and which
/// `Host` values it answers.
#[derive(Clone, Debug)]
pub struct Viewer {
    store: CaptureSource,
    events: Option<PathBuf>,
    allowed_hosts: Vec<String>,
}

/// The parts of an HTTP request the viewer looks at.
#[derive(Clone, Copy, Debug)]
pub struct ViewRequest<'a> {
    /// `GET`, `HEAD`, ...
    pub method: &'a str,
    /// The `Host` header, when there was one.
    pub host: Option<&'a str>,
    /// The request target: path and query.
    pub target: &'a str,
}

/// An answer: status code and HTML document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// 200, 400, 403, 404, 405 or 500.
    pub status: u16,
    /// A whole HTML document.
    pub html: String,
}

/// What can stop the viewer from serving.
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    /// The address cannot be listened on (taken, not local, not an address).
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// `host:port` as asked.
        address: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// The server's runtime cannot start, or its listener failed.
    #[error("the viewer's server stopped: {0}")]
    Runtime(#[source] std::io::Error),
}

impl Viewer {
    /// A viewer of the store at `store` and the events file `events`
    /// (`agentmem.events_path`), answering requests whose `Host` is one of
    /// `allowed_hosts` (`127.0.0.1:8080`; see [`allowed_hosts`]).
    pub fn new(store: CaptureSource, events: Option<PathBuf>, allowed_hosts: Vec<String>) -> Self {
        Self {
            store,
            events,
            allowed_hosts,
        }
    }

    /// The page for `request`. Never fails: problems are pages with their
    /// status (404 for an unknown page or capture, 400 for a request that
    /// cannot be answered as asked, 500 for a store that cannot be read).
    pub fn respond(&self, request: &ViewRequest<'_>) -> Page {
        if !request
            .host
            .is_some_and(|h| self.allowed_hosts.iter().any(|a| a == h))
        {
            return pages::message(
                403,
                "Forbidden",
                "This viewer answers only requests for its own address.",
            );
        }
        if !matches!(request.method, "GET" | "HEAD") {
            return pages::message(405, "Method not allowed", "This viewer is read-only.");
        }
        pages::route(&self.store, self.events.as_deref(), request.target)
    }
}

/// The `Host` values a viewer bound to `address:port` answers: that pair,
/// and `localhost:port` for 127.0.0.1.
pub fn allowed_hosts(address: &str, port: u16) -> Vec<String> {
    let mut hosts = vec![format!("{address}:{port}")];
    if address == "127.0.0.1" {
        hosts.push(format!("localhost:{port}"));
    }
    hosts
}
