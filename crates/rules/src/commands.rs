//! Command rules: patterns of the commands a shell line runs, each to deny
//! or to ask about (`commands.deny`, `commands.ask`, the presets).
//!
//! A pattern is the program, then words the command must show:
//!
//! - `--force*`: an option anywhere on the command (a glob; `--name` also
//!   matches `--name=VALUE`);
//! - `-rf`: short flags, each given in any cluster (`-fr`, `-r -f`);
//! - `push`, `http*://*`: operands, in this order, not necessarily next to
//!   each other (`git -C dir push` is `git push`);
//! - `{outside}`: an operand outside the project (`~`, `/`, `../x`,
//!   `/*`; a folder above the root), or a word only known when the line
//!   runs; `{root-or-outside}` also the root itself (`.`, `*` there);
//!   the temporary folders' contents are neither;
//! - `A | B`: a command matching `B` reads the output of one matching `A`
//!   (`curl | *sh`).
//!
//! Wrappers are looked through (`sudo`, `env`, `timeout`, `xargs`, a
//! package runner), and so are the lines a command runs (`bash -c`, a
//! script piped into a shell): the shell crate gives every command that
//! runs, and each is judged.

use std::path::{Path, PathBuf};

use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobMatcher};

use agentctx_types::ProjectAgentRulesConfig;

use crate::doc::{Entry, RuleDoc};
use crate::engine::DefaultRulesError;

/// What a matching command gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CommandAction {
    /// It does not run.
    Deny,
    /// The user is asked (where the agent can ask; denied elsewhere).
    Ask,
}

/// One command the line runs, as the guard sees it.
#[derive(Clone, Copy, Debug)]
pub struct Invocation<'a> {
    /// The program and its arguments, past wrappers; `None` for a word
    /// only known when the line runs.
    pub argv: &'a [Option<&'a str>],
    /// The command whose output it reads, when it reads one.
    pub feeder: Option<&'a [Option<&'a str>]>,
}

/// Where the line runs: `{outside}` is judged against these.
#[derive(Clone, Copy, Debug)]
pub struct Places<'a> {
    /// The folder the command runs in.
    pub cwd: &'a Path,
    /// The project root; `None` where no project was found (every folder
    /// is then outside).
    pub root: Option<&'a Path>,
    /// The home folder, for `~`.
    pub home: Option<&'a Path>,
}

/// A pattern that is not one: what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid command pattern `{pattern}`: {message}")]
pub struct CommandPatternError {
    /// The pattern as written.
    pub pattern: String,
    /// What is wrong.
    pub message: String,
}

/// A compiled command pattern.
#[derive(Clone, Debug)]
pub struct CommandPattern {
    text: String,
    feeder: Option<Words>,
    words: Words,
}

#[derive(Clone, Debug)]
struct Words {
    /// Matched against the program's base name, or its whole word when
    /// the pattern's program holds a `/`.
    program: Word,
    program_is_path: bool,
    items: Vec<Item>,
}

#[derive(Clone, Debug)]
enum Item {
    Long(Word),
    Short(Vec<char>),
    Operand(Word),
    /// `{outside}` (`false`) or `{root-or-outside}` (`true`).
    Outside(bool),
}

/// One word of a pattern. A hook is a process per call and the presets
/// hold a hundred patterns: a word is compared as text, or split on `*`,
/// and only a glob with more (`?`, `[...]`, `{a,b}`) is compiled, on its
/// first use.
#[derive(Clone, Debug)]
enum Word {
    Literal(String),
    /// The text between `*`s.
    Stars(Vec<String>),
    Glob(Glob, OnceLock<GlobMatcher>),
}

impl Word {
    /// Whether `option` is an abbreviation of this long option: getopt
    /// and git take any unambiguous prefix of two letters or more
    /// (`git push --forc` is `--force`, `rm --rec` is `--recursive`).
    fn abbreviated_by(&self, option: &str) -> bool {
        let written = match self {
            Self::Literal(word) => word.as_str(),
            Self::Stars(parts) => parts.first().map_or("", String::as_str),
            Self::Glob(..) => return false,
        };
        option.starts_with("--") && option.len() >= 4 && written.starts_with(option)
    }

    fn is_match(&self, text: &str) -> bool {
        match self {
            Self::Literal(word) => word == text,
            Self::Stars(parts) => stars_match(parts, text),
            Self::Glob(glob, matcher) => matcher
                .get_or_init(|| glob.compile_matcher())
                .is_match(text),
        }
    }
}

/// Whether `text` is `parts` joined by runs of any characters.
fn stars_match(parts: &[String], text: &str) -> bool {
    let (Some(first), Some(last)) = (parts.first(), parts.last()) else {
        return false;
    };
    if parts.len() == 1 {
        return first == text;
    }
    let Some(mut rest) = text.strip_prefix(first.as_str()) else {
        return false;
    };
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle.as_str()) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last.as_str())
}

fn glob(word: &str, pattern: &str) -> Result<Word, CommandPatternError> {
    if !word.contains(['*', '?', '[', ']', '{', '}', '\\']) {
        return Ok(Word::Literal(word.to_owned()));
    }
    // `**` is globset's own (`**/x` matches `x`).
    if !word.contains(['?', '[', ']', '{', '}', '\\']) && !word.contains("**") {
        return Ok(Word::Stars(word.split('*').map(str::to_owned).collect()));
    }
    GlobBuilder::new(word)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .map(|g| Word::Glob(g, OnceLock::new()))
        .map_err(|error| CommandPatternError {
            pattern: pattern.to_owned(),
            message: format!("`{word}`: {}", error.kind()),
        })
}

impl CommandPattern {
    /// Compiles `text` (see the module's documentation for the language).
    pub fn parse(text: &str) -> Result<Self, CommandPatternError> {
        let fail = |message: &str| CommandPatternError {
            pattern: text.to_owned(),
            message: message.to_owned(),
        };
        let parts: Vec<&str> = text.split('|').collect();
        let (feeder, words) = match parts.as_slice() {
            [words] => (None, Self::words(words, text)?),
            [feeder, words] => (Some(Self::words(feeder, text)?), Self::words(words, text)?),
            _ => {
                return Err(fail(
                    "at most one `|` (a command that reads another's output)",
                ));
            }
        };
        Ok(Self {
            text: text.trim().to_owned(),
            feeder,
            words,
        })
    }

    fn words(part: &str, text: &str) -> Result<Words, CommandPatternError> {
        let mut words = part.split_whitespace();
        let program = words.next().ok_or_else(|| CommandPatternError {
            pattern: text.to_owned(),
            message: "names no program".to_owned(),
        })?;
        if program.starts_with('-') || program.starts_with('{') {
            return Err(CommandPatternError {
                pattern: text.to_owned(),
                message: format!("starts with `{program}`, not a program"),
            });
        }
        let mut items = Vec::new();
        for word in words {
            let item = if word == "{outside}" {
                Item::Outside(false)
            } else if word == "{root-or-outside}" {
                Item::Outside(true)
            } else if word.starts_with('{') && word.ends_with('}') {
                return Err(CommandPatternError {
                    pattern: text.to_owned(),
                    message: format!(
                        "unknown placeholder `{word}` (the placeholders are `{{outside}}` and `{{root-or-outside}}`)"
                    ),
                });
            } else if word.starts_with("--") {
                Item::Long(glob(word, text)?)
            } else if let Some(flags) = word.strip_prefix('-')
                && !flags.is_empty()
                && flags.chars().all(|c| c.is_ascii_alphanumeric())
            {
                Item::Short(flags.chars().collect())
            } else if word.starts_with('-') && word.len() > 1 {
                Item::Long(glob(word, text)?)
            } else {
                Item::Operand(glob(word, text)?)
            };
            items.push(item);
        }
        Ok(Words {
            program: glob(program, text)?,
            program_is_path: program.contains('/'),
            items,
        })
    }

    /// The pattern as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether `command` matches.
    pub fn matches(&self, command: &Invocation<'_>, places: &Places<'_>) -> bool {
        if !self.words.matches(command.argv, places) {
            return false;
        }
        match (&self.feeder, command.feeder) {
            (None, _) => true,
            (Some(feeder), Some(argv)) => feeder.matches(argv, places),
            (Some(_), None) => false,
        }
    }
}

impl Words {
    fn matches(&self, argv: &[Option<&str>], places: &Places<'_>) -> bool {
        let Some((Some(program), args)) = argv.split_first() else {
            return false;
        };
        let name = if self.program_is_path {
            program
        } else {
            program.rsplit('/').next().unwrap_or(program)
        };
        if !self.program.is_match(name) {
            return false;
        }
        let parsed = Args::of(args);
        let mut operands = parsed.operands.iter();
        self.items.iter().all(|item| match item {
            Item::Long(pattern) => parsed.options.iter().any(|option| {
                let name = option.split_once('=').map_or(*option, |(name, _)| name);
                pattern.is_match(option) || pattern.is_match(name) || pattern.abbreviated_by(name)
            }),
            Item::Short(flags) => flags.iter().all(|f| parsed.short.contains(f)),
            // In order: each operand item takes the first fitting operand
            // after the one the item before took.
            Item::Operand(pattern) => operands
                .by_ref()
                .any(|operand| operand.is_some_and(|o| pattern.is_match(o))),
            Item::Outside(root_too) => operands
                .by_ref()
                .any(|operand| operand.is_none_or(|o| outside(o, *root_too, places))),
        })
    }
}

/// A command's arguments sorted as the patterns read them.
struct Args<'a> {
    options: Vec<&'a str>,
    short: Vec<char>,
    operands: Vec<Option<&'a str>>,
}

impl<'a> Args<'a> {
    fn of(args: &[Option<&'a str>]) -> Self {
        let mut parsed = Args {
            options: Vec::new(),
            short: Vec::new(),
            operands: Vec::new(),
        };
        let mut ended = false;
        for arg in args {
            match arg {
                Some("--") if !ended => ended = true,
                Some(option) if !ended && option.starts_with("--") => parsed.options.push(option),
                Some(option) if !ended && option.starts_with('-') && option.len() > 1 => {
                    parsed.options.push(option);
                    parsed.short.extend(option[1..].chars());
                }
                other => parsed.operands.push(*other),
            }
        }
        parsed
    }
}

/// Whether an operand names the project root, a folder above it, or a
/// place outside it (for a glob, the folder it starts in).
fn outside(word: &str, root_too: bool, places: &Places<'_>) -> bool {
    let Some(root) = places.root else {
        return true;
    };
    let literal: String = word
        .split('/')
        .take_while(|part| !part.contains(['*', '?', '[']))
        .collect::<Vec<_>>()
        .join("/");
    let path: PathBuf = match (literal.strip_prefix('~'), places.home) {
        (Some(""), Some(home)) => home.to_path_buf(),
        (Some(rest), Some(home)) if rest.starts_with('/') => home.join(&rest[1..]),
        // `~user`, or no home known: somebody's home.
        (Some(_), _) => return true,
        _ if literal.is_empty() && word.starts_with('/') => PathBuf::from("/"),
        _ => places.cwd.join(&literal),
    };
    let path =
        std::fs::canonicalize(&path).unwrap_or_else(|_| crate::paths::normalize_lexically(&path));
    // What a command leaves in a temporary folder is nobody's work:
    // `rm -rf /tmp/build` is not outside, `rm -rf /tmp` is.
    let temp = [std::env::temp_dir(), PathBuf::from("/tmp")];
    if temp
        .iter()
        .any(|t| path.starts_with(t) && path != *t && !root.starts_with(&path))
    {
        return false;
    }
    // For a glob, the folder it starts in: `rm -rf build/*` stays inside,
    // `rm -rf ./*` at the root empties it.
    !path.starts_with(root) || (root_too && path == root)
}

/// Where a command rule is written: the rule file (with its line), the
/// user's config, or a preset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandRuleOrigin {
    /// An entry of a rule file or the config's `default_rules`.
    Entry(Entry),
    /// A shipped preset, by name.
    Preset(&'static str),
}

/// A command rule that matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandMatch {
    /// Deny or ask.
    pub action: CommandAction,
    /// The pattern as written.
    pub pattern: String,
    /// Where it is written.
    pub origin: CommandRuleOrigin,
    /// The matching command, as its words read (`rm -rf ~`).
    pub command: String,
}

/// Compiled command rules, denials first.
#[derive(Clone, Debug, Default)]
pub struct CommandRules {
    rules: Vec<(CommandPattern, CommandAction, CommandRuleOrigin)>,
}

impl CommandRules {
    /// Adds a pattern.
    pub(crate) fn push(
        &mut self,
        pattern: CommandPattern,
        action: CommandAction,
        origin: CommandRuleOrigin,
    ) {
        self.rules.push((pattern, action, origin));
        // Stable: each action keeps the order it was written in.
        self.rules
            .sort_by_key(|(_, action, _)| *action == CommandAction::Ask);
    }

    /// Whether any rule is set.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The first rule that matches one of `commands` (a denial before any
    /// question).
    pub fn check(&self, commands: &[Invocation<'_>], places: &Places<'_>) -> Option<CommandMatch> {
        for (pattern, action, origin) in &self.rules {
            if let Some(command) = commands.iter().find(|c| pattern.matches(c, places)) {
                return Some(CommandMatch {
                    action: *action,
                    pattern: pattern.text().to_owned(),
                    origin: origin.clone(),
                    command: command
                        .argv
                        .iter()
                        .map(|w| w.unwrap_or("…"))
                        .collect::<Vec<_>>()
                        .join(" "),
                });
            }
        }
        None
    }
}

/// The command rules of `doc` and `config`: patterns that do not compile
/// in the config are its error (the rule file's were checked when it was
/// read).
pub(crate) fn compile(
    doc: &RuleDoc,
    config: &ProjectAgentRulesConfig,
) -> Result<CommandRules, DefaultRulesError> {
    let mut rules = CommandRules::default();
    let compile = |text: &str, key: &'static str| {
        CommandPattern::parse(text).map_err(|e| DefaultRulesError {
            key,
            pattern: e.pattern,
            message: e.message,
        })
    };
    let lists = [
        (&doc.commands_deny, CommandAction::Deny, "commands.deny"),
        (&doc.commands_ask, CommandAction::Ask, "commands.ask"),
    ];
    for (list, action, key) in lists {
        for entry in list {
            let origin = CommandRuleOrigin::Entry(entry.clone());
            rules.push(compile(&entry.text, key)?, action, origin);
        }
    }
    let user = [
        (&config.commands.deny, CommandAction::Deny, "commands.deny"),
        (&config.commands.ask, CommandAction::Ask, "commands.ask"),
    ];
    for (list, action, key) in user {
        for text in list {
            let origin = CommandRuleOrigin::Entry(Entry::new(text, None));
            rules.push(compile(text, key)?, action, origin);
        }
    }
    let mut names: Vec<&str> = doc
        .presets
        .iter()
        .map(|e| e.text.as_str())
        .chain(config.presets.iter().map(String::as_str))
        .collect();
    if doc.strict || config.strict {
        names.extend(crate::presets::PRESETS.iter().map(|p| p.name));
    }
    let mut seen = Vec::new();
    for name in names {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        let preset = crate::presets::preset(name).ok_or_else(|| DefaultRulesError {
            key: "presets",
            pattern: name.to_owned(),
            message: crate::source::unknown_preset(name),
        })?;
        for text in preset.ask {
            let origin = CommandRuleOrigin::Preset(preset.name);
            rules.push(compile(text, "presets")?, CommandAction::Ask, origin);
        }
    }
    Ok(rules)
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;
