//! Where a command runs as written (the agent cannot run it in the
//! sandbox, under rules that restrict files; strict mode with `sandbox:
//! off`), its words are all the hook has. [`ShellScript::named`] finds the
//! files a line names; what a program opens by another route (a list of
//! files in a file, a config file, a program it starts, the project's own
//! code) no word shows, and a list of such programs could never be
//! finished. So in that mode every command that runs must be a program of
//! this allow-list, whose every file is an operand, a redirection or an
//! option value that `named` reports, used without the options that open
//! files by another route; anything else is denied, naming the program
//! (or option, or variable) and why. Each entry was read against its
//! manual; docs/SECURITY.md lists them.

mod git;
mod others;

use super::{Access, NamedPath, ShellCommand, ShellScript, ShellWord, programs, word_text};

/// Why a command cannot be judged by its words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unverifiable {
    /// What decided it, as written: a program, a program and its option,
    /// a variable.
    pub what: String,
    /// Why, a clause after `what` ("opens the files a list names").
    pub reason: String,
    /// The program whose entry in `project_agent_rules.unsandboxed_programs`
    /// would let it run as written (`None`: no entry would, as for a
    /// variable that changes what every program does).
    pub program: Option<String>,
}

impl std::fmt::Display for Unverifiable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` {}", self.what, self.reason)
    }
}

/// What the check found beyond [`ShellScript::named`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordsChecked {
    /// Files the allowed programs open that `named` reports otherwise or
    /// not at all: the archive `tar` writes, the folders `git add` reads
    /// whole, `uniq`'s output.
    pub extra: Vec<NamedPath>,
    /// git runs in the line (not opted in): the repository's hooks would
    /// run too, which the caller must look for.
    pub runs_git: bool,
}

impl ShellScript {
    /// Checks every command of the line against the allow-list; the
    /// programs (or `program subcommand` pairs) in `unsandboxed` run as
    /// written whatever they do (the user's choice,
    /// `project_agent_rules.unsandboxed_programs`). Call it after the line
    /// was found to hold nothing opaque.
    ///
    /// ```
    /// use agentctx_shell::parse_shell;
    /// assert!(parse_shell("cat README.md | grep x").unwrap().check_words(&[]).is_ok());
    /// let denied = parse_shell("sort --files0-from=list").unwrap().check_words(&[]).unwrap_err();
    /// assert_eq!(denied.what, "sort --files0-from=list");
    /// ```
    ///
    /// # Errors
    /// The first command whose files its words cannot show.
    pub fn check_words(&self, unsandboxed: &[String]) -> Result<WordsChecked, Unverifiable> {
        let mut checked = WordsChecked::default();
        for command in &self.commands {
            check_command(command, unsandboxed, &mut checked)?;
        }
        Ok(checked)
    }
}

/// Variables a command may set: they change how output looks, never what
/// a program opens or runs (with a value that names no path).
const QUIET_VARIABLES: [&str; 13] = [
    "LANG",
    "LANGUAGE",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "COLUMNS",
    "LINES",
    "CI",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "NODE_ENV",
    "GIT_TERMINAL_PROMPT",
];

/// Where the system's programs are: a program named by a path elsewhere
/// (`./cat`, `~/bin/cat`) is a program of its own.
const SYSTEM_BIN: [&str; 5] = [
    "/bin/",
    "/usr/bin/",
    "/usr/local/bin/",
    "/sbin/",
    "/usr/sbin/",
];

/// Programs whose every file `named` reports, with no option that opens
/// another: readers, writers judged as writes, and programs that name no
/// file.
const PLAIN: [&str; 85] = [
    // Read what they name.
    "cat", "tac", "nl", "head", "tail", "cut", "paste", "join", "comm", "fold", "fmt", "rev",
    "column", "expand", "unexpand", "od", "hexdump", "strings", "base64", "base32", "basenc",
    "cmp", "diff", "grep", "egrep", "fgrep", "ls", "dir", "vdir", "tree", "stat", "readlink",
    "realpath", "basename", "dirname", "zcat", "test", "[",
    // Change what they name (judged as writes).
    "mkdir", "rmdir", "touch", "cp", "mv", "rm", "ln", "chmod", "tee", "truncate", "mktemp",
    // Name no file, or only metadata.
    "echo", "printf", "true", "false", ":", "pwd", "exit", "return", "set", "unset", "shift",
    "sleep", "date", "seq", "yes", "whoami", "id", "uname", "hostname", "nproc", "which", "type",
    "printenv", "umask", "kill", "ps", "expr", "wait", "getconf", "locale", "tr", "df", "read",
    "break", "continue", "dirs",
];

/// Programs that run the rest of their words, and may: their own options
/// open nothing (checked in [`wrapper`]).
const WRAPPERS: [&str; 11] = [
    "env", "time", "nice", "ionice", "nohup", "command", "builtin", "timeout", "stdbuf", "setsid",
    "chrt",
];

/// Programs that run the project's code (its build, tests, scripts,
/// plugins), which may open any file.
const BUILD_TOOLS: [&str; 40] = [
    "cargo", "rustc", "make", "cmake", "ninja", "meson", "bazel", "just", "npm", "npx", "pnpm",
    "yarn", "bun", "deno", "pip", "pip3", "uv", "poetry", "pytest", "tox", "nox", "go", "gradle",
    "gradlew", "mvn", "mvnw", "ant", "sbt", "dotnet", "gcc", "g++", "cc", "c++", "clang",
    "clang++", "cpp", "ld", "javac", "composer", "bundle",
];

fn check_command(
    command: &ShellCommand,
    unsandboxed: &[String],
    out: &mut WordsChecked,
) -> Result<(), Unverifiable> {
    for assignment in &command.assignments {
        let value: Option<Vec<&str>> = assignment.value.iter().map(ShellWord::literal).collect();
        check_variable(&assignment.name, value.map(|v| v.concat()).as_deref())?;
    }
    let mut words: Vec<&str> = Vec::with_capacity(command.words.len());
    for word in &command.words {
        match word_text(word) {
            Some(text) => words.push(text),
            None => {
                return Err(Unverifiable {
                    what: format!("{word:?}"),
                    reason: "is only known when the shell runs it".to_owned(),
                    program: None,
                });
            }
        }
    }
    let literal: Vec<Option<&str>> = words.iter().copied().map(Some).collect();
    let mut at = 0;
    while let Some(word) = words.get(at).copied() {
        check_path(word)?;
        let program = programs::base_name(word);
        let args = &words[at + 1..];
        if opted_in(program, args, unsandboxed) {
            return Ok(());
        }
        if WRAPPERS.contains(&program) {
            wrapper(program, args)?;
            match programs::wrapped(&literal, at) {
                Some(next) => {
                    at = next;
                    continue;
                }
                None => return Ok(()),
            }
        }
        return check_program(program, args, out);
    }
    Ok(())
}

/// Whether `program` (with `args`) is one the user lets run as written:
/// an entry `program`, or `program subcommand` for its first operand.
fn opted_in(program: &str, args: &[&str], unsandboxed: &[String]) -> bool {
    unsandboxed.iter().any(|entry| {
        let mut parts = entry.split_whitespace();
        let (Some(name), sub) = (parts.next(), parts.next()) else {
            return false;
        };
        name == program
            && match sub {
                None => true,
                Some(sub) => {
                    let first = if program == "git" {
                        git::subcommand(args).map(|(name, _)| name)
                    } else {
                        args.iter().copied().find(|w| !w.starts_with('-'))
                    };
                    first == Some(sub) && parts.next().is_none()
                }
            }
    })
}

/// A variable set for a command or the rest of the line.
fn check_variable(name: &str, value: Option<&str>) -> Result<(), Unverifiable> {
    let quiet = QUIET_VARIABLES.contains(&name) || name.starts_with("LC_");
    match value {
        Some(value) if quiet && !value.contains(['/', '$', '`']) => Ok(()),
        _ => Err(Unverifiable {
            what: name.to_owned(),
            reason: "is set, which changes what programs open or run (a search path, a config file, a library to load)".to_owned(),
            program: None,
        }),
    }
}

/// A program named by a path outside the system's folders.
fn check_path(word: &str) -> Result<(), Unverifiable> {
    if !word.contains('/') {
        return Ok(());
    }
    let system = SYSTEM_BIN.iter().any(|dir| {
        word.strip_prefix(dir)
            .is_some_and(|rest| !rest.contains('/'))
    });
    if system {
        return Ok(());
    }
    Err(Unverifiable {
        what: word.to_owned(),
        reason:
            "is a program named by its path, not one of the system's: what it opens cannot be known"
                .to_owned(),
        program: None,
    })
}

/// A wrapper's own options.
fn wrapper(program: &str, args: &[&str]) -> Result<(), Unverifiable> {
    match program {
        "env" => {
            let mut words = args.iter();
            while let Some(word) = words.next() {
                if let Some((name, value)) = word.split_once('=')
                    && !name.starts_with('-')
                {
                    check_variable(name, Some(value))?;
                } else if matches!(*word, "-u" | "--unset") {
                    words.next();
                } else if !word.starts_with('-') {
                    break;
                }
            }
            deny_options(
                program,
                args,
                &[
                    ("--split-string", "runs a command line of its own"),
                    ("--chdir", "runs the command in another folder"),
                ],
                &[
                    ('S', "runs a command line of its own"),
                    ('C', "runs the command in another folder"),
                ],
            )
        }
        "time" => deny_options(
            program,
            args,
            &[("--output", "writes a file"), ("--append", "writes a file")],
            &[('o', "writes a file"), ('a', "writes a file")],
        ),
        _ => Ok(()),
    }
}

fn check_program(program: &str, args: &[&str], out: &mut WordsChecked) -> Result<(), Unverifiable> {
    const LIST: &str = "opens the files a list in a file names";
    short_outputs(program, args, out);
    match program {
        p if PLAIN.contains(&p) => Ok(()),
        "wc" | "du" => deny_options(program, args, &[("--files0-from", LIST)], &[]),
        "sort" => deny_options(
            program,
            args,
            &[
                ("--files0-from", LIST),
                ("--compress-program", "runs a program"),
            ],
            &[],
        ),
        "md5sum" | "sha1sum" | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" | "b2sum"
        | "cksum" => deny_options(program, args, &[("--check", LIST)], &[('c', LIST)]),
        "file" => deny_options(program, args, &[("--files-from", LIST)], &[('f', LIST)]),
        "rg" => deny_options(
            program,
            args,
            &[
                ("--pre", "runs a program on every file"),
                ("--pre-glob", "runs a program on every file"),
                ("--hostname-bin", "runs a program"),
            ],
            &[],
        ),
        // `uniq IN OUT`, `xxd IN OUT`: the second operand is written.
        "uniq" | "xxd" => {
            let operands = operands(program, args);
            if let Some(output) = operands.get(1) {
                out.extra.push(named(program, output, Access::Write));
            }
            Ok(())
        }
        "cd" | "pushd" | "popd" => match args.iter().find(|w| {
            **w == "-"
                || ((w.starts_with('+') || w.starts_with('-')) && w[1..].parse::<u32>().is_ok())
        }) {
            Some(word) => Err(Unverifiable {
                what: format!("{program} {word}"),
                reason: "goes to a folder only known when it runs".to_owned(),
                program: None,
            }),
            None => Ok(()),
        },
        "export" | "declare" | "local" | "readonly" | "typeset" => {
            for word in args.iter().filter(|w| !w.starts_with('-')) {
                if let Some((name, value)) = word.split_once('=') {
                    check_variable(name.trim_end_matches('+'), Some(value))?;
                }
            }
            Ok(())
        }
        "find" => others::find(args),
        "sed" => others::sed(args),
        "sh" | "bash" | "dash" => others::shell(program, args),
        "tar" => others::tar(args, out),
        "curl" => others::curl(args),
        "jq" => others::jq(args),
        "git" => {
            out.runs_git = true;
            git::check(args, out)
        }
        _ => Err(unknown(program)),
    }
}

/// The files a short output option names in a cluster or joined to it
/// (`sort -ro FILE`, `sort -oFILE`, `curl -sSoFILE`), which `named` sees
/// only as a word of its own: written. Over-reports (a value letter before
/// the option takes the rest), never misses.
fn short_outputs(program: &str, args: &[&str], out: &mut WordsChecked) {
    let letters: Vec<char> = programs::output_options(program)
        .iter()
        .filter_map(|o| o.strip_prefix('-').filter(|l| l.len() == 1))
        .filter_map(|l| l.chars().next())
        .collect();
    let mut words = args.iter().copied().take_while(|w| *w != "--").peekable();
    while let Some(word) = words.next() {
        let Some(cluster) = word.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
            continue;
        };
        if let Some(at) = cluster.find(|c| letters.contains(&c)) {
            let rest = &cluster[at + 1..];
            let file = if rest.is_empty() {
                words.peek().copied()
            } else {
                Some(rest)
            };
            if let Some(file) = file {
                out.extra.push(named(program, file, Access::Write));
            }
        }
    }
}

/// Why a program off the list is denied.
fn unknown(program: &str) -> Unverifiable {
    let stem = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let reason = match program {
        _ if BUILD_TOOLS.contains(&program) => {
            "runs the project's code (its build, tests or scripts) or reads what its sources include, which can open any file"
        }
        "sqlite3" | "sqlite" => "opens the files its SQL names (`readfile()`, `ATTACH`, `.read`)",
        "socat" | "nc" | "ncat" | "netcat" => {
            "opens the files and programs its addresses name (`FILE:`, `EXEC:`)"
        }
        "awk" | "gawk" | "mawk" | "nawk" => {
            "runs a program that can open any file (`getline`, `ARGV`, `system()`)"
        }
        "sudo" | "doas" => "runs a command as another user, with options that edit files",
        "xargs" | "parallel" => "runs commands built from its input",
        "exec" | "eval" | "source" | "." | "trap" | "alias" => {
            "runs code whose files cannot be known"
        }
        _ if programs::runs_code(stem, &[]) || programs::runs_code(program, &[]) => {
            "runs code whose files cannot be known"
        }
        _ => "is not among the programs whose files agentctx can tell from their words",
    };
    Unverifiable {
        what: program.to_owned(),
        reason: reason.to_owned(),
        program: Some(program.to_owned()),
    }
}

/// The first of `args` (before `--`) that is one of `long` (or an
/// abbreviation of one: GNU's and git's parsers take any unambiguous
/// prefix), or a short-option cluster holding one of `short`; denied
/// with its reason.
fn deny_options(
    program: &str,
    args: &[&str],
    long: &[(&str, &str)],
    short: &[(char, &str)],
) -> Result<(), Unverifiable> {
    for word in args.iter().copied().take_while(|w| *w != "--") {
        let reason = if let Some(name) = word.strip_prefix("--") {
            let name = name.split_once('=').map_or(name, |(n, _)| n);
            long.iter()
                .find(|(option, _)| !name.is_empty() && option[2..].starts_with(name))
                .map(|(_, reason)| *reason)
        } else if let Some(cluster) = word.strip_prefix('-') {
            short
                .iter()
                .find(|(letter, _)| cluster.contains(*letter))
                .map(|(_, reason)| *reason)
        } else {
            None
        };
        if let Some(reason) = reason {
            return Err(Unverifiable {
                what: format!("{program} {word}"),
                reason: reason.to_owned(),
                program: Some(program.to_owned()),
            });
        }
    }
    Ok(())
}

/// The operands of a command: its words that are no option and no
/// option's value (as [`programs::takes_value`] knows them).
fn operands<'w>(program: &str, args: &[&'w str]) -> Vec<&'w str> {
    let mut found = Vec::new();
    let mut words = args.iter().copied();
    let mut options_done = false;
    while let Some(word) = words.next() {
        if !options_done && word == "--" {
            options_done = true;
        } else if !options_done && word.starts_with('-') && word.len() > 1 {
            if programs::takes_value(program, word) {
                words.next();
            }
        } else {
            found.push(word);
        }
    }
    found
}

fn named(program: &str, path: &str, access: Access) -> NamedPath {
    NamedPath {
        path: path.to_owned(),
        program: program.to_owned(),
        access,
        pattern: false,
        from_root: false,
    }
}

#[cfg(test)]
mod tests;
