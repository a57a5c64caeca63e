//! Reading a hook's stdin. JSON the agents send can hold what a strict
//! parser refuses: a lone UTF-16 surrogate escape (`"\ud800"`), or nesting
//! deeper than serde_json's default limit of 128 (an MCP tool's arguments
//! can be anything). Both are read rather than refused: a refused input
//! would be a tool call that nobody checked.

use agentctx_types::HookInput;
use serde::Deserialize as _;

/// Parses a hook's input; lone surrogate escapes become U+FFFD and nesting
/// depth is limited only by memory (the parser grows its stack as needed).
pub fn parse(raw: &[u8]) -> Result<HookInput, serde_json::Error> {
    let text = String::from_utf8_lossy(raw);
    let repaired = replace_lone_surrogates(&text);
    let mut deserializer = serde_json::Deserializer::from_str(&repaired);
    deserializer.disable_recursion_limit();
    let deserializer = serde_stacker::Deserializer::new(&mut deserializer);
    let input = HookInput::deserialize(deserializer)?;
    Ok(input)
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
    fn deep_nesting_is_read() {
        let depth = 5_000;
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
