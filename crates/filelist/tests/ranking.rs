//! The ranking every cut uses, the budget as a target, and names that
//! cannot disguise themselves (issue 16's cases).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::fs;
use std::path::Path;

use agentctx_filelist::{FileListFormat, FileListOptions, FileListReport, Tokenizer, list_local};

fn write(root: &Path, files: &[String]) {
    for name in files {
        let path = root.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "x").unwrap();
    }
}

fn list(root: &Path, set: impl FnOnce(&mut FileListOptions)) -> FileListReport {
    let mut options = FileListOptions {
        threads: 1,
        count_tokens: true,
        ..FileListOptions::default()
    };
    set(&mut options);
    list_local(root, &options).unwrap()
}

fn lines(list: &FileListReport) -> Vec<&str> {
    list.text.lines().collect()
}

#[test]
fn a_web_root_of_hashed_pages_keeps_its_manifests() {
    let root = tempfile::tempdir().unwrap();
    let mut files: Vec<String> = (0..800u64)
        .map(|i| format!("{:08x}.html", i.wrapping_mul(0x9e37_79b9) ^ 0xa5a5_0000))
        .collect();
    files.extend(["package.json", "tsconfig.json", "README.md", "src/index.ts"].map(String::from));
    write(root.path(), &files);
    for l in [
        list(root.path(), |_| {}),
        list(root.path(), |o| o.token_budget = Some(300)),
    ] {
        for name in ["package.json", "tsconfig.json", "README.md", "src/"] {
            assert!(
                lines(&l).iter().any(|line| line.starts_with(name)),
                "{name} missing:\n{}",
                &l.text[..400.min(l.text.len())]
            );
        }
        assert!(l.text.contains("... ("), "the pages are summarised");
    }
}

/// Budget 150 is set in o200k tokens: it needs the tokenizer.
#[cfg(feature = "tokens")]
#[test]
fn tool_folders_give_way_to_packages_and_the_readme() {
    let root = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for tool in [".circleci", ".codesandbox", ".husky", ".devcontainer"] {
        for i in 0..5 {
            files.push(format!("{tool}/config-{i}.yml"));
        }
    }
    for p in 0..40 {
        files.push(format!("packages/pkg-{p}/package.json"));
        files.push(format!("packages/pkg-{p}/src/index.ts"));
    }
    files.extend(["README.md", "package.json", "babel.config.js"].map(String::from));
    write(root.path(), &files);
    let l = list(root.path(), |o| o.token_budget = Some(150));
    assert!(l.tokens.unwrap() <= 150, "{}", l.text);
    for name in ["packages/", "README.md", "package.json"] {
        assert!(
            lines(&l).iter().any(|line| line.starts_with(name)),
            "{name} missing:\n{}",
            l.text
        );
    }
    assert!(!l.text.contains(".husky/\n"), "{}", l.text);
}

/// A project of `dirs` packages with `files` modules each.
fn project(dirs: usize, files: usize) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let mut names = vec!["README.md".to_owned(), "Cargo.toml".to_owned()];
    for d in 0..dirs {
        names.push(format!("crates/unit_{d}/Cargo.toml"));
        for f in 0..files {
            names.push(format!(
                "crates/unit_{d}/src/module_{}.rs",
                ["alpha", "beta", "gamma", "delta", "omega"][f % 5].to_owned() + &"x".repeat(f / 5)
            ));
        }
    }
    write(root.path(), &names);
    root
}

#[test]
fn a_budget_the_whole_listing_fits_gives_all_of_it() {
    let root = project(6, 8);
    let l = list(root.path(), |o| o.token_budget = Some(16_000));
    assert!(l.partial_reasons.is_empty(), "{:?}", l.partial_reasons);
    assert_eq!(l.files_shown, l.files_total);
    // Not cut at the default depth of 3 or 500 entries.
    assert!(l.text.contains("module_alpha.rs"), "{}", l.text);
}

#[test]
fn a_budget_is_used_to_at_least_nine_tenths() {
    let root = project(60, 25);
    for budget in [1000, 4000] {
        let l = list(root.path(), |o| o.token_budget = Some(budget));
        let tokens = usize::try_from(l.tokens.unwrap()).unwrap();
        assert!(tokens <= budget, "{tokens} > {budget}");
        assert!(
            tokens * 10 >= budget * 9,
            "{tokens} of {budget}:\n{}",
            l.text
        );
        assert_eq!(l.partial_reasons, [format!("token budget {budget}")]);
        assert!(l.text.starts_with(&format!(
            "<project_files root=\"{}\" format=\"tree\" partial=\"token budget {budget}\">",
            root.path().file_name().unwrap().to_str().unwrap()
        )));
    }
    // A limit given by hand still holds under a budget.
    let l = list(root.path(), |o| {
        o.token_budget = Some(4000);
        o.max_depth = Some(1);
    });
    assert!(!l.text.contains("module_"), "{}", l.text);
}

/// Without the `tokens` feature a text counts as its bytes, an upper bound:
/// the listing's bytes fit the budget, so its tokens do too.
#[cfg(not(feature = "tokens"))]
#[test]
fn without_a_tokenizer_a_budget_is_met_in_bytes() {
    let root = project(60, 25);
    let l = list(root.path(), |o| {
        o.token_budget = Some(1000);
        o.count_tokens = true;
    });
    assert!(l.text.len() <= 1000, "{} bytes", l.text.len());
    assert_eq!(l.tokens, Some(l.text.len() as u64));
    assert!(l.text.len() * 10 >= 1000 * 9, "{} bytes", l.text.len());
}

#[test]
fn cl100k_counts_too() {
    let root = project(30, 10);
    let l = list(root.path(), |o| {
        o.token_budget = Some(1000);
        o.tokenizer = Tokenizer::Cl100k;
    });
    let tokens = l.tokens.unwrap();
    assert!((900..=1000).contains(&tokens), "{tokens}");
}

#[test]
fn a_name_cannot_add_a_line_or_an_indent() {
    let root = tempfile::tempdir().unwrap();
    write(
        root.path(),
        &[
            "line\nbreak.txt",
            "  lead.txt",
            "README.md",
            "... (3 files)",
        ]
        .map(String::from),
    );
    let l = list(root.path(), |_| {});
    assert_eq!(l.text.lines().count(), 1 + 4 + 2, "{}", l.text);
    for shown in [
        "\"line\\nbreak.txt\"",
        "\"  lead.txt\"",
        "\"... (3 files)\"",
        "README.md",
    ] {
        assert!(
            l.text.lines().any(|line| line == shown),
            "{shown}:\n{}",
            l.text
        );
    }
}

#[cfg(unix)]
#[test]
fn a_symlink_is_marked() {
    let root = tempfile::tempdir().unwrap();
    write(root.path(), &["LICENSE".to_owned()]);
    std::os::unix::fs::symlink("LICENSE", root.path().join("COPYING")).unwrap();
    let l = list(root.path(), |_| {});
    assert!(l.text.contains("\nCOPYING@\n"), "{}", l.text);
}

#[test]
fn compact_of_a_flat_directory_is_partial_and_says_so() {
    let root = tempfile::tempdir().unwrap();
    let files: Vec<String> = (0..300)
        .map(|i| format!("note-{}.md", ["a", "b", "c"][i % 3].repeat(1 + i / 3)))
        .collect();
    write(root.path(), &files);
    let l = list(root.path(), |o| o.format = FileListFormat::Compact);
    // Compact would name every file here, as the tree does: the tree is given.
    assert_eq!(l.format, FileListFormat::Tree);
    assert!(!l.text.contains("(0 files"), "{}", l.text);
    let limited = list(root.path(), |o| o.max_files = Some(20));
    assert!(
        limited
            .partial_reasons
            .iter()
            .any(|r| r.starts_with("max_files 20"))
    );
    assert!(
        limited
            .text
            .contains(" partial=\"max_files 20 of 300 files\"")
    );
}

#[test]
fn the_listing_does_not_depend_on_the_thread_count() {
    let root = project(20, 12);
    let one = list(root.path(), |o| o.threads = 1).text;
    for threads in [2, 4, 8] {
        assert_eq!(list(root.path(), |o| o.threads = threads).text, one);
    }
}

/// A remote listing is filtered while the tree is built: whatever lies
/// below an excluded directory, at any depth, is dropped (each directory
/// matched once: 2,000 files 60 levels deep took 121 ms, now 10 ms).
#[test]
fn a_remote_listing_drops_what_lies_below_an_excluded_directory() {
    use agentctx_filelist::{Entry, Listing, render_remote};
    let deep = (0..40)
        .map(|i| format!("d{i}"))
        .collect::<Vec<_>>()
        .join("/");
    let listing = Listing {
        root_name: "acme/app@x".into(),
        entries: vec![
            Entry::file("a/b/c/d.txt"),
            Entry::file("a/keep.txt"),
            Entry::file("x/b/y.txt"),
            Entry::file(format!("{deep}/b/{deep}/z.txt")),
            Entry::file(format!("{deep}/kept.txt")),
        ],
        ..Listing::default()
    };
    let options = FileListOptions {
        exclude: vec!["b/".into()],
        max_depth: Some(100),
        ..FileListOptions::default()
    };
    let text = render_remote(&listing, &options).unwrap().text;
    for gone in ["d.txt", "y.txt", "z.txt"] {
        assert!(!text.contains(gone), "{gone}:\n{text}");
    }
    for kept in ["keep.txt", "kept.txt"] {
        assert!(text.contains(kept), "{kept}:\n{text}");
    }
}

/// fastapi's shape (3,139 files): `docs/` holds most of the tree in many
/// languages, `docs_src/` many small examples, `tests/` hundreds of files.
fn fastapi_shape() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let mut files: Vec<String> = Vec::new();
    for lang in [
        "en", "de", "es", "fr", "ja", "ko", "pt", "ru", "tr", "uk", "zh",
    ] {
        for i in 0..170 {
            files.push(format!("docs/{lang}/docs/tutorial/page_{i}.md"));
        }
    }
    for i in 0..95 {
        for f in ["tutorial001.py", "tutorial002.py"] {
            files.push(format!("docs_src/example_{i}/{f}"));
        }
    }
    for i in 0..318 {
        files.push(format!("tests/test_case_{}.py", i * 7919 % 10007));
    }
    for m in ["applications", "routing", "params", "encoders", "responses"] {
        files.push(format!("fastapi/{m}.py"));
    }
    files.extend(
        [
            "README.md",
            "pyproject.toml",
            "LICENSE",
            "scripts/test.sh",
            ".github/workflows/test.yml",
        ]
        .map(String::from),
    );
    write(root.path(), &files);
    root
}

/// A generated tree with 17 top-level entries, the big ones Low.
fn seventeen_top_level() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let mut files: Vec<String> = Vec::new();
    for dir in [
        "assets", "docs", "fixtures", ".vscode", "src", "tests", "lib", "bin",
    ] {
        for i in 0..60 {
            files.push(format!("{dir}/sub_{}/file_{i}.txt", i % 6));
        }
    }
    files.extend(
        [
            "README.md",
            "Cargo.toml",
            "LICENSE",
            "Makefile",
            ".gitignore",
            "build.rs",
            "CHANGELOG.md",
            "CONTRIBUTING.md",
            "rustfmt.toml",
        ]
        .map(String::from),
    );
    write(root.path(), &files);
    root
}

/// The names at the top of a tree listing (lines without indent).
fn top_names(l: &FileListReport) -> Vec<String> {
    lines(l)
        .iter()
        .skip(1)
        .filter(|line| !line.starts_with(' ') && !line.starts_with('(') && !line.starts_with('<'))
        .map(|line| line.split(['/', ' ']).next().unwrap().to_owned())
        .collect()
}

#[test]
fn every_top_level_entry_is_named_before_anything_at_depth_two() {
    for (root, names) in [
        (
            fastapi_shape(),
            &[
                "docs",
                "docs_src",
                "tests",
                "fastapi",
                "README.md",
                "pyproject.toml",
                "LICENSE",
                "scripts",
                ".github",
            ][..],
        ),
        (
            seventeen_top_level(),
            &[
                "assets",
                "docs",
                "fixtures",
                ".vscode",
                "src",
                "tests",
                "lib",
                "bin",
                "README.md",
                "Cargo.toml",
                "LICENSE",
                "Makefile",
                ".gitignore",
                "build.rs",
                "CHANGELOG.md",
                "CONTRIBUTING.md",
                "rustfmt.toml",
            ][..],
        ),
    ] {
        for l in [
            list(root.path(), |_| {}),
            list(root.path(), |o| o.token_budget = Some(900)),
            list(root.path(), |o| o.max_files = Some(30)),
        ] {
            let top = top_names(&l);
            for name in names {
                assert!(
                    top.iter().any(|t| t == name),
                    "{name} not named:\n{}",
                    l.text
                );
            }
            assert!(
                !l.text.contains("\n... ("),
                "nothing at the top is folded:\n{}",
                l.text
            );
        }
    }
}

#[test]
fn a_directory_cut_short_names_its_counts() {
    let root = fastapi_shape();
    let l = list(root.path(), |o| o.token_budget = Some(400));
    assert!(
        lines(&l)
            .iter()
            .any(|line| line.starts_with("docs/ (1870 files")),
        "{}",
        l.text
    );
}

#[test]
fn each_shown_directory_names_its_children_before_its_grandchildren() {
    let root = tempfile::tempdir().unwrap();
    let mut files: Vec<String> = Vec::new();
    // Low files beside High packages: the packages' contents rank before
    // them, and still wait until every child of pkg/ is named.
    for i in 0..40u64 {
        files.push(format!("pkg/{:08x}.bin", i.wrapping_mul(0x9e37_79b9)));
    }
    for d in 0..5 {
        files.push(format!("pkg/sub_{d}/__init__.py"));
        for i in 0..10 {
            files.push(format!("pkg/sub_{d}/inner_{i}.py"));
        }
    }
    files.push("README.md".to_owned());
    write(root.path(), &files);
    for max_files in [10, 30, 47, 60, 80] {
        let l = list(root.path(), |o| {
            o.max_files = Some(max_files);
            o.group = false;
            o.format = FileListFormat::Flat;
        });
        // The paths shown below pkg/ (a line's first word), no summaries.
        let shown: Vec<&str> = lines(&l)
            .into_iter()
            .map(|x| x.split(' ').next().unwrap())
            .filter(|x| x.starts_with("pkg/") && *x != "pkg/" && !x.contains("..."))
            .collect();
        let grandchild = shown
            .iter()
            .any(|x| x.starts_with("pkg/sub_") && !x.ends_with('/'));
        let children = shown
            .iter()
            .filter(|x| x.trim_end_matches('/').matches('/').count() == 1)
            .count();
        if grandchild {
            assert_eq!(
                children, 45,
                "{shown:?} max_files {max_files}: a grandchild before every child\n{}",
                l.text
            );
        }
    }
}

#[test]
fn a_depth_limit_counts_every_level_of_a_chain() {
    let root = tempfile::tempdir().unwrap();
    write(
        root.path(),
        &[
            "deep/a/b/c/d/e/f/g/h/i/j/k/leaf.txt".to_owned(),
            "top/one.txt".to_owned(),
            "README.md".to_owned(),
        ],
    );
    let l = list(root.path(), |o| o.max_depth = Some(3));
    assert!(!l.text.contains("leaf.txt"), "{}", l.text);
    assert!(
        l.text.contains("\ndeep/a/b/ (1 file, 9 dirs)\n"),
        "{}",
        l.text
    );
    for format in [FileListFormat::Flat, FileListFormat::Tree] {
        for depth in 1..15 {
            let l = list(root.path(), |o| {
                o.max_depth = Some(depth);
                o.format = FileListFormat::Flat;
                let _ = format;
            });
            for line in lines(&l).iter().skip(1) {
                if line.starts_with('(') || line.starts_with('<') {
                    continue;
                }
                let path = line.split(' ').next().unwrap().trim_end_matches('/');
                assert!(
                    path.split('/').count() <= depth,
                    "max_depth {depth}: {line}\n{}",
                    l.text
                );
            }
        }
    }
}
