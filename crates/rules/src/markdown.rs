//! `.coding-agent-rules.md` and `.github/AGENTS.md`: the whole document is
//! the prompt extension; sections named `Allowed Tools`, `Denied Tools`,
//! `File Patterns`, `Network`, `Commands` and `Presets` also configure.

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

use crate::doc::{Entry, NetworkDoc, RuleDoc};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    AllowedTools,
    DeniedTools,
    FilePatterns,
    Include,
    Exclude,
    Network,
    Allow,
    Deny,
    Commands,
    CommandDeny,
    CommandAsk,
    Presets,
    Other,
}

fn level_number(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// `parent`: the section with subsections (`File Patterns`, `Network`,
/// `Commands`) the heading is under, if any.
fn classify(heading: &str, parent: Option<Section>) -> Section {
    match (canonical(heading).as_str(), parent) {
        ("allowedtool", _) => Section::AllowedTools,
        ("deniedtool", _) => Section::DeniedTools,
        ("filepattern", _) => Section::FilePatterns,
        ("include", Some(Section::FilePatterns)) => Section::Include,
        ("exclude", Some(Section::FilePatterns)) => Section::Exclude,
        ("network", _) => Section::Network,
        ("allow", Some(Section::Network)) => Section::Allow,
        ("deny", Some(Section::Network)) => Section::Deny,
        ("command", _) => Section::Commands,
        ("deny", Some(Section::Commands)) => Section::CommandDeny,
        ("ask", Some(Section::Commands)) => Section::CommandAsk,
        ("preset", _) => Section::Presets,
        _ => Section::Other,
    }
}

/// A heading reduced to what tells sections apart: letters and digits,
/// lowercased (Unicode), a plural `s` dropped. `Denied Tools`, `Denied
/// Tools:`, `Denied Tool`, `DeniedTools` and `denied  tools` are one name,
/// so a near miss is read as meant (and lint says so) instead of being
/// silently taken as prose.
fn canonical(heading: &str) -> String {
    let letters: String = heading
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    letters
        .strip_suffix('s')
        .map(str::to_owned)
        .unwrap_or(letters)
}

/// The exact spelling of each section heading.
fn spelling(section: Section) -> Option<&'static str> {
    match section {
        Section::AllowedTools => Some("Allowed Tools"),
        Section::DeniedTools => Some("Denied Tools"),
        Section::FilePatterns => Some("File Patterns"),
        Section::Include => Some("Include"),
        Section::Exclude => Some("Exclude"),
        Section::Network => Some("Network"),
        Section::Allow => Some("Allow"),
        Section::Deny | Section::CommandDeny => Some("Deny"),
        Section::Commands => Some("Commands"),
        Section::CommandAsk => Some("Ask"),
        Section::Presets => Some("Presets"),
        Section::Other => None,
    }
}

/// A list item's own text (without nested lists), in pieces, so that a code
/// span can be told apart from the words around it.
#[derive(Default)]
struct ItemText {
    pieces: Vec<(bool, String)>,
    line: u64,
}

impl ItemText {
    /// `include:`/`exclude:` prefix (if any) and the entry: the first code
    /// span after the prefix when there is one (so `` `gh/x` — why `` gives
    /// `gh/x`), else the text.
    fn entry(&self) -> (Option<Section>, String) {
        let full: String = self.pieces.iter().map(|(_, t)| t.as_str()).collect();
        let trimmed = full.trim_start();
        let lower = trimmed.to_ascii_lowercase();
        let (prefix, skip) = if lower.starts_with("include:") {
            (
                Some(Section::Include),
                full.len() - trimmed.len() + "include:".len(),
            )
        } else if lower.starts_with("exclude:") {
            (
                Some(Section::Exclude),
                full.len() - trimmed.len() + "exclude:".len(),
            )
        } else {
            (None, 0)
        };
        let mut offset = 0;
        for (is_code, text) in &self.pieces {
            if *is_code && offset >= skip {
                return (prefix, text.trim().to_owned());
            }
            offset += text.len();
        }
        (prefix, full[skip.min(full.len())..].trim().to_owned())
    }
}

/// Parses a Markdown rule file. Markdown cannot fail to parse; a section
/// heading spelled unlike its documented form (`## Denied Tools:`) is read
/// as that section, and reported in the returned notes (line, message).
pub fn parse(text: &str) -> (RuleDoc, Vec<(u64, String)>) {
    let mut notes = Vec::new();
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_at = |offset: usize| -> u64 {
        let index = line_starts.partition_point(|&start| start <= offset);
        u64::try_from(index).unwrap_or(u64::MAX)
    };

    let mut doc = RuleDoc {
        system_prompt_extension: Some(text.trim_end().to_owned()).filter(|t| !t.trim().is_empty()),
        ..RuleDoc::default()
    };
    // Open headings: (level, section).
    let mut headings: Vec<(u8, Section)> = Vec::new();
    let mut heading_text: Option<(u8, String)> = None;
    let mut heading_line = 0;
    // Items being read, innermost last; `None` once a nested list started.
    let mut items: Vec<Option<ItemText>> = Vec::new();

    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                heading_text = Some((level_number(level), String::new()));
                heading_line = line_at(range.start);
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, name)) = heading_text.take() {
                    headings.retain(|(l, _)| *l < level);
                    let parent = headings.iter().rev().map(|(_, s)| *s).find(|s| {
                        matches!(
                            s,
                            Section::FilePatterns | Section::Network | Section::Commands
                        )
                    });
                    let section = classify(&name, parent);
                    if let Some(exact) = spelling(section)
                        && name
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ")
                            .to_lowercase()
                            != exact.to_lowercase()
                    {
                        notes.push((
                            heading_line,
                            format!(
                                "heading `{}` is read as `{exact}`; write it so",
                                name.trim()
                            ),
                        ));
                    }
                    // The heading alone makes the list present: an `Allowed
                    // Tools` section with no items allows no tool, as an
                    // empty YAML list does.
                    match section {
                        Section::AllowedTools => {
                            doc.allowed_tools.get_or_insert_with(Vec::new);
                        }
                        Section::Include => {
                            doc.include.get_or_insert_with(Vec::new);
                        }
                        // A `Network` section confines the network, even
                        // with nothing in it (nothing allowed).
                        Section::Network => {
                            doc.network.get_or_insert_with(NetworkDoc::default);
                        }
                        _ => {}
                    }
                    headings.push((level, section));
                }
            }
            Event::Start(Tag::Item) => items.push(Some(ItemText {
                line: line_at(range.start),
                ..ItemText::default()
            })),
            Event::Start(Tag::List(_)) => {
                // A nested list ends the text of the item that holds it.
                if let Some(open) = items.last_mut()
                    && let Some(item) = open.take()
                {
                    add_entry(&mut doc, &headings, &item);
                }
            }
            Event::End(TagEnd::Item) => {
                if let Some(Some(item)) = items.pop() {
                    add_entry(&mut doc, &headings, &item);
                }
            }
            Event::Text(t) => push_text(&mut heading_text, &mut items, false, &t),
            Event::Code(t) => push_text(&mut heading_text, &mut items, true, &t),
            Event::SoftBreak | Event::HardBreak => {
                if let Some(Some(item)) = items.last_mut() {
                    item.pieces.push((false, " ".to_owned()));
                }
            }
            _ => {}
        }
    }
    (doc, notes)
}

fn push_text(
    heading: &mut Option<(u8, String)>,
    items: &mut [Option<ItemText>],
    is_code: bool,
    text: &str,
) {
    if let Some((_, name)) = heading.as_mut() {
        name.push_str(text);
    } else if let Some(Some(item)) = items.last_mut() {
        item.pieces.push((is_code, text.to_owned()));
    }
}

fn add_entry(doc: &mut RuleDoc, headings: &[(u8, Section)], item: &ItemText) {
    let section = headings
        .iter()
        .rev()
        .map(|(_, s)| *s)
        .find(|s| *s != Section::Other);
    let (prefix, text) = item.entry();
    if text.is_empty() {
        return;
    }
    let entry = Entry::new(&text, Some(item.line));
    match (section, prefix) {
        (Some(Section::AllowedTools), _) => {
            doc.allowed_tools.get_or_insert_with(Vec::new).push(entry)
        }
        (Some(Section::DeniedTools), _) => doc.denied_tools.push(entry),
        (
            Some(Section::FilePatterns | Section::Include | Section::Exclude),
            Some(Section::Include),
        )
        | (Some(Section::Include), None) => doc.include.get_or_insert_with(Vec::new).push(entry),
        (
            Some(Section::FilePatterns | Section::Include | Section::Exclude),
            Some(Section::Exclude),
        )
        | (Some(Section::Exclude), None) => doc.exclude.push(entry),
        // Under `Network` itself, an entry is a host allowed.
        (Some(Section::Network | Section::Allow), _) => doc
            .network
            .get_or_insert_with(NetworkDoc::default)
            .allow
            .push(entry),
        (Some(Section::Deny), _) => doc
            .network
            .get_or_insert_with(NetworkDoc::default)
            .deny
            .push(entry),
        // Under `Commands` itself, an entry is a command denied.
        (Some(Section::Commands | Section::CommandDeny), _) => doc.commands_deny.push(entry),
        (Some(Section::CommandAsk), _) => doc.commands_ask.push(entry),
        (Some(Section::Presets), _) => doc.presets.push(entry),
        _ => {}
    }
}
