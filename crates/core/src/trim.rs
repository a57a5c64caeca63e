//! Trimming a tool output to a byte budget without losing its trailing reminders.

use crate::reminder::render_trimmed;

/// A trimmed tool output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trimmed {
    /// The output to hand on.
    pub text: String,
    /// Bytes removed from the head part (0: nothing was cut).
    pub removed_bytes: usize,
    /// Lines those bytes touched (a line cut in the middle counts).
    pub removed_lines: usize,
    /// What was cut, for [`OutputStore::keep`](crate::OutputStore::keep)
    /// (empty when nothing was).
    pub removed: String,
    /// The id the reminder names for the cut part (12 hex digits of its
    /// SHA-256: the same output gives the same id), when one is named.
    pub id: Option<String>,
}

/// Keeps the head of `output` within `max_bytes`, cut after the last whole
/// line that fits (a first line longer than the budget is cut on a UTF-8
/// boundary), always keeps the `<system-reminder ...>...</system-reminder>`
/// blocks the output ends with, and appends a `tool.output.trimmed`
/// reminder when anything was removed. The kept reminders do not count
/// against the budget.
///
/// ```
/// let out = agentctx_core::trim("one\ntwo\nthree\n<system-reminder type=\"x\">\nkeep\n</system-reminder>\n", 9);
/// assert!(out.text.starts_with("one\ntwo\n<system-reminder type=\"x\">"));
/// assert_eq!((out.removed_bytes, out.removed_lines), (6, 1));
/// assert!(out.text.contains("type=\"tool.output.trimmed\""));
/// assert_eq!(out.id, None);
/// ```
pub fn trim(output: &str, max_bytes: usize) -> Trimmed {
    cut(output, max_bytes, false)
}

/// [`trim`], and the reminder names an id under which the cut part can be
/// read (`agentctx output get ID`): the caller keeps [`Trimmed::removed`]
/// under [`Trimmed::id`] ([`OutputStore`](crate::OutputStore)).
pub fn trim_keeping(output: &str, max_bytes: usize) -> Trimmed {
    cut(output, max_bytes, true)
}

fn cut(output: &str, max_bytes: usize, keeping: bool) -> Trimmed {
    let tail_start = trailing_reminders_start(output);
    let (head, tail) = output.split_at(tail_start);
    if head.len() <= max_bytes {
        return Trimmed {
            text: output.to_owned(),
            removed_bytes: 0,
            removed_lines: 0,
            removed: String::new(),
            id: None,
        };
    }
    // After the last newline that fits (a line of `i + 1` bytes ends at
    // `i`); with none, inside the first line.
    let cut = match head.as_bytes()[..max_bytes]
        .iter()
        .rposition(|b| *b == b'\n')
    {
        Some(newline) => newline + 1,
        None => {
            let mut cut = max_bytes;
            while !head.is_char_boundary(cut) {
                cut -= 1;
            }
            cut
        }
    };
    let removed = &head[cut..];
    let removed_lines = removed.matches('\n').count() + usize::from(!removed.ends_with('\n'));
    let id = keeping.then(|| output_id(removed));
    let mut text = String::with_capacity(cut + tail.len() + 200);
    text.push_str(&head[..cut]);
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(tail);
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&render_trimmed(
        removed.len(),
        removed_lines,
        max_bytes,
        id.as_deref(),
    ));
    Trimmed {
        text,
        removed_bytes: removed.len(),
        removed_lines,
        removed: removed.to_owned(),
        id,
    }
}

/// 12 hex digits of `text`'s SHA-256.
pub(crate) fn output_id(text: &str) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(text.as_bytes())[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

const OPEN: &str = "<system-reminder";
const CLOSE: &str = "</system-reminder>";

/// Where the run of reminder blocks that ends `output` starts (`output.len()` if none).
fn trailing_reminders_start(output: &str) -> usize {
    let mut end = output.trim_end().len();
    let mut start = output.len();
    loop {
        let rest = &output[..end];
        if !rest.ends_with(CLOSE) {
            return start;
        }
        let Some(open) = rest.rfind(OPEN) else {
            return start;
        };
        // The opening tag must be a tag (`<system-reminder>` or `<system-reminder ...>`).
        let after = &rest[open + OPEN.len()..];
        if !(after.starts_with('>') || after.starts_with(' ')) {
            return start;
        }
        start = open;
        end = output[..open].trim_end().len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_within_budget_is_unchanged() {
        let t = trim("short\n", 100);
        assert_eq!(t.text, "short\n");
        assert_eq!(t.removed_bytes, 0);
    }

    #[test]
    fn cut_never_splits_a_character() {
        let t = trim("ééé", 3);
        assert!(t.text.starts_with("é\n<system-reminder"), "{}", t.text);
        assert_eq!(t.removed_bytes, 4);
    }

    #[test]
    fn the_cut_falls_after_the_last_whole_line_that_fits() {
        let t = trim("aaa\nbbb\nccc\n", 8);
        assert!(
            t.text.starts_with("aaa\nbbb\n<system-reminder"),
            "{}",
            t.text
        );
        assert_eq!((t.removed.as_str(), t.removed_lines), ("ccc\n", 1));
        let t = trim("aaa\nbbb\nccc\n", 7);
        assert!(t.text.starts_with("aaa\n<system-reminder"), "{}", t.text);
        // A first line longer than the budget is cut inside it.
        let t = trim("abcdefgh\nij\n", 4);
        assert!(t.text.starts_with("abcd\n<system-reminder"), "{}", t.text);
        assert_eq!(t.removed, "efgh\nij\n");
    }

    #[test]
    fn a_kept_cut_is_named_by_its_digest() {
        let t = trim_keeping("aaa\nbbb\n", 4);
        let id = t.id.clone().unwrap();
        assert_eq!(id.len(), 12);
        assert_eq!(
            trim_keeping("aaa\nbbb\n", 4).id,
            Some(id.clone()),
            "byte-stable"
        );
        assert!(
            t.text.contains(&format!("agentctx output get {id}")),
            "{}",
            t.text
        );
        assert_eq!(trim("aaa\nbbb\n", 4).id, None);
    }

    #[test]
    fn every_trailing_reminder_is_kept_even_over_budget() {
        let out = "line1\nline2\nline3\n<system-reminder type=\"a\">\nA\n</system-reminder>\n\n<system-reminder type=\"b\">\nB\n</system-reminder>\n";
        let t = trim(out, 6);
        assert!(t.text.starts_with("line1\n<system-reminder type=\"a\">\nA\n</system-reminder>\n\n<system-reminder type=\"b\">"), "{}", t.text);
        assert_eq!(t.removed_lines, 2);
        assert_eq!(t.removed_bytes, 12);
    }

    #[test]
    fn a_reminder_in_the_middle_is_ordinary_text() {
        let out = "<system-reminder type=\"a\">\nA\n</system-reminder>\nthen lots of output";
        let t = trim(out, 10);
        assert!(t.text.starts_with("<system-re\n"), "{}", t.text);
    }
}
