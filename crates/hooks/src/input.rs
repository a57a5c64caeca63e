//! Reading a hook's stdin. JSON the agents send can hold what a strict
//! parser refuses: a lone UTF-16 surrogate escape (`"\ud800"`), or nesting
//! deeper than serde_json's default limit of 128 (an MCP tool's arguments
//! can be anything). Both are read rather than refused: a refused input
//! would be a tool call that nobody checked.

use agentctx_types::HookInput;
use serde::Deserialize as _;

/// How deep a hook's JSON may nest. Deeper input is refused before it is
/// parsed (and, for a tool call under rules, denied): its paths cannot be
/// read in a hook's time, and a deep value is dropped recursively.
pub const MAX_NESTING: usize = 1_000;

/// Why a hook's input cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Not JSON, or not a hook payload.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// Nested deeper than [`MAX_NESTING`].
    #[error("it nests deeper than {MAX_NESTING} levels")]
    TooDeep,
}

/// Parses a hook's input; lone surrogate escapes become U+FFFD; nesting up
/// to [`MAX_NESTING`] is read (the parser grows its stack as needed),
/// deeper is refused without being parsed.
pub fn parse(raw: &[u8]) -> Result<HookInput, InputError> {
    if nesting(raw) > MAX_NESTING {
        return Err(InputError::TooDeep);
    }
    let text = String::from_utf8_lossy(raw);
    let repaired = replace_lone_surrogates(&text);
    let mut deserializer = serde_json::Deserializer::from_str(&repaired);
    deserializer.disable_recursion_limit();
    let deserializer = serde_stacker::Deserializer::new(&mut deserializer);
    let input = HookInput::deserialize(deserializer)?;
    Ok(input)
}

/// The deepest nesting of `[` and `{` in JSON text, outside strings; one
/// pass, stopping past [`MAX_NESTING`].
fn nesting(raw: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &byte in raw {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
                if deepest > MAX_NESTING {
                    return deepest;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The `"cwd": "..."` of a payload that does not parse, if it is there.
pub fn sniff_cwd(text: &str) -> Option<String> {
    let at = text.find("\"cwd\"")?;
    let rest = text[at + 5..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let end = rest.find('"')?;
    Some(rest[..end].to_owned())
}

/// `\uD800`-`\uDFFF` escapes that are not a high surrogate followed by a
/// low one, replaced by `\uFFFD`. Escaped backslashes are respected.
fn replace_lone_surrogates(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("\\u") && !text.contains("\\U") {
        return std::borrow::Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let unit = |at: usize| -> Option<u16> {
        let hex = text.get(at + 2..at + 6)?;
        if bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u') {
            u16::from_str_radix(hex, 16).ok()
        } else {
            None
        }
    };
    let mut last = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            if bytes.get(i + 1) == Some(&b'\\') {
                i += 2;
                continue;
            }
            if let Some(code) = unit(i) {
                let high = (0xD800..=0xDBFF).contains(&code);
                let low = (0xDC00..=0xDFFF).contains(&code);
                if high && unit(i + 6).is_some_and(|next| (0xDC00..=0xDFFF).contains(&next)) {
                    i += 12;
                    continue;
                }
                if high || low {
                    out.push_str(&text[last..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    last = i;
                    continue;
                }
            }
        }
        i += 1;
    }
    out.push_str(&text[last..]);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_are_read_as_replacement_characters() {
        let input =
            parse(br#"{"hook_event_name":"PreToolUse","tool_input":{"file_path":"a\ud800b"}}"#)
                .unwrap();
        assert_eq!(input.tool_input.unwrap()["file_path"], "a\u{fffd}b");
        let pair = parse(br#"{"cwd":"\ud83d\ude00","x":"\\ud800"}"#).unwrap();
        assert_eq!(pair.cwd.as_deref(), Some("\u{1f600}"));
        assert_eq!(pair.other["x"], "\\ud800", "an escaped backslash is text");
        let low = parse(br#"{"cwd":"\udc00"}"#).unwrap();
        assert_eq!(low.cwd.as_deref(), Some("\u{fffd}"));
    }

    #[test]
    fn nesting_past_the_limit_is_refused_unparsed() {
        let depth = 50_000;
        let mut text = String::from(r#"{"hook_event_name":"PreToolUse","tool_input":{"a":"#);
        text.push_str(&"[".repeat(depth));
        text.push_str(&"]".repeat(depth));
        text.push_str("}}");
        assert!(matches!(parse(text.as_bytes()), Err(InputError::TooDeep)));
        // Brackets inside strings are text.
        let quoted = format!(r#"{{"cwd":"{}"}}"#, "[".repeat(depth));
        assert!(parse(quoted.as_bytes()).is_ok());
    }

    #[test]
    fn deep_nesting_is_read() {
        let depth = 900;
        let mut text = String::from(r#"{"hook_event_name":"PreToolUse","tool_input":{"a":"#);
        text.push_str(&"[".repeat(depth));
        text.push_str(r#""/etc/passwd""#);
        text.push_str(&"]".repeat(depth));
        text.push_str("}}");
        let input = parse(text.as_bytes()).unwrap();
        assert!(input.tool_input.is_some());
    }

    #[test]
    fn the_cwd_is_found_in_broken_json() {
        assert_eq!(
            sniff_cwd(r#"{"cwd" : "/repo", "x": ]"#).as_deref(),
            Some("/repo")
        );
        assert_eq!(sniff_cwd("nothing"), None);
    }
}
