//! Names as the listing shows them: a name can never add a line, shift its
//! indentation or pass for a summary or a group label.
//!
//! A name that needs it is shown in double quotes with C-style escapes
//! (`"line\nbreak.txt"`, `"  lead.txt"`, `"tab\there"`, `"\u{7f}"`); every
//! other name is shown as it is.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `name` is quoted when shown: a control character, leading or
/// trailing whitespace, a leading quote, or the shape of a listing's own
/// lines (`... (`, a group's `{..}`, a summary's ` (`, a symlink's `@`).
pub fn needs_quoting(name: &str) -> bool {
    plain_ascii(name).unwrap_or_else(|| by_the_rule(name))
}

/// The answer for a plain ASCII name (printable, no space, none of `(`,
/// `{`, `"`) in one pass over its bytes; `None` for any other name. Most
/// names are such names.
fn plain_ascii(name: &str) -> Option<bool> {
    let bytes = name.as_bytes();
    let (&first, &last) = (bytes.first()?, bytes.last()?);
    bytes
        .iter()
        .all(|b| (0x21..0x7f).contains(b) && !matches!(b, b'(' | b'{' | b'"'))
        .then(|| first == b'.' && name.starts_with("...") || last == b'@')
}

/// The rule, written out.
fn by_the_rule(name: &str) -> bool {
    name.is_empty()
        || name.chars().any(char::is_control)
        || name.starts_with(char::is_whitespace)
        || name.ends_with(char::is_whitespace)
        || name.starts_with(['"', '('])
        || name.starts_with("...")
        || name.ends_with('@')
        || name.contains(" (")
        || (name.contains('{') && name.contains(".."))
}

/// `name` as shown.
pub fn display(name: &str) -> Cow<'_, str> {
    if !needs_quoting(name) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 2);
    out.push('"');
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_cannot_add_a_line_or_an_indent() {
        assert_eq!(display("line\nbreak.txt"), "\"line\\nbreak.txt\"");
        assert_eq!(display("  lead.txt"), "\"  lead.txt\"");
        assert_eq!(display("trail.txt "), "\"trail.txt \"");
        assert_eq!(display("cr\rx"), "\"cr\\rx\"");
        assert_eq!(display("del\u{7f}"), "\"del\\u{7f}\"");
        assert_eq!(display("q\"\\.txt\t"), "\"q\\\"\\\\.txt\\t\"");
    }

    #[test]
    fn a_name_cannot_pass_for_a_summary_or_a_label() {
        for name in [
            "... (3 files)",
            "f{1..3}.txt",
            "src (2 files)",
            "link@",
            "(root: x)",
        ] {
            assert!(display(name).starts_with('"'), "{name}");
        }
    }

    #[test]
    fn the_fast_path_agrees_with_the_rule() {
        let alphabet = [
            "a", ".", "..", "...", "@", "(", "{", "}", " ", "\"", "1", "\t", "é", "~",
        ];
        let mut names = vec![String::new()];
        for a in alphabet {
            for b in alphabet {
                for c in alphabet {
                    names.push(format!("{a}{b}{c}"));
                }
            }
        }
        let mut fast = 0;
        for name in names {
            if let Some(answer) = plain_ascii(&name) {
                assert_eq!(answer, by_the_rule(&name), "{name:?}");
                fast += 1;
            }
        }
        assert!(fast > 500, "the fast path was tried on {fast} names");
    }

    #[test]
    fn ordinary_names_are_shown_as_they_are() {
        for name in [
            "README.md",
            "a b.txt",
            "日本語.md",
            ".github",
            "x..y",
            "{a}.txt",
        ] {
            assert_eq!(display(name), name);
        }
    }
}
