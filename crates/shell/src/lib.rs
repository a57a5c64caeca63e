//! Shell command lines as the coding agents run them (Claude Code's
//! `Bash`, Codex's shell tool, `{"command": "<string>"}` in every agent's
//! payload), parsed with a real shell-syntax parser (brush-parser) rather
//! than split on spaces: quotes, `&&`, pipes, redirections and `cd` mean
//! what they mean, and every command that runs is followed: inside loops
//! and conditionals, command and process substitutions, here-documents fed
//! to a shell, `bash -c` and `eval` strings, `find -exec`, and behind
//! wrappers such as `env`, `sudo`, `timeout` or `xargs`.
//!
//! ```
//! use agentctx_shell::{Access, parse_shell};
//!
//! let script = parse_shell("bash -c 'cat src/main.rs' > out.txt").unwrap();
//! let named = script.named();
//! assert!(named.iter().any(|p| p.path == "src/main.rs" && p.access == Access::Read));
//! assert!(named.iter().any(|p| p.path == "out.txt" && p.access == Access::Write));
//! assert_eq!(agentctx_shell::quote("it's"), r"'it'\''s'");
//! ```
//!
//! This is the guard's fast path: it names what a command line names. What
//! a program does with its input is the program's business; where that
//! matters the kernel decides (`agentctx exec`, docs/SECURITY.md).
//! [`ShellScript::check_words`] says which lines their words alone can
//! vouch for (strict mode's allow-list without the sandbox).
#![deny(missing_docs)]

mod allow;
mod hidden;
mod programs;
mod words;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use brush_parser::ast::{
    AssignmentName, AssignmentValue, Command, CommandPrefixOrSuffixItem, CompoundCommand,
    CompoundList, IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, SimpleCommand,
};
use brush_parser::{Parser, ParserOptions};

pub use allow::{Unverifiable, WordsChecked};
pub use hidden::InlineCode;
pub use words::ShellWord;

/// A redirection target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The file.
    pub target: ShellWord,
    /// `>`, `>>`, `>|`, `<>`, `&>`: the file is written.
    pub write: bool,
}

/// A variable a command sets before its program (`NAME=VALUE cmd`), or,
/// with no program, for the rest of the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    /// The variable (an array element as `NAME[INDEX]`).
    pub name: String,
    /// Its value's words (an array's elements).
    pub value: Vec<ShellWord>,
}

/// One simple command: its words (the program first, braces expanded),
/// its redirections and the variables it sets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShellCommand {
    /// The program and its arguments.
    pub words: Vec<ShellWord>,
    /// The targets of `<`, `>`, `>>` and the like.
    pub redirects: Vec<Redirect>,
    /// `NAME=VALUE` before the program (after it, such a word is an
    /// argument).
    pub assignments: Vec<Assignment>,
    /// The index in [`ShellScript::commands`] of the command whose output
    /// this one reads (`curl URL | sh`: `sh` is piped from `curl`).
    pub piped_from: Option<usize>,
    /// What its standard input holds, when the line shows it: a
    /// here-document, a here-string, or the known output of the command
    /// piped into it (`echo ~/.ssh/id_rsa | xargs cat`). An interpreter
    /// reading its program there runs it (`python3 - <<'EOF'`).
    pub stdin: Option<String>,
}

/// A parsed command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShellScript {
    /// Every simple command that may run, in order: the line's own, those
    /// inside compound commands, substitutions, `bash -c`/`eval` strings,
    /// here-documents fed to a shell, and `find -exec`.
    pub commands: Vec<ShellCommand>,
    /// What could not be followed (a script file run by name, stdin fed to
    /// a shell from a pipe, nesting too deep). A caller that must know
    /// every file a command names treats a non-empty list as "cannot
    /// verify".
    pub opaque: Vec<String>,
}

/// What a command does with a file it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Reads it.
    Read,
    /// May change, create, move or delete it.
    Write,
    /// Reads everything below it (a recursive search, an archive, a copy).
    Search,
}

/// A file a command line names.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NamedPath {
    /// The path as written (joined to the folder a `cd` may have moved to).
    pub path: String,
    /// The program of the command that names it.
    pub program: String,
    /// What the command does with it.
    pub access: Access,
    /// A glob pattern: it names the files that match it.
    pub pattern: bool,
    /// Relative to the repository root, not the working directory
    /// (`git show REV:PATH`).
    pub from_root: bool,
}

/// The command line is not valid shell syntax.
#[derive(Debug, thiserror::Error)]
#[error("not a shell command line the parser accepts: {message}")]
pub struct ShellError {
    /// The parser's message.
    pub message: String,
}

/// How deep command lines inside command lines are followed (`bash -c
/// "bash -c ..."`, `$( $( ) )`); deeper is opaque.
const MAX_NESTING: usize = 16;
/// How many folders a line's `cd`s may leave it in before the rest are
/// dropped (each relative path is judged in every one of them).
const MAX_DIRS: usize = 8;

/// Parses `text` as the agents' shells (bash) would.
///
/// ```
/// use agentctx_shell::{ShellWord, parse_shell};
/// let script = parse_shell("cd packages/api && sed -n '1,20p' \"src/server.ts\" | head > out.txt").unwrap();
/// assert_eq!(script.commands.len(), 3);
/// assert_eq!(script.commands[1].words[3], ShellWord::Literal("src/server.ts".into()));
/// assert_eq!(script.commands[2].redirects[0].target, ShellWord::Literal("out.txt".into()));
/// ```
pub fn parse_shell(text: &str) -> Result<ShellScript, ShellError> {
    let mut script = ShellScript::default();
    parse_into(text, 0, &mut script)?;
    Ok(script)
}

fn parse_into(text: &str, depth: usize, script: &mut ShellScript) -> Result<(), ShellError> {
    if depth > MAX_NESTING {
        script
            .opaque
            .push("command lines nested too deep to follow".into());
        return Ok(());
    }
    let options = ParserOptions::default();
    let mut parser = Parser::new(std::io::BufReader::new(text.as_bytes()), &options);
    let program = parser.parse_program().map_err(|e| ShellError {
        message: e.to_string(),
    })?;
    let mut walker = Walker {
        options: &options,
        depth,
        script,
        pipe: None,
        output: None,
        aliases: Vec::new(),
    };
    for list in &program.complete_commands {
        walker.list(list);
    }
    Ok(())
}

/// Follows a parsed program into every command that may run.
struct Walker<'s> {
    options: &'s ParserOptions,
    depth: usize,
    script: &'s mut ShellScript,
    /// What the next pipeline stage reads: the index of the command before
    /// it and, when the line shows it, that command's output
    /// (`echo 'rm -rf ~' | sh`).
    pipe: Option<(usize, Option<String>)>,
    /// The last simple command's output, when the line shows it.
    output: Option<String>,
    /// Aliases the line defines (`alias x='...'`), by name.
    aliases: Vec<(String, String)>,
}

impl Walker<'_> {
    fn list(&mut self, list: &CompoundList) {
        for item in &list.0 {
            for (_, pipeline) in item.0.iter() {
                for (stage, command) in pipeline.seq.iter().enumerate() {
                    self.output = None;
                    let before = self.script.commands.len();
                    self.command(command);
                    // The next stage reads this one's output: the simple
                    // command walked last (its nested commands come first).
                    let simple = matches!(command, Command::Simple(_));
                    self.pipe = (stage + 1 < pipeline.seq.len()
                        && simple
                        && self.script.commands.len() > before)
                        .then(|| (self.script.commands.len() - 1, self.output.take()));
                }
                self.pipe = None;
            }
        }
    }

    fn command(&mut self, command: &Command) {
        match command {
            Command::Simple(simple) => self.simple(simple),
            Command::Compound(compound, redirects) => {
                self.compound(compound);
                if let Some(list) = redirects {
                    let mut holder = ShellCommand::default();
                    for redirect in &list.0 {
                        self.redirect(redirect, &mut holder, &mut None);
                    }
                    self.script.commands.push(holder);
                }
            }
            Command::Function(function) => self.compound(&function.body.0),
            Command::ExtendedTest(..) => {
                // `[[ -f x ]]` reads metadata only; a substitution in it is
                // not followed.
                self.script.opaque.push("a `[[ ]]` test".into());
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand) {
        match compound {
            CompoundCommand::BraceGroup(group) => self.list(&group.list),
            CompoundCommand::Subshell(sub) => self.list(&sub.list),
            CompoundCommand::ForClause(f) => {
                for word in f.values.iter().flatten() {
                    self.substitutions_of(&word.value);
                }
                self.list(&f.body.list);
            }
            CompoundCommand::ArithmeticForClause(f) => self.list(&f.body.list),
            CompoundCommand::CaseClause(c) => {
                self.substitutions_of(&c.value.value);
                for item in &c.cases {
                    if let Some(list) = &item.cmd {
                        self.list(list);
                    }
                }
            }
            CompoundCommand::IfClause(i) => {
                self.list(&i.condition);
                self.list(&i.then);
                for branch in i.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        self.list(condition);
                    }
                    self.list(&branch.body);
                }
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                self.list(&w.0);
                self.list(&w.1.list);
            }
            CompoundCommand::Coprocess(c) => self.command(&c.body),
            CompoundCommand::Arithmetic(_) => {}
        }
    }

    /// Parses `text` (a substitution, a `-c` string) as the commands it runs.
    fn nested(&mut self, text: &str) {
        if let Err(error) = parse_into(text, self.depth + 1, self.script) {
            self.script.opaque.push(format!(
                "a nested command line that does not parse ({error})"
            ));
        }
    }

    /// The words of `raw`, its substitutions followed.
    fn words(&mut self, raw: &str) -> Vec<ShellWord> {
        let (words, substitutions) = words::expand(raw, self.options);
        for text in substitutions {
            self.nested(&text);
        }
        words
    }

    fn substitutions_of(&mut self, raw: &str) {
        let _ = self.words(raw);
    }

    fn simple(&mut self, simple: &SimpleCommand) {
        let before = self.script.commands.len();
        let mut command = ShellCommand::default();
        let pipe = self.pipe.take();
        command.piped_from = pipe.as_ref().map(|(from, _)| *from);
        let mut stdin_script: Option<String> = pipe.and_then(|(_, text)| text);
        let prefix = simple.prefix.iter().flat_map(|p| p.0.iter());
        let suffix = simple.suffix.iter().flat_map(|s| s.0.iter());
        let items: Vec<&CommandPrefixOrSuffixItem> = prefix.collect();
        for item in items {
            self.item(item, &mut command, &mut stdin_script);
        }
        if let Some(name) = &simple.word_or_name {
            let words = self.words(&name.value);
            command.words.extend(words);
        }
        for item in suffix {
            // After the program, `key=value` is an argument (`dd of=f`).
            if let CommandPrefixOrSuffixItem::AssignmentWord(_, word) = item {
                let words = self.words(&word.value);
                command.words.extend(words);
                continue;
            }
            self.item(item, &mut command, &mut stdin_script);
        }
        // `sh -c "$(curl URL)"`, `bash <(curl URL)`, `eval "$(curl URL)"`:
        // the script a shell runs is what a substitution on its line
        // printed, as if piped.
        if command.piped_from.is_none()
            && stdin_script.is_none()
            && self.script.commands.len() > before
            && runs_unknown_script(&command)
        {
            command.piped_from = Some(self.script.commands.len() - 1);
        }
        self.follow(&command, stdin_script.as_deref());
        command.stdin.clone_from(&stdin_script);
        self.output = output_of(&command, stdin_script);
        self.script.commands.push(command);
    }

    fn item(
        &mut self,
        item: &CommandPrefixOrSuffixItem,
        command: &mut ShellCommand,
        stdin: &mut Option<String>,
    ) {
        match item {
            CommandPrefixOrSuffixItem::Word(word) => {
                let words = self.words(&word.value);
                command.words.extend(words);
            }
            CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                self.redirect(redirect, command, stdin);
            }
            // `X=$(cat f) cmd`: the substitution runs.
            CommandPrefixOrSuffixItem::AssignmentWord(assignment, _) => {
                let name = match &assignment.name {
                    AssignmentName::VariableName(name) => name.clone(),
                    AssignmentName::ArrayElementName(name, index) => {
                        self.substitutions_of(index);
                        format!("{name}[{index}]")
                    }
                };
                let value = match &assignment.value {
                    AssignmentValue::Scalar(word) => self.words(&word.value),
                    AssignmentValue::Array(items) => {
                        let mut value = Vec::new();
                        for (index, word) in items {
                            if let Some(index) = index {
                                self.substitutions_of(&index.value);
                            }
                            value.extend(self.words(&word.value));
                        }
                        value
                    }
                };
                command.assignments.push(Assignment { name, value });
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => self.list(&sub.list),
        }
    }

    fn redirect(
        &mut self,
        redirect: &IoRedirect,
        command: &mut ShellCommand,
        stdin: &mut Option<String>,
    ) {
        match redirect {
            IoRedirect::File(_, kind, IoFileRedirectTarget::Filename(word)) => {
                let write = !matches!(kind, IoFileRedirectKind::Read);
                for target in self.words(&word.value) {
                    command.redirects.push(Redirect { target, write });
                }
            }
            IoRedirect::File(_, kind, IoFileRedirectTarget::Duplicate(word)) => {
                // `>&FILE` (no descriptor, no `-`) writes FILE, as `&>` does.
                for target in self.words(&word.value) {
                    let to_file = target
                        .literal()
                        .is_none_or(|t| t != "-" && !t.chars().all(|c| c.is_ascii_digit()));
                    if to_file && !matches!(kind, IoFileRedirectKind::Read) {
                        command.redirects.push(Redirect {
                            target,
                            write: true,
                        });
                    }
                }
            }
            IoRedirect::OutputAndError(word, _) => {
                for target in self.words(&word.value) {
                    command.redirects.push(Redirect {
                        target,
                        write: true,
                    });
                }
            }
            IoRedirect::File(_, _, IoFileRedirectTarget::ProcessSubstitution(_, sub)) => {
                self.list(&sub.list);
            }
            IoRedirect::File(_, _, IoFileRedirectTarget::Fd(_)) => {}
            IoRedirect::HereDocument(_, doc) => {
                let mut substitutions = Vec::new();
                *stdin = words::heredoc(
                    &doc.doc.value,
                    doc.requires_expansion,
                    self.options,
                    &mut substitutions,
                );
                for text in substitutions {
                    self.nested(&text);
                }
            }
            IoRedirect::HereString(_, word) => {
                *stdin = self
                    .words(&word.value)
                    .first()
                    .and_then(ShellWord::literal)
                    .map(str::to_owned);
            }
        }
    }

    /// The commands a command runs by itself: a shell's `-c` string or
    /// its stdin script, `eval`'s words, `find -exec`.
    fn follow(&mut self, command: &ShellCommand, stdin: Option<&str>) {
        let literal: Vec<Option<&str>> = command.words.iter().map(word_text).collect();
        let at = program_at(&literal);
        let Some(program) = literal.get(at).copied().flatten().map(programs::base_name) else {
            return;
        };
        let rest = &literal[(at + 1).min(literal.len())..];
        // An alias the line defined runs its text.
        if let Some(text) = self
            .aliases
            .iter()
            .find(|(name, _)| name == program)
            .map(|(_, text)| text.clone())
        {
            let args: Option<Vec<String>> = rest.iter().map(|w| w.map(quote)).collect();
            match args {
                Some(args) if args.is_empty() => self.nested(&text),
                Some(args) => self.nested(&format!("{text} {}", args.join(" "))),
                None => self.nested(&text),
            }
            return;
        }
        if let Some(start) = programs::runner_start(program, rest) {
            // `npx sh -c ...`, `pnpm exec sh -c ...`: the command after the
            // runner runs (the runner itself is the command's wrapper).
            let runs = ShellCommand {
                words: command.words[at + 1 + start..].to_vec(),
                ..ShellCommand::default()
            };
            self.follow(&runs, stdin);
            self.script.commands.push(runs);
            return;
        }
        if let Some(text) = programs::runner_call(program, rest) {
            // `npx -c 'CMD'`, `npm exec -c 'CMD'`: a command line.
            self.nested(text);
            return;
        }
        if program == "alias" {
            for word in rest.iter().flatten() {
                if let Some((name, text)) = word.split_once('=') {
                    // Counted as run where it is defined, too: bash runs
                    // aliases only where they are expanded, but a line may
                    // turn that on.
                    self.nested(text);
                    self.aliases.push((name.to_owned(), text.to_owned()));
                }
            }
            return;
        }
        // `script -qc 'CMD'` runs CMD in a new terminal; `at`/`batch` run
        // the script on their input later.
        if program == "script"
            && let Some(i) = rest.iter().position(|w| {
                w.is_some_and(|w| {
                    w == "--command"
                        || (w.starts_with('-') && !w.starts_with("--") && w.ends_with('c'))
                })
            })
        {
            match rest.get(i + 1).copied().flatten() {
                Some(text) => self.nested(text),
                None => self
                    .script
                    .opaque
                    .push("`script -c` with a command only known when it runs".into()),
            }
            return;
        }
        if matches!(program, "at" | "batch") {
            match stdin {
                Some(text) => self.nested(text),
                None => self
                    .script
                    .opaque
                    .push(format!("`{program}` reads its script from stdin")),
            }
            return;
        }
        if matches!(program, "make" | "gmake") {
            for code in programs::make_code(rest) {
                self.nested(&code);
            }
            return;
        }
        if programs::SHELLS.contains(&program) {
            match rest.iter().position(|w| {
                w.is_some_and(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('c'))
            }) {
                // `bash -c -- 'CMD'`: `--` ends the options first.
                Some(i) => match rest
                    .get(i + 1)
                    .copied()
                    .flatten()
                    .filter(|w| *w != "--")
                    .or_else(|| rest.get(i + 2).copied().flatten())
                {
                    Some(script) => self.nested(script),
                    None => self.script.opaque.push(format!(
                        "`{program} -c` with a script only known when it runs"
                    )),
                },
                None => match (
                    stdin,
                    rest.iter().find(|w| w.is_none_or(|w| !w.starts_with('-'))),
                ) {
                    (_, Some(Some(file))) => self
                        .script
                        .opaque
                        .push(format!("`{program} {file}` runs a script file")),
                    (_, Some(None)) => self
                        .script
                        .opaque
                        .push(format!("`{program}` runs a script only known when it runs")),
                    (Some(script), None) => self.nested(script),
                    (None, None) => self
                        .script
                        .opaque
                        .push(format!("`{program}` reads its script from stdin")),
                },
            }
        } else if program == "agentctx" && rest.first().copied().flatten() == Some("exec") {
            // `agentctx exec ... -- COMMAND`: the command runs.
            let after = rest
                .iter()
                .position(|w| *w == Some("--"))
                .map(|i| &rest[i + 1..]);
            match after.map(|words| words.iter().copied().collect::<Option<Vec<&str>>>()) {
                Some(Some(words)) if words.len() == 1 => self.nested(words[0]),
                Some(Some(words)) if !words.is_empty() => self.nested(&words.join(" ")),
                _ => self
                    .script
                    .opaque
                    .push("`agentctx exec` of a command only known when it runs".into()),
            }
        } else if program == "eval" {
            let words: Option<Vec<&str>> = rest.iter().copied().collect();
            match words {
                Some(words) => self.nested(&words.join(" ")),
                None => self
                    .script
                    .opaque
                    .push("`eval` of words only known when it runs".into()),
            }
        } else if program == "find" {
            let mut i = 0;
            while i < rest.len() {
                if matches!(rest[i], Some("-exec" | "-execdir" | "-ok" | "-okdir")) {
                    let end = rest[i + 1..]
                        .iter()
                        .position(|w| matches!(w, Some(";" | "+")))
                        .map_or(rest.len(), |e| i + 1 + e);
                    let words = command.words[at + 1 + i + 1..at + 1 + end]
                        .iter()
                        .filter(|w| w.literal() != Some("{}"))
                        .cloned()
                        .collect();
                    let runs = ShellCommand {
                        words,
                        ..ShellCommand::default()
                    };
                    // `find -exec sh -c '...'`: its line runs too.
                    self.follow(&runs, None);
                    self.script.commands.push(runs);
                    i = end;
                }
                i += 1;
            }
        }
    }
}

/// Whether a command runs a script its words do not show: a shell with a
/// `-c` script, or no script word, only known when it runs, or `eval`,
/// `source` or `.` of such words.
fn runs_unknown_script(command: &ShellCommand) -> bool {
    let literal: Vec<Option<&str>> = command.words.iter().map(word_text).collect();
    let at = program_at(&literal);
    let Some(program) = literal.get(at).copied().flatten().map(programs::base_name) else {
        return false;
    };
    let rest = &literal[(at + 1).min(literal.len())..];
    if programs::SHELLS.contains(&program) {
        return rest.iter().all(|w| w.is_none_or(|w| w.starts_with('-')))
            || rest.iter().any(Option::is_none);
    }
    matches!(program, "eval" | "source" | ".")
        && (rest.is_empty() || rest.iter().any(Option::is_none))
}

/// What a command writes to its output, when its words show it: `echo`
/// and `printf` of literal words, and `cat`/`tee` passing on a known
/// input (a here-document, a pipe from `echo`).
fn output_of(command: &ShellCommand, stdin: Option<String>) -> Option<String> {
    let literal: Option<Vec<&str>> = command.words.iter().map(word_text).collect();
    let literal = literal?;
    let (program, args) = literal.split_first()?;
    match programs::base_name(program) {
        "echo" => {
            let mut escapes = false;
            let mut words = args;
            while let Some((first, rest)) = words.split_first() {
                match *first {
                    "-n" | "-E" => {}
                    "-e" | "-ne" | "-en" => escapes = true,
                    _ => break,
                }
                words = rest;
            }
            let text = words.join(" ");
            Some(if escapes {
                text.replace("\\n", "\n")
            } else {
                text
            })
        }
        "printf" => {
            let (format, values) = args.split_first()?;
            let format = format.replace("\\n", "\n");
            if values.is_empty() {
                return Some(format);
            }
            let mut out = String::new();
            for chunk in values.chunks(format.matches("%s").count().max(1)) {
                let mut line = format.clone();
                for value in chunk {
                    line = line.replacen("%s", value, 1);
                }
                out.push_str(&line);
            }
            Some(out)
        }
        "cat" if args.iter().all(|a| a.starts_with('-')) => stdin,
        "tee" => stdin,
        _ => None,
    }
}

/// A word's text when known: a literal, or a pattern's text.
fn word_text(word: &ShellWord) -> Option<&str> {
    match word {
        ShellWord::Literal(t) | ShellWord::Pattern(t) => Some(t),
        ShellWord::Dynamic(_) => None,
    }
}

/// The index of the program a command runs, past wrappers (`sudo`, `env
/// A=B`, `timeout 5`, `xargs -n1`).
fn program_at(words: &[Option<&str>]) -> usize {
    let mut at = 0;
    while let Some(next) = programs::wrapped(words, at) {
        at = next;
    }
    at
}

impl ShellCommand {
    /// The program the command runs (past wrappers), when its name is known.
    pub fn program(&self) -> Option<&str> {
        let literal: Vec<Option<&str>> = self.words.iter().map(word_text).collect();
        let at = program_at(&literal);
        self.words
            .get(at)
            .and_then(ShellWord::literal)
            .map(programs::base_name)
    }

    /// The program and its arguments, past wrappers (`sudo`, `env A=B`,
    /// `timeout 5`, `xargs -n1`): the command a command rule judges.
    /// `None` for a word only known when the line runs.
    pub fn argv(&self) -> Vec<Option<&str>> {
        let literal: Vec<Option<&str>> = self.words.iter().map(word_text).collect();
        let at = program_at(&literal).min(literal.len());
        let mut argv = literal[at..].to_vec();
        // `xargs` adds operands read from its input: words only known when
        // the line runs (and so is its `{}`).
        if self.xargs(&literal[..at]) {
            for word in argv.iter_mut().skip(1) {
                if *word == Some("{}") {
                    *word = None;
                }
            }
            match self.xargs_input() {
                Some(words) => argv.extend(words.map(Some)),
                None => argv.push(None),
            }
        }
        argv
    }

    /// Whether one of the wrappers before the program is `xargs`.
    fn xargs(&self, wrappers: &[Option<&str>]) -> bool {
        wrappers
            .iter()
            .any(|w| w.is_some_and(|w| programs::base_name(w) == "xargs"))
    }

    /// The words `xargs` reads, when the line shows its input (`echo
    /// ~/.ssh/id_rsa | xargs cat`); `None` when only known as it runs.
    fn xargs_input(&self) -> Option<impl Iterator<Item = &str>> {
        self.stdin
            .as_deref()
            .filter(|text| text.len() <= 64 * 1024)
            .map(str::split_whitespace)
    }

    /// Whether the program runs code whose files no command line reveals
    /// (an interpreter, an editor, `awk` with `system()`, `xargs`, ...).
    pub fn runs_code(&self) -> bool {
        let literal: Vec<&str> = self.words.iter().filter_map(word_text).collect();
        self.program()
            .is_some_and(|p| programs::runs_code(p, &literal))
            || self
                .words
                .iter()
                .filter_map(ShellWord::literal)
                .any(|w| w == "xargs" || w == "exec")
    }
}

impl ShellScript {
    /// The files and folders the commands name, as written (relative ones
    /// joined to the folder a `cd` may have moved to), each once.
    pub fn named_paths(&self) -> Vec<String> {
        let mut seen = HashSet::new();
        self.named()
            .into_iter()
            .filter(|n| seen.insert(n.path.clone()))
            .map(|n| n.path)
            .collect()
    }

    /// Every file the commands name, with what each command does with it:
    /// operands (not options, not a grep/sed/awk pattern), redirection
    /// targets, values of `--opt=PATH` and `key=PATH`, `@PATH`,
    /// `REV:PATH` for git, output options (`-o FILE`), files a sed or awk
    /// program names, and through links made earlier on the line. Best
    /// effort: it over-reports rather than misses; dynamic words are left
    /// out (their substitutions are commands of their own). Each entry
    /// once, in order; linear in the size of the line.
    pub fn named(&self) -> Vec<NamedPath> {
        let mut out = Names::default();
        let mut dirs: Vec<String> = vec![String::new()];
        let mut links: Vec<(String, String)> = Vec::new();
        for command in &self.commands {
            let literal: Vec<Option<&str>> = command.words.iter().map(word_text).collect();
            let at = program_at(&literal);
            let program = literal
                .get(at)
                .copied()
                .flatten()
                .map(programs::base_name)
                .unwrap_or_default()
                .to_owned();
            let name = |path: &str, access: Access, pattern: bool| NamedPath {
                path: path.to_owned(),
                program: program.clone(),
                access,
                pattern,
                from_root: false,
            };
            for redirect in &command.redirects {
                let (Some(target), pattern) = (
                    word_text(&redirect.target),
                    matches!(redirect.target, ShellWord::Pattern(_)),
                ) else {
                    continue;
                };
                if target == "/dev/null" {
                    continue;
                }
                let access = if redirect.write {
                    Access::Write
                } else {
                    Access::Read
                };
                out.add_in(&dirs, &links, name(target, access, pattern));
            }
            let mut words: Vec<(&str, bool)> = command.words[(at + 1).min(command.words.len())..]
                .iter()
                .filter_map(|w| word_text(w).map(|t| (t, matches!(w, ShellWord::Pattern(_)))))
                .collect();
            // `xargs` appends what it reads to the command's words.
            if command.xargs(&literal[..at.min(literal.len())])
                && let Some(input) = command.xargs_input()
            {
                words.extend(input.map(|w| (w, false)));
            }
            let plain: Vec<&str> = std::iter::once(program.as_str())
                .chain(words.iter().map(|(w, _)| *w))
                .collect();
            match program.as_str() {
                "cd" | "pushd" => {
                    let target = words
                        .iter()
                        .map(|(w, _)| *w)
                        .find(|w| !w.starts_with('-'))
                        .unwrap_or("~");
                    let moved: Vec<String> = dirs.iter().map(|d| join(d, target)).collect();
                    for dir in moved {
                        if dirs.len() < MAX_DIRS && !dirs.contains(&dir) {
                            dirs.push(dir);
                        }
                    }
                    continue;
                }
                "" => continue,
                p if programs::NO_FILES.contains(&p) => continue,
                _ => {}
            }
            let reads = programs::reads_only(&program, &plain);
            let search = programs::searches(&program, &plain);
            let operand_access = match (search, reads) {
                (Some(_), _) => Access::Search,
                (None, true) => Access::Read,
                (None, false) => Access::Write,
            };
            let outputs = programs::output_options(&program);
            // `eval`'s words and `agentctx exec`'s command are command
            // lines (followed as commands of their own), not files.
            if matches!(program.as_str(), "eval" | "agentctx") {
                continue;
            }
            let mut skip_subcommand = programs::has_subcommand(&program);
            let mut skip_pattern = programs::pattern_first(&program, &plain)
                || (program == "git" && programs::git_subcommand(&plain) == Some("grep"));
            let mut skip_script = false;
            let mut options_done = false;
            // The option whose value comes next, and whether it is a file written.
            let mut value_next: Option<(&str, bool)> = None;
            let mut operands = 0;
            let mut last_operand: Option<(&str, bool)> = None;
            // Every operand before the last (a copy's sources).
            let mut sources: Vec<&str> = Vec::new();
            let mut find_starts: Vec<(&str, bool)> = Vec::new();
            let mut find_expression = false;
            for (word, pattern) in &words {
                if let Some((option, written)) = value_next.take() {
                    if written {
                        out.add_in(&dirs, &links, name(word, Access::Write, *pattern));
                    } else if program == "sed" && matches!(option, "-e" | "--expression") {
                        for (write, file) in programs::sed_file_commands(word) {
                            let access = if write { Access::Write } else { Access::Read };
                            out.add_in(&dirs, &links, name(file, access, false));
                        }
                    } else if matches!(option, "-f" | "--file")
                        || (program == "git" && option == "-C")
                    {
                        // A program or pattern file (`awk -f`, `grep -f`),
                        // the repository git opens (`git -C ~/.ssh log`).
                        out.add_in(&dirs, &links, name(word, Access::Read, *pattern));
                    }
                    continue;
                }
                if !options_done && *word == "--" {
                    options_done = true;
                    continue;
                }
                if program == "find" && (word.starts_with('-') || matches!(*word, "(" | ")" | "!"))
                {
                    find_expression = true;
                }
                if !options_done && word.starts_with('-') && word.len() > 1 {
                    // A shell's `-c SCRIPT`: the script is followed as commands.
                    if programs::SHELLS.contains(&program.as_str())
                        && !word.starts_with("--")
                        && word.contains('c')
                    {
                        skip_script = true;
                    }
                    if outputs.contains(word) {
                        value_next = Some((word, true));
                    } else if programs::takes_value(&program, word)
                        || matches!(*word, "-f" | "--file")
                    {
                        value_next = Some((word, false));
                    }
                    if program == "find" && *word == "-delete" {
                        // Everything in its scope may go: the folders it
                        // starts from (the working one when it names none).
                        if find_starts.is_empty() {
                            for scope in dirs.clone() {
                                out.add(name(&join(&scope, "."), Access::Write, false));
                            }
                        }
                        for (start, pattern) in &find_starts {
                            out.add_in(&dirs, &links, name(start, Access::Write, *pattern));
                        }
                    }
                    // `--opt=PATH`
                    if let Some((option, value)) = word.split_once('=') {
                        let access = if outputs.contains(&option) || option == "--in-place" {
                            Access::Write
                        } else {
                            Access::Read
                        };
                        if !value.is_empty() && option != "--in-place" {
                            out.add_in(&dirs, &links, name(value, access, false));
                        }
                    }
                    continue;
                }
                if find_expression {
                    continue;
                }
                if std::mem::take(&mut skip_script) {
                    continue;
                }
                if std::mem::take(&mut skip_subcommand) {
                    continue;
                }
                if skip_pattern {
                    skip_pattern = false;
                    if program == "sed" {
                        for (write, file) in programs::sed_file_commands(word) {
                            let access = if write { Access::Write } else { Access::Read };
                            out.add_in(&dirs, &links, name(file, access, false));
                        }
                    } else if matches!(program.as_str(), "awk" | "gawk" | "mawk" | "nawk") {
                        for (write, file) in programs::awk_files(word) {
                            let access = if write { Access::Write } else { Access::Read };
                            out.add_in(&dirs, &links, name(&file, access, false));
                        }
                        // After its program awk takes no option: `-F` there
                        // is a file, and so is what follows.
                        options_done = true;
                    }
                    continue;
                }
                operands += 1;
                if let Some((previous, false)) = last_operand {
                    sources.push(previous);
                }
                last_operand = Some((word, *pattern));
                if program == "find" {
                    find_starts.push((word, *pattern));
                }
                out.add_in(&dirs, &links, name(word, operand_access, *pattern));
                // Files inside a word: `key=PATH` (dd of=, make -C), `@PATH`
                // (curl -d @f), and git's `REV:PATH`.
                if let Some((_, value)) = word
                    .split_once('=')
                    .filter(|(k, v)| !k.is_empty() && !v.is_empty())
                {
                    out.add_in(&dirs, &links, name(value, operand_access, false));
                }
                if let Some(file) = word.strip_prefix('@').filter(|f| !f.is_empty()) {
                    out.add_in(&dirs, &links, name(file, Access::Read, false));
                }
                if program == "git"
                    && let Some((_, file)) = word.split_once(':').filter(|(rev, f)| {
                        !rev.contains('/') && !f.is_empty() && !f.starts_with("//")
                    })
                {
                    let mut from_root = name(file.trim_start_matches('/'), Access::Read, false);
                    from_root.from_root = !file.starts_with("./");
                    out.add(from_root);
                    out.add_in(&dirs, &links, name(file, Access::Read, false));
                }
            }
            // A copy's last operand is where it writes, also when the copy
            // reads its sources whole (`rsync -a src/ dest/`, `cp -r`).
            // Each source's last part as the line shows it, also from a
            // word only known when it runs (`$PWD/.bashrc` is `.bashrc`).
            let source_names: Vec<String> = command.words[(at + 1).min(command.words.len())..]
                .iter()
                .map(|w| match w {
                    ShellWord::Literal(t) | ShellWord::Pattern(t) | ShellWord::Dynamic(t) => {
                        t.as_str()
                    }
                })
                .filter(|t| !t.starts_with('-'))
                .filter_map(|t| t.trim_end_matches('/').rsplit('/').next())
                .filter(|base| {
                    !base.is_empty() && !base.contains('$') && *base != "." && *base != ".."
                })
                .map(str::to_owned)
                .collect();
            // `cp -t DIR SRC...`, `--target-directory=DIR` (and its
            // abbreviations): every operand is a source.
            let target_dir = programs::COPIERS
                .contains(&program.as_str())
                .then(|| {
                    programs::target_directory(&words.iter().map(|(w, _)| *w).collect::<Vec<_>>())
                })
                .flatten();
            if let Some(dir) = target_dir {
                out.add_in(&dirs, &links, name(dir, Access::Write, false));
                for base in &source_names {
                    let inside = format!("{}/{base}", dir.trim_end_matches('/'));
                    out.add_in(&dirs, &links, name(&inside, Access::Write, false));
                }
            } else if programs::COPIERS.contains(&program.as_str())
                && (operands >= 2 || source_names.len() >= 2)
                && let Some((dest, pattern)) = last_operand
            {
                out.add_in(&dirs, &links, name(dest, Access::Write, pattern));
                // Into a folder, each source lands under its own name
                // (`cp .zshrc ~/` writes `~/.zshrc`): whether `dest` is a
                // folder is only known on disk, so both are named.
                let dest_base = dest
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or(dest);
                for base in source_names.iter().filter(|b| b.as_str() != dest_base) {
                    let inside = format!("{}/{base}", dest.trim_end_matches('/'));
                    out.add_in(&dirs, &links, name(&inside, Access::Write, pattern));
                }
            }
            // `sed -i.bak`, `sed -i'c' f`: the backup is written beside
            // each file, under its name with the suffix (`*` is the name).
            if program == "sed"
                && let Some(suffix) = words
                    .iter()
                    .find_map(|(w, _)| programs::sed_backup_suffix(w))
            {
                for (file, pattern) in sources.iter().map(|s| (*s, false)).chain(last_operand) {
                    let backup = if suffix.contains('*') {
                        let (dir, base) = file.rsplit_once('/').map_or(("", file), |(d, b)| (d, b));
                        let named = suffix.replace('*', base);
                        if dir.is_empty() || named.contains('/') {
                            named
                        } else {
                            format!("{dir}/{named}")
                        }
                    } else {
                        format!("{file}{suffix}")
                    };
                    out.add_in(&dirs, &links, name(&backup, Access::Write, pattern));
                }
            }
            if operands == 0 && search == Some(programs::SearchDefault::Cwd) {
                for dir in &dirs {
                    out.add(name(&join(dir, "."), Access::Search, false));
                }
            }
            if program == "ln" {
                // `ln [-s] TARGET... LINK`: later uses of LINK reach TARGET.
                let operands: Vec<&str> = words
                    .iter()
                    .map(|(w, _)| *w)
                    .filter(|w| !w.starts_with('-'))
                    .collect();
                if let Some((link, targets)) = operands.split_last() {
                    for target in targets {
                        for dir in &dirs {
                            links.push((join(dir, link), join(dir, target)));
                        }
                    }
                }
            }
        }
        out.list
    }
}

/// The names found so far, each once.
#[derive(Default)]
struct Names {
    list: Vec<NamedPath>,
    seen: HashSet<(String, Access, bool, bool)>,
}

impl Names {
    fn add(&mut self, named: NamedPath) {
        let key = (
            named.path.clone(),
            named.access,
            named.pattern,
            named.from_root,
        );
        if self.seen.insert(key) {
            self.list.push(named);
        }
    }

    /// `named` joined to every folder the line may be in, and what a link
    /// made earlier on the line leads to.
    fn add_in(&mut self, dirs: &[String], links: &[(String, String)], named: NamedPath) {
        if named.path.is_empty() {
            return;
        }
        for dir in dirs {
            let path = join(dir, &named.path);
            for (link, target) in links {
                if let Some(rest) = path.strip_prefix(link.as_str())
                    && (rest.is_empty() || rest.starts_with('/'))
                {
                    self.add(NamedPath {
                        path: format!("{target}{rest}"),
                        ..named.clone()
                    });
                }
            }
            self.add(NamedPath {
                path,
                ..named.clone()
            });
        }
    }
}

fn join(dir: &str, path: &str) -> String {
    if dir.is_empty() || path.starts_with('/') || path.starts_with('~') {
        path.to_owned()
    } else {
        format!("{dir}/{path}")
    }
}

/// The files a glob pattern matches below `base`, in bash's way (a `*`
/// does not match a leading dot), at most `limit`; `Err` with the folder
/// the pattern starts in when there are more (the caller then judges that
/// folder as a search).
pub fn expand_pattern(base: &Path, pattern: &str, limit: usize) -> Result<Vec<PathBuf>, PathBuf> {
    let absolute = base.join(pattern);
    let mut fixed = PathBuf::new();
    let mut rest: Vec<String> = Vec::new();
    for component in absolute.components() {
        let text = component.as_os_str().to_string_lossy();
        if rest.is_empty() && !text.contains(['*', '?', '[']) {
            fixed.push(component);
        } else {
            rest.push(text.into_owned());
        }
    }
    let mut current = vec![fixed.clone()];
    for part in &rest {
        let matcher = globset::GlobBuilder::new(part)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map(|g| g.compile_matcher());
        let mut next = Vec::new();
        for dir in &current {
            let Ok(matcher) = &matcher else {
                next.push(dir.join(part));
                continue;
            };
            if !part.contains(['*', '?', '[']) {
                let candidate = dir.join(unescape(part));
                if std::fs::symlink_metadata(&candidate).is_ok() {
                    next.push(candidate);
                }
                continue;
            }
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut names: Vec<std::ffi::OsString> =
                entries.flatten().map(|e| e.file_name()).collect();
            names.sort();
            for name in names {
                let text = name.to_string_lossy();
                if text.starts_with('.') && !part.starts_with('.') {
                    continue;
                }
                if matcher.is_match(text.as_ref()) {
                    next.push(dir.join(&name));
                    if next.len() > limit {
                        return Err(fixed);
                    }
                }
            }
        }
        current = next;
    }
    Ok(current)
}

fn unescape(part: &str) -> String {
    let mut out = String::new();
    let mut chars = part.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;

/// Quotes `text` for `/bin/sh` (single quotes; a quote inside becomes `'\''`).
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}
