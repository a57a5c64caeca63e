//! The memory store over fixtures/memory (copied to a temp dir: the index is
//! written inside the memory folder).

#![cfg(feature = "store")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};

use agentctx_agentmem::{Filter, MemoryStore, StoreError};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn memory() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("MEMORY");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/memory"),
        &root,
    );
    (dir, root)
}

fn opened(root: &Path) -> MemoryStore {
    let mut store = MemoryStore::open(root).unwrap();
    store.reconcile().unwrap();
    store
}

fn completions(records: impl IntoIterator<Item = String>) -> Vec<String> {
    records.into_iter().collect()
}

#[test]
fn reconcile_indexes_every_capture_and_lists_the_unparsable() {
    let (_d, root) = memory();
    let mut store = MemoryStore::open(&root).unwrap();
    let report = store.reconcile().unwrap();
    assert_eq!(report.added, 7);
    assert_eq!(report.unparsable.len(), 1);
    assert!(
        report.unparsable[0].0.ends_with("broken.md")
            && report.unparsable[0].1.contains("frontmatter")
    );
    let again = store.reconcile().unwrap();
    assert_eq!((again.added, again.updated, again.removed), (0, 0, 0));
}

#[test]
fn list_is_newest_first_and_every_filter_works() {
    let (_d, root) = memory();
    let store = opened(&root);
    let all = store.list(&Filter::default()).unwrap();
    assert_eq!(all.len(), 7);
    assert_eq!(all[0].completion, "Notes on caching");
    assert!(all.windows(2).all(|w| w[0].time >= w[1].time));
    let list = |f: Filter| completions(store.list(&f).unwrap().into_iter().map(|r| r.completion));
    assert_eq!(
        list(Filter {
            categories: vec!["decision".into()],
            ..Filter::default()
        }),
        ["Chose REST with cursor pagination"]
    );
    assert_eq!(
        list(Filter {
            agent: Some("Engineer".into()),
            ..Filter::default()
        }),
        ["Fixed auth race with compare-and-swap"]
    );
    assert_eq!(
        list(Filter {
            source: Some("codex-hook".into()),
            ..Filter::default()
        }),
        ["No known CVEs in the lockfile"]
    );
    assert_eq!(
        list(Filter {
            project: Some("/work/app".into()),
            ..Filter::default()
        })
        .len(),
        3
    );
    assert_eq!(
        list(Filter {
            project: Some("/work".into()),
            ..Filter::default()
        })
        .len(),
        6
    );
    assert_eq!(
        list(Filter {
            since: Some("2026-02-01".into()),
            until: Some("2026-02-28".into()),
            ..Filter::default()
        })
        .len(),
        2
    );
    assert_eq!(
        list(Filter {
            until: Some("2026-01-25".into()),
            ..Filter::default()
        }),
        ["Found the auth race in token refresh"]
    );
    assert_eq!(
        list(Filter {
            limit: 2,
            ..Filter::default()
        })
        .len(),
        2
    );
}

#[test]
fn search_ranks_completion_matches_first_with_snippets() {
    let (_d, root) = memory();
    let store = opened(&root);
    let hits = store.search("auth race", &Filter::default()).unwrap();
    let top: Vec<&str> = hits
        .iter()
        .take(2)
        .map(|h| h.record.completion.as_str())
        .collect();
    assert!(
        top.contains(&"Found the auth race in token refresh")
            && top.contains(&"Fixed auth race with compare-and-swap"),
        "{top:?}"
    );
    assert!(hits.iter().all(|h| h.snippet.contains('[')), "{hits:?}");
    let filtered = store
        .search("auth category:implementation", &Filter::default())
        .unwrap();
    assert_eq!(filtered.len(), 1);
    let phrase = store
        .search("\"cursor pagination\"", &Filter::default())
        .unwrap();
    assert_eq!(phrase[0].record.category, "DECISION");
    let prefix = store.search("pagin*", &Filter::default()).unwrap();
    assert_eq!(prefix.len(), 1);
    let japanese = store.search("認証*", &Filter::default()).unwrap();
    assert_eq!(japanese[0].record.project, "/work/jp");
    assert!(
        store.search("auth-flow", &Filter::default()).is_ok(),
        "punctuation is not an operator"
    );
}

#[test]
fn a_query_that_cannot_be_parsed_is_an_error() {
    let (_d, root) = memory();
    let store = opened(&root);
    assert!(matches!(
        store.search("\"unclosed", &Filter::default()),
        Err(StoreError::Query { .. })
    ));
}

#[test]
fn reconciliation_after_hand_edits() {
    let (_d, root) = memory();
    let mut store = opened(&root);
    let added =
        root.join("DESIGN/2026-02/2026-02-11-090000_AGENT-designer_DESIGN_added-by-hand.md");
    std::fs::write(&added, "---\ncapture_type: DESIGN\nexecutor: designer\nagent_completion: Added by hand\n---\n\n## Agent Output\n\nzebra stripes\n").unwrap();
    let edited = std::fs::read_dir(root.join("DECISION/2026-02"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&edited)
        .unwrap()
        .replace("opaque cursors", "opaque cursors and a flamingo");
    std::fs::write(&edited, text).unwrap();
    let gone = std::fs::read_dir(root.join("SECURITY/2026-03"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::remove_file(gone).unwrap();
    let report = store.reconcile().unwrap();
    assert_eq!((report.added, report.updated, report.removed), (1, 1, 1));
    assert_eq!(store.search("zebra", &Filter::default()).unwrap().len(), 1);
    assert_eq!(
        store.search("flamingo", &Filter::default()).unwrap().len(),
        1
    );
    assert!(
        store
            .search("lockfile", &Filter::default())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_corrupt_index_is_rebuilt() {
    let (_d, root) = memory();
    drop(opened(&root));
    std::fs::write(
        root.join(".agentmem/index.sqlite"),
        b"this is not a database at all, not even close",
    )
    .unwrap();
    let store = opened(&root);
    assert_eq!(store.list(&Filter::default()).unwrap().len(), 7);
}

#[test]
fn find_by_path_name_or_unique_prefix() {
    let (_d, root) = memory();
    let store = opened(&root);
    assert_eq!(store.find("2026-02-03").unwrap().category, "DECISION");
    assert!(
        matches!(store.find("2026-0"), Err(StoreError::Ambiguous { matches, .. }) if matches.len() == 2)
    );
    assert!(matches!(
        store.find("nope"),
        Err(StoreError::NotFound { .. })
    ));
}

#[test]
fn a_capture_lands_while_searches_run() {
    let (_d, root) = memory();
    drop(opened(&root));
    let reader_root = root.clone();
    let reader = std::thread::spawn(move || {
        let store = MemoryStore::open(&reader_root).unwrap();
        for _ in 0..200 {
            store.search("auth", &Filter::default()).unwrap();
        }
    });
    let mut writer = MemoryStore::open(&root).unwrap();
    for i in 0..20 {
        let path = root.join(format!(
            "RESEARCH/2026-03/2026-03-10-1000{i:02}_AGENT-x_RESEARCH_run-{i}.md"
        ));
        std::fs::write(&path, format!("---\ncapture_type: RESEARCH\nexecutor: x\nagent_completion: run {i}\n---\n\n## Agent Output\n\nparallel write {i}\n")).unwrap();
        writer.index_file(&path).unwrap();
    }
    reader.join().unwrap();
    assert_eq!(
        writer.search("parallel", &Filter::default()).unwrap().len(),
        20
    );
}

#[test]
fn stats_count_categories_agents_and_months() {
    let (_d, root) = memory();
    let store = opened(&root);
    let stats = store.stats().unwrap();
    assert_eq!(stats.total, 7);
    assert_eq!(stats.by_category["RESEARCH"], 3);
    assert_eq!(stats.by_month["2026-03"], 3);
    assert!(stats.index_bytes > 0 && stats.captures_bytes > 0);
}

#[test]
fn directory_level_reconcile_sees_added_and_removed_files() {
    let (_d, root) = memory();
    let mut store = opened(&root);
    assert_eq!(
        store.reconcile_by_directory().unwrap(),
        Default::default(),
        "nothing changed"
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    let added = root.join("DESIGN/2026-02/2026-02-12-090000_AGENT-designer_DESIGN_added-later.md");
    std::fs::write(&added, "---\ncapture_type: DESIGN\nexecutor: designer\nagent_completion: Added later\n---\n\n## Agent Output\n\nokapi\n").unwrap();
    let gone = std::fs::read_dir(root.join("SECURITY/2026-03"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::remove_file(gone).unwrap();
    let report = store.reconcile_by_directory().unwrap();
    assert_eq!((report.added, report.removed), (1, 1));
    assert_eq!(store.search("okapi", &Filter::default()).unwrap().len(), 1);
    // A whole directory removed takes its captures with it.
    std::fs::remove_dir_all(root.join("DECISION")).unwrap();
    assert_eq!(store.reconcile_by_directory().unwrap().removed, 1);
}

/// Writes a capture through the capture path, as a hook would.
fn captured_text(root: &Path, id: &str, message: &str) {
    let mut hook = agentctx_types::HookInput {
        session_id: Some("s".into()),
        hook_event_name: Some("SubagentStop".into()),
        agent_id: Some(id.into()),
        agent_type: Some("researcher".into()),
        agent_transcript_path: Some("/tmp/a.jsonl".into()),
        ..Default::default()
    };
    hook.last_assistant_message = Some(message.into());
    let settings = agentctx_agentmem::CaptureSettings {
        root: root.to_path_buf(),
        codex_sessions: root.join("none"),
        retries: 0,
        retry_delay: std::time::Duration::ZERO,
        redact: true,
        now: "2026-01-25T09:12:00+09:00[Asia/Tokyo]".parse().unwrap(),
        identity: Default::default(),
    };
    let outcome =
        agentctx_agentmem::capture(&agentctx_agentmem::Trigger::hook(hook), &settings, None)
            .unwrap();
    assert!(
        matches!(outcome, agentctx_agentmem::CaptureOutcome::Captured { .. }),
        "{outcome:?}"
    );
}

#[test]
fn japanese_chinese_and_korean_are_found_by_substring() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("MEMORY");
    captured_text(
        &root,
        "ja",
        "🗣️ Researcher: 認証フローを調査しました\n\nトークンの更新に競合があります。",
    );
    captured_text(&root, "ko", "🗣️ Researcher: 인증을 확인했습니다");
    captured_text(&root, "en", "🗣️ Researcher: Mapped the auth flow");
    let store = opened(&root);
    let found = |q: &str| {
        let hits = store.search(q, &Filter::default()).unwrap();
        let mut ids: Vec<String> = hits
            .iter()
            .map(|h| {
                let text = std::fs::read_to_string(&h.record.path).unwrap();
                ["認証フロー", "인증을", "auth flow"]
                    .into_iter()
                    .find(|m| text.contains(m))
                    .unwrap_or("?")
                    .to_owned()
            })
            .collect();
        ids.sort();
        ids
    };
    for query in [
        "フロー",
        "調査",
        "認証",
        "認",
        "認証フロー",
        "更新",
        "競合があり",
    ] {
        assert_eq!(found(query), ["認証フロー"], "{query}");
    }
    // A substring, not a bag of characters.
    assert!(found("フロー調査").is_empty());
    assert!(found("認証 auth").is_empty());
    // Korean with its particle attached, and English, unchanged.
    assert_eq!(found("인증"), ["인증을"]);
    assert_eq!(found("auth"), ["auth flow"]);
    assert_eq!(found("\"auth flow\""), ["auth flow"]);
    // The snippet marks the run that holds the term.
    let hit = &store.search("フロー", &Filter::default()).unwrap()[0];
    assert!(
        hit.snippet.contains("[認証フローを調査しました]"),
        "{}",
        hit.snippet
    );
}

#[test]
fn count_is_the_total_whatever_the_limit() {
    let (_d, root) = memory();
    let store = opened(&root);
    let limited = Filter {
        limit: 2,
        ..Filter::default()
    };
    assert_eq!(store.list(&limited).unwrap().len(), 2);
    assert_eq!(store.count("", &limited).unwrap(), 7);
    let everything = Filter {
        limit: 1000,
        ..Filter::default()
    };
    for query in ["auth", "category:decision", "auth category:implementation"] {
        let hits = store.search(query, &everything).unwrap().len() as u64;
        assert_eq!(store.count(query, &limited).unwrap(), hits, "{query}");
    }
}

#[test]
fn a_folder_that_cannot_hold_its_index_is_indexed_elsewhere() {
    let (dir, root) = memory();
    // `.agentmem` cannot be created (tests may run as root, for whom
    // permissions do not stop a write; a file in its place does).
    std::fs::write(root.join(".agentmem"), "not a folder").unwrap();
    assert!(MemoryStore::open(&root).is_err());
    let cache = dir.path().join("cache");
    let mut store = MemoryStore::open_or_elsewhere(&root, &cache).unwrap();
    assert!(
        store.index_path().starts_with(&cache),
        "{}",
        store.index_path().display()
    );
    assert_eq!(store.reconcile().unwrap().added, 7);
    assert_eq!(store.list(&Filter::default()).unwrap().len(), 7);
    assert!(!store.search("auth", &Filter::default()).unwrap().is_empty());
    // The same folder finds the same index again.
    let again = MemoryStore::open_or_elsewhere(&root, &cache).unwrap();
    assert_eq!(again.index_path(), store.index_path());
    assert_eq!(again.stats().unwrap().total, 7);
}
