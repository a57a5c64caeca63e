//! The viewer on a socket, served by hyper on a tokio runtime: every
//! connection is its own task, so a slow or silent client holds no one
//! else up, and one that does not finish its request head in
//! [`HEADER_TIMEOUT`] is dropped. Pages are built on the blocking pool
//! (they read SQLite and files).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use agentctx_agentmem::CaptureSource;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};

use crate::{ViewRequest, Viewer, ViewerError, allowed_hosts};

/// How long a client may take to send its request head.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// A bound viewer, ready to [`run`](Server::run).
pub struct Server {
    listener: std::net::TcpListener,
    viewer: Arc<Viewer>,
    local: SocketAddr,
}

impl Server {
    /// Listens on `address:port` (port 0: any free port) for a viewer of
    /// `store` and `events`, answering the `Host` values of
    /// [`allowed_hosts`] for the port actually bound.
    ///
    /// # Errors
    /// [`ViewerError::Bind`] when the address cannot be listened on.
    pub fn bind(
        store: CaptureSource,
        events: Option<std::path::PathBuf>,
        address: &str,
        port: u16,
    ) -> Result<Self, ViewerError> {
        let bind_error = |source: std::io::Error| ViewerError::Bind {
            address: format!("{address}:{port}"),
            source,
        };
        let listener = std::net::TcpListener::bind((address, port)).map_err(bind_error)?;
        let local = listener.local_addr().map_err(bind_error)?;
        listener.set_nonblocking(true).map_err(bind_error)?;
        let viewer = Viewer::new(store, events, allowed_hosts(address, local.port()));
        Ok(Self {
            listener,
            viewer: Arc::new(viewer),
            local,
        })
    }

    /// The address bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// Answers requests, with `workers` threads for the connections (at
    /// least one), until the listener fails.
    ///
    /// # Errors
    /// [`ViewerError::Runtime`] when the runtime cannot start or the
    /// listener fails.
    pub fn run(self, workers: usize) -> Result<(), ViewerError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers.max(1))
            .enable_io()
            .enable_time()
            .build()
            .map_err(ViewerError::Runtime)?;
        let viewer = self.viewer;
        runtime.block_on(async move {
            let listener =
                tokio::net::TcpListener::from_std(self.listener).map_err(ViewerError::Runtime)?;
            loop {
                let stream = match listener.accept().await {
                    Ok((stream, _)) => stream,
                    // Out of descriptors, a connection reset before it was
                    // taken: the listener itself is fine; try again shortly.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let viewer = Arc::clone(&viewer);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let viewer = Arc::clone(&viewer);
                        async move { Ok::<_, Infallible>(answer(viewer, request).await) }
                    });
                    // A client that goes away mid-request is no error of ours.
                    let _ = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(HEADER_TIMEOUT)
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        })
    }
}

async fn answer(viewer: Arc<Viewer>, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned);
    let method = request.method().as_str().to_owned();
    let target = request
        .uri()
        .path_and_query()
        .map_or_else(|| "/".to_owned(), |p| p.as_str().to_owned());
    let page = tokio::task::spawn_blocking(move || {
        viewer.respond(&ViewRequest {
            method: &method,
            host: host.as_deref(),
            target: &target,
        })
    })
    .await
    .unwrap_or_else(|_| crate::pages::message(500, "Error", "The page could not be built."));
    let mut response = Response::new(Full::new(Bytes::from(page.html)));
    *response.status_mut() = hyper::StatusCode::from_u16(page.status)
        .unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'",
        ),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if page.status == 405 {
        headers.insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    }
    response
}
