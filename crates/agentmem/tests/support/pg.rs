//! A real PostgreSQL server for tests, made with the server's own programs
//! (initdb, pg_ctl, createdb): nothing downloaded, nothing shared with a
//! system cluster. Debian's `postgresql` package keeps them off PATH, in
//! /usr/lib/postgresql/<major>/bin; they are found through `pg_config
//! --bindir`, else there (the newest major), else on PATH. PostgreSQL
//! refuses to run as root, so as root (as CI runs) the server runs as the
//! `postgres` system user, through `runuser`. Without PostgreSQL, or without
//! the rum extension for its major version (the shared store's search is
//! tested with its RUM index), the tests fail at the cluster's start, saying
//! which package to install: they never skip.
//!
//! Include it with `#[path = "support/pg.rs"] mod support_pg;` and share one
//! cluster among the tests of a binary, a database of its own for each test:
//!
//! ```ignore
//! static PG: std::sync::LazyLock<support_pg::TempCluster> =
//!     std::sync::LazyLock::new(support_pg::TempCluster::start);
//! let url = PG.create_database("recall_ranks");
//! ```
//!
//! A static is never dropped: a watcher process stops the server and removes
//! its folder when the test binary exits, however it exits.
#![allow(dead_code)]

use std::fs;
use std::net::TcpListener;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

const NOT_INSTALLED: &str = "PostgreSQL is not installed: these tests need its server \
     (initdb, pg_ctl, createdb, pg_config). Install it with `apt-get install postgresql` (Debian, \
     Ubuntu: the programs are found in /usr/lib/postgresql/<major>/bin), or put them on PATH.";

/// The superuser the cluster is made with, and the database made for it.
const USER: &str = "agentctx";
const DATABASE: &str = "agentctx";

/// Stops the server and removes its folder once its standard input closes:
/// when the `TempCluster` is dropped, or when the test process exits without
/// dropping it (a static). Ignores Ctrl-C, which reaches the test's process
/// group but not the server (pg_ctl starts it in a session of its own).
/// Arguments: the folder, then the command that runs pg_ctl.
const WATCHER: &str = r#"trap '' INT HUP
cat > /dev/null
dir=$1
shift
"$@" stop -D "$dir/data" -m immediate -w > /dev/null 2>&1
rm -rf "$dir""#;

/// A throwaway PostgreSQL cluster for one test binary: initdb in a temporary folder, a free port on 127.0.0.1, trust auth, database `agentctx`; stopped and removed on drop.
pub struct TempCluster {
    /// Holds `data/` (the cluster), `server.log` and the Unix socket.
    dir: tempfile::TempDir,
    programs: Programs,
    /// Running as root: the server's programs run as the postgres user.
    as_postgres: bool,
    port: u16,
    watcher: Child,
}

impl TempCluster {
    /// Makes the cluster, starts it and creates the database `agentctx`.
    /// Panics, saying what to install, when PostgreSQL is missing.
    pub fn start() -> Self {
        let programs = Programs::find().unwrap_or_else(|| panic!("{NOT_INSTALLED}"));
        if let Some(missing) = programs.missing_rum() {
            panic!("{missing}");
        }
        let tmp = std::env::temp_dir();
        let dir = tempfile::Builder::new()
            .prefix("agentctx-pg-")
            .tempdir_in(&tmp)
            .unwrap_or_else(|e| panic!("a temporary folder in {}: {e}", tmp.display()));
        let path = dir.path();
        let shown = path.display();
        fs::set_permissions(path, fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("chmod 755 {shown}: {e}"));
        let owner = fs::metadata(path)
            .unwrap_or_else(|e| panic!("stat {shown}: {e}"))
            .uid();
        let as_postgres = owner == 0;
        if as_postgres {
            give_to_postgres(path);
        }
        let path_str = path
            .to_str()
            .unwrap_or_else(|| panic!("a temporary folder with a UTF-8 name, not {shown}"));
        assert!(
            !path_str.contains('\''),
            "a temporary folder without a single quote in its name, not {shown}"
        );
        // The socket's path has to fit in sun_path (108 bytes with its NUL).
        assert!(
            path_str.len() + "/.s.PGSQL.65535".len() < 108,
            "{shown} is too long a folder for PostgreSQL's Unix socket: set TMPDIR to a \
             shorter one, e.g. TMPDIR=/tmp"
        );

        let mut pg_ctl = runner(as_postgres);
        pg_ctl.push(programs.pg_ctl.clone().into_os_string());
        let watcher = Command::new("sh")
            .arg("-c")
            .arg(WATCHER)
            .arg("sh")
            .arg(path)
            .args(&pg_ctl)
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("sh for the watcher of the PostgreSQL server: {e}"));

        let mut cluster = TempCluster {
            dir,
            programs,
            as_postgres,
            port: 0,
            watcher,
        };
        cluster.initdb();
        // Another process may take the port between our look and the
        // server's bind: then another one.
        let mut attempt = 1;
        loop {
            cluster.port = free_port();
            match cluster.start_server() {
                Ok(()) => break,
                Err(why) if attempt < 5 && why.contains("Address already in use") => attempt += 1,
                Err(why) => panic!("the PostgreSQL server did not start:\n{why}"),
            }
        }
        cluster.createdb(DATABASE);
        cluster
    }

    /// `postgres://agentctx@127.0.0.1:PORT/agentctx`
    pub fn url(&self) -> String {
        self.url_of(DATABASE)
    }

    /// Creates the database `name` (letters, digits and `_`; one a test, so
    /// that tests are independent) and returns its URL. Panics when it
    /// already exists.
    pub fn create_database(&self, name: &str) -> String {
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "a database name of letters, digits and `_`, not {name:?}"
        );
        self.createdb(name);
        self.url_of(name)
    }

    /// Stops the server (fast shutdown: clients are disconnected), for tests
    /// of an unreachable database; `start_again` restarts it on the same
    /// port. A cluster shared by a binary's tests stops for all of them: give
    /// such a test a `TempCluster` of its own.
    pub fn stop(&self) {
        let out = self.run(
            self.command(&self.programs.pg_ctl)
                .args(["stop", "-m", "fast", "-w", "-D"])
                .arg(self.data()),
            "pg_ctl stop",
        );
        assert!(out.status.success(), "pg_ctl stop: {}", both(&out));
    }

    /// Starts the server again after `stop`, on the same port and with the
    /// same databases.
    pub fn start_again(&self) {
        if let Err(why) = self.start_server() {
            panic!(
                "the PostgreSQL server did not start again on port {}:\n{why}",
                self.port
            );
        }
    }

    fn url_of(&self, database: &str) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/{database}", self.port)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }

    /// `program`, as the postgres user when running as root, in the
    /// cluster's folder, with no PG* variables of ours (PGHOST, PGOPTIONS,
    /// ...) to change what it does.
    fn command(&self, program: &Path) -> Command {
        let mut runner = runner(self.as_postgres);
        runner.push(program.as_os_str().to_owned());
        let mut cmd = Command::new(&runner[0]);
        cmd.args(&runner[1..])
            .current_dir(self.dir.path())
            .stdin(Stdio::null());
        for (name, _) in std::env::vars_os() {
            if name.as_encoded_bytes().starts_with(b"PG") {
                cmd.env_remove(name);
            }
        }
        cmd
    }

    fn run(&self, cmd: &mut Command, what: &str) -> Output {
        cmd.output().unwrap_or_else(|e| {
            if self.as_postgres {
                panic!("{what}: runuser (util-linux) runs it as the postgres user: {e}")
            }
            panic!("{what}: {e}")
        })
    }

    /// initdb with the C.UTF-8 locale, else (a system without it) C.
    fn initdb(&self) {
        let mut failures = String::new();
        for locale in ["C.UTF-8", "C"] {
            let out = self.run(
                self.command(&self.programs.initdb)
                    .arg("-D")
                    .arg(self.data())
                    .args(["-U", USER, "--auth=trust", "--encoding=UTF8", "--no-sync"])
                    .arg(format!("--locale={locale}")),
                "initdb",
            );
            if out.status.success() {
                return;
            }
            failures += &format!("initdb --locale={locale}: {}\n", both(&out));
        }
        panic!("{failures}");
    }

    /// pg_ctl start; its output and what the server logged when it fails.
    fn start_server(&self) -> Result<(), String> {
        let log = self.log();
        let logged = fs::metadata(&log).map_or(0, |m| m.len());
        let options = format!(
            "-k '{}' -p {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
            self.dir.path().display(),
            self.port
        );
        let out = self.run(
            self.command(&self.programs.pg_ctl)
                .args(["start", "-w", "-t", "60", "-D"])
                .arg(self.data())
                .arg("-l")
                .arg(&log)
                .arg("-o")
                .arg(options),
            "pg_ctl start",
        );
        if out.status.success() {
            return Ok(());
        }
        let text = fs::read(&log).unwrap_or_default();
        let new = text.get(logged as usize..).unwrap_or(&text);
        Err(format!(
            "{}\n{} (port {}):\n{}",
            both(&out),
            log.display(),
            self.port,
            String::from_utf8_lossy(new)
        ))
    }

    fn createdb(&self, name: &str) {
        let out = self.run(
            self.command(&self.programs.createdb)
                .arg("-h")
                .arg(self.dir.path())
                .args(["-p", &self.port.to_string(), "-U", USER, name]),
            "createdb",
        );
        assert!(out.status.success(), "createdb {name}: {}", both(&out));
    }
}

impl Drop for TempCluster {
    /// The watcher stops the server and removes the folder; waits for it.
    fn drop(&mut self) {
        drop(self.watcher.stdin.take());
        let _ = self.watcher.wait();
    }
}

/// Where the server's programs are.
struct Programs {
    initdb: PathBuf,
    pg_ctl: PathBuf,
    createdb: PathBuf,
    /// The server's own `pg_config` (beside it; Debian's /usr/bin/pg_config
    /// may belong to another major version), for its share folder.
    pg_config: PathBuf,
}

/// Why the server cannot give the rum extension, with the package to
/// install; `None` when `<sharedir>/extension/rum.control` is there.
/// `version` is what `pg_config --version` printed (`PostgreSQL 15.14 ...`).
pub fn missing_rum(sharedir: &Path, version: &str) -> Option<String> {
    let control = sharedir.join("extension/rum.control");
    if control.is_file() {
        return None;
    }
    let major = version
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.split('.').next())
        .filter(|m| !m.is_empty() && m.chars().all(|c| c.is_ascii_digit()));
    let package = major.map_or("postgresql-<major>-rum".to_owned(), |m| {
        format!("postgresql-{m}-rum")
    });
    Some(format!(
        "the rum extension of PostgreSQL ({}) is not installed: the shared store's search is \
         tested with its RUM index. Install it with `apt-get install {package}` (Debian, \
         Ubuntu), or build it from https://github.com/postgrespro/rum ({} is missing).",
        version.trim(),
        control.display()
    ))
}

impl Programs {
    /// [`missing_rum`] for this server.
    fn missing_rum(&self) -> Option<String> {
        let ask = |flag: &str| {
            let out = Command::new(&self.pg_config)
                .arg(flag)
                .output()
                .unwrap_or_else(|e| panic!("{} {flag}: {e}", self.pg_config.display()));
            assert!(
                out.status.success(),
                "{} {flag}: {}",
                self.pg_config.display(),
                both(&out)
            );
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        };
        missing_rum(Path::new(&ask("--sharedir")), &ask("--version"))
    }

    /// `pg_config --bindir` when the server is there (pg_config may come from
    /// libpq-dev alone), else the newest /usr/lib/postgresql/<major>/bin,
    /// else PATH.
    fn find() -> Option<Self> {
        let complete = |dir: &Path| {
            ["initdb", "pg_ctl", "createdb", "pg_config"]
                .iter()
                .all(|name| dir.join(name).is_file())
        };
        if let Ok(out) = Command::new("pg_config").arg("--bindir").output()
            && out.status.success()
        {
            let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            if complete(&dir) {
                return Some(Self::in_dir(&dir));
            }
        }
        let newest = fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let version: Vec<u32> = entry
                    .file_name()
                    .to_str()?
                    .split('.')
                    .map(|part| part.parse().ok())
                    .collect::<Option<_>>()?;
                let bin = entry.path().join("bin");
                complete(&bin).then_some((version, bin))
            })
            .max();
        if let Some((_, bin)) = newest {
            return Some(Self::in_dir(&bin));
        }
        let path = std::env::var_os("PATH")?;
        let on_path = |name: &str| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .find(|file| file.is_file())
        };
        Some(Self {
            initdb: on_path("initdb")?,
            pg_ctl: on_path("pg_ctl")?,
            createdb: on_path("createdb")?,
            pg_config: on_path("pg_config")?,
        })
    }

    fn in_dir(dir: &Path) -> Self {
        Self {
            initdb: dir.join("initdb"),
            pg_ctl: dir.join("pg_ctl"),
            createdb: dir.join("createdb"),
            pg_config: dir.join("pg_config"),
        }
    }
}

/// What runs a program as the server's user: nothing, or as root
/// `runuser -u postgres --`.
fn runner(as_postgres: bool) -> Vec<std::ffi::OsString> {
    if as_postgres {
        ["runuser", "-u", "postgres", "--"].map(Into::into).to_vec()
    } else {
        Vec::new()
    }
}

/// As root: gives the folder to the postgres user, and checks that it can
/// reach it (every parent folder open to it).
fn give_to_postgres(dir: &Path) {
    let shown = dir.display();
    let id = |flag: &str| -> u32 {
        let out = Command::new("id")
            .args([flag, "postgres"])
            .output()
            .unwrap_or_else(|e| panic!("id {flag} postgres: {e}"));
        assert!(
            out.status.success(),
            "PostgreSQL refuses to run as root, and there is no postgres user to run it as \
             (`apt-get install postgresql` makes one): {}",
            both(&out)
        );
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("id {flag} postgres: {e}"))
    };
    std::os::unix::fs::chown(dir, Some(id("-u")), Some(id("-g")))
        .unwrap_or_else(|e| panic!("chown postgres {shown}: {e}"));
    let reachable = Command::new("runuser")
        .args(["-u", "postgres", "--", "test", "-w"])
        .arg(dir)
        .args(["-a", "-x"])
        .arg(dir)
        .current_dir("/")
        .status()
        .unwrap_or_else(|e| {
            panic!("runuser (util-linux) runs PostgreSQL as the postgres user: {e}")
        });
    assert!(
        reachable.success(),
        "running as root, PostgreSQL runs as the postgres user, which cannot reach {shown} \
         (a parent folder is closed to it): set TMPDIR to a folder it can reach, e.g. TMPDIR=/tmp"
    );
}

/// A free port on 127.0.0.1 (free when we looked).
fn free_port() -> u16 {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .unwrap_or_else(|e| panic!("a free port on 127.0.0.1: {e}"))
}

/// A command's stdout and stderr, for a failure message.
fn both(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
