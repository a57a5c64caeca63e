//! What Claude Code would do with a shell command before anyone asks it:
//! run it (a read-only command, or one the user's `permissions.allow`
//! names), ask, or deny (`permissions.deny`). agentctx runs a command in
//! its sandbox under a changed input, which Claude Code's own rules can no
//! longer match; this lets the hook keep the user's answers: what the user
//! allowed runs (sandboxed) without a prompt, what they deny is denied,
//! the rest is asked as before (issue 38: strict mode in an asking mode).
//!
//! The read-only list is agentctx's, not Claude Code's table: a command on
//! it that Claude Code would have asked about now runs without the
//! question, in the sandbox. It holds only programs that change nothing
//! with the options allowed here.

use std::path::{Path, PathBuf};

use agentctx_config::Environment;
use agentctx_shell::{ShellScript, ShellWord};

/// The largest settings file read.
const SETTINGS_LIMIT: u64 = 1024 * 1024;

/// What Claude Code's permission rules say about a command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnVerdict {
    /// It runs without a question.
    Runs,
    /// It would be asked about.
    Asks,
    /// `permissions.deny` names it: the rule, as written.
    Denied(String),
}

/// Claude Code's permission rules for shell commands from its settings
/// files: the user's, the project's and the project's local ones.
#[derive(Clone, Debug, Default)]
struct BashRules {
    allow: Vec<String>,
    ask: Vec<String>,
    deny: Vec<String>,
}

fn settings_files(root: &Path, env: &Environment) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(user) = crate::claude_user_settings(env) {
        files.push(user.with_file_name("settings.local.json"));
        files.push(user);
    }
    files.push(root.join(".claude/settings.json"));
    files.push(root.join(".claude/settings.local.json"));
    files
}

fn read_rules(files: &[PathBuf]) -> BashRules {
    let mut rules = BashRules::default();
    for file in files {
        let Ok(bytes) = agentctx_fs::read(file, SETTINGS_LIMIT) else {
            continue;
        };
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            // A file it cannot read: nothing it allows counts.
            rules.ask.push("Bash".to_owned());
            continue;
        };
        let list = |key: &str| -> Vec<String> {
            value["permissions"][key]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str())
                .filter_map(bash_rule)
                .collect()
        };
        rules.allow.extend(list("allow"));
        rules.ask.extend(list("ask"));
        rules.deny.extend(list("deny"));
    }
    rules
}

/// The content of a `Bash(...)` rule (`*` for `Bash` alone).
fn bash_rule(rule: &str) -> Option<String> {
    let rule = rule.trim();
    if rule == "Bash" {
        return Some("*".to_owned());
    }
    rule.strip_prefix("Bash(")?
        .strip_suffix(')')
        .map(|inner| inner.trim().to_owned())
}

/// Whether a rule's content matches one command (`npm test:*`: the
/// command or the command and more words; `git log *`: a wildcard; else
/// the command exactly).
fn rule_matches(rule: &str, command: &str) -> bool {
    if rule == "*" {
        return true;
    }
    if let Some(prefix) = rule.strip_suffix(":*") {
        return command == prefix
            || command
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(' '));
    }
    if rule.contains('*') {
        return wildcard(rule, command);
    }
    rule == command
}

fn wildcard(pattern: &str, text: &str) -> bool {
    // `git log *` also matches `git log` (a trailing ` *` is optional).
    if pattern.strip_suffix(" *") == Some(text) {
        return true;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (Some(first), Some(last)) = (parts.first(), parts.last()) else {
        return false;
    };
    if !text.starts_with(first) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// What Claude Code's rules (the settings files of the user and of the
/// project at `root`) and agentctx's read-only list say about `script`.
pub(crate) fn judge(script: &ShellScript, root: &Path, env: &Environment) -> OwnVerdict {
    let rules = read_rules(&settings_files(root, env));
    if !script.opaque.is_empty() || script.commands.is_empty() {
        return OwnVerdict::Asks;
    }
    let mut verdict = OwnVerdict::Runs;
    for command in &script.commands {
        // A word only known when it runs, or a file written: asked.
        let words: Option<Vec<&str>> = command.words.iter().map(ShellWord::literal).collect();
        let Some(words) = words else {
            verdict = OwnVerdict::Asks;
            continue;
        };
        let writes = command
            .redirects
            .iter()
            .any(|r| r.write && r.target.literal().is_none_or(|t| t != "/dev/null"));
        // A variable set for the command steers what it runs
        // (`GIT_EXTERNAL_DIFF=... git diff`); a `$(...)` in a literal word
        // may still be evaluated (`printf -v 'a[$(cmd)]'`).
        let steered = !command.assignments.is_empty()
            || words.iter().any(|w| w.contains("$(") || w.contains('`'));
        if writes || steered {
            verdict = OwnVerdict::Asks;
        }
        let line = words.join(" ");
        if let Some(rule) = rules.deny.iter().find(|r| rule_matches(r, &line)) {
            return OwnVerdict::Denied(format!("Bash({rule})"));
        }
        if words.is_empty() {
            continue;
        }
        let asked = rules.ask.iter().any(|r| rule_matches(r, &line));
        let allowed = rules.allow.iter().any(|r| rule_matches(r, &line));
        if asked || !(allowed || read_only(&words)) {
            verdict = OwnVerdict::Asks;
        }
    }
    verdict
}

/// Programs that change nothing, with the options that would are left out.
fn read_only(words: &[&str]) -> bool {
    let Some((program, args)) = words.split_first() else {
        return true;
    };
    let has = |options: &[&str]| {
        args.iter().any(|a| {
            options
                .iter()
                .any(|o| a == o || a.starts_with(&format!("{o}=")))
        })
    };
    match *program {
        "ls" | "cat" | "head" | "tail" | "wc" | "pwd" | "echo" | "printf" | "grep" | "egrep"
        | "fgrep" | "rg" | "diff" | "cmp" | "file" | "stat" | "which" | "type" | "whoami"
        | "id" | "date" | "uname" | "hostname" | "du" | "df" | "basename" | "dirname"
        | "realpath" | "readlink" | "cut" | "tr" | "nl" | "tac" | "rev" | "true" | "false"
        | "test" | "[" | "seq" | "sleep" | "cd" | "uniq" | "column" => {
            // `uniq IN OUT` writes OUT; `hostname NAME` sets it; `date -s`
            // sets the clock; `file -C` compiles a magic file; `rg --pre`
            // runs a program on every file.
            let operands = args.iter().filter(|a| !a.starts_with('-')).count();
            let changes = match *program {
                "uniq" => operands > 1,
                "hostname" => operands > 0,
                "date" => has(&["-s", "--set"]),
                "file" => has(&["-C", "--compile"]),
                "rg" => has(&["--pre", "--pre-glob", "--search-zip", "-z"]),
                _ => false,
            };
            !changes
        }
        "tree" => !has(&["-o"]),
        "find" => !has(&[
            "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ]),
        "git" => git_read_only(args),
        _ => false,
    }
}

fn git_read_only(args: &[&str]) -> bool {
    // `git -C DIR` and `--no-pager` change where and how it reads, not what.
    let mut args = args;
    loop {
        match args {
            ["-C", _, rest @ ..] => args = rest,
            ["--no-pager", rest @ ..] => args = rest,
            _ => break,
        }
    }
    let Some((subcommand, rest)) = args.split_first() else {
        return true;
    };
    let none_but = |allowed: &[&str]| rest.iter().all(|a| allowed.contains(a));
    match *subcommand {
        "status" | "log" | "diff" | "show" | "rev-parse" | "ls-files" | "blame" | "grep"
        | "describe" | "shortlog" | "ls-tree" | "cat-file" | "merge-base" | "show-ref" => {
            // An output file, an external diff or text converter, a pager
            // program: each writes or runs something.
            // (Any prefix: git takes `-Ocmd` and abbreviated options.)
            !rest.iter().any(|a| {
                a.starts_with("-O")
                    || a.starts_with("--ou")
                    || a.starts_with("--op")
                    || a.starts_with("--ext")
                    || a.starts_with("--tex")
            })
        }
        "branch" => none_but(&["-a", "-r", "-v", "-vv", "--all", "--list", "--show-current"]),
        "remote" => none_but(&["-v", "--verbose"]),
        "tag" => none_but(&["-l", "--list"]),
        "config" => rest
            .first()
            .is_some_and(|a| matches!(*a, "--get" | "--list" | "-l")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_match_as_claude_code_writes_them() {
        assert!(rule_matches("npm test:*", "npm test"));
        assert!(rule_matches("npm test:*", "npm test -- --watch"));
        assert!(!rule_matches("npm test:*", "npm testing"));
        assert!(rule_matches("git log *", "git log --oneline"));
        assert!(rule_matches("git log *", "git log"));
        assert!(!rule_matches("git log *", "git logs"));
        assert!(rule_matches("*", "anything"));
        assert!(rule_matches("make build", "make build"));
        assert!(!rule_matches("make build", "make build-all"));
        assert_eq!(
            bash_rule("Bash(npm run test:*)").as_deref(),
            Some("npm run test:*")
        );
        assert_eq!(bash_rule("Read(./x)"), None);
    }

    #[test]
    fn read_only_commands_change_nothing() {
        for line in [
            "ls -la",
            "git status --short",
            "git log --oneline -5",
            "git branch -a",
            "git -C sub status --short",
            "git --no-pager log -3",
            "find . -name x",
        ] {
            let words: Vec<&str> = line.split(' ').collect();
            assert!(read_only(&words), "{line}");
        }
        for line in [
            "git branch -D x",
            "git push",
            "find . -delete",
            "sort -o out a",
            "rm x",
            "npm test",
            "git config user.name x",
            "uniq in out",
            "rg --pre ./x.sh y",
            "sort --compress-program=sh a",
            "sort a.txt",
            "git grep -Ocmd x",
            "git grep --open=cmd x",
            "git grep -O x",
            "git -c core.pager=sh log",
            "hostname evil",
            "less README.md",
        ] {
            let words: Vec<&str> = line.split(' ').collect();
            assert!(!read_only(&words), "{line}");
        }
    }
}
