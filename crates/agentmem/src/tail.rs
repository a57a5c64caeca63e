//! Reading a JSONL transcript from its end, in bounded chunks: the cost
//! follows the size of the last turn, not of the file.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

const CHUNK: u64 = 64 * 1024;

/// Lines of a file from the last to the first. A last line without a
/// trailing newline is still being written and is skipped.
pub struct ReverseLines {
    file: File,
    /// Bytes of the file not yet read (everything before `pos`).
    pos: u64,
    /// Bytes read but not yet split into lines: the start of a line whose
    /// beginning lies further back.
    carry: Vec<u8>,
    pending: Vec<Vec<u8>>,
    first: bool,
}

impl ReverseLines {
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Self {
            file,
            pos: len,
            carry: Vec::new(),
            pending: Vec::new(),
            first: true,
        })
    }

    fn fill(&mut self) -> std::io::Result<bool> {
        if self.pos == 0 {
            if self.carry.is_empty() {
                return Ok(false);
            }
            let line = std::mem::take(&mut self.carry);
            self.pending.push(line);
            return Ok(true);
        }
        let start = self.pos.saturating_sub(CHUNK);
        let size = usize::try_from(self.pos - start).unwrap_or(0);
        let mut buf = vec![0u8; size];
        self.file.seek(SeekFrom::Start(start))?;
        self.file.read_exact(&mut buf)?;
        self.pos = start;
        buf.extend_from_slice(&self.carry);
        if self.first {
            self.first = false;
            // A final line without a newline is still being written.
            match buf.iter().rposition(|b| *b == b'\n') {
                Some(last_newline) => buf.truncate(last_newline + 1),
                None if self.pos == 0 => buf.clear(),
                None => {
                    self.carry.clear();
                    self.first = true;
                    return Ok(true);
                }
            }
        }
        // Split off complete lines; keep the (possibly partial) first one.
        let mut lines: Vec<Vec<u8>> = buf.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
        self.carry = if lines.is_empty() {
            Vec::new()
        } else {
            lines.remove(0)
        };
        // `lines` is in file order; `pending` is popped from the back.
        self.pending
            .extend(lines.into_iter().filter(|l| !l.is_empty()));
        Ok(true)
    }
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
    fn lines_longer_than_a_chunk_are_whole() {
        let long = "x".repeat(200_000);
        let content = format!("first\n{long}\nlast\n");
        assert_eq!(lines(content.as_bytes()), ["last", long.as_str(), "first"]);
    }
}
