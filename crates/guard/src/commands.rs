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
    script
        .opaque
        .iter()
        .find(|o| o.contains("does not parse") || o.contains("nested too deep"))
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
    // Every name `text` expands (`$NAME`, `${NAME...}`).
    fn expanded(text: &str) -> impl Iterator<Item = &str> {
        text.split('$').skip(1).map(|rest| {
            let rest = rest.strip_prefix('{').unwrap_or(rest);
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
    }
    // A quoted here-document's body is text, never expanded (fed to a
    // shell, its commands are the script's own, scanned below).
    let unquoted = without_quoted_heredocs(line);
    // What the nested lines expand (`cat <<'EOF' | sh` with `$TOKEN` in it).
    let dynamic = script
        .commands
        .iter()
        .flat_map(|c| &c.words)
        .filter_map(|w| match w {
            agentctx_shell::ShellWord::Dynamic(text) => Some(text.as_str()),
            _ => None,
        })
        .flat_map(expanded);
    // A program text reads variables by name (`ENVIRON["GITHUB_TOKEN"]`,
    // `os.environ['OPENAI_API_KEY']`, `process.env.NPM_TOKEN`).
    let in_code = script
        .commands
        .iter()
        .flat_map(|c| c.inline_code())
        .filter_map(|code| code.text)
        .flat_map(|text| text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|name| name.chars().any(|c| c.is_ascii_uppercase()));
    let mut named: Vec<&str> = Vec::new();
    for name in expanded(&unquoted).chain(dynamic).chain(in_code) {
        let value = host.env.get(name).unwrap_or_default();
        if !name.is_empty()
            && !named.contains(&name)
            && secrets.is_secret(name.as_ref(), value.as_ref())
        {
            named.push(name);
        }
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
        let program = &program.rsplit('/').next().unwrap_or(program);
        let operands = argv[1..]
            .iter()
            .filter(|w| w.is_none_or(|w| !w.starts_with('-')))
            .count();
        let dumps = ENV_DUMPS.contains(program) && operands == 0;
        // `printenv NAME` and `declare -p NAME` print one.
        if matches!(*program, "printenv" | "declare" | "typeset")
            && let Some(name) = argv[1..].iter().flatten().find(|name| {
                let value = host.env.get(name).unwrap_or_default();
                secrets.is_secret(name.as_ref(), value.as_ref())
            })
        {
            return Some(format!(
                "it prints `{name}` (a secret of the agent's environment)"
            ));
        }
        let environ = |w: &str| w.starts_with("/proc/") && w.ends_with("/environ");
        let reads_environ = argv.iter().flatten().any(|w| environ(w))
            || command
                .redirects
                .iter()
                .filter_map(|r| r.target.literal())
                .any(environ);
        let whole = command
            .inline_code()
            .iter()
            .filter_map(|code| code.text)
            .any(whole_environment);
        if dumps || reads_environ || whole {
            return Some("it prints the environment (the agent's secrets with it)".to_owned());
        }
    }
    None
}

/// Whether a program text takes the whole environment (awk's `ENVIRON`
/// in a loop, Python's `os.environ`, Perl's `%ENV`, Node's `process.env`,
/// Ruby's `ENV.to_h`), not one variable by name.
fn whole_environment(text: &str) -> bool {
    let after = |needle: &str, allowed: &[&str]| {
        text.match_indices(needle).any(|(at, _)| {
            let rest = &text[at + needle.len()..];
            !allowed.iter().any(|a| rest.starts_with(a))
        })
    };
    after("ENVIRON", &["["])
        || after("os.environ", &["[", ".get(", ".setdefault("])
        || text.contains("%ENV")
        || after("process.env", &[".", "["])
        || [
            "ENV.to_h",
            "ENV.to_a",
            "ENV.each",
            "ENV.inspect",
            "ENV.keys",
            "p ENV",
        ]
        .iter()
        .any(|n| text.contains(n))
}

/// `line` without the bodies of its quoted here-documents (`<<'EOF'`,
/// `<<"EOF"`, `<<\EOF`), which the shell passes on as text.
fn without_quoted_heredocs(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("<<") {
        let (before, after) = rest.split_at(at + 2);
        out.push_str(before);
        let spec = after.trim_start_matches('-').trim_start();
        let delimiter = match spec.chars().next() {
            Some(q @ ('\'' | '"')) => spec[1..].split(q).next(),
            Some('\\') => spec[1..]
                .split(|c: char| c.is_whitespace() || c == ';' || c == '|')
                .next(),
            _ => None,
        };
        let (Some(delimiter), Some(newline)) =
            (delimiter.filter(|d| !d.is_empty()), after.find('\n'))
        else {
            rest = after;
            continue;
        };
        out.push_str(&after[..=newline]);
        let body = &after[newline + 1..];
        let mut offset = 0;
        let mut end = body.len();
        for body_line in body.split_inclusive('\n') {
            if body_line.trim_start_matches('\t').trim_end_matches('\n') == delimiter {
                end = offset;
                break;
            }
            offset += body_line.len();
        }
        rest = &body[end..];
    }
    out.push_str(rest);
    out
}

/// Variables that make later programs load or run code of the setter's
/// choice (a library, a module, a startup script, a command).
const POISONS: [&str; 27] = [
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
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "EDITOR",
    "VISUAL",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "PYTHONPATH",
    "PERL5LIB",
    "RUBYLIB",
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
        let before: Vec<(&str, String)> = command
            .assignments
            .iter()
            .map(|a| {
                let value: Vec<&str> = a.value.iter().map(word_text).collect();
                (a.name.as_str(), value.join(" "))
            })
            .chain(
                command
                    .words
                    .iter()
                    .take_while(|w| w.literal() != command.argv().first().copied().flatten())
                    .filter_map(agentctx_shell::ShellWord::literal)
                    .filter_map(|w| {
                        w.split_once('=')
                            .map(|(name, value)| (name, value.to_owned()))
                    }),
            )
            .collect();
        // A program's own `PATH` that does not start with the one it had
        // puts another folder's programs first (`env PATH=/tmp/x git`).
        let replaces_path = |value: &str| {
            !(value.starts_with("$PATH") || value.starts_with("${PATH}") || value.is_empty())
        };
        let set = exported
            .iter()
            .copied()
            .chain(before.iter().map(|(n, _)| *n))
            .find(|name| {
                POISONS.contains(name)
                    || (*name == "PATH" && exported.contains(name))
                    || (*name == "PATH"
                        && before.iter().any(|(n, v)| *n == "PATH" && replaces_path(v)))
            });
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
    // Without network rules only cloud metadata and link-local addresses
    // are refused, as for a fetch tool.
    let policy = crate::network::network_policy(host, rules, &[]).ok()?;
    for url in crate::reach::urls(script) {
        if let Err(reason) = crate::network::judge_url(policy.as_ref(), &url) {
            return Some(format!("it reaches {reason}"));
        }
    }
    None
}

/// What a line that runs as written starts that no rule saw as a command:
/// a command a program runs by itself (sed's `e`, awk's `system()`, `sort
/// --compress-program`, `git -c core.fsmonitor=`), or a script it reads
/// from a pipe whose text the line does not show. `None` when nothing.
pub(crate) fn hidden_commands(script: &ShellScript) -> Option<String> {
    if let Some(found) = script
        .commands
        .iter()
        .find_map(agentctx_shell::ShellCommand::hidden_command)
    {
        return Some(format!("{found}, which no rule sees"));
    }
    script
        .opaque
        .iter()
        .find(|o| o.contains("reads its script from stdin"))
        .map(|o| format!("{o}, which no rule sees"))
}

/// The files named inside the program texts a line runs (`python3 -c
/// "open('/home/u/.ssh/id_rsa')"`, awk's `ARGV[1]="..."`): quoted absolute
/// or home paths, judged as reads.
pub(crate) fn code_paths(script: &ShellScript) -> Vec<agentctx_shell::NamedPath> {
    let mut found = Vec::new();
    for command in &script.commands {
        for code in command.inline_code() {
            let Some(text) = code.text else { continue };
            for quoted in text.split(['\'', '"']).skip(1).step_by(2) {
                let path = quoted.trim();
                let shaped = (path.starts_with('/') || path.starts_with("~/"))
                    && path.len() > 1
                    && !path.contains(char::is_whitespace);
                if shaped && found.len() < 64 {
                    found.push(agentctx_shell::NamedPath {
                        path: path.to_owned(),
                        program: code.program.to_owned(),
                        access: agentctx_shell::Access::Read,
                        pattern: false,
                        from_root: false,
                    });
                }
            }
        }
    }
    found
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_here_documents_are_text() {
        assert_eq!(
            without_quoted_heredocs("cat <<'EOF' > n.md\nrun $TOKEN\nEOF\necho $X"),
            "cat <<'EOF' > n.md\nEOF\necho $X"
        );
        assert_eq!(
            without_quoted_heredocs("cat <<EOF > n.md\nrun $TOKEN\nEOF"),
            "cat <<EOF > n.md\nrun $TOKEN\nEOF"
        );
        assert_eq!(
            without_quoted_heredocs("cat <<-\"END\" | tee f\n\tx $T\n\tEND\n"),
            "cat <<-\"END\" | tee f\n\tEND\n"
        );
    }
}
