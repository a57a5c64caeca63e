//! What `exec` and `run` share about the sandbox's surroundings: the
//! proxy and relay of a confined network, the environment without secrets,
//! and whether this process already runs inside `agentctx run`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use agentctx_network::{Policy, Proxy, Relay};
use agentctx_sandbox::{EnvPatternError, SecretEnv};
use agentctx_session::Host;

/// The variable `agentctx run` sets for everything inside its sandbox;
/// alone it proves nothing (the kernel is asked, [`inside_run`]).
pub const RUN_MARKER: &str = "AGENTCTX_RUN";

/// The port the proxy is reached on inside the namespace, unless a
/// forwarded loopback port takes it.
const PROXY_PORT: u16 = 3128;

/// The proxy's variables, for every client that reads them: curl, git,
/// cargo, npm, pip (upper and lower case), Node's own `fetch` and `http`
/// (`NODE_USE_ENV_PROXY`, Node 22.21 and 24.5 on).
const PROXY_VARS: [&str; 6] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
];

/// A running proxy and the relay that reaches it from the namespace.
#[derive(Debug)]
pub struct Network {
    /// The proxy (stops when dropped).
    pub proxy: Proxy,
    /// What the namespace's first program starts.
    pub relay: Relay,
    /// The proxy's socket and the folder of every proxy's socket
    /// ([`agentctx_sandbox::Extras::net_socket`]).
    pub net_socket: (PathBuf, PathBuf),
    /// The folder of the socket, removed when dropped.
    _dir: tempfile::TempDir,
}

impl Network {
    /// Starts the proxy for `policy` on a socket in a private folder of
    /// the user's runtime folder (`$XDG_RUNTIME_DIR`, else `/tmp`): a
    /// socket's path has at most 107 bytes, which a state folder deep in
    /// a home may pass.
    ///
    /// # Errors
    /// The folder or the socket cannot be made.
    pub fn start(policy: Policy) -> std::io::Result<Self> {
        let base = socket_base().join(format!(
            "agentctx-net-{}",
            rustix::process::getuid().as_raw()
        ));
        Self::start_in(&base, policy)
    }

    /// Starts the proxy for `policy` on a socket in a private folder made
    /// in `base`, the folder of every proxy's socket, which each sandbox
    /// sees covered by one holding only its own.
    ///
    /// # Errors
    /// The folder or the socket cannot be made.
    pub fn start_in(base: &Path, policy: Policy) -> std::io::Result<Self> {
        use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(base)?;
        let meta = std::fs::symlink_metadata(base)?;
        {
            use std::os::unix::fs::MetadataExt as _;
            if !meta.is_dir() || meta.uid() != rustix::process::getuid().as_raw() {
                return Err(std::io::Error::other(format!(
                    "{} is not a folder of this user's",
                    base.display()
                )));
            }
        }
        std::fs::set_permissions(base, std::fs::Permissions::from_mode(0o700))?;
        // A folder only this user may enter: whoever reaches the socket
        // uses the allow list.
        let dir = tempfile::Builder::new()
            .prefix("agentctx-net-")
            .tempdir_in(base)?;
        let forwards = policy.loopback_ports();
        let proxy_port = (PROXY_PORT..PROXY_PORT + 64)
            .find(|p| !forwards.contains(p))
            .unwrap_or(PROXY_PORT);
        let proxy = Proxy::start(&dir.path().join("proxy.sock"), policy)?;
        let relay = Relay {
            socket: base.join(agentctx_sandbox::SOCKET_NAME),
            proxy_port,
            forwards,
        };
        Ok(Self {
            net_socket: (proxy.socket().to_path_buf(), base.to_path_buf()),
            proxy,
            relay,
            _dir: dir,
        })
    }

    /// Points `command`'s HTTP clients at the proxy.
    pub fn set_env(&self, command: &mut Command) {
        let url = agentctx_network::proxy_url(self.relay.proxy_port);
        for var in PROXY_VARS {
            command.env(var, &url);
        }
        // Loopback ports the rules name are listened on in the namespace
        // itself; every other one is refused there.
        command.env("NO_PROXY", "localhost,127.0.0.1,::1");
        command.env("no_proxy", "localhost,127.0.0.1,::1");
        command.env("NODE_USE_ENV_PROXY", "1");
    }

    /// What the proxy refused, one line each for the model.
    pub fn refusals(&self) -> Vec<String> {
        self.proxy
            .refusals()
            .into_iter()
            .map(|r| {
                // What a client sent is shown, never obeyed: control
                // characters (a terminal's escape sequences) are escaped.
                let shown: String = r
                    .chars()
                    .flat_map(|c| {
                        if c.is_control() {
                            c.escape_default().collect::<Vec<_>>()
                        } else {
                            vec![c]
                        }
                    })
                    .collect();
                format!("agentctx: the network rules refused a connection: {shown}")
            })
            .collect()
    }
}

/// Where the proxies' sockets go: `/tmp`, which every sandbox sees as it
/// is (a runtime folder of sockets, `$XDG_RUNTIME_DIR`, is masked in the
/// sandbox), in `agentctx-net-UID`, which must be this user's folder; each
/// socket in a folder of its own with a random name.
fn socket_base() -> PathBuf {
    PathBuf::from("/tmp")
}

/// The secrets matcher of the session's config.
///
/// # Errors
/// A `secret_env` or `pass_env` pattern that cannot be read.
pub fn secret_env(host: &Host<'_>) -> Result<SecretEnv, EnvPatternError> {
    let rules = &host.config.project_agent_rules;
    SecretEnv::new(&rules.secret_env, &rules.pass_env)
}

/// Leaves every variable of this process's environment that holds a
/// secret out of `command`'s, but `keep`; returns their names.
pub fn scrub(command: &mut Command, secrets: &SecretEnv, keep: &[&str]) -> Vec<OsString> {
    let mut names = secrets.secrets_in(std::env::vars_os());
    names.retain(|n| !keep.iter().any(|k| n == *k));
    for name in &names {
        command.env_remove(name);
    }
    names
}

/// Whether this process runs inside `agentctx run`'s sandbox: the marker
/// is set, and the kernel refuses what the plan masks (checked by the
/// caller) and, when the network is confined, there is no interface but
/// loopback.
pub fn inside_run(network_confined: bool) -> bool {
    std::env::var_os(RUN_MARKER).is_some() && (!network_confined || only_loopback())
}

/// Whether this network namespace has no interface but `lo`.
pub fn only_loopback() -> bool {
    let Ok(text) = agentctx_fs::read_to_string(Path::new("/proc/self/net/dev"), 64 * 1024) else {
        return false;
    };
    text.lines()
        .skip(2)
        .filter_map(|line| line.split(':').next())
        .all(|name| name.trim() == "lo")
}

/// The folder the run keeps agentctx's state in, bound over the state
/// folder inside its sandbox.
pub fn run_state(state: &Path, id: &str) -> PathBuf {
    state.join("runs").join(id)
}
