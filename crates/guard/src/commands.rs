//! The command rules on a parsed shell line: every command it runs
//! (through `bash -c`, pipes into a shell, wrappers, package runners,
//! `make`, aliases), each judged with the command that feeds it.

use std::path::Path;

use agentctx_rules::{CommandAction, CommandMatch, Invocation, Rules};
use agentctx_shell::ShellScript;

use crate::Verdict;

/// The verdict of the first command rule a command of `script` matches.
pub(crate) fn judge(
    rules: &Rules,
    script: &ShellScript,
    cwd: &Path,
    notes: &mut Vec<String>,
) -> Option<Verdict> {
    let found = first_match(rules, script, cwd)?;
    let place = rules.locate_command_rule(&found.origin);
    notes.push(format!(
        "command `{}` matches `{}` ({place}): {}",
        found.command,
        found.pattern,
        match found.action {
            CommandAction::Deny => "deny",
            CommandAction::Ask => "ask",
        }
    ));
    let why = format!(
        "it runs `{}`, which the command rule `{}` ({place})",
        found.command, found.pattern
    );
    Some(match found.action {
        CommandAction::Deny => Verdict::Deny(agentctx_types::system_reminder(
            agentctx_types::SystemReminderType::PermissionDecision,
            &format!(
                "Denied: this shell command.\nWhy: {why} denies.\nDo not run it another way; if it is needed, ask the user to run it."
            ),
        )),
        CommandAction::Ask => Verdict::Ask(format!(
            "agentctx asks before this command: {why} asks about."
        )),
    })
}

/// The first command rule a command of `script` (run in `cwd`) matches.
fn first_match(rules: &Rules, script: &ShellScript, cwd: &Path) -> Option<CommandMatch> {
    if rules.commands().is_empty() {
        return None;
    }
    let argvs: Vec<Vec<Option<&str>>> = script.commands.iter().map(|c| c.argv()).collect();
    let invocations: Vec<Invocation<'_>> = script
        .commands
        .iter()
        .zip(&argvs)
        .map(|(command, argv)| Invocation {
            argv,
            feeder: command
                .piped_from
                .and_then(|i| argvs.get(i))
                .map(Vec::as_slice),
        })
        .collect();
    rules.check_commands(&invocations, cwd)
}

/// What the command rules say about a shell line run in `cwd`, as the
/// hook judges it: the first rule one of its commands matches (`rules
/// check-command`). `Err` names why the line cannot be read.
pub fn check_command_line(
    rules: &Rules,
    line: &str,
    cwd: &Path,
) -> Result<Option<CommandMatch>, String> {
    let script = agentctx_shell::parse_shell(line).map_err(|e| e.to_string())?;
    Ok(first_match(rules, &script, cwd))
}

/// The denial of a command line that cannot be read under command rules.
pub(crate) fn unreadable(error: &str) -> String {
    agentctx_types::system_reminder(
        agentctx_types::SystemReminderType::PermissionDecision,
        &format!(
            "Denied: this shell command.\nWhy: its line cannot be read ({error}), and the project's command rules must see every command a line runs.\nWrite it as plain shell."
        ),
    )
}
