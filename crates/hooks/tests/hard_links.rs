//! Another name of an excluded file (issue 35, class 7): in strict mode a
//! Grep over a folder holding a hard link to an excluded file was allowed,
//! and in default mode a Read of the link itself too. The file tools run
//! outside the sandbox: they are judged against the names the sandbox's
//! walk masks. Payloads: Claude Code 2.1.330's recorded PreToolUse.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use common::{Project, RULES};
use serde_json::json;

fn project(strict: bool) -> Project {
    let p = Project::new(RULES);
    let p = if strict { p.strict() } else { p };
    p.file("docs/a.md", "readme");
    std::fs::hard_link(p.root.join("secrets/key"), p.root.join("docs/notes.txt")).unwrap();
    p
}

#[test]
fn a_hard_link_to_an_excluded_file_is_denied_to_read_and_to_search_in_both_modes() {
    for strict in [false, true] {
        let p = project(strict);
        let read = p.claude("Read", json!({"file_path": p.root.join("docs/notes.txt")}));
        let reason = read.unwrap_or_else(|| panic!("strict {strict}: the link's Read was allowed"));
        assert!(reason.contains("another name (a hard link)"), "{reason}");
        for input in [
            json!({"pattern": "SECRET", "path": p.root.join("docs")}),
            json!({"pattern": "SECRET", "path": p.root.join("docs"), "glob": "*.txt"}),
        ] {
            let grep = p.claude("Grep", input.clone());
            assert!(
                grep.is_some_and(|r| r.contains("hard link")),
                "strict {strict}: {input}"
            );
        }
        // Beside them: the folder without the link, and its other file.
        assert_eq!(
            p.claude("Read", json!({"file_path": p.root.join("docs/a.md")})),
            None,
            "strict {strict}"
        );
        std::fs::create_dir_all(p.root.join("plain")).unwrap();
        std::fs::write(p.root.join("plain/b.md"), "b").unwrap();
        assert_eq!(
            p.claude(
                "Grep",
                json!({"pattern": "b", "path": p.root.join("plain")})
            ),
            None,
            "strict {strict}"
        );
    }
}

#[test]
fn a_hard_link_outside_the_project_to_an_excluded_file_is_denied() {
    let p = project(false);
    let outside = p.home.join("copy.txt");
    std::fs::hard_link(p.root.join("secrets/key"), &outside).unwrap();
    let reason = p.claude("Read", json!({"file_path": outside})).unwrap();
    assert!(reason.contains("hard link"), "{reason}");
    // A file with two names, neither excluded, is read in default mode.
    std::fs::write(p.root.join("docs/c.md"), "c").unwrap();
    std::fs::hard_link(p.root.join("docs/c.md"), p.root.join("docs/d.md")).unwrap();
    assert_eq!(
        p.claude("Read", json!({"file_path": p.root.join("docs/d.md")})),
        None
    );
}
