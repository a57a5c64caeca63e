//! Which destinations the rules let a connection reach: host patterns,
//! the addresses nobody reaches unless a rule names them, and the judge.

use std::collections::BTreeMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs as _};

use ipnet::IpNet;

/// A host pattern that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("network rule `{pattern}`: {reason}")]
pub struct PatternError {
    /// The pattern as written.
    pub pattern: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// Which hosts one pattern names.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Hosts {
    /// `*`: every host by name (never an address nobody reaches unless
    /// named: a loopback, private, link-local or metadata address).
    Any,
    /// `example.com`: that name only.
    Name(String),
    /// `*.example.com`: every name below it, not the name itself.
    Below(String),
    /// `10.0.0.0/8`, `127.0.0.1`, `::1`: addresses, by name or as resolved.
    Net(IpNet),
}

/// One entry of an `allow` or `deny` list: hosts and, optionally, a port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostRule {
    hosts: Hosts,
    port: Option<u16>,
    written: String,
}

impl HostRule {
    /// Reads `example.com`, `*.example.com`, `*`, `example.com:443`,
    /// `10.0.0.0/8`, `127.0.0.1:5432`, `[::1]:8080`, `localhost:3000`.
    /// Names are matched without case and without a final dot.
    ///
    /// # Errors
    /// A pattern that names nothing it could match.
    pub fn parse(pattern: &str) -> Result<Self, PatternError> {
        let error = |reason| PatternError {
            pattern: pattern.to_owned(),
            reason,
        };
        let written = pattern.trim();
        if written.is_empty() {
            return Err(error("empty"));
        }
        if written.contains("://") || written.contains('/') && !looks_like_net(written) {
            return Err(error(
                "a host, not a URL (`example.com`, `*.example.com`, `example.com:443`, `10.0.0.0/8`)",
            ));
        }
        let (host, port) = split_port(written).map_err(error)?;
        let hosts = if host == "*" {
            Hosts::Any
        } else if let Ok(net) = host.parse::<IpNet>() {
            Hosts::Net(net.trunc())
        } else if let Ok(ip) = host.parse::<IpAddr>() {
            Hosts::Net(IpNet::from(canonical(ip)))
        } else if let Some(below) = host.strip_prefix("*.") {
            Hosts::Below(name(below).ok_or_else(|| error("not a host name after `*.`"))?)
        } else if host.contains('*') {
            return Err(error(
                "`*` only as the whole host or as `*.` before a domain",
            ));
        } else {
            Hosts::Name(name(host).ok_or_else(|| error("not a host name"))?)
        };
        Ok(Self {
            hosts,
            port,
            written: written.to_owned(),
        })
    }

    /// The rule as written.
    pub fn as_str(&self) -> &str {
        &self.written
    }

    fn port_matches(&self, port: u16) -> bool {
        self.port.is_none_or(|p| p == port)
    }

    /// Whether the rule names `host` (as asked for) or one of `addrs`.
    fn matches(&self, host: &Host, port: u16, addrs: &[IpAddr]) -> bool {
        if !self.port_matches(port) {
            return false;
        }
        match (&self.hosts, host) {
            (Hosts::Any, _) => true,
            (Hosts::Name(n), Host::Name(h)) => n == h,
            (Hosts::Below(n), Host::Name(h)) => {
                h.len() > n.len() + 1
                    && h.ends_with(n.as_str())
                    && h[..h.len() - n.len()].ends_with('.')
            }
            (Hosts::Net(net), _) => addrs.iter().any(|a| net.contains(&canonical(*a))),
            _ => false,
        }
    }

    /// Whether the rule names this destination itself, not by `*`: what
    /// an address nobody reaches unless named needs.
    fn names(&self, host: &Host, port: u16, addr: IpAddr) -> bool {
        if !self.port_matches(port) {
            return false;
        }
        match &self.hosts {
            Hosts::Any => false,
            // `0.0.0.0/0` and `::/0` name no address in particular.
            Hosts::Net(net) => net.prefix_len() > 0 && net.contains(&canonical(addr)),
            Hosts::Name(_) | Hosts::Below(_) => self.matches(host, port, &[]),
        }
    }
}

fn looks_like_net(text: &str) -> bool {
    text.parse::<IpNet>().is_ok()
        || text
            .rsplit_once(':')
            .is_some_and(|(net, _)| net.parse::<IpNet>().is_ok())
}

/// `host[:port]`, `[v6][:port]`, a bare IPv6 address, a range.
fn split_port(text: &str) -> Result<(&str, Option<u16>), &'static str> {
    let port = |p: &str| {
        p.parse::<u16>()
            .ok()
            .filter(|p| *p > 0)
            .ok_or("not a port (1-65535)")
    };
    if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or("`[` without `]`")?;
        return match after {
            "" => Ok((host, None)),
            _ => Ok((
                host,
                Some(port(after.strip_prefix(':').ok_or("text after `]`")?)?),
            )),
        };
    }
    if text.matches(':').count() > 1 {
        // An IPv6 address or range without brackets: no port.
        return Ok((text, None));
    }
    match text.rsplit_once(':') {
        Some((host, p)) => Ok((host, Some(port(p)?))),
        None => Ok((text, None)),
    }
}

/// A host name as compared: lower case, no final dot, only the characters
/// of DNS names (a name in another script is written in its `xn--` form).
fn name(text: &str) -> Option<String> {
    let text = text.strip_suffix('.').unwrap_or(text).to_ascii_lowercase();
    let valid = !text.is_empty()
        && text.len() <= 253
        && text.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    valid.then_some(text)
}

/// An IPv4 address carried in IPv6 (`::ffff:169.254.169.254`) as the IPv4
/// address it reaches.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// A destination as asked for: a name or an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Host {
    /// A host name (lower case, no final dot).
    Name(String),
    /// An address.
    Addr(IpAddr),
}

impl Host {
    /// Reads a host as a URL or a `CONNECT` line carries it (`[::1]`
    /// bracketed or not).
    ///
    /// # Errors
    /// Not a host name nor an address.
    pub fn parse(text: &str) -> Result<Self, Refusal> {
        let bare = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or(text);
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return Ok(Self::Addr(canonical(ip)));
        }
        name(bare)
            .map(Self::Name)
            .ok_or_else(|| Refusal::BadHost(text.to_owned()))
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name(n) => f.write_str(n),
            Self::Addr(IpAddr::V6(v6)) => write!(f, "[{v6}]"),
            Self::Addr(ip) => write!(f, "{ip}"),
        }
    }
}

/// The kinds of address nobody reaches unless a rule names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// A cloud provider's metadata service (instance credentials).
    Metadata,
    /// This machine (`127.0.0.0/8`, `::1`, `0.0.0.0`).
    Loopback,
    /// Link-local (`169.254.0.0/16`, `fe80::/10`).
    LinkLocal,
    /// A private network (`10/8`, `172.16/12`, `192.168/16`, `100.64/10`,
    /// `fc00::/7`), multicast or broadcast.
    Private,
}

impl Special {
    fn words(self) -> &'static str {
        match self {
            Self::Metadata => "a cloud metadata address (instance credentials)",
            Self::Loopback => "a loopback address (a service on this machine)",
            Self::LinkLocal => "a link-local address",
            Self::Private => "a private network address",
        }
    }
}

/// The metadata services of the clouds: AWS, GCP and Azure
/// (`169.254.169.254`, `fd00:ec2::254`), AWS ECS task credentials
/// (`169.254.170.2`), Alibaba (`100.100.100.200`).
const METADATA: [IpAddr; 4] = [
    IpAddr::V4(Ipv4Addr::new(169, 254, 169, 254)),
    IpAddr::V4(Ipv4Addr::new(169, 254, 170, 2)),
    IpAddr::V4(Ipv4Addr::new(100, 100, 100, 200)),
    IpAddr::V6(Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254)),
];

/// Names of metadata services, refused by name before any lookup.
const METADATA_NAMES: [&str; 3] = [
    "metadata.google.internal",
    "metadata",
    "instance-data.ec2.internal",
];

/// Which kind of special address `ip` is, if any.
pub fn special(ip: IpAddr) -> Option<Special> {
    let ip = canonical(ip);
    if METADATA.contains(&ip) {
        return Some(Special::Metadata);
    }
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            if v4.is_loopback() || v4.is_unspecified() || a == 0 {
                Some(Special::Loopback)
            } else if v4.is_link_local() {
                Some(Special::LinkLocal)
            } else if v4.is_private()
                || (a == 100 && (64..128).contains(&b))
                || v4.is_multicast()
                || v4.is_broadcast()
                || a >= 240
            {
                Some(Special::Private)
            } else {
                None
            }
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            if v6.is_loopback() || v6.is_unspecified() {
                Some(Special::Loopback)
            } else if first & 0xffc0 == 0xfe80 {
                Some(Special::LinkLocal)
            } else if first & 0xfe00 == 0xfc00 || v6.is_multicast() {
                Some(Special::Private)
            } else if let Some(inner) = embedded_v4(v6) {
                special(IpAddr::V4(inner))
            } else {
                None
            }
        }
    }
}

/// The IPv4 address inside NAT64 (`64:ff9b::/96`) and 6to4
/// (`2002::/16`) addresses, which reach it.
fn embedded_v4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = v6.segments();
    let from = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        Some(from(s[6], s[7]))
    } else if s[0] == 0x2002 {
        Some(from(s[1], s[2]))
    } else {
        None
    }
}

/// Why a connection is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// A deny rule names it.
    #[error("{host}:{port} is denied by the network rule `{rule}`")]
    Denied {
        /// The destination.
        host: Host,
        /// Its port.
        port: u16,
        /// The deny rule.
        rule: String,
    },
    /// No allow rule names it.
    #[error("{host}:{port} is not in the network rules' allow list")]
    NotAllowed {
        /// The destination.
        host: Host,
        /// Its port.
        port: u16,
    },
    /// It is (or resolves to) an address nobody reaches unless a rule
    /// names it.
    #[error("{host}:{port} is {} ({addr}); only a network rule naming it lets a connection there", .kind.words())]
    Special {
        /// The destination.
        host: Host,
        /// Its port.
        port: u16,
        /// The address.
        addr: IpAddr,
        /// Its kind.
        kind: Special,
    },
    /// The name has no address.
    #[error("{host} cannot be resolved: {reason}")]
    Unresolved {
        /// The name.
        host: Host,
        /// Why.
        reason: String,
    },
    /// Not a host.
    #[error("`{0}` is not a host name or address")]
    BadHost(String),
    /// The TLS server name differs from the host the tunnel was asked for.
    #[error("the TLS server name `{sni}` is not {host}, the host the connection was asked for")]
    ServerName {
        /// The host of the `CONNECT`.
        host: Host,
        /// The name the TLS client sent.
        sni: String,
    },
    /// Not a request the proxy serves.
    #[error("{0}")]
    Request(String),
}

/// The network rules, read once and then only asked: allowed and denied
/// hosts and the names resolved to fixed addresses. Deny wins; what no
/// allow rule names is refused; a loopback, link-local, private or
/// metadata address only by a rule that names it (not by `*`).
///
/// ```
/// use agentctx_network::{Host, Policy};
/// let policy = Policy::builder()
///     .allow("*.github.com")?
///     .allow("localhost:3000")?
///     .deny("gist.github.com")?
///     .build();
/// let ip = |s: &str| s.parse::<std::net::IpAddr>().unwrap();
/// assert!(policy.judge(&Host::parse("api.github.com")?, 443, &[ip("140.82.112.6")]).is_ok());
/// assert!(policy.judge(&Host::parse("gist.github.com")?, 443, &[ip("140.82.112.4")]).is_err());
/// assert!(policy.judge(&Host::parse("localhost")?, 3000, &[ip("127.0.0.1")]).is_ok());
/// assert!(policy.judge(&Host::parse("localhost")?, 22, &[ip("127.0.0.1")]).is_err());
/// assert!(policy.judge(&Host::parse("169.254.169.254")?, 80, &[ip("169.254.169.254")]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Policy {
    allow: Vec<HostRule>,
    deny: Vec<HostRule>,
    hosts: BTreeMap<String, Vec<IpAddr>>,
}

/// Builds a [`Policy`].
#[derive(Clone, Debug, Default)]
pub struct PolicyBuilder {
    policy: Policy,
}

impl PolicyBuilder {
    /// Adds an allow rule.
    ///
    /// # Errors
    /// The pattern cannot be read.
    pub fn allow(mut self, pattern: &str) -> Result<Self, PatternError> {
        self.policy.allow.push(HostRule::parse(pattern)?);
        Ok(self)
    }

    /// Adds a deny rule.
    ///
    /// # Errors
    /// The pattern cannot be read.
    pub fn deny(mut self, pattern: &str) -> Result<Self, PatternError> {
        self.policy.deny.push(HostRule::parse(pattern)?);
        Ok(self)
    }

    /// Resolves `name` to `addrs` instead of asking the system (a test
    /// server, a name only this user knows).
    ///
    /// # Errors
    /// `name` is not a host name.
    pub fn host(mut self, name_text: &str, addrs: Vec<IpAddr>) -> Result<Self, PatternError> {
        let key = name(name_text).ok_or_else(|| PatternError {
            pattern: name_text.to_owned(),
            reason: "not a host name",
        })?;
        self.policy.hosts.insert(key, addrs);
        Ok(self)
    }

    /// The policy.
    pub fn build(self) -> Policy {
        self.policy
    }
}

impl Policy {
    /// A builder with no rules (which allows nothing).
    pub fn builder() -> PolicyBuilder {
        PolicyBuilder::default()
    }

    /// The allow rules, as written.
    pub fn allowed(&self) -> impl Iterator<Item = &str> {
        self.allow.iter().map(HostRule::as_str)
    }

    /// The loopback ports an allow rule names (`localhost:3000`,
    /// `127.0.0.1:5432`): the ports a network namespace forwards to this
    /// machine.
    pub fn loopback_ports(&self) -> Vec<u16> {
        let mut ports: Vec<u16> = self
            .allow
            .iter()
            .filter_map(|rule| {
                let local = match &rule.hosts {
                    Hosts::Name(n) => {
                        n == "localhost"
                            || self
                                .hosts
                                .get(n)
                                .is_some_and(|a| a.iter().any(|ip| ip.is_loopback()))
                    }
                    Hosts::Net(net) => {
                        net.prefix_len() > 0
                            && (net.contains(&IpAddr::V4(Ipv4Addr::LOCALHOST))
                                || net.contains(&IpAddr::V6(Ipv6Addr::LOCALHOST)))
                    }
                    _ => false,
                };
                rule.port.filter(|_| local)
            })
            .collect();
        ports.sort_unstable();
        ports.dedup();
        ports
    }

    /// Whether `host:port` may be reached at `addrs` (its addresses, or
    /// none before a lookup: then only names and address rules are
    /// judged). The first refusal found: a deny rule, an address nobody
    /// reaches unless named, no allow rule.
    ///
    /// # Errors
    /// Why it is refused.
    pub fn judge(&self, host: &Host, port: u16, addrs: &[IpAddr]) -> Result<(), Refusal> {
        let mut all: Vec<IpAddr> = addrs.iter().copied().map(canonical).collect();
        if let Host::Addr(ip) = host {
            all.push(*ip);
        }
        if let Some(rule) = self.deny.iter().find(|r| r.matches(host, port, &all)) {
            return Err(Refusal::Denied {
                host: host.clone(),
                port,
                rule: rule.written.clone(),
            });
        }
        let metadata_name = matches!(host, Host::Name(n) if METADATA_NAMES.contains(&n.as_str()));
        let named = |addr: IpAddr| self.allow.iter().any(|r| r.names(host, port, addr));
        if metadata_name && !self.allow.iter().any(|r| r.names(host, port, METADATA[0])) {
            return Err(Refusal::Special {
                host: host.clone(),
                port,
                addr: METADATA[0],
                kind: Special::Metadata,
            });
        }
        let metadata = all
            .iter()
            .find(|a| special(**a) == Some(Special::Metadata) && !named(**a));
        if let Some(addr) = metadata {
            return Err(Refusal::Special {
                host: host.clone(),
                port,
                addr: *addr,
                kind: Special::Metadata,
            });
        }
        let allowed = self.allow.iter().any(|r| match &r.hosts {
            // An address rule allows a name only through its addresses.
            Hosts::Net(_) => !all.is_empty() && all.iter().all(|a| r.matches(host, port, &[*a])),
            _ => r.matches(host, port, &all),
        });
        if !allowed {
            return Err(Refusal::NotAllowed {
                host: host.clone(),
                port,
            });
        }
        for addr in &all {
            if let Some(kind) = special(*addr)
                && !named(*addr)
            {
                return Err(Refusal::Special {
                    host: host.clone(),
                    port,
                    addr: *addr,
                    kind,
                });
            }
        }
        Ok(())
    }

    /// The addresses `network_hosts` gives a name, when it gives any.
    pub fn fixed(&self, host: &Host) -> Option<&[IpAddr]> {
        match host {
            Host::Name(n) => self.hosts.get(n).map(Vec::as_slice),
            Host::Addr(_) => None,
        }
    }

    /// The addresses to connect to for `host:port`: judged by name first,
    /// then resolved (the fixed names, else the system's resolver) and
    /// judged with its addresses; the connection goes to exactly these,
    /// so a name that resolves differently later reaches nothing else.
    ///
    /// # Errors
    /// Why it is refused, or why it has no address.
    pub fn resolve(&self, host: &Host, port: u16) -> Result<Vec<SocketAddr>, Refusal> {
        self.judge_name(host, port)?;
        let addrs: Vec<IpAddr> = match (host, self.fixed(host)) {
            (Host::Addr(ip), _) => vec![*ip],
            (_, Some(fixed)) => fixed.to_vec(),
            (Host::Name(n), None) if n == "localhost" => {
                vec![
                    IpAddr::V4(Ipv4Addr::LOCALHOST),
                    IpAddr::V6(Ipv6Addr::LOCALHOST),
                ]
            }
            (Host::Name(n), None) => (n.as_str(), port)
                .to_socket_addrs()
                .map_err(|e| Refusal::Unresolved {
                    host: host.clone(),
                    reason: e.to_string(),
                })?
                .map(|a| a.ip())
                .collect(),
        };
        if addrs.is_empty() {
            return Err(Refusal::Unresolved {
                host: host.clone(),
                reason: "no address".to_owned(),
            });
        }
        // Each address on its own: `localhost` is `127.0.0.1` and `::1`,
        // and a rule may name one of them.
        let mut first = None;
        let mut passed = Vec::new();
        for ip in addrs {
            match self.judge(host, port, &[ip]) {
                Ok(()) => passed.push(SocketAddr::new(ip, port)),
                Err(refusal) => {
                    first.get_or_insert(refusal);
                }
            }
        }
        match first {
            Some(refusal) if passed.is_empty() => Err(refusal),
            _ => Ok(passed),
        }
    }

    /// The judgement that needs no lookup: deny rules by name, metadata
    /// names, and for an address everything.
    ///
    /// # Errors
    /// Why it is refused already.
    pub fn judge_name(&self, host: &Host, port: u16) -> Result<(), Refusal> {
        match host {
            Host::Addr(_) => self.judge(host, port, &[]),
            Host::Name(_) => match self.judge(host, port, &[]) {
                // Allowed only through its addresses: judged once known.
                Err(Refusal::NotAllowed { .. })
                    if self.allow.iter().any(|r| matches!(r.hosts, Hosts::Net(_))) =>
                {
                    Ok(())
                }
                other => other,
            },
        }
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("an address")
    }

    fn judge(policy: &Policy, host: &str, port: u16, addrs: &[&str]) -> Result<(), Refusal> {
        let addrs: Vec<IpAddr> = addrs.iter().map(|a| ip(a)).collect();
        policy.judge(&Host::parse(host)?, port, &addrs)
    }

    fn policy(allow: &[&str], deny: &[&str]) -> Policy {
        let mut b = Policy::builder();
        for a in allow {
            b = b.allow(a).expect("allow");
        }
        for d in deny {
            b = b.deny(d).expect("deny");
        }
        b.build()
    }

    #[test]
    fn patterns_that_name_nothing_are_refused_with_the_reason() {
        for (bad, why) in [
            ("", "empty"),
            ("https://example.com", "a host, not a URL"),
            ("exa*mple.com", "`*` only"),
            ("example.com:0", "not a port"),
            ("example.com:99999", "not a port"),
            ("[::1", "`[` without `]`"),
            ("ex ample.com", "not a host name"),
        ] {
            let error = HostRule::parse(bad).expect_err(bad);
            assert!(error.to_string().contains(why), "{bad}: {error}");
        }
        for good in [
            "*",
            "*.example.com",
            "example.com:443",
            "10.0.0.0/8",
            "[::1]:8080",
            "::1",
            "localhost:3000",
            "127.0.0.1:5432",
            "10.0.0.0/8:22",
        ] {
            HostRule::parse(good).expect(good);
        }
    }

    #[test]
    fn a_wildcard_names_the_names_below_not_the_domain_itself() {
        let p = policy(&["*.github.com"], &[]);
        assert!(judge(&p, "api.github.com", 443, &["140.82.112.6"]).is_ok());
        assert!(judge(&p, "API.GitHub.com.", 443, &["140.82.112.6"]).is_ok());
        assert!(judge(&p, "github.com", 443, &["140.82.112.6"]).is_err());
        assert!(judge(&p, "evilgithub.com", 443, &["1.2.3.4"]).is_err());
        assert!(judge(&p, "github.com.evil.test", 443, &["1.2.3.4"]).is_err());
    }

    #[test]
    fn deny_wins_over_allow() {
        let p = policy(&["*"], &["*.evil.test", "1.2.3.0/24"]);
        assert!(judge(&p, "good.test", 443, &["8.8.8.8"]).is_ok());
        assert!(matches!(
            judge(&p, "a.evil.test", 443, &["8.8.8.8"]),
            Err(Refusal::Denied { .. })
        ));
        assert!(matches!(
            judge(&p, "fine.test", 443, &["1.2.3.4"]),
            Err(Refusal::Denied { .. })
        ));
    }

    #[test]
    fn a_port_limits_the_rule() {
        let p = policy(&["example.com:443"], &[]);
        assert!(judge(&p, "example.com", 443, &["93.184.216.34"]).is_ok());
        assert!(judge(&p, "example.com", 80, &["93.184.216.34"]).is_err());
    }

    #[test]
    fn every_host_is_not_every_address() {
        let p = policy(&["*"], &[]);
        for addr in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "169.254.1.1",
            "100.64.0.1",
            "::1",
            "fe80::1",
            "fd12::1",
            "0.0.0.0",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "2002:a9fe:a9fe::1",
            "fd00:ec2::254",
            "100.100.100.200",
        ] {
            let refused = judge(&p, "name.test", 443, &[addr]);
            assert!(
                matches!(refused, Err(Refusal::Special { .. })),
                "{addr}: {refused:?}"
            );
            assert!(judge(&p, addr, 443, &[]).is_err(), "{addr} by address");
        }
        assert!(judge(&p, "metadata.google.internal", 80, &[]).is_err());
    }

    #[test]
    fn a_rule_that_names_a_special_address_lets_it_through() {
        let p = policy(
            &[
                "localhost:3000",
                "10.0.0.0/8",
                "db.corp.test",
                "169.254.169.254:80",
            ],
            &[],
        );
        assert!(judge(&p, "localhost", 3000, &["127.0.0.1"]).is_ok());
        assert!(judge(&p, "localhost", 3001, &["127.0.0.1"]).is_err());
        assert!(judge(&p, "10.9.8.7", 22, &[]).is_ok());
        assert!(judge(&p, "db.corp.test", 5432, &["192.168.3.4"]).is_ok());
        assert!(judge(&p, "169.254.169.254", 80, &[]).is_ok());
        assert!(judge(&p, "172.16.0.1", 22, &[]).is_err());
        assert_eq!(p.loopback_ports(), vec![3000]);
    }

    #[test]
    fn an_address_rule_allows_a_name_only_through_its_addresses() {
        let p = policy(&["93.184.216.0/24"], &[]);
        assert!(judge(&p, "example.com", 443, &["93.184.216.34"]).is_ok());
        assert!(judge(&p, "example.com", 443, &["1.1.1.1"]).is_err());
    }

    #[test]
    fn resolution_uses_the_fixed_names_and_judges_each_address() {
        let p = Policy::builder()
            .allow("127.0.0.1:8080")
            .and_then(|b| b.allow("api.test"))
            .and_then(|b| b.host("api.test", vec![ip("127.0.0.2")]))
            .expect("policy")
            .build();
        // `localhost` is both loopback addresses; the rule names one.
        let addrs = p
            .resolve(&Host::parse("localhost").expect("host"), 8080)
            .expect("allowed");
        assert_eq!(addrs, vec![SocketAddr::new(ip("127.0.0.1"), 8080)]);
        let addrs = p
            .resolve(&Host::parse("api.test").expect("host"), 443)
            .expect("allowed");
        assert_eq!(addrs, vec![SocketAddr::new(ip("127.0.0.2"), 443)]);
        assert!(
            p.resolve(&Host::parse("other.test").expect("host"), 443)
                .is_err()
        );
    }

    #[test]
    fn no_rules_allow_nothing() {
        let p = Policy::default();
        assert!(matches!(
            judge(&p, "example.com", 443, &["93.184.216.34"]),
            Err(Refusal::NotAllowed { .. })
        ));
    }
}
