//! agentctx's Cline CLI plugin (`cline_plugin.js`), written with the
//! program's absolute path in `$CLINE_DIR/plugins/` (user; `~/.cline`
//! unless `CLINE_DIR` says otherwise) or a project's `.cline/plugins/`,
//! which Cline 3.0.65 loads from the git root also for a session started
//! below it, with no approval step (measured). A plugin, not hook files:
//! only a plugin can give context before the model's first turn and stop
//! one call without ending the task (docs/integrations/cline-cli.md). The
//! MCP server goes into Cline's one MCP settings file.

use std::path::PathBuf;

use agentctx_config::Environment;

use super::agent::{AgentInstall, HOOKS, mcp_target, unplaced};
use super::targets::{FileKind, OwnedFile, Target};
use super::{InstallError, Places, Request, Scope};

/// The plugin's file name.
const PLUGIN_FILE: &str = "agentctx.js";

/// The first line of the plugin: what makes a file of its name agentctx's.
const HEADER: &str = "// agentctx for Cline CLI: written by `agentctx install cline`, removed by";

/// The plugin, a file of agentctx's alone.
const PLUGIN: OwnedFile = OwnedFile {
    what: "agentctx's Cline CLI plugin",
    is_ours: |text| text.starts_with(HEADER),
    text: |program, _, adding| plugin(program, adding),
};

/// The plugin's text for `program`; empty when uninstalling.
fn plugin(program: &str, adding: bool) -> String {
    if !adding {
        return String::new();
    }
    super::agent::fill_plugin(include_str!("cline_plugin.js"), &[("PROGRAM", program)])
}

/// Cline CLI's install.
pub(super) struct Cline;

impl AgentInstall for Cline {
    fn targets(
        &self,
        request: &Request,
        places: &Places,
        adding: bool,
        out: &mut Vec<Target>,
    ) -> Result<(), InstallError> {
        let folder = match request.scope {
            Scope::User => places
                .mcp_configs
                .user_folder(request.agent)
                .ok_or_else(|| unplaced(request, "plugin folder"))?,
            _ => places.root.join(".cline"),
        };
        out.push(Target {
            path: folder.join("plugins").join(PLUGIN_FILE),
            kind: FileKind::Owned(PLUGIN),
            parts: HOOKS,
        });
        mcp_target(request, places, adding, out)
    }

    fn mcp_config(&self, env: &Environment) -> Option<PathBuf> {
        const FILE: &str = "cline_mcp_settings.json";
        if let Some(file) = env.get("CLINE_MCP_SETTINGS_PATH") {
            return Some(PathBuf::from(file));
        }
        match env.get("CLINE_DATA_DIR") {
            Some(data) => Some(PathBuf::from(data).join("settings").join(FILE)),
            None => agentctx_agents::dialect::of(agentctx_types::Agent::Cline)
                .user_folder(env)
                .map(|dir| dir.join("data/settings").join(FILE)),
        }
    }

    fn advice(&self, request: &Request) -> Option<String> {
        Some(format!(
            "Cline CLI loads the agentctx plugin at its next session, with no approval step; it needs nothing from npm. A `cline -s` system prompt replaces Cline's rules but not the plugin's context.{}",
            super::setup::mcp_note(
                request,
                " Its MCP server (tools agentctx__*) is in Cline's cline_mcp_settings.json; Cline does not show the model a server's instructions, so the tools say when to call them."
            )
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;

    #[test]
    fn the_plugin_names_the_program_and_is_known_as_agentctx_s() {
        let text = plugin("/opt/agent ctx", true);
        assert!((PLUGIN.is_ours)(&text));
        assert!(
            text.contains(r#"const PROGRAM = "/opt/agent ctx";"#),
            "{text}"
        );
        assert!(!text.contains("__AGENTCTX_"));
        assert_eq!(plugin("/opt/agentctx", false), "");
        assert!(!(PLUGIN.is_ours)("export default {}"));
    }

    #[test]
    fn the_mcp_settings_follow_cline_s_variables() {
        let at = |pairs: &[(&str, &str)]| {
            let mut all = vec![("HOME", "/h")];
            all.extend_from_slice(pairs);
            Cline.mcp_config(&Environment::from_pairs(all)).unwrap()
        };
        assert_eq!(
            at(&[]),
            PathBuf::from("/h/.cline/data/settings/cline_mcp_settings.json")
        );
        assert_eq!(
            at(&[("CLINE_DIR", "/c")]),
            PathBuf::from("/c/data/settings/cline_mcp_settings.json")
        );
        assert_eq!(
            at(&[("CLINE_DIR", "/c"), ("CLINE_DATA_DIR", "/d")]),
            PathBuf::from("/d/settings/cline_mcp_settings.json")
        );
        assert_eq!(
            at(&[
                ("CLINE_DATA_DIR", "/d"),
                ("CLINE_MCP_SETTINGS_PATH", "/m.json")
            ]),
            PathBuf::from("/m.json")
        );
        // A file of that variable is taken as named, whatever its name.
        assert_eq!(
            at(&[("CLINE_MCP_SETTINGS_PATH", "/etc/cline/settings")]),
            PathBuf::from("/etc/cline/settings")
        );
    }
}
