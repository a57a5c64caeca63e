//! The default listing of the usual layouts (issue 35): a Rust or Go
//! workspace, a Maven or Gradle project, JS and Python monorepos. Each
//! must name its source files within the default entry limit, the root's
//! README and manifests first; a depth given by hand stays exact; a
//! folder that is no project's says so and keeps tools' state out.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::fs;
use std::path::Path;

use agentctx_filelist::{FileListOptions, FileListReport, list_local};

fn write(root: &Path, files: &[String]) {
    for name in files {
        let path = root.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "x").unwrap();
    }
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

fn list(root: &Path, set: impl FnOnce(&mut FileListOptions)) -> FileListReport {
    let mut options = FileListOptions {
        threads: 1,
        ..FileListOptions::default()
    };
    set(&mut options);
    list_local(root, &options).unwrap()
}

/// Whether the tree listing shows `path` (a file) under its directories,
/// each on its own line or folded into a chain.
fn names(text: &str, path: &str) -> bool {
    // Rebuild each line's full path from the indentation.
    let mut stack: Vec<String> = Vec::new();
    for line in text.lines().skip(1) {
        let indent = (line.len() - line.trim_start().len()) / 2;
        let entry = line.trim_start();
        if entry.starts_with('(') || entry.starts_with('<') || entry.starts_with("...") {
            continue;
        }
        stack.truncate(indent);
        let parent = stack.last().cloned().unwrap_or_default();
        if let Some(dir) = entry.strip_suffix('/') {
            stack.push(format!("{parent}{dir}/"));
        } else if !entry.contains(" (") {
            if format!("{parent}{entry}") == path {
                return true;
            }
            stack.push(String::new());
        } else {
            stack.push(String::new());
        }
    }
    false
}

/// Entries (lines) of a tree listing, header and footer aside.
fn entries(l: &FileListReport) -> usize {
    l.text.lines().count() - 3
}

/// This repository's shape: a dozen crates of 15 to 50 modules, 25
/// benchmark scripts, 39 schema files and recorded fixtures.
fn rust_workspace(root: &Path) {
    let mut files = strings(&["README.md", "Cargo.toml", "Cargo.lock", "LICENSE"]);
    for (c, krate) in [
        "agentmem", "cli", "config", "core", "e2e", "filelist", "hooks", "mcp", "rules", "sandbox",
        "types", "viewer",
    ]
    .iter()
    .enumerate()
    {
        files.push(format!("crates/{krate}/Cargo.toml"));
        files.push(format!("crates/{krate}/README.md"));
        files.push(format!("crates/{krate}/src/lib.rs"));
        for m in 0..15 + 3 * c {
            files.push(format!("crates/{krate}/src/{krate}_part_{}.rs", letters(m)));
        }
        for m in 0..6 {
            files.push(format!(
                "crates/{krate}/src/inner/{krate}_inner_{}.rs",
                letters(m)
            ));
        }
        for t in 0..8 {
            files.push(format!(
                "crates/{krate}/tests/{krate}_case_{}.rs",
                letters(t)
            ));
        }
    }
    for b in 0..25 {
        files.push(format!("benches/bench_{}.sh", letters(b)));
    }
    for s in 0..39 {
        files.push(format!("docs/schema/schema_{}.json", letters(s)));
    }
    for a in 0..10 {
        for f in 0..30 {
            files.push(format!(
                "fixtures/agents/agent_{}/payload_{}.json",
                letters(a),
                letters(f)
            ));
        }
    }
    write(root, &files);
}

/// Distinct names without digits (no run of numbered files is grouped).
fn letters(mut n: usize) -> String {
    let mut s = String::new();
    loop {
        s.insert(0, char::from(b'a' + u8::try_from(n % 26).unwrap()));
        n /= 26;
        if n == 0 {
            return s;
        }
        n -= 1;
    }
}

#[test]
fn a_rust_workspace_names_every_crate_s_sources_within_the_entry_limit() {
    let root = tempfile::tempdir().unwrap();
    rust_workspace(root.path());
    let l = list(root.path(), |_| {});
    for krate in ["agentmem", "cli", "hooks", "viewer"] {
        let path = format!("crates/{krate}/src/lib.rs");
        assert!(names(&l.text, &path), "{path} not named:\n{}", l.text);
        assert!(
            !l.text.contains(&format!("  {krate}/\n    src/ (")),
            "{krate}/src/ only counted:\n{}",
            l.text
        );
    }
    // The tree is larger than the default limit: all of it is used.
    assert!(
        l.partial_reasons
            .iter()
            .any(|r| r.starts_with("max_files 500"))
    );
    assert!(entries(&l) >= 490, "{} entries:\n{}", entries(&l), l.text);
    // The root's README and manifest come first: the first entries taken.
    let small = list(root.path(), |o| o.max_files = Some(6));
    for name in ["README.md", "Cargo.toml", "crates/"] {
        assert!(
            small.text.lines().any(|line| line.starts_with(name)),
            "{name}:\n{}",
            small.text
        );
    }
}

fn maven(root: &Path) {
    let mut files = strings(&[
        "pom.xml",
        "README.md",
        "mvnw",
        ".mvn/wrapper/maven-wrapper.properties",
        "src/main/resources/application.properties",
        "src/main/resources/templates/welcome.html",
    ]);
    for (package, classes) in [
        (
            "owner",
            &["Owner", "OwnerController", "Pet", "PetController"][..],
        ),
        ("vet", &["Vet", "VetController", "Specialty"][..]),
        ("system", &["CacheConfiguration", "WelcomeController"][..]),
    ] {
        for class in classes {
            files.push(format!(
                "src/main/java/org/acme/petclinic/{package}/{class}.java"
            ));
            files.push(format!(
                "src/test/java/org/acme/petclinic/{package}/{class}Tests.java"
            ));
        }
    }
    files.push("src/main/java/org/acme/petclinic/PetClinicApplication.java".to_owned());
    write(root, &files);
}

#[test]
fn a_maven_project_names_its_java_files_and_a_given_depth_stays_exact() {
    let root = tempfile::tempdir().unwrap();
    maven(root.path());
    let l = list(root.path(), |_| {});
    for path in [
        "src/main/java/org/acme/petclinic/PetClinicApplication.java",
        "src/main/java/org/acme/petclinic/owner/OwnerController.java",
        "src/test/java/org/acme/petclinic/vet/VetTests.java",
    ] {
        assert!(names(&l.text, path), "{path} not named:\n{}", l.text);
    }
    // `tree -L 3`: nothing below src/main/java/ when the depth is given.
    let l = list(root.path(), |o| o.max_depth = Some(3));
    assert!(!l.text.contains(".java"), "{}", l.text);
    assert!(l.text.contains("  java/ ("), "{}", l.text);
    assert_eq!(l.partial_reasons, ["max_depth 3"]);
}

#[test]
fn a_gradle_multi_project_names_each_module_s_sources() {
    let root = tempfile::tempdir().unwrap();
    let mut files = strings(&["settings.gradle.kts", "build.gradle.kts", "README.md"]);
    for module in ["okhttp", "mockwebserver", "okhttp-tls", "okhttp-sse"] {
        files.push(format!("{module}/build.gradle.kts"));
        for class in ["Call", "Client", "Request", "Response", "Headers"] {
            files.push(format!(
                "{module}/src/main/kotlin/okhttp3/{module}/{class}.kt"
            ));
            files.push(format!(
                "{module}/src/test/kotlin/okhttp3/{module}/{class}Test.kt"
            ));
        }
    }
    write(root.path(), &files);
    let l = list(root.path(), |_| {});
    for module in ["okhttp", "mockwebserver", "okhttp-tls", "okhttp-sse"] {
        let path = format!("{module}/src/main/kotlin/okhttp3/{module}/Call.kt");
        assert!(names(&l.text, &path), "{path} not named:\n{}", l.text);
    }
}

#[test]
fn a_go_module_names_its_packages_files() {
    let root = tempfile::tempdir().unwrap();
    let mut files = strings(&["go.mod", "go.sum", "README.md", "Makefile"]);
    for cmd in ["prometheus", "promtool"] {
        files.push(format!("cmd/{cmd}/main.go"));
    }
    for (package, sources) in [
        ("internal/store/index", &["postings.go", "index.go"][..]),
        ("pkg/api/v1", &["api.go", "codec.go"][..]),
        ("web/api/v1", &["handlers.go"][..]),
        ("tsdb/chunkenc", &["xor.go", "bstream.go"][..]),
    ] {
        for source in sources {
            files.push(format!("{package}/{source}"));
        }
    }
    write(root.path(), &files);
    let l = list(root.path(), |_| {});
    for path in [
        "internal/store/index/postings.go",
        "pkg/api/v1/codec.go",
        "web/api/v1/handlers.go",
        "tsdb/chunkenc/xor.go",
    ] {
        assert!(names(&l.text, path), "{path} not named:\n{}", l.text);
    }
}

#[test]
fn a_js_monorepo_names_its_packages_sources_before_its_playground_and_docs() {
    let root = tempfile::tempdir().unwrap();
    let mut files = strings(&[
        "package.json",
        "pnpm-workspace.yaml",
        "README.md",
        "docs/package.json",
        "playground/package.json",
        // A package's own LICENSE (Low) beside its src/ must not hold the
        // sources back.
        "packages/vite/LICENSE.md",
        "packages/vite/CHANGELOG.md",
        "packages/vite/package.json",
        "packages/vite/tsconfig.json",
    ]);
    for page in 0..120 {
        files.push(format!("docs/guide/page_{}.md", letters(page)));
    }
    // vite's playground: a hundred small workspace packages.
    for example in 0..100 {
        let name = format!("example_{}", letters(example));
        files.push(format!("playground/{name}/package.json"));
        for f in ["index.html", "main.js", "style.css", "vite.config.js"] {
            files.push(format!("playground/{name}/{f}"));
        }
        files.push(format!("playground/{name}/__tests__/{name}.spec.ts"));
    }
    for dir in ["node/server/middlewares", "node/plugins", "client"] {
        for m in 0..12 {
            files.push(format!(
                "packages/vite/src/{dir}/{}_{}.ts",
                dir.rsplit('/').next().unwrap(),
                letters(m)
            ));
        }
    }
    write(root.path(), &files);
    let l = list(root.path(), |_| {});
    for path in [
        "packages/vite/src/node/server/middlewares/middlewares_a.ts",
        "packages/vite/src/node/plugins/plugins_l.ts",
        "packages/vite/src/client/client_a.ts",
    ] {
        assert!(names(&l.text, path), "{path} not named:\n{}", l.text);
    }
    assert!(l.text.contains("playground/"), "{}", l.text);
}

#[test]
fn a_python_monorepo_names_its_libraries_modules() {
    let root = tempfile::tempdir().unwrap();
    let mut files = strings(&["README.md", "pyproject.toml", "Makefile"]);
    for library in ["core", "text-splitters", "openai", "anthropic"] {
        let module = format!("lib_{}", library.replace('-', "_"));
        files.push(format!("libs/{library}/pyproject.toml"));
        files.push(format!("libs/{library}/README.md"));
        files.push(format!("libs/{library}/{module}/__init__.py"));
        for sub in ["runnables", "messages", "tools"] {
            files.push(format!("libs/{library}/{module}/{sub}/__init__.py"));
            for m in 0..8 {
                files.push(format!(
                    "libs/{library}/{module}/{sub}/{sub}_{}.py",
                    letters(m)
                ));
            }
        }
        for t in 0..30 {
            files.push(format!(
                "libs/{library}/tests/unit_tests/test_{}.py",
                letters(t)
            ));
        }
    }
    for notebook in 0..150 {
        files.push(format!("cookbook/recipe_{}.ipynb", letters(notebook)));
    }
    write(root.path(), &files);
    let l = list(root.path(), |_| {});
    for library in ["core", "openai"] {
        let path = format!("libs/{library}/lib_{library}/runnables/runnables_a.py");
        assert!(names(&l.text, &path), "{path} not named:\n{}", l.text);
    }
}

/// pydantic-ai's shape: the library a package folder down, beside its
/// LICENSE (Low: a package's copy), a root `tests/` with recorded
/// cassettes many folders deep, documentation and `.github/` prompts.
#[test]
fn a_package_s_license_and_the_root_s_tests_do_not_hold_its_sources_back() {
    let root = tempfile::tempdir().unwrap();
    let mut files = strings(&[
        "README.md",
        "pyproject.toml",
        "pydantic_ai_slim/LICENSE",
        "pydantic_ai_slim/README.md",
        "pydantic_ai_slim/pyproject.toml",
        "pydantic_ai_slim/pydantic_ai/__init__.py",
        "pydantic_ai_slim/pydantic_ai/agent.py",
        ".github/workflows/ci.yml",
    ]);
    for sub in ["models", "providers", "toolsets"] {
        files.push(format!("pydantic_ai_slim/pydantic_ai/{sub}/__init__.py"));
        for m in 0..30 {
            files.push(format!(
                "pydantic_ai_slim/pydantic_ai/{sub}/{sub}_{}.py",
                letters(m)
            ));
        }
    }
    for t in 0..12 {
        for c in 0..40 {
            files.push(format!(
                "tests/cassettes/test_{}/case_{}.yaml",
                letters(t),
                letters(c)
            ));
        }
        files.push(format!("tests/test_{}.py", letters(t)));
        files.push(format!("tests/models/test_model_{}.py", letters(t)));
    }
    for d in 0..10 {
        for page in 0..20 {
            files.push(format!(
                "docs/part_{}/page_{}.md",
                letters(d),
                letters(page)
            ));
        }
    }
    for prompt in 0..20 {
        files.push(format!(
            ".github/shared/prompts/prompt_{}.md",
            letters(prompt)
        ));
    }
    // Folders of no known use, shallower: they fill the listing first
    // when the library waits for its LICENSE to be named.
    for script in 0..150 {
        files.push(format!("scripts/script_{}.py", letters(script)));
    }
    for kit in 0..30 {
        for tool in 0..10 {
            files.push(format!(
                "tools/kit_{}/tool_{}.txt",
                letters(kit),
                letters(tool)
            ));
        }
    }
    write(root.path(), &files);
    let l = list(root.path(), |_| {});
    for path in [
        "pydantic_ai_slim/pydantic_ai/models/models_ad.py",
        "pydantic_ai_slim/pydantic_ai/providers/providers_ad.py",
        "pydantic_ai_slim/pydantic_ai/toolsets/toolsets_ad.py",
    ] {
        assert!(names(&l.text, path), "{path} not named:\n{}", l.text);
    }
    assert!(names(&l.text, "tests/test_a.py"), "{}", l.text);
}

#[test]
fn a_source_tree_costs_half_a_level_per_level_however_deep() {
    let root = tempfile::tempdir().unwrap();
    let mut files = strings(&[
        "Cargo.toml",
        "README.md",
        "src/lib.rs",
        "src/server/mod.rs",
        "src/server/http/mod.rs",
        "src/store/mod.rs",
        "src/store/sql/mod.rs",
    ]);
    // Modules four levels down, below folders that are neither packages
    // nor source roots themselves (`server/`, `http/`), no chain of
    // single-child folders among them.
    for dir in [
        "server/http/middleware",
        "server/http/routing",
        "store/sql/query",
    ] {
        for m in 0..10 {
            files.push(format!(
                "src/{dir}/{}_{}.rs",
                dir.rsplit('/').next().unwrap(),
                letters(m)
            ));
        }
    }
    // A tool folder as deep, with more files than the entry limit.
    for a in 0..4 {
        for b in 0..8 {
            for f in 0..20 {
                files.push(format!(
                    "tools/set_{}/kit_{}/tool_{}.txt",
                    letters(a),
                    letters(b),
                    letters(f)
                ));
            }
        }
    }
    write(root.path(), &files);
    let l = list(root.path(), |_| {});
    for path in [
        "src/server/http/middleware/middleware_j.rs",
        "src/store/sql/query/query_a.rs",
    ] {
        assert!(names(&l.text, path), "{path} not named:\n{}", l.text);
    }
    assert!(l.text.contains("tool_a.txt"), "{}", l.text);
}

#[test]
fn outside_a_project_dot_files_and_folders_are_not_listed_and_it_says_so() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        &strings(&[
            ".claude/debug/session.txt",
            ".ssh/id_ed25519",
            ".bashrc",
            "notes/todo.md",
        ]),
    );
    let l = list(home.path(), |o| o.outside_project = true);
    assert!(names(&l.text, "notes/todo.md"), "{}", l.text);
    for private in [".claude", ".ssh", ".bashrc"] {
        assert!(!l.text.contains(private), "{private}:\n{}", l.text);
    }
    let reason = "no project root found: dot files and folders not listed";
    assert_eq!(l.partial_reasons, [reason]);
    assert!(l.text.starts_with(&format!(
        "<project_files root=\"{}\" format=\"tree\" partial=\"{reason}\">",
        home.path().file_name().unwrap().to_string_lossy()
    )));
    // In a project, dot folders are its own (`.github/`).
    let l = list(home.path(), |_| {});
    assert!(l.text.contains(".claude/"), "{}", l.text);
    assert!(l.partial_reasons.is_empty(), "{:?}", l.partial_reasons);
}

/// agentctx's sandbox makes empty `.github/hooks`, `.github/copilot` and
/// `.claude` folders to keep them read-only (issue 35): a folder that holds
/// nothing, or only empty folders, names nothing and is not listed.
#[test]
fn empty_folders_are_not_listed() {
    let root = tempfile::tempdir().unwrap();
    write(
        root.path(),
        &strings(&["README.md", "src/lib.rs", ".vscode/settings.json"]),
    );
    for dir in [".github/hooks", ".github/copilot", ".claude", "empty"] {
        fs::create_dir_all(root.path().join(dir)).unwrap();
    }
    let l = list(root.path(), |_| {});
    for gone in [".github/", ".claude/", "empty/"] {
        assert!(!l.text.contains(gone), "{gone} listed:\n{}", l.text);
    }
    assert!(names(&l.text, "src/lib.rs"), "{}", l.text);
    assert!(names(&l.text, ".vscode/settings.json"), "{}", l.text);
    // The control: a file in one of them lists it.
    fs::write(root.path().join(".github/hooks/x.json"), "{}").unwrap();
    let l = list(root.path(), |_| {});
    assert!(names(&l.text, ".github/hooks/x.json"), "{}", l.text);
}
