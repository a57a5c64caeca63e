//! The hook command install writes, and how an earlier one is recognised.

use agentctx_types::Agent;

/// The command for one hook event: the program quoted for `/bin/sh`, and
/// for `PreToolUse` a guard that blocks the call (exit 2, with a message for
/// the model and the user) when the program cannot run.
pub fn hook_command(program: &str, agent: Agent, event: &str) -> String {
    let mut base = format!("{} hook --agent {agent}", agentctx_shell::quote(program));
    // Copilot CLI's camelCase payloads do not name their event.
    if event.starts_with(|c: char| c.is_ascii_lowercase()) {
        base.push_str(&format!(" --event {event}"));
    }
    // The tool events, where exit 2 blocks the call.
    if matches!(event, "PreToolUse" | "BeforeTool") {
        let message = format!(
            "agentctx hook: cannot run {program}; tool calls are blocked until it runs again (reinstall: agentctx install {agent})"
        );
        format!(
            "{base} || {{ echo {} >&2; exit 2; }}",
            agentctx_shell::quote(&message)
        )
    } else {
        base
    }
}

/// Whether a hook command is agentctx's: its program's file name is
/// `agentctx` and its first argument `hook` (any earlier form, the bare
/// `agentctx hook` included).
pub fn is_agentctx_command(command: &str) -> bool {
    let Some((program, rest)) = first_shell_word(command) else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(&program);
    name == "agentctx" && rest.split_whitespace().next() == Some("hook")
}

/// The first word of a `/bin/sh` command with its quotes removed, and the
/// text after it; `None` when a quote is not closed.
fn first_shell_word(command: &str) -> Option<(String, &str)> {
    let command = command.trim_start();
    let mut word = String::new();
    let mut chars = command.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => return Some((word, &command[at..])),
            '\'' => loop {
                match chars.next()? {
                    (_, '\'') => break,
                    (_, c) => word.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    (_, '"') => break,
                    (_, '\\') => word.push(chars.next()?.1),
                    (_, c) => word.push(c),
                }
            },
            '\\' => word.push(chars.next()?.1),
            c => word.push(c),
        }
    }
    Some((word, ""))
}
