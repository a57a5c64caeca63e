//! The environment a sandboxed program gets: the agent's, without the
//! variables that hold secrets (`env`, `printenv`, `echo $OPENAI_API_KEY`
//! show nothing, and nothing can be sent that is not there).

use std::ffi::{OsStr, OsString};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// A name pattern of `secret_env` or `pass_env` that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("environment variable pattern `{pattern}`: {source}")]
pub struct EnvPatternError {
    /// The pattern.
    pub pattern: String,
    /// Why.
    #[source]
    pub source: globset::Error,
}

/// Which environment variables hold secrets: a built-in list of names and
/// values, the user's names (`secret_env`), minus what is passed on
/// (`pass_env`).
///
/// ```
/// use agentctx_sandbox::SecretEnv;
/// let secrets = SecretEnv::new(&["MY_*".to_owned()], &["GH_TOKEN".to_owned()])?;
/// assert!(secrets.is_secret("OPENAI_API_KEY".as_ref(), "x".as_ref()));
/// assert!(secrets.is_secret("MY_THING".as_ref(), "x".as_ref()));
/// assert!(secrets.is_secret("HARMLESS".as_ref(), "ghp_0123456789abcdefghijABCDEFGHIJ0123".as_ref()));
/// assert!(!secrets.is_secret("GH_TOKEN".as_ref(), "ghp_x".as_ref()));
/// assert!(!secrets.is_secret("PATH".as_ref(), "/usr/bin".as_ref()));
/// # Ok::<(), agentctx_sandbox::EnvPatternError>(())
/// ```
#[derive(Clone, Debug)]
pub struct SecretEnv {
    secret: GlobSet,
    pass: GlobSet,
}

/// The last word of a name that makes it a secret's (`*_TOKEN`,
/// `*_PASSWORD`).
const SECRET_WORDS: [&str; 16] = [
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "PASS",
    "PWD",
    "APIKEY",
    "KEY",
    "CREDENTIALS",
    "CREDENTIAL",
    "CREDS",
    "PAT",
    "AUTH",
    "DSN",
    "WEBHOOK",
    "COOKIE",
];

/// How the values of well-known credentials start.
const VALUE_PREFIXES: [&str; 24] = [
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "rk_test_",
    "pk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xapp-",
    "AKIA",
    "ASIA",
    "AIza",
    "npm_",
    "hf_",
    "pypi-",
    "-----BEGIN",
];

fn glob_set(patterns: &[String]) -> Result<GlobSet, EnvPatternError> {
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = GlobBuilder::new(pattern)
            .case_insensitive(true)
            .build()
            .map_err(|source| EnvPatternError {
                pattern: pattern.clone(),
                source,
            })?;
        set.add(glob);
    }
    set.build().map_err(|source| EnvPatternError {
        pattern: patterns.join(", "),
        source,
    })
}

impl SecretEnv {
    /// The built-in list plus `secret` names, minus `pass` names (both
    /// globs, matched without case).
    ///
    /// # Errors
    /// A pattern that cannot be read.
    pub fn new(secret: &[String], pass: &[String]) -> Result<Self, EnvPatternError> {
        Ok(Self {
            secret: glob_set(secret)?,
            pass: glob_set(pass)?,
        })
    }

    /// Whether `name=value` holds a secret and is not passed on.
    pub fn is_secret(&self, name: &OsStr, value: &OsStr) -> bool {
        let name_text = name.to_string_lossy();
        if self.pass.is_match(name_text.as_ref()) {
            return false;
        }
        self.secret.is_match(name_text.as_ref())
            || secret_name(&name_text)
            || secret_value(&value.to_string_lossy())
    }

    /// The names of the variables of `vars` that hold secrets, sorted.
    pub fn secrets_in(
        &self,
        vars: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Vec<OsString> {
        let mut names: Vec<OsString> = vars
            .into_iter()
            .filter(|(name, value)| self.is_secret(name, value))
            .map(|(name, _)| name)
            .collect();
        names.sort();
        names
    }
}

fn secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if matches!(upper.as_str(), "PWD" | "OLDPWD") {
        return false;
    }
    let words: Vec<&str> = upper.split('_').filter(|w| !w.is_empty()).collect();
    match words.as_slice() {
        [.., last] if SECRET_WORDS.contains(last) => true,
        // `PGPASSWORD`, `SUDOPASSWD`.
        [.., last] if last.ends_with("PASSWORD") || last.ends_with("PASSWD") => true,
        [.., "KEY", "ID"] => true,
        // `SLACK_WEBHOOK_URL`: the secret is the URL's path.
        [.., "WEBHOOK", "URL"] => true,
        _ => upper.contains("SECRET"),
    }
}

fn secret_value(value: &str) -> bool {
    let long = value.len() >= 16;
    let known = long && VALUE_PREFIXES.iter().any(|p| value.starts_with(p));
    // A URL with a password in it (`postgres://user:pass@host/db`), or a
    // key as its user (`https://KEY@sentry.io/1`).
    let url_password = value.split_once("://").is_some_and(|(_, rest)| {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority
            .rsplit_once('@')
            .is_some_and(|(user, _)| user.contains(':') || user.len() >= 16)
    });
    // A JSON Web Token: three base64url parts, the first a JSON object.
    let jwt = value.starts_with("eyJ") && value.matches('.').count() == 2 && long;
    known || url_password || jwt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_secrets_and_names_that_only_look_alike() {
        for secret in [
            "OPENAI_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "GH_TOKEN",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_ACCESS_KEY_ID",
            "AWS_SESSION_TOKEN",
            "MYSQL_PWD",
            "PGPASSWORD",
            "DB_PASSWORD",
            "GOOGLE_API_KEY",
            "STRIPE_SECRET_KEY",
            "CLIENT_SECRET",
            "GITHUB_PAT",
            "DEPLOY_PRIVATE_KEY",
            "NPM_TOKEN",
            "CLAUDE_CODE_OAUTH_TOKEN",
            "OPENAI_KEY",
            "STRIPE_KEY",
            "DB_PASS",
            "MYVAR_CREDS",
            "NPM_CONFIG__AUTH",
            "SLACK_WEBHOOK",
            "SLACK_WEBHOOK_URL",
            "SENTRY_DSN",
        ] {
            assert!(secret_name(secret), "{secret}");
        }
        for plain in [
            "PATH",
            "PWD",
            "OLDPWD",
            "HOME",
            "SSH_AUTH_SOCK",
            "PASSWORD_STORE_DIR",
            "TOKENIZERS_PARALLELISM",
            "KEYBOARD",
            "GPG_TTY",
            "TERM",
            "KEYMAP",
            "PASSWORD_STORE_DIR",
            "XAUTHORITY",
        ] {
            assert!(!secret_name(plain), "{plain}");
        }
    }

    #[test]
    fn values_of_secrets_whatever_the_name() {
        for value in [
            "sk-ant-api03-abcdefghijklmnop",
            "ghp_0123456789abcdefghij",
            "AKIAIOSFODNN7EXAMPLE",
            "postgres://app:hunter2@db.internal/app",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "rk_test_0123456789abcdef",
            "https://0123456789abcdef0123@o1.ingest.sentry.io/1",
        ] {
            assert!(secret_value(value), "{value}");
        }
        for value in ["sk-1", "/usr/bin:/bin", "https://example.com/a@b", "ghp"] {
            assert!(!secret_value(value), "{value}");
        }
    }
}
