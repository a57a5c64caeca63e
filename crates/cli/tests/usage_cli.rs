//! What a new user meets first: the verbosity flags, help, empty answers,
//! errors that say what is wrong in the user's terms.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod common;

use common::{TestEnv, run};

/// A git project with a rule file.
fn project() -> TestEnv {
    let t = TestEnv::new();
    t.write("project/.git/HEAD", "ref: refs/heads/main\n");
    t.write(
        "project/.coding-agent-rules.yaml",
        "file_patterns:\n  exclude: [\"secrets/\"]\n",
    );
    t
}

#[test]
fn verbose_says_which_config_root_and_rule_file_a_command_uses() {
    let t = project();
    let (code, _, quiet) = run(t.cmd().arg("root"));
    assert_eq!(code, 0);
    assert_eq!(quiet, "", "nothing on stderr without -v");
    let (code, _, err) = run(t.cmd().args(["-v", "root"]));
    assert_eq!(code, 0, "{err}");
    let root = std::fs::canonicalize(&t.project).unwrap();
    assert!(
        err.contains(&format!(
            "project root: {} (found by marker .git",
            root.display()
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "rules: {} (yaml)",
            root.join(".coding-agent-rules.yaml").display()
        )),
        "{err}"
    );
    assert!(err.contains("config: no config file read"), "{err}");
    assert!(
        !err.contains("config agentmem"),
        "values only with -vv: {err}"
    );
    let (code, _, err) = run(t
        .cmd()
        .args(["-vv", "-c", "agentmem.capture_on_stop=true", "root"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("config agentmem.capture_on_stop = true (flag:"),
        "{err}"
    );
}

#[test]
fn help_shows_the_global_options_apart_from_the_commands_own() {
    let t = TestEnv::new();
    let (code, help, _) = run(t.cmd().args(["files", "--help"]));
    assert_eq!(code, 0);
    let global = help.find("\nGlobal options:\n").expect(&help);
    let own = |flag: &str| help.find(flag).expect(flag);
    for flag in ["--max-depth", "--no-timestamp", "--github"] {
        assert!(own(flag) < global, "{flag} is the command's: {help}");
    }
    for flag in [
        "--cwd",
        "--config",
        "--set",
        "--json",
        "--verbose",
        "--quiet",
    ] {
        assert!(own(flag) > global, "{flag} is global: {help}");
    }
}

#[test]
fn context_no_timestamp_help_says_what_the_code_does() {
    // docs/cli.md: the context holds no timestamp; the flag changes nothing.
    let t = project();
    let (_, help, _) = run(t.cmd().args(["context", "--help"]));
    let line = help
        .lines()
        .skip_while(|l| !l.contains("--no-timestamp"))
        .take(2)
        .collect::<String>();
    assert!(line.contains("Does nothing"), "{line}");
    let (_, with, _) = run(t.cmd().args(["context", "--no-timestamp"]));
    let (_, without, _) = run(t.cmd().args(["context"]));
    assert_eq!(with, without);
}

#[test]
fn mem_list_and_search_with_nothing_to_show_say_so_on_stderr() {
    let t = TestEnv::new();
    let memory = t.dir.path().join("memory");
    let mem = |args: &[&str]| run(t.cmd().arg("mem").args(args).env("AGENTMEM_ROOT", &memory));
    let (code, out, err) = mem(&["list"]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", "no captures\n"));
    let (code, out, err) = mem(&["search", "quokka"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "", "no matches for \"quokka\"\n")
    );
    let (_, _, err) = mem(&["list", "--category", "research"]);
    assert_eq!(err, "no captures match these filters\n");
    let (_, _, err) = mem(&["-q", "list"]);
    assert_eq!(err, "", "--quiet");
    // JSON stays an empty list, with nothing on stderr.
    for args in [&["list", "--json"][..], &["search", "quokka", "--json"]] {
        let (code, out, err) = mem(args);
        assert_eq!((code, out.trim(), err.as_str()), (0, "[]", ""), "{args:?}");
    }
}

#[test]
fn an_unclosed_quote_in_a_search_is_an_error_naming_where_it_is() {
    let t = TestEnv::new();
    let memory = common::fixture_memory(&t);
    for (query, at) in [("category:\"x", 10), ("\"auth race", 1)] {
        let (code, _, err) = run(t
            .cmd()
            .args(["mem", "search", query])
            .env("AGENTMEM_ROOT", &memory));
        assert_eq!(code, 2, "{query}: {err}");
        assert!(
            err.contains(&format!("the quote at character {at} is not closed")),
            "{query}: {err}"
        );
    }
    // Closed, a filter's value may be quoted.
    let (code, out, err) = run(t
        .cmd()
        .args(["mem", "list", "--json", "--category", "research"])
        .env("AGENTMEM_ROOT", &memory));
    assert_eq!(code, 0, "{err}");
    let (code, quoted, err) = run(t
        .cmd()
        .args(["mem", "search", "category:\"research\"", "--json"])
        .env("AGENTMEM_ROOT", &memory));
    assert_eq!(code, 0, "{err}");
    let count = |text: &str| {
        serde_json::from_str::<Vec<serde_json::Value>>(text)
            .unwrap()
            .len()
    };
    assert!(count(&out) > 0);
    assert_eq!(count(&quoted), count(&out));
}

/// `agentctx ARGS` in the project as a process that file permissions
/// apply to: as root, without the capabilities that override them.
fn without_override(t: &TestEnv, args: &[&str]) -> (i32, String, String) {
    use std::os::unix::fs::MetadataExt as _;
    let probe = t.write("euid-probe", "");
    let root = std::fs::metadata(&probe).unwrap().uid() == 0;
    let binary = env!("CARGO_BIN_EXE_agentctx");
    let mut cmd = if root {
        let mut cmd = std::process::Command::new("setpriv");
        cmd.args(["--bounding-set=-dac_override,-dac_read_search", binary]);
        cmd
    } else {
        std::process::Command::new(binary)
    };
    cmd.env_clear()
        .env("HOME", &t.home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .current_dir(&t.project)
        .stdin(std::process::Stdio::null())
        .args(args);
    run(&mut cmd)
}

#[cfg(unix)]
#[test]
fn an_unreadable_nested_agents_md_is_offered_with_a_warning() {
    use std::os::unix::fs::PermissionsExt as _;
    let t = project();
    t.write("project/open/AGENTS.md", "Open rules.\n");
    let locked = t.write("project/locked/AGENTS.md", "Locked rules.\n");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let args = ["agents", "resolve", "open/x.rs", "locked/x.rs"];
    let (code, out, err) = without_override(&t, &args);
    assert_eq!(code, 0, "{err}");
    let root = std::fs::canonicalize(&t.project).unwrap();
    let locked = root.join("locked/AGENTS.md");
    let line = out
        .lines()
        .find(|l| l.contains(&locked.display().to_string()))
        .expect(&out);
    assert!(
        line.ends_with(
            "cannot be read (Permission denied): its instructions are unknown; tell the user"
        ),
        "{line}"
    );
    let open = root.join("open/AGENTS.md").display().to_string();
    let line = out.lines().find(|l| l.contains(&open)).expect(&out);
    assert!(!line.contains("cannot be read"), "{line}");
    assert!(
        err.contains(&format!(
            "{} cannot be read (Permission denied)",
            locked.display()
        )),
        "{err}"
    );
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let (_, json, _) = without_override(&t, &json_args);
    let found: serde_json::Value = serde_json::from_str(&json).unwrap();
    let files = found["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{found}");
    assert!(files[0].get("unreadable").is_none(), "{found}");
    assert_eq!(files[1]["unreadable"], "Permission denied", "{found}");
}
