//! Reading a hook's stdin. Its size and time are bounded
//! ([`read_bounded`]): a writer that never ends (`sleep 200 | agentctx
//! hook`) or sends gigabytes must not hang the agent or take its memory.
//! JSON the agents send can hold what a strict parser refuses: a lone
//! UTF-16 surrogate escape (`"\ud800"`), or nesting deeper than
//! serde_json's default limit of 128 (an MCP tool's arguments can be
//! anything). Both are read rather than refused: a refused input would be
//! a tool call that nobody checked.

use std::io::Read;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agentctx_types::HookInput;
use serde::Deserialize as _;

/// How much of a hook's stdin is read, and for how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadLimits {
    /// The most bytes read; input past it is not read at all. The agents'
    /// payloads are far smaller (a tool's output is cut at tens of
    /// kilobytes by the agent itself); this bounds the hook's memory.
    pub max_bytes: usize,
    /// The whole input must have arrived (end of file) this long after
    /// reading started.
    pub total: Duration,
    /// ... and this long after its first byte (the agents write the
    /// payload at once and close the pipe).
    pub after_first_byte: Duration,
}

impl Default for ReadLimits {
    /// 16 MiB, within 10 s of the start and 5 s of the first byte.
    fn default() -> Self {
        Self {
            max_bytes: 16 * 1024 * 1024,
            total: Duration::from_secs(10),
            after_first_byte: Duration::from_secs(5),
        }
    }
}

/// Why a hook's stdin was not read whole.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// More than [`ReadLimits::max_bytes`].
    #[error("its input is larger than {}, more than agentctx reads", size_text(*.limit))]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The writer did not close the input in time.
    #[error("its input did not end within {:.1} s; {received} bytes arrived", .waited.as_secs_f64())]
    Late {
        /// How long it was waited for.
        waited: Duration,
        /// What arrived.
        received: usize,
    },
    /// Reading failed.
    #[error("its input cannot be read ({0})")]
    Io(#[source] std::io::Error),
}

fn size_text(bytes: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// What was read of a hook's stdin: all of it, or what arrived before
/// it was given up (at most `max_bytes`) and why.
#[derive(Debug)]
pub struct Received {
    /// The bytes read.
    pub bytes: Vec<u8>,
    /// `None` when the input was read to its end.
    pub error: Option<ReadError>,
}

/// Reads `reader` to its end within `limits`. The reading runs on a
/// thread of its own: past a deadline it is left blocked on a reader
/// that never ends, so the caller answers and exits.
pub fn read_bounded<R: Read + Send + 'static>(mut reader: R, limits: ReadLimits) -> Received {
    let started = Instant::now();
    // A few chunks in flight: the memory held stays near `max_bytes`.
    let (send, receive) = mpsc::sync_channel::<std::io::Result<Vec<u8>>>(4);
    std::thread::spawn(move || {
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            let read = match reader.read(&mut chunk) {
                Ok(n) => Ok(chunk[..n].to_vec()),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => Err(e),
            };
            let last = !matches!(&read, Ok(bytes) if !bytes.is_empty());
            // The receiver gone (it gave up): stop reading.
            if send.send(read).is_err() || last {
                return;
            }
        }
    });
    let mut bytes = Vec::new();
    let mut deadline = started + limits.total;
    loop {
        let wait = deadline.saturating_duration_since(Instant::now());
        let error = match receive.recv_timeout(wait) {
            Ok(Ok(chunk)) if chunk.is_empty() => None,
            Ok(Ok(chunk)) => {
                if bytes.is_empty() {
                    deadline = deadline.min(Instant::now() + limits.after_first_byte);
                }
                let room = limits.max_bytes.saturating_sub(bytes.len());
                if chunk.len() > room {
                    bytes.extend_from_slice(&chunk[..room]);
                    Some(ReadError::TooLarge {
                        limit: limits.max_bytes,
                    })
                } else {
                    bytes.extend_from_slice(&chunk);
                    continue;
                }
            }
            Ok(Err(error)) => Some(ReadError::Io(error)),
            Err(mpsc::RecvTimeoutError::Timeout) => Some(ReadError::Late {
                waited: started.elapsed(),
                received: bytes.len(),
            }),
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
        };
        return Received { bytes, error };
    }
}

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

    /// A reader that gives `chunks`, then blocks until dropped.
    struct Stalling(Vec<Vec<u8>>);

    impl std::io::Read for Stalling {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                std::thread::sleep(Duration::from_secs(3600));
            }
            let chunk = self.0.remove(0);
            buf[..chunk.len()].copy_from_slice(&chunk);
            Ok(chunk.len())
        }
    }

    const QUICK: ReadLimits = ReadLimits {
        max_bytes: 1000,
        total: Duration::from_millis(400),
        after_first_byte: Duration::from_millis(200),
    };

    #[test]
    fn input_is_read_whole_up_to_the_limit() {
        let received = read_bounded(&b"{\"cwd\":\"/x\"}"[..], QUICK);
        assert!(received.error.is_none());
        assert_eq!(received.bytes, b"{\"cwd\":\"/x\"}");
        let exactly = vec![b' '; 1000];
        let received = read_bounded(std::io::Cursor::new(exactly), QUICK);
        assert!(received.error.is_none(), "{:?}", received.error);
    }

    #[test]
    fn input_past_the_limit_is_cut_there() {
        let received = read_bounded(std::io::Cursor::new(vec![b' '; 5000]), QUICK);
        assert!(matches!(
            received.error,
            Some(ReadError::TooLarge { limit: 1000 })
        ));
        assert_eq!(received.bytes.len(), 1000);
        let error = ReadError::TooLarge {
            limit: ReadLimits::default().max_bytes,
        };
        assert_eq!(
            error.to_string(),
            "its input is larger than 16 MiB, more than agentctx reads"
        );
    }

    #[test]
    fn input_that_never_ends_is_given_up_after_its_deadlines() {
        let started = Instant::now();
        let received = read_bounded(Stalling(Vec::new()), QUICK);
        let took = started.elapsed();
        assert!(matches!(
            received.error,
            Some(ReadError::Late { received: 0, .. })
        ));
        assert!(
            took >= QUICK.total && took < Duration::from_secs(5),
            "{took:?}"
        );
        // After a first byte, its own (shorter) bound.
        let started = Instant::now();
        let received = read_bounded(Stalling(vec![b"{".to_vec()]), QUICK);
        let took = started.elapsed();
        assert!(matches!(
            received.error,
            Some(ReadError::Late { received: 1, .. })
        ));
        assert!(took < QUICK.total, "{took:?}");
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
