//! The events log: one JSON line per capture attempt, appended by captures
//! and read back newest first (the viewer's timeline).

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

/// The latest events of the file at `path`, newest first: at most `limit`
/// lines are read, from the end (the file only grows; its start is never
/// read for a timeline), and lines among them that are not events are
/// counted in `skipped`. A missing file has no events.
pub fn recent_events(path: &Path, limit: usize) -> std::io::Result<RecentEvents> {
    let lines = match crate::tail::ReverseLines::open(path) {
        Ok(lines) => lines,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(RecentEvents::default());
        }
        Err(error) => return Err(error),
    };
    let mut recent = RecentEvents::default();
    for line in lines
        .filter(|line| line.as_ref().map_or(true, |l| !l.trim_ascii().is_empty()))
        .take(limit)
    {
        match serde_json::from_slice::<CaptureEvent>(&line?) {
            Ok(event) => recent.events.push(event),
            Err(_) => recent.skipped += 1,
        }
    }
    Ok(recent)
}

/// What [`recent_events`] read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecentEvents {
    /// The events, newest first.
    pub events: Vec<CaptureEvent>,
    /// Lines read that were not events (a hand edit, another tool's line).
    pub skipped: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(outcome: &str) -> CaptureEvent {
        CaptureEvent {
            timestamp: "2026-01-25 09:12:00 JST".into(),
            source_app: "codex".into(),
            source: "codex-notify".into(),
            session_id: None,
            hook_event_type: None,
            outcome: outcome.into(),
            capture_path: None,
            category: None,
            agent_type: None,
            error: None,
        }
    }

    #[test]
    fn recent_events_are_newest_first_limited_and_count_what_is_not_an_event() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        assert_eq!(recent_events(&path, 10).unwrap(), RecentEvents::default());
        for outcome in ["captured", "duplicate"] {
            append_event(&path, &event(outcome)).unwrap();
        }
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(b"not json\n\n"))
            .unwrap();
        append_event(&path, &event("failed")).unwrap();
        let recent = recent_events(&path, 10).unwrap();
        let outcomes: Vec<&str> = recent.events.iter().map(|e| e.outcome.as_str()).collect();
        assert_eq!(outcomes, ["failed", "duplicate", "captured"]);
        assert_eq!(recent.skipped, 1);
        let two = recent_events(&path, 2).unwrap();
        assert_eq!(two.events.len(), 1);
        assert_eq!(two.skipped, 1);
    }
}
