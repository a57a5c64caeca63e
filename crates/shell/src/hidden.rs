//! What a command runs or reads that its words do not show as commands or
//! files: a program text given on the line (`python3 -c`, an awk or sed
//! program, an interpreter's here-document) and the commands such a
//! program or an option starts by itself (sed's `e`, awk's `system()`,
//! `sort --compress-program`). Outside a sandbox nobody else sees them.

use crate::ShellCommand;
use crate::programs::{self, base_name};

/// Interpreters whose program may be given on the line (`-c`/`-e`) or on
/// their input (`python3 -`, a here-document), with the options that
/// take it. Matched by name with version suffixes (`python3.12`).
const INLINE: [(&str, &[&str]); 7] = [
    ("python", &["-c"]),
    ("node", &["-e", "--eval", "-p", "--print"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("php", &["-r"]),
    ("deno", &["eval"]),
    ("bun", &["-e", "--eval"]),
];

/// A program text a command runs: where it came from, and the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlineCode<'c> {
    /// The program that runs it (`python3`, `awk`).
    pub program: &'c str,
    /// The text, or `None` when it is only known as the line runs (a
    /// pipe from a command whose output the line does not show).
    pub text: Option<&'c str>,
}

impl ShellCommand {
    /// The program texts this command runs besides its own words: an
    /// interpreter's `-c`/`-e` text or the program it reads on its input,
    /// awk's program.
    pub fn inline_code(&self) -> Vec<InlineCode<'_>> {
        let literal: Vec<Option<&str>> = self.words.iter().map(crate::word_text).collect();
        let at = crate::program_at(&literal);
        let Some(name) = literal.get(at).copied().flatten().map(base_name) else {
            return Vec::new();
        };
        let rest = &literal[(at + 1).min(literal.len())..];
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        let mut found = Vec::new();
        if let Some((_, options)) = INLINE.iter().find(|(p, _)| *p == stem) {
            let mut script_named = false;
            let mut i = 0;
            while i < rest.len() {
                match rest[i] {
                    Some(word) if options.contains(&word) => {
                        found.push(InlineCode {
                            program: name,
                            text: rest.get(i + 1).copied().flatten(),
                        });
                        script_named = true;
                        i += 1;
                    }
                    // `-c'code'` and `-e'code'` glued to their option.
                    Some(word)
                        if options
                            .iter()
                            .any(|o| o.len() == 2 && word.len() > 2 && word.starts_with(o)) =>
                    {
                        found.push(InlineCode {
                            program: name,
                            text: Some(&word[2..]),
                        });
                        script_named = true;
                    }
                    // `python3 -m module`: the module is the program.
                    Some("-m") if stem == "python" => script_named = true,
                    Some("-") => break,
                    Some(word) if !word.starts_with('-') => {
                        script_named = true;
                        break;
                    }
                    None => {
                        script_named = true;
                        break;
                    }
                    _ => {}
                }
                if script_named {
                    break;
                }
                i += 1;
            }
            // No script named: the program is what its input holds.
            if !script_named && (self.stdin.is_some() || self.piped_from.is_some()) {
                found.push(InlineCode {
                    program: name,
                    text: self.stdin.as_deref(),
                });
            }
        } else if matches!(name, "awk" | "gawk" | "mawk" | "nawk") {
            // gawk's `-e TEXT`, `--source TEXT`, `--source=TEXT`.
            for (i, word) in rest.iter().enumerate() {
                match word {
                    Some("-e" | "--source") => found.push(InlineCode {
                        program: name,
                        text: rest.get(i + 1).copied().flatten(),
                    }),
                    Some(w) if w.starts_with("--source=") => found.push(InlineCode {
                        program: name,
                        text: Some(&w["--source=".len()..]),
                    }),
                    _ => {}
                }
            }
            let explicit = rest.iter().any(|w| {
                w.is_some_and(|w| {
                    matches!(w, "-f" | "--file" | "-e" | "--source") || w.starts_with("--source=")
                })
            });
            if !explicit {
                let mut skip_value = false;
                for word in rest {
                    if std::mem::take(&mut skip_value) {
                        continue;
                    }
                    match word {
                        Some(w) if matches!(*w, "-F" | "-v") => skip_value = true,
                        Some(w) if w.starts_with('-') && w.len() > 1 => {}
                        text => {
                            found.push(InlineCode {
                                program: name,
                                text: *text,
                            });
                            break;
                        }
                    }
                }
            }
        }
        found
    }

    /// A command this one starts that its words do not show as one, or a
    /// program it runs that the line does not show: what it is, for the
    /// user's question. `None` when there is none.
    pub fn hidden_command(&self) -> Option<String> {
        let literal: Vec<Option<&str>> = self.words.iter().map(crate::word_text).collect();
        let at = crate::program_at(&literal);
        let name = literal.get(at).copied().flatten().map(base_name)?;
        let rest = &literal[(at + 1).min(literal.len())..];
        let words: Vec<&str> = rest.iter().flatten().copied().collect();
        match name {
            "sed" | "gsed" => {
                if let Some(file) = option_value(rest, &["-f", "--file"]) {
                    return Some(format!(
                        "its sed program is the file `{file}`, which can run commands (`e`)"
                    ));
                }
                let scripts = sed_scripts(rest);
                if scripts.iter().any(|s| s.is_none()) {
                    return Some("its sed program is only known when it runs".to_owned());
                }
                scripts
                    .iter()
                    .flatten()
                    .any(|s| programs::sed_file_commands(s).any(|(_, file)| file.is_empty()))
                    .then(|| "its sed program runs a command (`e`)".to_owned())
            }
            "awk" | "gawk" | "mawk" | "nawk" => {
                if let Some(file) = option_value(rest, &["-f", "--file"]) {
                    return Some(format!(
                        "its awk program is the file `{file}`, which can run commands"
                    ));
                }
                self.inline_code()
                    .into_iter()
                    .find_map(|code| match code.text {
                        None => Some("its awk program is only known when it runs".to_owned()),
                        Some(text) => {
                            let text = text.replace("||", " ");
                            (text.contains("system")
                                || text.contains('|')
                                || text.contains("@include")
                                || text.contains("@load"))
                            .then(|| {
                                "its awk program runs a command (`system()`, a pipe) or loads code"
                                    .to_owned()
                            })
                        }
                    })
            }
            "sort" => words
                .iter()
                .find(|w| {
                    let option = w.split_once('=').map_or(**w, |(o, _)| o);
                    option.len() >= 4 && "--compress-program".starts_with(option)
                })
                .map(|_| "`sort --compress-program` runs a program of its choice".to_owned()),
            "rg" => words
                .iter()
                .find(|w| **w == "--pre" || w.starts_with("--pre="))
                .map(|_| "`rg --pre` runs a program on every file it searches".to_owned()),
            "tar" | "bsdtar" | "gtar" => words
                .iter()
                .find(|w| {
                    // Long options by any abbreviation getopt takes.
                    let option = w.split_once('=').map_or(**w, |(o, _)| o);
                    w.starts_with("-I")
                        || (option.len() >= 5
                            && option.starts_with("--")
                            && [
                                "--to-command",
                                "--use-compress-program",
                                "--checkpoint-action",
                                "--info-script",
                                "--new-volume-script",
                                "--rsh-command",
                                "--rmt-command",
                            ]
                            .iter()
                            .any(|o| o.starts_with(option)))
                })
                .map(|w| format!("`tar {w}` runs a program of its choice")),
            "git" => git_hidden(&words),
            _ => {
                let code = self.inline_code();
                code.iter().find(|c| c.text.is_none()).map(|c| {
                    format!(
                        "`{}` runs a program only known when the line runs (read from its input)",
                        c.program
                    )
                })
            }
        }
    }
}

/// The value of the first of `options` in `rest` (`-f FILE`, `--file=FILE`).
fn option_value<'w>(rest: &[Option<&'w str>], options: &[&str]) -> Option<&'w str> {
    for (i, word) in rest.iter().enumerate() {
        let Some(word) = word else { continue };
        if options.contains(word) {
            return Some(rest.get(i + 1).copied().flatten().unwrap_or("?"));
        }
        for option in options.iter().filter(|o| o.starts_with("--")) {
            if let Some(value) = word.strip_prefix(option).and_then(|v| v.strip_prefix('=')) {
                return Some(value);
            }
        }
    }
    None
}

/// A sed command's program texts: each `-e` value, or the first operand
/// when there is none (`None` for a word only known as it runs).
fn sed_scripts<'w>(rest: &[Option<&'w str>]) -> Vec<Option<&'w str>> {
    let mut scripts = Vec::new();
    let mut i = 0;
    let mut explicit = false;
    while i < rest.len() {
        match rest[i] {
            Some("-e" | "--expression") => {
                explicit = true;
                scripts.push(rest.get(i + 1).copied().flatten());
                i += 1;
            }
            Some(w) if w.starts_with("--expression=") => {
                explicit = true;
                scripts.push(Some(&w["--expression=".len()..]));
            }
            // `-ne 'CMD'`: a cluster ending in `e` takes the next word.
            Some(w)
                if w.starts_with('-')
                    && !w.starts_with("--")
                    && w.ends_with('e')
                    && w.len() > 2 =>
            {
                explicit = true;
                scripts.push(rest.get(i + 1).copied().flatten());
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    if !explicit {
        let mut skip = false;
        for word in rest {
            if std::mem::take(&mut skip) {
                continue;
            }
            match word {
                Some("-l" | "-f" | "--file") => skip = true,
                Some(w) if w.starts_with('-') && w.len() > 1 => {}
                other => {
                    scripts.push(*other);
                    break;
                }
            }
        }
    }
    scripts
}

/// git's ways of running a command the line does not show as one: a
/// `-c` setting that names a program, `rebase --exec`, `bisect run`.
fn git_hidden(words: &[&str]) -> Option<String> {
    const RUNS: [&str; 10] = [
        "core.fsmonitor",
        "core.pager",
        "core.sshcommand",
        "core.hookspath",
        "core.editor",
        "core.askpass",
        "diff.external",
        "credential.helper",
        "sequence.editor",
        "gpg.program",
    ];
    let runs =
        |key: &str| RUNS.contains(&key) || key.ends_with(".command") || key.ends_with(".textconv");
    for pair in words.windows(2) {
        if pair[0] == "-c" {
            let key = pair[1]
                .split_once('=')
                .map_or(pair[1], |(k, _)| k)
                .to_ascii_lowercase();
            let alias = key.starts_with("alias.") && pair[1].contains("=!");
            if runs(&key) || alias {
                return Some(format!("`git -c {key}` makes git run a program"));
            }
        }
    }
    if let Some(w) = words.iter().find(|w| w.starts_with("--config-env")) {
        return Some(format!("`git {w}` makes git run what a variable names"));
    }
    let with_program: Vec<&str> = std::iter::once("git")
        .chain(words.iter().copied())
        .collect();
    let sub = programs::git_subcommand(&with_program)?;
    // `-x` in a cluster (`-ix`), a long option by any abbreviation (`--exe`).
    let option = |short: char, long: &str| {
        words.iter().any(|w| {
            let name = w.split_once('=').map_or(*w, |(o, _)| o);
            (name.len() >= 4 && name.starts_with("--") && long.starts_with(name))
                || (w.starts_with('-') && !w.starts_with("--") && w[1..].contains(short))
        })
    };
    match sub {
        // `git config core.fsmonitor CMD` (any scope or file) sets what git
        // runs later, as `-c` does for one run.
        "config" => words
            .iter()
            .skip_while(|w| **w != "config")
            .skip(1)
            .find(|w| !w.starts_with('-') && w.contains('.'))
            .map(|key| key.to_ascii_lowercase())
            .filter(|key| runs(key) || key.starts_with("alias."))
            .map(|key| format!("`git config {key}` makes git run a program later")),
        "rebase" if option('x', "--exec") => Some("`git rebase --exec` runs a command".to_owned()),
        "difftool" | "mergetool" if option('x', "--extcmd") => {
            Some(format!("`git {sub} --extcmd` runs the program it is given"))
        }
        "bisect" if words.contains(&"run") => Some("`git bisect run` runs a command".to_owned()),
        _ => None,
    }
}
