//! agentctx's opencode plugin (`opencode_plugin.js`), written with the
//! program's absolute path in `~/.config/opencode/plugin/` (user) or a
//! project's `.opencode/plugin/`; opencode loads both (measured with
//! 1.18.33: the root's and the cwd's `.opencode/` folders), with no
//! approval step. Beside it, in `agentctx/bash` of the same folder, the
//! shell the plugin makes opencode's (`opencode_shell.sh`): opencode runs
//! its bash tool as `<shell> -c COMMAND` (measured), and this one runs a
//! command agentctx judged in its sandbox with the command's text kept.

use std::path::{Path, PathBuf};

/// The plugin's file name.
pub(super) const PLUGIN_FILE: &str = "agentctx.js";

/// The first line of the plugin: what makes a file of its name agentctx's.
const HEADER: &str = "// agentctx for opencode: written by `agentctx install opencode`, removed by";

/// The first lines of the shell: what makes a file of its name agentctx's.
const SHELL_HEADER: &str =
    "#!/bin/sh\n# agentctx for opencode: written by `agentctx install opencode`, removed by";

/// Whether `text` is agentctx's plugin.
pub(super) fn is_ours(text: &str) -> bool {
    text.starts_with(HEADER)
}

/// Whether `text` is agentctx's shell.
pub(super) fn is_our_shell(text: &str) -> bool {
    text.starts_with(SHELL_HEADER)
}

/// Where the shell goes for the plugin at `plugin` (`<folder>/plugin/agentctx.js`):
/// `<folder>/agentctx/bash`. Named `bash`: opencode names the shell to the
/// model by its file name and picks its arguments for the user's own
/// commands by it, and the shell runs bash.
pub(super) fn shell_path(plugin: &Path) -> PathBuf {
    let folder = plugin
        .parent()
        .and_then(Path::parent)
        .unwrap_or_else(|| Path::new("."));
    folder.join("agentctx").join("bash")
}

/// The plugin, a file of agentctx's alone.
const PLUGIN: super::targets::OwnedFile = super::targets::OwnedFile {
    what: "agentctx's opencode plugin",
    is_ours,
    text: |program, path, adding| plugin(program, &shell_path(path), adding),
};

/// The shell the plugin makes opencode's, a file of agentctx's alone.
const SHELL: super::targets::OwnedFile = super::targets::OwnedFile {
    what: "the shell agentctx's opencode plugin makes opencode's",
    is_ours: is_our_shell,
    text: |_, _, adding| shell(adding),
};

/// The plugin's text for `program` with its shell at `shell`; empty when
/// uninstalling (the file is agentctx's alone).
pub(super) fn plugin(program: &str, shell: &Path, adding: bool) -> String {
    if !adding {
        return String::new();
    }
    super::agent::fill_plugin(
        include_str!("opencode_plugin.js"),
        &[("PROGRAM", program), ("SHELL", &shell.to_string_lossy())],
    )
}

/// The shell's text; empty when uninstalling.
pub(super) fn shell(adding: bool) -> String {
    if adding {
        include_str!("opencode_shell.sh").to_owned()
    } else {
        String::new()
    }
}

/// opencode's install: agentctx's plugin (and the shell it makes
/// opencode's) in a project's `.opencode/plugin/` or the user's plugin
/// folder; the MCP server in `opencode.json`.
pub(super) struct Opencode;

impl super::agent::AgentInstall for Opencode {
    fn targets(
        &self,
        request: &super::Request,
        places: &super::Places,
        adding: bool,
        out: &mut Vec<super::targets::Target>,
    ) -> Result<(), super::InstallError> {
        use super::targets::{FileKind, Target};
        let path = match request.scope {
            super::Scope::User => super::agent::user_config(request, places)?
                .with_file_name("plugin")
                .join(PLUGIN_FILE),
            _ => places.root.join(".opencode/plugin").join(PLUGIN_FILE),
        };
        let shell = shell_path(&path);
        out.push(Target {
            path,
            kind: FileKind::Owned(PLUGIN),
            parts: super::agent::HOOKS,
        });
        out.push(Target {
            path: shell,
            kind: FileKind::Owned(SHELL),
            parts: super::agent::HOOKS,
        });
        super::agent::mcp_target(request, places, adding, out)
    }

    fn mcp_config(&self, env: &agentctx_config::Environment) -> Option<PathBuf> {
        env.xdg_dir("XDG_CONFIG_HOME", ".config")
            .map(|dir| dir.join("opencode/opencode.json"))
    }

    fn mcp_entry(&self, program: &str) -> (&'static str, serde_json::Value) {
        (
            "mcp",
            serde_json::json!({"type": "local", "command": [program, "mcp"]}),
        )
    }

    fn advice(&self, request: &super::Request) -> Option<String> {
        Some(format!(
            "opencode loads the agentctx plugin at its next start, with no approval step; it needs nothing from npm.{}",
            super::setup::mcp_note(
                request,
                " Its MCP server (tools agentctx_*) is in opencode.json."
            )
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;

    /// Runs agentctx's shell as opencode does (`<shell> -c COMMAND`), with
    /// what the plugin's `shell.env` gives it.
    fn run_shell(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bash");
        std::fs::write(&path, shell(true)).unwrap();
        let out = std::process::Command::new("/bin/sh")
            .arg(&path)
            .args(args)
            .env_remove("AGENTCTX_OPENCODE_RUN")
            .env_remove("AGENTCTX_OPENCODE_JUDGED")
            .envs(env.iter().copied())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    #[test]
    fn the_shell_runs_the_line_agentctx_gave_for_the_command_it_judged_and_bash_otherwise() {
        // The judged command: the line the hook gave runs instead, and the
        // handover does not reach it.
        let (code, out, _) = run_shell(
            &["-c", "echo AS-WRITTEN"],
            &[
                (
                    "AGENTCTX_OPENCODE_RUN",
                    "echo SANDBOXED ${AGENTCTX_OPENCODE_RUN:-gone}",
                ),
                ("AGENTCTX_OPENCODE_JUDGED", "echo AS-WRITTEN"),
            ],
        );
        assert_eq!((code, out.as_str()), (Some(0), "SANDBOXED gone\n"));
        // Another command than the one judged does not run at all.
        let (code, out, err) = run_shell(
            &["-c", "echo OTHER"],
            &[
                ("AGENTCTX_OPENCODE_RUN", "echo SANDBOXED"),
                ("AGENTCTX_OPENCODE_JUDGED", "echo AS-WRITTEN"),
            ],
        );
        assert_eq!((code, out.as_str()), (Some(126), ""));
        assert!(err.contains("does not run"), "{err}");
        // Nothing handed over (the user's own commands): bash, as written.
        let (code, out, _) = run_shell(&["-c", "echo \"$BASH_VERSION\" | cut -c1"], &[]);
        assert_eq!(code, Some(0));
        assert!(
            out.trim().chars().all(|c| c.is_ascii_digit()) && !out.trim().is_empty(),
            "{out}"
        );
    }

    #[test]
    fn the_plugin_names_the_program_and_its_shell() {
        let text = plugin(
            "/opt/agentctx",
            &shell_path(Path::new("/h/.config/opencode/plugin/agentctx.js")),
            true,
        );
        assert!(is_ours(&text));
        assert!(text.contains(r#"const PROGRAM = "/opt/agentctx";"#));
        assert!(text.contains(r#"const SHELL = "/h/.config/opencode/agentctx/bash";"#));
        assert!(!text.contains("__AGENTCTX_"));
        assert!(is_our_shell(&shell(true)));
        assert_eq!(shell(false), "");
    }
}
