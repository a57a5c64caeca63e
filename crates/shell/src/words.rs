//! One shell word as bash would expand it, as far as that can be known
//! before it runs: quotes removed, `$'...'` decoded, braces expanded,
//! unquoted glob characters kept as a pattern, and every command
//! substitution inside handed back to be parsed as the commands it runs.

use brush_parser::ParserOptions;
use brush_parser::word::{
    BraceExpressionMember, BraceExpressionOrText, WordPiece, WordPieceWithSource,
};

/// One word of a command after quote removal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShellWord {
    /// A word whose value is known without running anything: quotes
    /// removed, `~` at its start kept as `~`.
    Literal(String),
    /// A word with unquoted glob characters (`*`, `?`, `[`): the files it
    /// names are those that match when the shell runs it (the value is the
    /// pattern, quotes removed; quoted glob characters are escaped with `\`).
    Pattern(String),
    /// A word with an expansion or substitution (`$X`, `$(...)`): its value
    /// is only known when the shell runs it.
    Dynamic(String),
}

impl ShellWord {
    /// The literal value, if known.
    pub fn literal(&self) -> Option<&str> {
        match self {
            Self::Literal(text) => Some(text),
            Self::Pattern(_) | Self::Dynamic(_) => None,
        }
    }
}

/// How many words one brace expression may turn into before the rest is
/// taken as one dynamic word (a command line cannot make the hook's work
/// grow without bound).
const MAX_BRACE_WORDS: usize = 1024;

/// The words `raw` expands to, and the texts of the command substitutions
/// it holds (each to be parsed as shell: they run).
pub(crate) fn expand(raw: &str, options: &ParserOptions) -> (Vec<ShellWord>, Vec<String>) {
    let mut substitutions = Vec::new();
    let words = braces(raw, options)
        .into_iter()
        .map(|word| value(&word, options, &mut substitutions))
        .collect();
    (words, substitutions)
}

/// The word with its brace expressions expanded (`a{b,c}` → `ab`, `ac`).
fn braces(raw: &str, options: &ParserOptions) -> Vec<String> {
    if !raw.contains('{') {
        return vec![raw.to_owned()];
    }
    // brush-parser unwraps numbers it parses in sequences; a hook must not
    // panic on what a model wrote.
    let parsed =
        std::panic::catch_unwind(|| brush_parser::word::parse_brace_expansions(raw, options));
    match parsed {
        Ok(Ok(Some(pieces))) => {
            let mut out = vec![String::new()];
            if append_pieces(&pieces, &mut out) {
                out
            } else {
                vec![raw.to_owned()]
            }
        }
        _ => vec![raw.to_owned()],
    }
}

/// Appends every expansion of `pieces` to each of `out`; `false` when the
/// result would exceed [`MAX_BRACE_WORDS`].
fn append_pieces(pieces: &[BraceExpressionOrText], out: &mut Vec<String>) -> bool {
    for piece in pieces {
        match piece {
            BraceExpressionOrText::Text(text) => out.iter_mut().for_each(|o| o.push_str(text)),
            BraceExpressionOrText::Expr(members) => {
                let mut alternatives = Vec::new();
                for member in members {
                    match member {
                        BraceExpressionMember::Child(children) => {
                            let mut child = vec![String::new()];
                            if !append_pieces(children, &mut child) {
                                return false;
                            }
                            alternatives.extend(child);
                        }
                        BraceExpressionMember::NumberSequence {
                            start,
                            end,
                            increment,
                        } => {
                            let step = increment.unsigned_abs().max(1);
                            let (lo, hi) = (*start.min(end), *start.max(end));
                            let count = (hi.abs_diff(lo) / step).saturating_add(1);
                            if count > MAX_BRACE_WORDS as u64 {
                                return false;
                            }
                            let mut n = *start;
                            for _ in 0..count {
                                alternatives.push(n.to_string());
                                n = if start <= end {
                                    n.saturating_add(step as i64)
                                } else {
                                    n.saturating_sub(step as i64)
                                };
                            }
                        }
                        BraceExpressionMember::CharSequence { start, end, .. } => {
                            let (lo, hi) = (u32::from(*start.min(end)), u32::from(*start.max(end)));
                            if hi - lo > MAX_BRACE_WORDS as u32 {
                                return false;
                            }
                            alternatives
                                .extend((lo..=hi).filter_map(char::from_u32).map(String::from));
                        }
                    }
                }
                if out.len().saturating_mul(alternatives.len()) > MAX_BRACE_WORDS {
                    return false;
                }
                *out = out
                    .iter()
                    .flat_map(|o| alternatives.iter().map(move |a| format!("{o}{a}")))
                    .collect();
            }
        }
    }
    true
}

/// A word's value after quote removal.
fn value(raw: &str, options: &ParserOptions, substitutions: &mut Vec<String>) -> ShellWord {
    match brush_parser::word::parse(raw, options) {
        Ok(pieces) => {
            let mut acc = Value::default();
            let known = pieces_value(&pieces, &mut acc, true, substitutions);
            match (known, acc.glob) {
                (false, _) => ShellWord::Dynamic(raw.to_owned()),
                (true, true) => ShellWord::Pattern(acc.pattern),
                (true, false) => ShellWord::Literal(acc.plain),
            }
        }
        Err(_) => ShellWord::Dynamic(raw.to_owned()),
    }
}

/// A word's value as plain text and as a glob pattern (quoted glob
/// characters escaped), and whether an unquoted glob character is in it.
#[derive(Default)]
struct Value {
    plain: String,
    pattern: String,
    glob: bool,
}

impl Value {
    fn unquoted(&mut self, text: &str) {
        self.plain.push_str(text);
        self.pattern.push_str(text);
    }

    fn quoted(&mut self, text: &str) {
        self.plain.push_str(text);
        for c in text.chars() {
            if matches!(c, '*' | '?' | '[' | ']' | '\\') {
                self.pattern.push('\\');
            }
            self.pattern.push(c);
        }
    }
}

/// The command substitutions of a here-document body that the shell
/// expands (`<<EOF`, not `<<'EOF'`), and the body as the program reads it
/// when no expansion is in it.
pub(crate) fn heredoc(
    body: &str,
    expands: bool,
    options: &ParserOptions,
    substitutions: &mut Vec<String>,
) -> Option<String> {
    if !expands {
        return Some(body.to_owned());
    }
    let pieces = brush_parser::word::parse_heredoc(body, options).ok()?;
    let mut acc = Value::default();
    let known = pieces_value(&pieces, &mut acc, false, substitutions);
    known.then_some(acc.plain)
}

/// Appends the value of `pieces`; `false` when it depends on an expansion.
/// Every command substitution is collected, known value or not.
fn pieces_value(
    pieces: &[WordPieceWithSource],
    acc: &mut Value,
    unquoted: bool,
    substitutions: &mut Vec<String>,
) -> bool {
    let mut known = true;
    for (i, piece) in pieces.iter().enumerate() {
        match &piece.piece {
            WordPiece::Text(text) if unquoted => {
                acc.glob |= text.contains(['*', '?', '[']);
                acc.unquoted(text);
            }
            WordPiece::Text(text) | WordPiece::SingleQuotedText(text) => acc.quoted(text),
            WordPiece::AnsiCQuotedText(text) => acc.quoted(&ansi_c(text)),
            WordPiece::EscapeSequence(text) => acc.quoted(text.strip_prefix('\\').unwrap_or(text)),
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                known &= pieces_value(inner, acc, false, substitutions);
            }
            WordPiece::TildeExpansion(brush_parser::word::TildeExpr::Home)
                if unquoted && i == 0 =>
            {
                acc.unquoted("~");
            }
            WordPiece::CommandSubstitution(text)
            | WordPiece::BackquotedCommandSubstitution(text) => {
                substitutions.push(text.clone());
                known = false;
            }
            _ => known = false,
        }
    }
    known
}

/// The text of `$'...'` with its backslash escapes decoded as bash does.
pub(crate) fn ansi_c(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let mut number = |radix: u32, max: usize, first: Option<char>| {
            let mut digits: String = first.into_iter().collect();
            while digits.len() < max {
                match chars.peek() {
                    Some(d) if d.is_digit(radix) => {
                        digits.push(*d);
                        chars.next();
                    }
                    _ => break,
                }
            }
            u32::from_str_radix(&digits, radix)
                .ok()
                .and_then(char::from_u32)
        };
        let decoded = match e {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            'x' => number(16, 2, None),
            'u' => number(16, 4, None),
            'U' => number(16, 8, None),
            '0'..='7' => number(8, 3, Some(e)),
            'c' => chars
                .next()
                .map(|c| char::from(c.to_ascii_uppercase() as u8 ^ 0x40)),
            other => {
                out.push('\\');
                Some(other)
            }
        };
        out.extend(decoded);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(raw: &str) -> Vec<ShellWord> {
        expand(raw, &ParserOptions::default()).0
    }

    #[test]
    fn ansi_c_quoting_is_decoded() {
        assert_eq!(ansi_c(r"\x73ecrets/key"), "secrets/key");
        assert_eq!(ansi_c(r"\163ecrets\t\u0041"), "secrets\tA");
        assert_eq!(
            words(r"$'\x73ecrets/key'"),
            [ShellWord::Literal("secrets/key".into())]
        );
    }

    #[test]
    fn braces_expand_and_globs_are_patterns() {
        assert_eq!(
            words("{secrets,src}/key"),
            [
                ShellWord::Literal("secrets/key".into()),
                ShellWord::Literal("src/key".into())
            ]
        );
        assert_eq!(
            words("secre*/key"),
            [ShellWord::Pattern("secre*/key".into())]
        );
        assert_eq!(
            words("'secre*'/key"),
            [ShellWord::Literal("secre*/key".into())]
        );
        assert_eq!(words("f{1..3}").len(), 3);
        // Too many to follow: one word, never a hang or a panic.
        assert_eq!(words("f{1..99999999999999999999999}").len(), 1);
        assert_eq!(words("{1..100}{1..100}").len(), 1);
    }

    #[test]
    fn substitutions_are_returned_to_be_parsed() {
        let (w, subs) = expand("\"$(cat secrets/key)\"", &ParserOptions::default());
        assert!(matches!(w[0], ShellWord::Dynamic(_)));
        assert_eq!(subs, ["cat secrets/key"]);
    }
}
