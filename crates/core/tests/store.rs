//! Session files: corrupt ones are rebuilt, ids cannot escape their folder,
//! and concurrent updates do not lose each other's work.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::sync::Arc;

use agentctx_core::{SessionStore, StoredState};
use agentctx_types::{SESSION_STATE_VERSION, SessionState};

fn state(n: usize) -> SessionState {
    SessionState {
        version: SESSION_STATE_VERSION,
        cwd: "/r".into(),
        root: "/r".into(),
        markers: vec![format!("m{n}")],
        ..SessionState::default()
    }
}

#[test]
fn missing_state_then_written_state_is_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::at(dir.path().join("nested/s.json"));
    store
        .update(|found| {
            (
                assert!(matches!(found, StoredState::Missing)),
                Some(state(1)),
            )
        })
        .unwrap();
    let back = store.update(|found| (found, None)).unwrap();
    assert!(matches!(back, StoredState::Found(s) if s == state(1)));
}

#[test]
fn corrupt_state_is_reported_and_can_be_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    for junk in [
        &b"{\"version\": 1, \"cwd\": "[..],
        b"\xff\xfe",
        b"{\"version\": 99}",
    ] {
        std::fs::write(&path, junk).unwrap();
        let store = SessionStore::at(&path);
        let seen = store.update(|found| (found, Some(state(2)))).unwrap();
        let StoredState::Corrupt(corrupt) = seen else {
            panic!("expected corrupt")
        };
        assert_eq!(corrupt.path, path);
        assert!(corrupt.to_string().contains("rebuilding"));
        assert!(matches!(
            store.update(|f| (f, None)).unwrap(),
            StoredState::Found(_)
        ));
    }
}

#[test]
fn session_ids_that_are_not_plain_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["", "../x", "a/b", ".hidden", "x\0y", "a b"] {
        assert!(SessionStore::for_id(dir.path(), bad).is_err(), "{bad:?}");
    }
    let ok = SessionStore::for_id(dir.path(), "3f2a-9b_c.1").unwrap();
    assert_eq!(ok.path(), dir.path().join("3f2a-9b_c.1.json"));
}

#[test]
fn a_sub_agent_has_a_file_of_its_own_and_its_id_is_checked_too() {
    let dir = tempfile::tempdir().unwrap();
    let main = SessionStore::for_agent(dir.path(), "s1", None).unwrap();
    let sub = SessionStore::for_agent(dir.path(), "s1", Some("a360e772d5cb3b061")).unwrap();
    assert_eq!(main.path(), dir.path().join("s1.json"));
    assert_eq!(sub.path(), dir.path().join("s1+a360e772d5cb3b061.json"));
    for bad in ["", "../x", "a+b", ".x"] {
        assert!(
            SessionStore::for_agent(dir.path(), "s1", Some(bad)).is_err(),
            "{bad:?}"
        );
    }
}

#[test]
fn concurrent_updates_are_serialised() {
    let dir = tempfile::tempdir().unwrap();
    let path = Arc::new(dir.path().join("s.json"));
    let threads: Vec<_> = (0..16)
        .map(|_| {
            let path = Arc::clone(&path);
            std::thread::spawn(move || {
                let store = SessionStore::at(path.as_path());
                store
                    .update(|found| {
                        let mut s = match found {
                            StoredState::Found(s) => s,
                            _ => state(0),
                        };
                        s.markers.push("x".into());
                        ((), Some(s))
                    })
                    .unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let StoredState::Found(s) = SessionStore::at(path.as_path())
        .update(|f| (f, None))
        .unwrap()
    else {
        panic!("no state")
    };
    assert_eq!(
        s.markers.len(),
        17,
        "every update must see the previous one"
    );
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn resolve_in_store_starts_rebuilds_and_continues() {
    let dir = tempfile::tempdir().unwrap();
    let repo = std::fs::canonicalize(dir.path()).unwrap().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::write(repo.join(".git/HEAD"), "ref: x\n").unwrap();
    std::fs::create_dir_all(repo.join("api")).unwrap();
    std::fs::write(repo.join("api/AGENTS.md"), "api\n").unwrap();
    let path = dir.path().join("s.json");
    std::fs::write(&path, "{ torn").unwrap();
    let store = SessionStore::at(&path);
    let config = agentctx_types::AgentsConfig::default();
    let target = [repo.join("api/x.rs")];
    let first = agentctx_core::resolve_in_store(&store, &repo, &config, None, &target).unwrap();
    assert!(first.rebuilt.is_some() && first.fresh_warnings.is_some());
    assert_eq!(first.found.files.len(), 1);
    let second = agentctx_core::resolve_in_store(&store, &repo, &config, None, &target).unwrap();
    assert!(second.rebuilt.is_none() && second.fresh_warnings.is_none());
    assert!(
        second.found.files.is_empty(),
        "the stored session already has it"
    );
}
