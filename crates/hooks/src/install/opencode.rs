//! agentctx's opencode plugin (`opencode_plugin.js`), written with the
//! program's absolute path in `~/.config/opencode/plugin/` (user) or a
//! project's `.opencode/plugin/`; opencode loads both (measured with
//! 1.18.33: the root's and the cwd's `.opencode/` folders), with no
//! approval step.

/// The plugin's file name.
pub(super) const PLUGIN_FILE: &str = "agentctx.js";

/// The first line of the plugin: what makes a file of its name agentctx's.
const HEADER: &str = "// agentctx for opencode: written by `agentctx install opencode`, removed by";

/// Whether `text` is agentctx's plugin.
pub(super) fn is_ours(text: &str) -> bool {
    text.starts_with(HEADER)
}

/// The plugin's text for `program`; empty when uninstalling (the file is
/// agentctx's alone).
pub(super) fn plugin(program: &str, adding: bool) -> String {
    if !adding {
        return String::new();
    }
    let quoted = serde_json::to_string(program).unwrap_or_else(|_| "\"agentctx\"".to_owned());
    include_str!("opencode_plugin.js").replace("__AGENTCTX_PROGRAM__", &quoted)
}
