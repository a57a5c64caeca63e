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
    // A line part of which does not parse: bash runs what comes before
    // the error (`bash -c $'git push --force\n)'`).
    if let Some(broken) = broken_part(rules, script) {
        notes.push(format!("command rules: the line holds {broken}"));
        return Some(Verdict::Deny(unreadable(broken)));
    }
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

/// A nested line of `script` that does not parse, while command rules are
/// set: bash runs what comes before the error, which no rule saw.
fn broken_part<'s>(rules: &Rules, script: &'s ShellScript) -> Option<&'s String> {
    if rules.commands().is_empty() {
        return None;
    }
    script.opaque.iter().find(|o| o.contains("does not parse"))
}

/// The first command rule a command of `script` (run in `cwd`) matches.
fn first_match(rules: &Rules, script: &ShellScript, cwd: &Path) -> Option<CommandMatch> {
    if rules.commands().is_empty() {
        return None;
    }
    let argvs: Vec<Vec<Option<&str>>> = script.commands.iter().map(|c| c.argv()).collect();
    // A command with each command whose output reaches it (`curl URL |
    // tee f | sh`: `sh` reads `tee`'s and `curl`'s).
    let mut invocations: Vec<Invocation<'_>> = Vec::new();
    for (command, argv) in script.commands.iter().zip(&argvs) {
        invocations.push(Invocation { argv, feeder: None });
        let mut from = command.piped_from;
        for _ in 0..8 {
            let Some(i) = from.filter(|i| *i < argvs.len()) else {
                break;
            };
            invocations.push(Invocation {
                argv,
                feeder: Some(&argvs[i]),
            });
            from = script.commands[i].piped_from;
        }
    }
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
    if let Some(broken) = broken_part(rules, &script) {
        return Err(broken.clone());
    }
    Ok(first_match(rules, &script, cwd))
}

/// Programs that print the whole environment when given no operand.
const ENV_DUMPS: [&str; 6] = ["env", "printenv", "set", "export", "declare", "typeset"];

/// What a line that runs as written would reveal of the secrets in its
/// environment (the sandbox leaves them out; here nothing would): the
/// secret variables it expands (`$OPENAI_API_KEY`, by name or value as
/// the sandbox judges them), or the whole environment printed (`env`,
/// `printenv`, `export -p`, `/proc/self/environ`). `None` when neither.
pub(crate) fn secrets_revealed(
    host: &agentctx_session::Host<'_>,
    line: &str,
    script: &ShellScript,
) -> Option<String> {
    let config = &host.config.project_agent_rules;
    let secrets = agentctx_sandbox::SecretEnv::new(&config.secret_env, &config.pass_env).ok()?;
    let mut named: Vec<&str> = Vec::new();
    let bytes = line.as_bytes();
    let mut at = 0;
    while let Some(found) = line[at..].find('$') {
        let start = at + found + 1;
        let braced = bytes.get(start) == Some(&b'{');
        let from = start + usize::from(braced);
        let end = line[from..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(line.len(), |e| from + e);
        let name = &line[from..end];
        let value = host.env.get(name).unwrap_or_default();
        if !name.is_empty()
            && !named.contains(&name)
            && secrets.is_secret(name.as_ref(), value.as_ref())
        {
            named.push(name);
        }
        at = end.max(start);
    }
    if !named.is_empty() {
        let list: Vec<String> = named.iter().map(|n| format!("`${n}`")).collect();
        return Some(format!(
            "it expands {} (a secret of the agent's environment)",
            list.join(", ")
        ));
    }
    for command in &script.commands {
        let argv = command.argv();
        let Some(Some(program)) = argv.first() else {
            continue;
        };
        let operands = argv[1..]
            .iter()
            .filter(|w| w.is_none_or(|w| !w.starts_with('-')))
            .count();
        let dumps = ENV_DUMPS.contains(program) && operands == 0;
        // `printenv NAME` prints one.
        if *program == "printenv"
            && let Some(name) = argv[1..].iter().flatten().find(|name| {
                let value = host.env.get(name).unwrap_or_default();
                secrets.is_secret(name.as_ref(), value.as_ref())
            })
        {
            return Some(format!(
                "it prints `{name}` (a secret of the agent's environment)"
            ));
        }
        let reads_environ = argv
            .iter()
            .flatten()
            .any(|w| w.starts_with("/proc/") && w.ends_with("/environ"));
        if dumps || reads_environ {
            return Some("it prints the environment (the agent's secrets with it)".to_owned());
        }
    }
    None
}

/// Variables that make later programs load or run code of the setter's
/// choice (a library, a module, a startup script, a command).
const POISONS: [&str; 16] = [
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
    "NODE_OPTIONS",
    "PYTHONSTARTUP",
    "PERL5OPT",
    "RUBYOPT",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "PAGER",
];

/// What a line that runs as written sets in the environment to steer the
/// programs after it: one of [`POISONS`], or `PATH` exported (the agent's
/// shell keeps it for every later command). `None` when it sets neither.
pub(crate) fn poisons_environment(script: &ShellScript) -> Option<String> {
    for command in &script.commands {
        let exported: Vec<&str> = match command.argv().first() {
            Some(Some("export" | "declare" | "typeset" | "readonly")) => command
                .words
                .iter()
                .skip(1)
                .map(word_text)
                .filter_map(|w| w.split_once('=').map(|(name, _)| name))
                .collect(),
            _ => Vec::new(),
        };
        // Set before the program, or by `env NAME=VALUE`.
        let before: Vec<&str> = command
            .assignments
            .iter()
            .map(|a| a.name.as_str())
            .chain(
                command
                    .words
                    .iter()
                    .take_while(|w| w.literal() != command.argv().first().copied().flatten())
                    .filter_map(agentctx_shell::ShellWord::literal)
                    .filter_map(|w| w.split_once('=').map(|(name, _)| name)),
            )
            .collect();
        let set = exported
            .iter()
            .chain(&before)
            .find(|name| POISONS.contains(name) || (**name == "PATH" && exported.contains(name)));
        if let Some(name) = set {
            return Some(format!(
                "it sets `{name}`, which steers the programs run after it"
            ));
        }
    }
    None
}

/// A word's text, its value or, for a word only known when it runs, as
/// written (`PATH=/x:$PATH`).
fn word_text(word: &agentctx_shell::ShellWord) -> &str {
    match word {
        agentctx_shell::ShellWord::Literal(text)
        | agentctx_shell::ShellWord::Pattern(text)
        | agentctx_shell::ShellWord::Dynamic(text) => text,
    }
}

/// The hosts a line that runs as written names that the network rules
/// refuse (URLs in its words), for the ask: the sandbox's proxy would
/// refuse them, but here there is none.
pub(crate) fn refused_hosts(
    host: &agentctx_session::Host<'_>,
    rules: &Rules,
    script: &ShellScript,
) -> Option<String> {
    let policy = crate::network::network_policy(host, rules, &[]).ok()??;
    for command in &script.commands {
        for word in command
            .words
            .iter()
            .filter_map(agentctx_shell::ShellWord::literal)
        {
            let Some(at) = word.find("://") else { continue };
            let start = word[..at]
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.'))
                .map_or(0, |i| i + 1);
            let url = &word[start..];
            if let Err(reason) = crate::network::judge_url(Some(&policy), url) {
                return Some(format!("it reaches {reason}"));
            }
        }
    }
    None
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
