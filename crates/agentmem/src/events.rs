//! The events log: one JSON line per capture attempt.

use std::io::Write as _;
use std::path::Path;

use agentctx_types::CaptureEvent;

/// Appends the event as one line with one `write` in append mode, so lines
/// of concurrent hooks never interleave.
pub fn append_event(path: &Path, event: &CaptureEvent) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(event).map_err(std::io::Error::other)?;
    line.push(b'\n');
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(&line)
}
