//! Reaching the server: the URL from the user's config, the password from
//! the environment or a file, TLS through rustls unless `sslmode=disable`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agentctx_types::AgentMemConfig;
use postgres::config::SslMode;

use super::PgError;

/// How to reach the store.
#[derive(Clone, PartialEq, Eq)]
pub struct PgSettings {
    /// The URL (`postgres://user@host:port/db?sslmode=...`).
    pub url: String,
    /// The password, when not in the URL.
    pub password: Option<String>,
    /// How long a connection attempt may take (a hook must not hang).
    pub connect_timeout: Duration,
}

impl std::fmt::Debug for PgSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgSettings")
            .field("url", &redacted(&self.url))
            .field("password", &self.password.as_ref().map(|_| "***"))
            .finish()
    }
}

impl PgSettings {
    /// The store `config` names, if any. The password comes from
    /// `AGENTMEM_STORE_PASSWORD`, else `PGPASSWORD` (`var`), else the first
    /// line of `store_password_file`.
    ///
    /// # Errors
    /// The password file cannot be read.
    pub fn from_config(
        config: &AgentMemConfig,
        var: &dyn Fn(&str) -> Option<String>,
        home: Option<&std::path::Path>,
    ) -> Result<Option<Self>, PgError> {
        let Some(url) = config.store.as_deref().filter(|u| !u.trim().is_empty()) else {
            return Ok(None);
        };
        let password = match ["AGENTMEM_STORE_PASSWORD", "PGPASSWORD"]
            .iter()
            .find_map(|name| var(name).filter(|v| !v.is_empty()))
        {
            Some(password) => Some(password),
            None => match &config.store_password_file {
                Some(file) => {
                    let path: PathBuf = crate::capture::expand_home(&file.to_string_lossy(), home);
                    let text = std::fs::read_to_string(&path)
                        .map_err(|source| PgError::PasswordFile { path, source })?;
                    text.lines().next().map(str::to_owned)
                }
                None => None,
            },
        };
        Ok(Some(Self {
            url: url.trim().to_owned(),
            password,
            connect_timeout: Duration::from_secs(3),
        }))
    }

    /// Host, port and database of the URL, for messages (never credentials).
    pub fn target(&self) -> String {
        redacted(&self.url)
    }
}

/// `host:port/db` of a URL, without user, password or parameters.
fn redacted(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    rest.split('?').next().unwrap_or(rest).to_owned()
}

/// The client configuration of `settings`: URL, password, timeout.
pub(super) fn client_config(settings: &PgSettings) -> Result<postgres::Config, PgError> {
    let mut config: postgres::Config =
        settings
            .url
            .parse()
            .map_err(|e: postgres::Error| PgError::Url {
                message: format!("{e} (expected postgres://user@host:port/database)"),
            })?;
    if let Some(password) = &settings.password {
        config.password(password);
    }
    config.connect_timeout(settings.connect_timeout);
    config.application_name("agentctx");
    Ok(config)
}

/// A connection to the store.
///
/// # Errors
/// The URL is not one, TLS cannot be set up, or the server cannot be
/// reached or refuses the login.
pub fn connect(settings: &PgSettings) -> Result<postgres::Client, PgError> {
    let config = client_config(settings)?;
    let client = if config.get_ssl_mode() == SslMode::Disable {
        config.connect(postgres::NoTls)
    } else {
        config.connect(tls()?)
    };
    client.map_err(|source| PgError::Postgres {
        target: settings.target(),
        source,
    })
}

/// rustls with the web's root certificates (ring as the crypto provider).
pub(super) fn tls() -> Result<tokio_postgres_rustls::MakeRustlsConnect, PgError> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(PgError::Tls)?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_host_and_database_never_credentials() {
        assert_eq!(
            redacted("postgres://u:secret@db.example:5432/mem?sslmode=require"),
            "db.example:5432/mem"
        );
        let settings = PgSettings {
            url: "postgres://u:secret@h/db".into(),
            password: Some("p".into()),
            connect_timeout: Duration::from_secs(1),
        };
        assert!(!format!("{settings:?}").contains("secret"));
        assert!(!format!("{settings:?}").contains("\"p\""));
    }

    #[test]
    fn the_password_comes_from_the_environment_then_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pw");
        std::fs::write(&file, "from-file\nignored\n").unwrap();
        let config = AgentMemConfig {
            store: Some("postgres://u@h/db".into()),
            store_password_file: Some(file),
            ..AgentMemConfig::default()
        };
        let none = |_: &str| None;
        let env = |name: &str| (name == "PGPASSWORD").then(|| "from-env".to_owned());
        let from = |var: &dyn Fn(&str) -> Option<String>| {
            PgSettings::from_config(&config, var, None)
                .unwrap()
                .unwrap()
                .password
        };
        assert_eq!(from(&none).as_deref(), Some("from-file"));
        assert_eq!(from(&env).as_deref(), Some("from-env"));
        let unset = AgentMemConfig::default();
        assert!(
            PgSettings::from_config(&unset, &none, None)
                .unwrap()
                .is_none()
        );
    }
}
