//! Shell commands as the agents run them (Claude Code's `Bash`, Codex's
//! shell tool, both `{"command": "<string>"}` in hook payloads), parsed
//! with a real shell-syntax parser (brush-parser) rather than split on
//! spaces: quotes, `&&`, pipes, redirections and `cd` mean what they mean.

use brush_parser::ast::{
    Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoFileRedirectTarget,
    IoRedirect, SimpleCommand,
};
use brush_parser::word::{WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions};

/// One word of a command after quote removal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShellWord {
    /// A word whose value is known without running anything: quotes
    /// removed, `~` at its start kept as `~`.
    Literal(String),
    /// A word with an expansion or substitution (`$X`, `$(...)`, globs are
    /// literal): its value is only known when the shell runs it.
    Dynamic(String),
}

impl ShellWord {
    /// The literal value, if known.
    pub fn literal(&self) -> Option<&str> {
        match self {
            Self::Literal(text) => Some(text),
            Self::Dynamic(_) => None,
        }
    }
}

/// One simple command: its words (the program first) and the files its
/// redirections name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShellCommand {
    /// The program and its arguments.
    pub words: Vec<ShellWord>,
    /// The targets of `<`, `>`, `>>` and the like.
    pub redirects: Vec<ShellWord>,
}

/// A parsed command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShellScript {
    /// Every simple command, in order (inside `{ }`, `( )`, `&&`, `||`, `|`).
    pub commands: Vec<ShellCommand>,
    /// What could not be followed: loops, conditionals, functions, process
    /// substitution. A caller that must know every file a command names
    /// treats a non-empty list as "cannot verify".
    pub opaque: Vec<String>,
}

/// A file a command line names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedPath {
    /// The path as written (joined to the folder a `cd` moved to).
    pub path: String,
    /// The program of the command that names it.
    pub program: String,
    /// A redirection target (`>`, `>>`, `<`).
    pub redirect: bool,
}

/// The command line is not valid shell syntax.
#[derive(Debug, thiserror::Error)]
#[error("not a shell command line the parser accepts: {message}")]
pub struct ShellError {
    /// The parser's message.
    pub message: String,
}

/// Parses `text` as the agents' shells (bash) would.
///
/// ```
/// use agentctx_hooks::{ShellWord, parse_shell};
/// let script = parse_shell("cd packages/api && sed -n '1,20p' \"src/server.ts\" | head > out.txt").unwrap();
/// assert_eq!(script.commands.len(), 3);
/// assert_eq!(script.commands[1].words[3], ShellWord::Literal("src/server.ts".into()));
/// assert_eq!(script.commands[2].redirects, [ShellWord::Literal("out.txt".into())]);
/// ```
pub fn parse_shell(text: &str) -> Result<ShellScript, ShellError> {
    let options = ParserOptions::default();
    let mut parser = Parser::new(std::io::BufReader::new(text.as_bytes()), &options);
    let program = parser.parse_program().map_err(|e| ShellError {
        message: e.to_string(),
    })?;
    let mut script = ShellScript::default();
    for list in &program.complete_commands {
        walk_list(list, &options, &mut script);
    }
    Ok(script)
}

fn walk_list(list: &CompoundList, options: &ParserOptions, script: &mut ShellScript) {
    for item in &list.0 {
        for (_, pipeline) in item.0.iter() {
            for command in &pipeline.seq {
                walk_command(command, options, script);
            }
        }
    }
}

fn walk_command(command: &Command, options: &ParserOptions, script: &mut ShellScript) {
    match command {
        Command::Simple(simple) => {
            let command = simple_command(simple, options, script);
            script.commands.push(command);
        }
        Command::Compound(CompoundCommand::BraceGroup(group), redirects) => {
            walk_list(&group.list, options, script);
            if redirects.is_some() {
                script
                    .opaque
                    .push("a redirection of a command group".into());
            }
        }
        Command::Compound(CompoundCommand::Subshell(sub), redirects) => {
            walk_list(&sub.list, options, script);
            if redirects.is_some() {
                script.opaque.push("a redirection of a subshell".into());
            }
        }
        Command::Compound(other, _) => script.opaque.push(format!(
            "a compound command (`{}`)",
            first_line(&other.to_string())
        )),
        Command::Function(function) => script
            .opaque
            .push(format!("a function definition (`{}`)", function.fname)),
        Command::ExtendedTest(..) => script.opaque.push("a `[[ ]]` test".into()),
    }
}

fn first_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(60)
        .collect()
}

fn simple_command(
    simple: &SimpleCommand,
    options: &ParserOptions,
    script: &mut ShellScript,
) -> ShellCommand {
    let mut command = ShellCommand::default();
    let prefix = simple.prefix.iter().flat_map(|p| p.0.iter());
    let suffix = simple.suffix.iter().flat_map(|s| s.0.iter());
    for item in prefix {
        add_item(item, options, &mut command, script);
    }
    if let Some(name) = &simple.word_or_name {
        command.words.push(word_value(&name.value, options));
    }
    for item in suffix {
        add_item(item, options, &mut command, script);
    }
    command
}

fn add_item(
    item: &CommandPrefixOrSuffixItem,
    options: &ParserOptions,
    command: &mut ShellCommand,
    script: &mut ShellScript,
) {
    match item {
        CommandPrefixOrSuffixItem::Word(word) => {
            command.words.push(word_value(&word.value, options));
        }
        CommandPrefixOrSuffixItem::IoRedirect(redirect) => match redirect {
            IoRedirect::File(_, _, IoFileRedirectTarget::Filename(word))
            | IoRedirect::OutputAndError(word, _) => {
                command.redirects.push(word_value(&word.value, options));
            }
            IoRedirect::File(_, _, IoFileRedirectTarget::ProcessSubstitution(..)) => {
                script.opaque.push("a process substitution".into());
            }
            _ => {}
        },
        CommandPrefixOrSuffixItem::AssignmentWord(..) => {}
        CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
            script.opaque.push("a process substitution".into());
        }
    }
}

/// A word's value after quote removal, when no expansion is involved.
fn word_value(raw: &str, options: &ParserOptions) -> ShellWord {
    match brush_parser::word::parse(raw, options) {
        Ok(pieces) => {
            let mut text = String::new();
            if literal_pieces(&pieces, &mut text, true) {
                ShellWord::Literal(text)
            } else {
                ShellWord::Dynamic(raw.to_owned())
            }
        }
        Err(_) => ShellWord::Dynamic(raw.to_owned()),
    }
}

fn literal_pieces(pieces: &[WordPieceWithSource], out: &mut String, at_start: bool) -> bool {
    for (i, piece) in pieces.iter().enumerate() {
        match &piece.piece {
            WordPiece::Text(text) | WordPiece::SingleQuotedText(text) => out.push_str(text),
            WordPiece::AnsiCQuotedText(text) => out.push_str(text),
            WordPiece::EscapeSequence(text) => out.push_str(text.trim_start_matches('\\')),
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                if !literal_pieces(inner, out, false) {
                    return false;
                }
            }
            WordPiece::TildeExpansion(brush_parser::word::TildeExpr::Home)
                if at_start && i == 0 =>
            {
                out.push('~');
            }
            _ => return false,
        }
    }
    true
}

/// Commands whose first operand is not a file (a pattern, a script or a
/// message), and commands that name no file at all.
const PATTERN_FIRST: [&str; 9] = [
    "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk",
];
const NO_FILES: [&str; 6] = ["echo", "printf", "true", "false", "exit", "export"];
/// Whether `option` of `program` takes the next word as its value, not a
/// file (`head -n 5`, `grep -e PATTERN`, `rg -C 3`).
fn takes_value(program: &str, option: &str) -> bool {
    match program {
        "head" | "tail" => matches!(option, "-n" | "-c"),
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" => {
            matches!(
                option,
                "-e" | "-m" | "-A" | "-B" | "-C" | "-t" | "-j" | "-g"
            )
        }
        "sed" => option == "-e",
        "awk" | "gawk" => matches!(option, "-F" | "-v"),
        _ => false,
    }
}
/// Commands that run the rest of their words as another command.
const WRAPPERS: [&str; 6] = ["sudo", "env", "time", "nice", "nohup", "command"];

impl ShellScript {
    /// The files and folders the commands name, as written (relative ones
    /// joined to the folder a `cd` moved to): the operands of each command
    /// (not its options, not a grep/sed/awk pattern given first) and its
    /// redirection targets. Best effort: what a command does with an
    /// operand is the command's business, so this over-reports rather than
    /// misses; dynamic words are left out.
    pub fn named_paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self.named().into_iter().map(|n| n.path).collect();
        paths.dedup();
        paths
    }

    /// [`ShellScript::named_paths`] with, for each, the program that names
    /// it and whether it is a redirection target.
    pub fn named(&self) -> Vec<NamedPath> {
        let mut paths = Vec::new();
        let mut dir: Option<String> = None;
        let join = |dir: &Option<String>, path: &str| match dir {
            Some(dir) if !path.starts_with('/') && !path.starts_with('~') => {
                format!("{dir}/{path}")
            }
            _ => path.to_owned(),
        };
        for command in &self.commands {
            let first = command
                .words
                .first()
                .and_then(ShellWord::literal)
                .map(|w| w.rsplit('/').next().unwrap_or(w).to_owned())
                .unwrap_or_default();
            for target in command.redirects.iter().filter_map(ShellWord::literal) {
                if target != "/dev/null" {
                    paths.push(NamedPath {
                        path: join(&dir, target),
                        program: first.clone(),
                        redirect: true,
                    });
                }
            }
            let mut words = command
                .words
                .iter()
                .filter_map(ShellWord::literal)
                .peekable();
            // Skip wrappers (`sudo`, `env A=B`, ...) to the real program.
            let mut program = None;
            for word in words.by_ref() {
                let name = word.rsplit('/').next().unwrap_or(word);
                if WRAPPERS.contains(&name) || word.contains('=') && program.is_none() {
                    continue;
                }
                program = Some(name.to_owned());
                break;
            }
            let Some(program) = program else { continue };
            if program == "cd" {
                if let Some(target) = words.find(|w| !w.starts_with('-')) {
                    dir = Some(join(&dir, target));
                }
                continue;
            }
            if NO_FILES.contains(&program.as_str()) {
                continue;
            }
            let explicit_pattern = command
                .words
                .iter()
                .filter_map(ShellWord::literal)
                .any(|w| {
                    w == "-e"
                        || w == "-f"
                        || w.starts_with("--regexp")
                        || w.starts_with("--expression")
                });
            let mut skip_pattern = PATTERN_FIRST.contains(&program.as_str()) && !explicit_pattern;
            let mut options_done = false;
            let mut value_next = false;
            for word in words {
                if std::mem::take(&mut value_next) {
                    continue;
                }
                if !options_done && word == "--" {
                    options_done = true;
                    continue;
                }
                if !options_done && word.starts_with('-') && word.len() > 1 {
                    value_next = takes_value(&program, word);
                    continue;
                }
                if skip_pattern {
                    skip_pattern = false;
                    continue;
                }
                paths.push(NamedPath {
                    path: join(&dir, word),
                    program: program.clone(),
                    redirect: false,
                });
            }
        }
        paths
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(command: &str) -> Vec<String> {
        parse_shell(command).unwrap().named_paths()
    }

    #[test]
    fn reads_name_their_files() {
        assert_eq!(
            paths("cat packages/api/src/server.ts"),
            ["packages/api/src/server.ts"]
        );
        assert_eq!(paths("sed -n '1,20p' src/a.rs"), ["src/a.rs"]);
        assert_eq!(paths("head -n 5 a.txt b.txt"), ["a.txt", "b.txt"]);
        assert_eq!(
            paths("rg -n 'fn main' crates/cli src"),
            ["crates/cli", "src"]
        );
        assert_eq!(paths("grep -e foo -- -weird.txt"), ["-weird.txt"]);
        assert_eq!(
            paths("grep -C 3 -f patterns.txt src"),
            ["patterns.txt", "src"]
        );
        assert_eq!(paths("ls -la packages/web"), ["packages/web"]);
    }

    #[test]
    fn quotes_cd_pipes_and_redirections_are_followed() {
        assert_eq!(
            paths("cd packages/api && cat \"src/my file.ts\" | wc -l > ../count.txt"),
            ["packages/api/src/my file.ts", "packages/api/../count.txt"]
        );
        assert_eq!(paths("echo hi >> notes/log.md"), ["notes/log.md"]);
        assert_eq!(paths("sudo env A=1 cat ~/.ssh/id_rsa"), ["~/.ssh/id_rsa"]);
        assert_eq!(paths("{ cat a; cat b; }"), ["a", "b"]);
    }

    #[test]
    fn expansions_are_dynamic_and_left_out() {
        let script = parse_shell("cat $HOME/x \"$(pwd)/y\" z").unwrap();
        assert_eq!(
            script.commands[0].words[1],
            ShellWord::Dynamic("$HOME/x".into())
        );
        assert_eq!(script.named_paths(), ["z"]);
    }

    #[test]
    fn control_flow_is_reported_as_opaque() {
        let script = parse_shell("for f in *; do cat \"$f\"; done").unwrap();
        assert!(!script.opaque.is_empty());
        assert!(parse_shell("f() { cat x; }; f").unwrap().opaque.len() == 1);
    }

    #[test]
    fn broken_syntax_is_an_error() {
        assert!(parse_shell("cat 'unterminated").is_err());
    }
}
