//! A blocking HTTP GET with timeouts, and the errors a hosting API gives,
//! each said in one line that names the repository. Tokens never appear in
//! a message.

use std::io::Read;
use std::time::{Duration, Instant};

/// What can go wrong talking to GitHub or GitLab.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RemoteError {
    /// A name that cannot be a repository (or ref) of the platform:
    /// refused before any request.
    #[error("`{name}` is not a {platform} repository: {reason} (expected {expected})")]
    InvalidName {
        /// The name as given, `@REF` included.
        name: String,
        /// `GitHub` or `GitLab`.
        platform: &'static str,
        /// What is wrong with it.
        reason: String,
        /// The form the platform's names take.
        expected: &'static str,
    },
    /// 403/429 with rate-limit headers.
    #[error("{repo}: rate limited by {platform}{}", reset_words(.reset))]
    RateLimited {
        /// `owner/repo`.
        repo: String,
        /// `GitHub` or `GitLab`.
        platform: &'static str,
        /// When the limit resets (UTC), when the headers say.
        reset: Option<String>,
    },
    /// 401, or 403 without rate-limit headers.
    #[error(
        "{repo}: authentication failed ({status}); set {token_var} to a token that can read it"
    )]
    Auth {
        /// `owner/repo`.
        repo: String,
        /// The HTTP status.
        status: u16,
        /// The variable to set.
        token_var: &'static str,
    },
    /// 404: no such repository or ref, or a private one without access.
    #[error("{repo}: not found, or private ({what})")]
    NotFound {
        /// `owner/repo`.
        repo: String,
        /// What was asked for.
        what: String,
    },
    /// The request took longer than the timeout.
    #[error("{repo}: no answer within {secs}s")]
    Timeout {
        /// `owner/repo`.
        repo: String,
        /// The limit.
        secs: u64,
    },
    /// Cannot connect (refused, DNS, TLS).
    #[error("{repo}: cannot connect to {host}: {detail}")]
    Connection {
        /// `owner/repo`.
        repo: String,
        /// The API host.
        host: String,
        /// Why.
        detail: String,
    },
    /// The body is not the JSON the API documents.
    #[error("{repo}: unexpected answer from {platform}: {detail}")]
    BadJson {
        /// `owner/repo`.
        repo: String,
        /// `GitHub` or `GitLab`.
        platform: &'static str,
        /// What was wrong.
        detail: String,
    },
    /// Any other HTTP status.
    #[error("{repo}: {platform} answered HTTP {status}")]
    Status {
        /// `owner/repo`.
        repo: String,
        /// `GitHub` or `GitLab`.
        platform: &'static str,
        /// The status.
        status: u16,
    },
    /// Saved JSON (`--from-json`) that does not parse.
    #[error("{source_name}: not a {platform} tree listing: {detail}")]
    Saved {
        /// The file.
        source_name: String,
        /// `GitHub` or `GitLab`.
        platform: &'static str,
        /// What was wrong.
        detail: String,
    },
}

fn reset_words(reset: &Option<String>) -> String {
    match reset {
        Some(at) => format!("; the limit resets at {at}"),
        None => String::new(),
    }
}

/// One answer: status, the headers we use, the body.
#[derive(Clone, Debug)]
pub struct Answer {
    pub status: u16,
    pub link: Option<String>,
    pub rate_remaining: Option<String>,
    pub rate_reset: Option<String>,
    pub retry_after: Option<String>,
    /// The answer's `ETag`, for a conditional request next time.
    pub etag: Option<String>,
    pub body: String,
}

/// The platform-specific parts of a request.
#[derive(Clone, Debug)]
pub struct Client {
    agent: ureq::Agent,
    pub platform: &'static str,
    pub repo: String,
    token_header: Option<(&'static str, String)>,
    /// The origin (`scheme://host[:port]`) the token belongs to: it is
    /// never sent anywhere else, whatever a `Link` header names.
    token_origin: String,
    pub token_var: &'static str,
    /// The whole fetch's time limit, named in the timeout error.
    timeout: Duration,
    /// When the whole fetch must be over: every request gets what is left.
    deadline: Instant,
}

/// `scheme://host[:port]` of a URL, lowercased; the whole text when it has
/// no `://`.
pub fn origin_of(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_ascii_lowercase();
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    // userinfo@ is not part of the host.
    let host = authority.rsplit('@').next().unwrap_or(authority);
    format!(
        "{}://{}",
        scheme.to_ascii_lowercase(),
        host.to_ascii_lowercase()
    )
}

impl Client {
    pub fn new(
        platform: &'static str,
        repo: &str,
        api: &str,
        token_header: Option<(&'static str, String)>,
        token_var: &'static str,
        timeout: Duration,
    ) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_connect(Some(timeout))
            .http_status_as_error(false)
            .user_agent("agentctx")
            .build()
            .new_agent();
        Self {
            agent,
            platform,
            repo: repo.to_owned(),
            token_header,
            token_origin: origin_of(api),
            token_var,
            timeout,
            deadline: Instant::now() + timeout,
        }
    }

    /// The error for a fetch whose time is up.
    pub fn timeout_error(&self) -> RemoteError {
        RemoteError::Timeout {
            repo: self.repo.clone(),
            secs: self.timeout.as_secs().max(1),
        }
    }

    /// GETs `url` within what is left of the fetch's time; any status
    /// comes back as an `Answer`, transport failures as errors.
    pub fn get(&self, url: &str, accept: &str) -> Result<Answer, RemoteError> {
        self.get_if(url, accept, None)
    }

    /// [`get`](Self::get) with `If-None-Match: etag`: a 304 answer means
    /// what the entity tag names is still current (on GitHub an
    /// authenticated 304 does not count against the rate limit).
    pub fn get_if(
        &self,
        url: &str,
        accept: &str,
        if_none_match: Option<&str>,
    ) -> Result<Answer, RemoteError> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.timeout_error());
        }
        let mut request = self
            .agent
            .get(url)
            .config()
            .timeout_global(Some(left))
            .build()
            .header("Accept", accept);
        if let Some(etag) = if_none_match {
            request = request.header("If-None-Match", etag);
        }
        if let Some((name, value)) = &self.token_header
            && origin_of(url) == self.token_origin
        {
            request = request.header(*name, value.as_str());
        }
        let mut response = request.call().map_err(|e| self.transport(url, &e))?;
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let (link, rate_remaining, retry_after) = (
            header("link"),
            header("x-ratelimit-remaining").or_else(|| header("ratelimit-remaining")),
            header("retry-after"),
        );
        let rate_reset = header("x-ratelimit-reset").or_else(|| header("ratelimit-reset"));
        let etag = header("etag");
        let status = response.status().as_u16();
        let mut body = String::new();
        response
            .body_mut()
            .as_reader()
            .read_to_string(&mut body)
            .map_err(|e| self.transport_io(url, &e))?;
        Ok(Answer {
            status,
            link,
            rate_remaining,
            rate_reset,
            retry_after,
            etag,
            body,
        })
    }

    fn transport(&self, url: &str, error: &ureq::Error) -> RemoteError {
        match error {
            ureq::Error::Timeout(_) => self.timeout_error(),
            ureq::Error::Io(io) => self.transport_io(url, io),
            other => RemoteError::Connection {
                repo: self.repo.clone(),
                host: host_of(url),
                detail: other.to_string(),
            },
        }
    }

    fn transport_io(&self, url: &str, error: &std::io::Error) -> RemoteError {
        if matches!(
            error.kind(),
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
        ) {
            return self.timeout_error();
        }
        RemoteError::Connection {
            repo: self.repo.clone(),
            host: host_of(url),
            detail: error.to_string(),
        }
    }

    /// The error for a non-2xx answer.
    pub fn status_error(&self, answer: &Answer, what: &str) -> RemoteError {
        let limited = answer.rate_remaining.as_deref() == Some("0") || answer.retry_after.is_some();
        match answer.status {
            403 | 429 if limited || answer.status == 429 => RemoteError::RateLimited {
                repo: self.repo.clone(),
                platform: self.platform,
                reset: reset_time(answer),
            },
            401 | 403 => RemoteError::Auth {
                repo: self.repo.clone(),
                status: answer.status,
                token_var: self.token_var,
            },
            404 => RemoteError::NotFound {
                repo: self.repo.clone(),
                what: what.to_owned(),
            },
            status => RemoteError::Status {
                repo: self.repo.clone(),
                platform: self.platform,
                status,
            },
        }
    }

    pub fn bad_json(&self, detail: impl std::fmt::Display) -> RemoteError {
        RemoteError::BadJson {
            repo: self.repo.clone(),
            platform: self.platform,
            detail: detail.to_string(),
        }
    }
}

/// The reset time in UTC: from an epoch (`x-ratelimit-reset`, GitLab's
/// `RateLimit-Reset`) or from `retry-after` seconds.
fn reset_time(answer: &Answer) -> Option<String> {
    let at = match (&answer.rate_reset, &answer.retry_after) {
        (Some(epoch), _) => epoch.trim().parse::<i64>().ok()?,
        (None, Some(after)) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .ok()?
                .as_secs();
            i64::try_from(now).ok()? + after.trim().parse::<i64>().ok()?
        }
        _ => return None,
    };
    crate::render::format_timestamp(at)
}

fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split('/').next().unwrap_or(rest).to_owned()
}

/// `text` percent-encoded for a URL path segment or query value: every
/// byte but RFC 3986's unreserved ones (`feature/x` → `feature%2Fx`,
/// `x&y#1` → `x%26y%231`).
pub fn encode(text: &str) -> String {
    const RESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(text, RESERVED).to_string()
}

/// The `rel="next"` URL of a `Link` header.
pub fn next_link(link: Option<&str>) -> Option<String> {
    link?.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        params
            .split(';')
            .any(|p| p.trim() == "rel=\"next\"")
            .then(|| {
                url.trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_owned()
            })
    })
}

#[cfg(test)]
mod origin_tests {
    use super::origin_of;

    #[test]
    fn origins_compare_scheme_host_and_port_only() {
        assert_eq!(
            origin_of("https://gitlab.example.com/api/v4/projects?page=2"),
            "https://gitlab.example.com"
        );
        assert_eq!(
            origin_of("HTTPS://GitLab.example.com:8443/x"),
            "https://gitlab.example.com:8443"
        );
        assert_eq!(
            origin_of("https://evil@gitlab.example.com/x"),
            "https://gitlab.example.com"
        );
        assert_ne!(
            origin_of("https://gitlab.example.com.evil.io/x"),
            origin_of("https://gitlab.example.com/")
        );
    }
}
