//! The pages, each an escaping template filled from the store.

use std::collections::BTreeMap;
use std::path::Path;

use agentctx_agentmem::{CaptureSource, Filter, StoreError};
use agentctx_types::CaptureEvent;
use askama::Template;

use crate::Page;

/// Categories offered in the list's filter.
const CATEGORIES: [&str; 5] = [
    "RESEARCH",
    "DECISION",
    "IMPLEMENTATION",
    "DESIGN",
    "SECURITY",
];

/// Rows a list page shows; the count says how many matched.
const LIST_LIMIT: usize = 200;

/// Events a page shows, newest first.
const EVENTS_LIMIT: usize = 500;

#[derive(Template)]
#[template(path = "message.html")]
struct MessagePage<'a> {
    title: &'a str,
    message: &'a str,
}

struct Field {
    name: &'static str,
    label: &'static str,
    value: String,
}

struct CategoryOption {
    name: &'static str,
    selected: bool,
}

struct Row {
    time: String,
    category: String,
    agent: String,
    /// Already form-encoded: the template must not escape it again.
    id_query: String,
    label: String,
    snippet: String,
}

#[derive(Template)]
#[template(path = "list.html")]
struct ListPage {
    title: &'static str,
    fields: Vec<Field>,
    categories: Vec<CategoryOption>,
    shown: String,
    rows: Vec<Row>,
}

#[derive(Template)]
#[template(path = "capture.html")]
struct CapturePage {
    title: String,
    time: String,
    agent: String,
    source: String,
    path: String,
    /// Rendered Markdown whose raw HTML was turned into text.
    content: String,
}

#[derive(Template)]
#[template(path = "events.html")]
struct EventsPage {
    title: &'static str,
    path: String,
    events: Vec<CaptureEvent>,
    skipped: usize,
}

/// A page that says one thing.
pub(crate) fn message(status: u16, title: &str, message: &str) -> Page {
    page(status, &MessagePage { title, message })
}

fn page(status: u16, template: &dyn askama::DynTemplate) -> Page {
    match template.dyn_render() {
        Ok(html) => Page { status, html },
        // Rendering writes to a String; a failure is a template bug.
        Err(error) => Page {
            status: 500,
            html: format!("template error: {error}").replace('<', "&lt;"),
        },
    }
}

/// The page at `target` (path and query) of a GET.
pub(crate) fn route(store: &CaptureSource, events: Option<&Path>, target: &str) -> Page {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let params: BTreeMap<String, String> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    match path {
        "/" => list_page(store, &params),
        "/capture" => match params.get("id").filter(|id| !id.is_empty()) {
            Some(id) => capture_page(store, id),
            None => message(
                400,
                "No capture named",
                "The address needs ?id=<capture id>.",
            ),
        },
        "/events" => events_page(events),
        _ => message(404, "Not found", "There is no such page here."),
    }
}

/// A store error as a page: a capture that is not there is a 404, an id
/// that names several a 400, a store that cannot be read a 500.
fn store_error(error: &StoreError) -> Page {
    let status = match error {
        StoreError::NotFound { .. } => 404,
        StoreError::Ambiguous { .. } | StoreError::Query { .. } => 400,
        _ => 500,
    };
    message(status, "Cannot show this", &error.to_string())
}

fn list_page(store: &CaptureSource, params: &BTreeMap<String, String>) -> Page {
    let get = |k: &str| params.get(k).filter(|v| !v.trim().is_empty()).cloned();
    let filter = Filter {
        categories: get("category").into_iter().collect(),
        agent: get("agent"),
        source: get("source"),
        project: get("project"),
        since: get("since"),
        until: get("until"),
        limit: LIST_LIMIT,
        scope: None,
    };
    let query = get("q").unwrap_or_default();
    let found = store.open().and_then(|mut store| {
        let total = store.count(&query, &filter)?;
        let rows = if query.trim().is_empty() {
            store
                .list(&filter)?
                .into_iter()
                .map(|r| (r, String::new()))
                .collect::<Vec<_>>()
        } else {
            store
                .search(&query, &filter)?
                .into_iter()
                .map(|h| (h.record, h.snippet))
                .collect()
        };
        Ok((total, rows))
    });
    let (total, rows) = match found {
        Ok(found) => found,
        Err(error) => return store_error(&error),
    };
    let value = |name: &str| params.get(name).cloned().unwrap_or_default();
    let fields = [
        ("q", "search: words, \"phrases\", prefix*"),
        ("category", ""),
        ("agent", "agent"),
        ("source", "source"),
        ("project", "project dir"),
        ("since", "since YYYY-MM-DD"),
        ("until", "until"),
    ]
    .into_iter()
    .map(|(name, label)| Field {
        name,
        label,
        value: value(name),
    })
    .collect();
    let chosen = get("category").unwrap_or_default();
    let categories = CATEGORIES
        .into_iter()
        .map(|name| CategoryOption {
            name,
            selected: chosen.eq_ignore_ascii_case(name),
        })
        .collect();
    let shown = if usize::try_from(total).is_ok_and(|t| t > rows.len()) {
        format!("{total} captures, the first {} shown", rows.len())
    } else {
        format!("{total} captures")
    };
    let rows = rows
        .into_iter()
        .map(|(record, snippet)| Row {
            time: record.time.chars().take(16).collect(),
            id_query: form_urlencoded::byte_serialize(record.id.as_bytes()).collect(),
            label: if record.completion.is_empty() {
                record.id.clone()
            } else {
                record.completion.clone()
            },
            category: record.category,
            agent: record.agent,
            snippet,
        })
        .collect();
    page(
        200,
        &ListPage {
            title: "Captures",
            fields,
            categories,
            shown,
            rows,
        },
    )
}

fn capture_page(store: &CaptureSource, id: &str) -> Page {
    let found = store.open().and_then(|mut store| {
        let record = store.find(id)?;
        let text = store.document(&record);
        Ok((record, text))
    });
    let (record, text) = match found {
        Ok(found) => found,
        Err(error) => return store_error(&error),
    };
    let text = match text {
        Ok(text) => text,
        // Indexed a moment ago, gone or unreadable now.
        Err(error) => {
            let status = match &error {
                StoreError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                    404
                }
                StoreError::NotFound { .. } => 404,
                _ => 500,
            };
            return message(status, "Cannot show this", &error.to_string());
        }
    };
    let body = agentctx_agentmem::capture_markdown(&text);
    page(
        200,
        &CapturePage {
            title: record.completion.clone(),
            time: record.time,
            agent: record.agent,
            source: record.source,
            path: record.path.display().to_string(),
            content: markdown_to_html(body),
        },
    )
}

fn events_page(events: Option<&Path>) -> Page {
    let Some(path) = events else {
        return message(
            200,
            "Events",
            "No events file: set AGENTMEM_EVENTS_PATH (agentmem.events_path).",
        );
    };
    let recent = match agentctx_agentmem::recent_events(path, EVENTS_LIMIT) {
        Ok(recent) => recent,
        Err(error) => {
            return message(
                500,
                "Cannot show this",
                &format!("{}: {error}", path.display()),
            );
        }
    };
    page(
        200,
        &EventsPage {
            title: "Events",
            path: path.display().to_string(),
            events: recent.events,
            skipped: recent.skipped,
        },
    )
}

/// Markdown to HTML; raw HTML in the capture is shown as text, never run:
/// captures hold whatever agents wrote.
pub(crate) fn markdown_to_html(text: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, html};
    let events = Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH).map(
        |event| match event {
            Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
            other => other,
        },
    );
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_in_a_capture_is_text() {
        let html = markdown_to_html(
            "Payload: <script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n",
        );
        assert!(
            !html.contains("<script") && !html.contains("<img"),
            "{html}"
        );
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[test]
    fn templates_escape_what_they_are_given() {
        let page = message(200, "<b>t</b>", "a & \"b\"");
        assert!(
            page.html.contains("&#60;b&#62;t&#60;/b&#62;"),
            "{}",
            page.html
        );
        assert!(page.html.contains("a &#38; &#34;b&#34;"), "{}", page.html);
    }

    #[test]
    fn an_unknown_page_is_404_and_a_missing_id_400() {
        let store = CaptureSource::Local(agentctx_agentmem::StoreLocation {
            root: std::path::PathBuf::from("/nonexistent/agentctx-viewer-test"),
            index_fallback: None,
        });
        assert_eq!(route(&store, None, "/nope").status, 404);
        assert_eq!(route(&store, None, "/capture").status, 400);
        assert_eq!(route(&store, None, "/capture?id=").status, 400);
        assert_eq!(route(&store, None, "/events").status, 200);
    }
}
