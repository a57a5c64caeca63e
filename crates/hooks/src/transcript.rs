//! What a resumed Claude Code session still shows the model: whether the
//! context agentctx gave at `SessionStart` is in the session's transcript
//! after its last compaction. Releases differ (measured, 2026-11-23):
//! 1.0.128 keeps it as a `<session-start-hook>` user message and 2.1.330 as
//! a `hook_additional_context` attachment, so a resumed process sends it
//! again; 2.0.30 and 2.1.40 keep it only in the memory of the process that
//! got it, so after `--resume` (or a `/compact` whose process ended) the
//! model has none of it unless the hook gives it again. The transcript is
//! the evidence; the release is not guessed.

use std::io::BufRead as _;
use std::path::Path;

use agentctx_agentmem::ReverseLines;
use agentctx_types::ComposedContext;

/// How far back from its end a transcript is read for the context.
const BACKWARD_BYTES: u64 = 64 * 1024 * 1024;
/// How many lines from its start are read when the backward read stopped
/// early: a session never compacted keeps its start context there.
const HEAD_LINES: usize = 256;

/// What marks a compaction in every release's transcript.
const COMPACT_BOUNDARY: &[u8] = b"\"subtype\":\"compact_boundary\"";

/// The text by which each part of `composed` is recognised in a JSONL
/// transcript: its first line, at most 120 bytes, as JSON escapes it.
pub(crate) fn context_needles(composed: &ComposedContext) -> Vec<Vec<u8>> {
    composed
        .parts()
        .filter_map(|part| part.text.lines().map(str::trim).find(|l| !l.is_empty()))
        .map(|line| {
            let mut end = line.len().min(120);
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            let escaped = serde_json::to_string(&line[..end]).unwrap_or_default();
            escaped.trim_matches('"').as_bytes().to_vec()
        })
        .filter(|needle| !needle.is_empty())
        .collect()
}

/// Whether every needle is in the transcript since its last compaction
/// (`false` when the file cannot be read: the context is then given again,
/// as twice is better than never).
pub(crate) fn context_in_transcript(transcript: &Path, needles: &[Vec<u8>]) -> bool {
    if needles.is_empty() {
        return true;
    }
    let mut missing: Vec<&[u8]> = needles.iter().map(Vec::as_slice).collect();
    let Ok(lines) = ReverseLines::open(transcript) else {
        return false;
    };
    let mut read: u64 = 0;
    for line in lines {
        let Ok(line) = line else { return false };
        missing.retain(|needle| !contains(&line, needle));
        if missing.is_empty() {
            return true;
        }
        if contains(&line, COMPACT_BOUNDARY) {
            return false;
        }
        read += line.len() as u64 + 1;
        if read > BACKWARD_BYTES {
            return in_head(transcript, &missing);
        }
    }
    false
}

/// Whether the first lines of the transcript hold every needle, and no
/// compaction came after them within those lines.
fn in_head(transcript: &Path, needles: &[&[u8]]) -> bool {
    let Ok(file) = std::fs::File::open(transcript) else {
        return false;
    };
    let mut missing = needles.to_vec();
    for line in std::io::BufReader::new(file)
        .split(b'\n')
        .take(HEAD_LINES)
        .map_while(Result::ok)
    {
        missing.retain(|needle| !contains(&line, needle));
        if missing.is_empty() {
            return true;
        }
    }
    false
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentctx_types::{ContextPart, ContextPartKind};

    fn composed() -> ComposedContext {
        let mut c = ComposedContext::default();
        c.system.push(ContextPart {
            kind: ContextPartKind::Rules,
            text: "RULES: say \"hi\".\nmore".into(),
        });
        c.system.push(ContextPart {
            kind: ContextPartKind::Files,
            text: "<project_files root=\"repo\" format=\"tree\">\nx\n</project_files>".into(),
        });
        c
    }

    fn transcript(lines: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        (dir, path)
    }

    #[test]
    fn the_context_is_found_as_json_escapes_it_and_lost_across_a_compaction() {
        let needles = context_needles(&composed());
        assert_eq!(needles[0], br#"RULES: say \"hi\"."#.to_vec());
        let given = r#"{"type":"user","message":{"content":"<session-start-hook>RULES: say \"hi\".\nmore\n\n<project_files root=\"repo\" format=\"tree\">\nx\n</project_files>"}}"#;
        let boundary =
            r#"{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}"#;
        let summary = r#"{"type":"user","message":{"content":"This session is being continued"}}"#;
        let (_d, kept) = transcript(&[given, boundary, summary, given]);
        assert!(context_in_transcript(&kept, &needles));
        let (_d, lost) = transcript(&[given, boundary, summary]);
        assert!(!context_in_transcript(&lost, &needles));
        let (_d, never) = transcript(&[summary]);
        assert!(!context_in_transcript(&never, &needles));
        // Part of it is not the context.
        let (_d, half) = transcript(&[r#"{"c":"RULES: say \"hi\"."}"#]);
        assert!(!context_in_transcript(&half, &needles));
        assert!(!context_in_transcript(
            Path::new("/nonexistent/t.jsonl"),
            &needles
        ));
        assert!(context_in_transcript(Path::new("/nonexistent"), &[]));
    }
}
