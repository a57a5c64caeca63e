//! Variables the project could have set for the hook's own process. Some
//! agents (Gemini CLI and Qwen Code: their profiles' `loads_env_file`) load
//! a project's `.env` into their environment, and their hook commands
//! (started with `bash -c`) inherit it: a `BASH_ENV`
//! there runs code before agentctx, an `XDG_CONFIG_HOME` points agentctx
//! at a config of the project's. `.env` is protected where those agents
//! load it (`protect.rs`); a hook that finds such a variable pointing into
//! the project or a temporary folder anyway refuses the session's tool
//! calls rather than trust a process the project may have steered.

use std::path::{Path, PathBuf};

use agentctx_config::Environment;

/// Variables a shell runs a file from before the command, or that the
/// loader, agentctx's config or its state are found through. Beside them,
/// every agent's profile names those that move its settings
/// (`Dialect::settings_vars`: where agentctx finds what it protects).
const STEERING: [&str; 9] = [
    "BASH_ENV",
    "ENV",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "GCONV_PATH",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "AGENTMEM_ROOT",
];

/// Why the hook's environment looks steered by the project: a variable of
/// [`STEERING`] or of an agent's profile names a path inside `root` (or,
/// for the ones a shell runs or the loader loads, inside a temporary folder
/// anyone may write).
pub(super) fn steered(env: &Environment, root: &Path) -> Option<String> {
    // Where the project holds the home (a session started there, a scratch
    // folder holding one), the agents' settings in the home (`~/.codex`)
    // cannot be told from the project's: only the code and agentctx's own
    // variables are looked at then.
    let home_in_project = env.home().is_some_and(|home| under(&home, root));
    let agents = agentctx_types::Agent::ALL
        .into_iter()
        .filter(|_| !home_in_project)
        .flat_map(|agent| agentctx_agents::dialect::of(agent).settings_vars());
    for name in STEERING.iter().chain(agents).copied() {
        let Some(value) = env.get(name).filter(|v| !v.is_empty()) else {
            continue;
        };
        let runs_code = matches!(
            name,
            "BASH_ENV" | "ENV" | "LD_PRELOAD" | "LD_LIBRARY_PATH" | "GCONV_PATH"
        );
        for part in value.split(':').filter(|p| !p.is_empty()) {
            let path = PathBuf::from(part);
            // A relative path is the agent's folder: the project's.
            let inside_project = !path.is_absolute() || under(&path, root);
            let in_temp = ["/tmp", "/var/tmp", "/dev/shm"]
                .iter()
                .any(|t| under(&path, Path::new(t)));
            if inside_project || (runs_code && in_temp) {
                return Some(format!(
                    "{name}={part} in the agent's environment names {}: the project could have set it (an agent may load a project's .env into its hooks' environment){}",
                    if inside_project {
                        "a path in the project"
                    } else {
                        "a temporary folder"
                    },
                    if runs_code {
                        ", and it ran or loaded code before agentctx's hook"
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    None
}

fn under(path: &Path, folder: &Path) -> bool {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    real.starts_with(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bash_env_or_config_folder_in_the_project_steers_and_the_usual_ones_do_not() {
        let root = Path::new("/work/project");
        let env = |pairs: &[(&str, &str)]| Environment::from_pairs(pairs.iter().copied());
        assert!(steered(&env(&[("BASH_ENV", "/work/project/.hookrc")]), root).is_some());
        assert!(steered(&env(&[("BASH_ENV", ".hookrc")]), root).is_some());
        assert!(steered(&env(&[("BASH_ENV", "/tmp/x.sh")]), root).is_some());
        assert!(steered(&env(&[("XDG_CONFIG_HOME", "/work/project/cfg")]), root).is_some());
        assert!(steered(&env(&[("LD_PRELOAD", "/work/project/a.so")]), root).is_some());
        // What moves an agent's settings, from its profile.
        for var in [
            "CLINE_DIR",
            "GEMINI_CLI_HOME",
            "COPILOT_HOME",
            "CLAUDE_CONFIG_DIR",
        ] {
            assert!(
                steered(&env(&[(var, "/work/project/x")]), root).is_some(),
                "{var}"
            );
            assert!(
                steered(&env(&[(var, "/home/me/x")]), root).is_none(),
                "{var}"
            );
        }
        // A project that holds the home: an agent's folder there is the
        // user's (the end-to-end suite's scratch folder holds both).
        let holder = Path::new("/work/scratch");
        let codex = env(&[
            ("HOME", "/work/scratch/home"),
            ("CODEX_HOME", "/work/scratch/codex-home"),
        ]);
        assert!(steered(&codex, holder).is_none());
        let bash_env = env(&[
            ("HOME", "/work/scratch/home"),
            ("BASH_ENV", "/work/scratch/x"),
        ]);
        assert!(steered(&bash_env, holder).is_some());
        // A CI home in /tmp, the user's own settings: not the project's.
        assert!(steered(&env(&[("XDG_CONFIG_HOME", "/tmp/home/.config")]), root).is_none());
        assert!(steered(&env(&[("BASH_ENV", "/home/me/.bashenv")]), root).is_none());
        assert!(steered(&env(&[("HOME", "/tmp/home"), ("BASH_ENV", "")]), root).is_none());
    }
}
