//! Reading a JSONL transcript from its end, in bounded chunks: the cost
//! follows the size of the last turn, not of the file.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

const CHUNK: u64 = 64 * 1024;

/// How far back from its end a capture reads a transcript: a sub-agent's
/// output and its call are near the end when its hook runs, and a hook
/// must not cost the size of a long session (a 1 GiB transcript whose
/// last turn made no sub-agent call was read whole before).
pub const TRANSCRIPT_WINDOW: u64 = 16 * 1024 * 1024;

/// Lines of a file from the last to the first. A last line without a
/// trailing newline is still being written and is skipped.
pub struct ReverseLines {
    file: File,
    /// Bytes of the file not yet read (everything before `pos`).
    pos: u64,
    /// Pieces of the line whose beginning lies further back, from the
    /// latest to the earliest (joined once its start is read).
    carry: Vec<Vec<u8>>,
    pending: Vec<Vec<u8>>,
    first: bool,
    /// Bytes before this offset are never read (a line that starts
    /// before it is dropped whole).
    floor: u64,
}

impl ReverseLines {
    /// Opens `path` to read its lines from the last.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        Self::open_within(path, u64::MAX)
    }

    /// Opens `path` to read the lines of its last `window` bytes, from the
    /// last (a line that begins before them is not read).
    pub fn open_within(path: &Path, window: u64) -> std::io::Result<Self> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Self {
            file,
            pos: len,
            carry: Vec::new(),
            pending: Vec::new(),
            first: true,
            floor: len.saturating_sub(window),
        })
    }

    /// Reads the chunk before `pos` and moves the lines it completes to
    /// `pending`. A line longer than a chunk collects its pieces in
    /// `carry` and is joined once, when its start is found: linear in its
    /// length.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.pos == self.floor && self.floor > 0 {
            // The window's start: the line in `carry` is whole when a
            // newline comes just before it, else it began before the window.
            if self.carry.is_empty() {
                return Ok(false);
            }
            let mut before = [0u8; 1];
            self.file.seek(SeekFrom::Start(self.floor - 1))?;
            self.file.read_exact(&mut before)?;
            let line = join_pieces(&[], &mut self.carry);
            if before[0] == b'\n' && !line.is_empty() {
                self.pending.push(line);
            }
            return Ok(true);
        }
        if self.pos == 0 {
            if self.carry.is_empty() {
                return Ok(false);
            }
            let line = join_pieces(&[], &mut self.carry);
            if !line.is_empty() {
                self.pending.push(line);
            }
            return Ok(true);
        }
        let start = self.pos.saturating_sub(CHUNK).max(self.floor);
        let size = usize::try_from(self.pos - start).unwrap_or(0);
        let mut buf = vec![0u8; size];
        self.file.seek(SeekFrom::Start(start))?;
        self.file.read_exact(&mut buf)?;
        self.pos = start;
        if self.first {
            // A final line without a newline is still being written: its
            // bytes are dropped until the newline before it.
            match buf.iter().rposition(|b| *b == b'\n') {
                Some(last_newline) => {
                    buf.truncate(last_newline + 1);
                    self.first = false;
                }
                None => return Ok(true),
            }
        }
        let (Some(first_newline), Some(last_newline)) = (
            buf.iter().position(|b| *b == b'\n'),
            buf.iter().rposition(|b| *b == b'\n'),
        ) else {
            // The whole chunk is the middle of one long line.
            self.carry.push(buf);
            return Ok(true);
        };
        let newest = join_pieces(&buf[last_newline + 1..], &mut self.carry);
        // `pending` is in file order and popped from the back.
        if first_newline < last_newline {
            self.pending.extend(
                buf[first_newline + 1..last_newline]
                    .split(|b| *b == b'\n')
                    .filter(|l| !l.is_empty())
                    .map(<[u8]>::to_vec),
            );
        }
        if !newest.is_empty() {
            self.pending.push(newest);
        }
        // The start of a line whose beginning lies further back.
        buf.truncate(first_newline);
        self.carry.push(buf);
        Ok(true)
    }
}

/// `head` followed by the pieces of `carry` in file order (they were
/// pushed from the latest to the earliest), `carry` emptied.
fn join_pieces(head: &[u8], carry: &mut Vec<Vec<u8>>) -> Vec<u8> {
    let len = head.len() + carry.iter().map(Vec::len).sum::<usize>();
    let mut line = Vec::with_capacity(len);
    line.extend_from_slice(head);
    for piece in carry.drain(..).rev() {
        line.extend_from_slice(&piece);
    }
    line
}

impl Iterator for ReverseLines {
    type Item = std::io::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(line) = self.pending.pop() {
                return Some(Ok(line));
            }
            match self.fill() {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// JSON values of a transcript from the newest; lines that are not JSON (a
/// torn write) are skipped.
pub fn reverse_json(path: &Path) -> std::io::Result<impl Iterator<Item = serde_json::Value>> {
    Ok(ReverseLines::open(path)?
        .map_while(Result::ok)
        // A line with bytes that are not UTF-8 (a cut multi-byte character,
        // a binary tool result) is read lossily, not dropped: dropping it
        // would make an older entry the newest.
        .filter_map(|line| serde_json::from_str(&String::from_utf8_lossy(&line)).ok()))
}

/// [`reverse_json`] over the last [`TRANSCRIPT_WINDOW`] bytes: what a
/// capture reads.
pub fn recent_json(path: &Path) -> std::io::Result<impl Iterator<Item = serde_json::Value>> {
    Ok(ReverseLines::open_within(path, TRANSCRIPT_WINDOW)?
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_str(&String::from_utf8_lossy(&line)).ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(content: &[u8]) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, content).unwrap();
        ReverseLines::open(&path)
            .unwrap()
            .map(|l| String::from_utf8(l.unwrap()).unwrap())
            .collect()
    }

    #[test]
    fn lines_come_newest_first_and_a_half_written_last_line_is_skipped() {
        assert_eq!(lines(b"a\nb\nc\n"), ["c", "b", "a"]);
        assert_eq!(lines(b"a\nb\n{\"half"), ["b", "a"]);
        assert!(lines(b"").is_empty());
        assert!(lines(b"no newline at all").is_empty());
    }

    #[test]
    fn lines_across_chunk_boundaries_are_whole_and_in_order() {
        let chunk = usize::try_from(CHUNK).unwrap();
        // Lines whose ends fall on, before and after chunk boundaries.
        let lines_in: Vec<String> = [chunk - 1, 1, chunk, 3 * chunk + 7, 0, 2, chunk - 2]
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{i}{}", "y".repeat(*n)))
            .collect();
        let content = lines_in.join("\n") + "\n";
        let mut expected = lines_in.clone();
        expected.reverse();
        assert_eq!(lines(content.as_bytes()), expected);
        // With a half-written last line longer than a chunk.
        let torn = format!("{content}{}", "z".repeat(2 * chunk + 5));
        assert_eq!(lines(torn.as_bytes()), expected);
    }

    #[test]
    fn a_window_reads_only_the_lines_that_begin_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let chunk = usize::try_from(CHUNK).unwrap();
        let long = "L".repeat(3 * chunk);
        std::fs::write(&path, format!("first\n{long}\nab\ncd\n")).unwrap();
        let within = |window: u64| -> Vec<String> {
            ReverseLines::open_within(&path, window)
                .unwrap()
                .map(|l| String::from_utf8(l.unwrap()).unwrap())
                .collect()
        };
        assert_eq!(within(6), ["cd", "ab"]);
        assert_eq!(
            within(7),
            ["cd", "ab"],
            "a line cut by the window is dropped"
        );
        assert_eq!(within(8), ["cd", "ab"]);
        assert_eq!(
            within(u64::try_from(long.len()).unwrap() + 7),
            ["cd", "ab", long.as_str()]
        );
        assert_eq!(within(u64::MAX).len(), 4);
    }

    #[test]
    fn lines_longer_than_a_chunk_are_whole() {
        let long = "x".repeat(200_000);
        let content = format!("first\n{long}\nlast\n");
        assert_eq!(lines(content.as_bytes()), ["last", long.as_str(), "first"]);
    }
}
