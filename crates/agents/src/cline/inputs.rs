//! The input shapes of Cline CLI 3.0.65's tools, read as Cline reads them
//! (its zod unions, where the first schema that parses wins, and the
//! functions that take the values apart: core.js `dU`, `iU`, `aZ`, `af`,
//! `pU`, the patch parser `JS`, read_files' `Z7`). Where Cline may read a
//! value several ways, every way is judged; a shape not known here is
//! refused when anything is restricted.

use std::path::Path;

use agentctx_types::normalize_lexically;

use serde_json::Value;

/// The keys under which a `read_files` input may name files.
const READ_KEYS: [&str; 5] = ["files", "file_paths", "paths", "file_path", "filePath"];

/// The keys a `read_files` entry object may name its file under.
const ENTRY_KEYS: [&str; 3] = ["path", "file_path", "filePath"];

/// The keys of a line range.
const RANGE_KEYS: [&str; 2] = ["start_line", "end_line"];

/// Every file a `read_files` input may name, whichever of its shapes
/// Cline takes it as: a path string, a list, an entry object (`path`,
/// `file_path` or `filePath`), or an object whose `files`, `file_paths`
/// or `paths` holds any of those. `Err` when a field that names files
/// holds something else, or nothing names a file.
pub(super) fn read_paths(input: &Value) -> Result<Vec<String>, ()> {
    let mut paths = Vec::new();
    match input {
        Value::Object(args) => {
            let mut named = false;
            for key in READ_KEYS {
                if let Some(value) = args.get(key) {
                    named = true;
                    entries(value, &mut paths)?;
                }
            }
            // `{path}` alone is an entry.
            if let Some(value) = args.get("path") {
                named = true;
                entries(value, &mut paths)?;
            }
            if !named {
                return Err(());
            }
        }
        other => entries(other, &mut paths)?,
    }
    paths.dedup();
    Ok(paths)
}

/// The files of one `read_files` value: a path, an entry object, or a
/// list of those.
fn entries(value: &Value, out: &mut Vec<String>) -> Result<(), ()> {
    match value {
        Value::String(path) => out.push(path.clone()),
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::Array(_) => return Err(()),
                    item => entries(item, out)?,
                }
            }
        }
        // A line range on its own is the previous entry's (Cline merges
        // it into that one): it names no file.
        Value::Object(entry)
            if !entry.is_empty() && entry.keys().all(|k| RANGE_KEYS.contains(&k.as_str())) => {}
        Value::Object(entry) => {
            let mut named = false;
            for key in ENTRY_KEYS {
                match entry.get(key) {
                    Some(Value::String(path)) => {
                        named = true;
                        out.push(path.clone());
                    }
                    Some(_) => return Err(()),
                    None => {}
                }
            }
            if !named {
                return Err(());
            }
        }
        _ => return Err(()),
    }
    Ok(())
}

/// The command line a `run_commands` input runs, whichever of its shapes
/// Cline takes it as: a string, a list, `{commands}`, `{command}` (with
/// `args`: a program and its arguments, run without a shell: quoted into
/// a line that runs the same), or `{cmd}`. Cline runs each command in a
/// shell of its own from the session's folder; several become one line
/// that runs each in a subshell of its own, in order (so a changed input
/// runs exactly what was judged). Each must be a whole line by itself: one
/// that leaves a quote or a here-document open could hide the next from
/// the judge, so it is refused; and none may start a here-document, since
/// Cline joins the commands up to its end into one shell (its `af`, which
/// looks for `<<WORD` anywhere, in a comment or quotes too) when it runs
/// them as written.
pub(super) fn command_line(input: &Value) -> Result<String, String> {
    let unknown = || "Cline's run_commands input is in a shape agentctx does not know".to_owned();
    let mut commands = Vec::new();
    match input {
        Value::Object(args) => {
            let mut named = false;
            if let Some(value) = args.get("commands") {
                named = true;
                command_entries(value, &mut commands).map_err(|()| unknown())?;
            }
            if args.contains_key("command") {
                named = true;
                command_entries(input, &mut commands).map_err(|()| unknown())?;
            }
            if let Some(value) = args.get("cmd") {
                named = true;
                match value {
                    Value::String(line) => commands.push(line.clone()),
                    _ => return Err(unknown()),
                }
            }
            if !named {
                return Err(unknown());
            }
        }
        other => command_entries(other, &mut commands).map_err(|()| unknown())?,
    }
    match commands.as_slice() {
        [] => Err(unknown()),
        [one] => Ok(one.clone()),
        several => {
            if let Some(command) = several.iter().find(|c| c.contains("<<")) {
                return Err(format!(
                    "one of the commands of this run_commands call starts a here-document, which Cline would join with the commands after it: `{command}`; send it alone"
                ));
            }
            let mut line = String::new();
            for command in several {
                let grouped = format!("(\n{command}\n)");
                if agentctx_shell::parse_shell(&grouped).is_err() {
                    return Err(format!(
                        "one of the commands of this run_commands call is not a whole command line by itself (an open quote or here-document): `{command}`"
                    ));
                }
                if !line.is_empty() {
                    line.push('\n');
                }
                line.push_str(&grouped);
            }
            Ok(line)
        }
    }
}

/// The commands of one `run_commands` value: a line, a program with its
/// arguments, or a list of those.
fn command_entries(value: &Value, out: &mut Vec<String>) -> Result<(), ()> {
    match value {
        Value::String(line) => out.push(line.clone()),
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::Array(_) => return Err(()),
                    item => command_entries(item, out)?,
                }
            }
        }
        Value::Object(entry) => {
            let Some(Value::String(program)) = entry.get("command") else {
                return Err(());
            };
            match entry.get("args") {
                None | Some(Value::Null) => out.push(program.clone()),
                Some(Value::Array(args)) => {
                    let mut words = vec![agentctx_shell::quote(program)];
                    for arg in args {
                        let Value::String(arg) = arg else {
                            return Err(());
                        };
                        words.push(agentctx_shell::quote(arg));
                    }
                    out.push(words.join(" "));
                }
                Some(_) => return Err(()),
            }
        }
        _ => return Err(()),
    }
    Ok(())
}

/// The files `read_files` opens for `paths`: Cline makes a relative path
/// absolute against its own working folder (`base`: the folder `cline`
/// was started in, not the session's `-c` folder), normalises it by its
/// words (`..` drops the name before it, links or not), and, when the file
/// does not exist, opens one whose name is similar (its NFD form, `’` for
/// `'`, other spaces for a space): such a path is refused, since agentctx
/// cannot tell which file that would be.
pub(super) fn opened_files(paths: &[String], base: Option<&Path>) -> Result<Vec<String>, String> {
    let mut opened = Vec::with_capacity(paths.len());
    for path in paths {
        let absolute = match base {
            _ if Path::new(path).is_absolute() => normalize_lexically(Path::new(path)),
            Some(base) => normalize_lexically(&base.join(path)),
            None => {
                return Err(format!(
                    "`{path}` is relative, and Cline reads it from the folder it was started in, which this call does not name: give the absolute path"
                ));
            }
        };
        if std::fs::metadata(&absolute).is_err() {
            return Err(format!(
                "`{}` does not exist, and Cline would open a file of a similar name instead: give the path of a file that exists",
                absolute.display()
            ));
        }
        opened.push(absolute.to_string_lossy().into_owned());
    }
    Ok(opened)
}

/// The queries of a `search_codebase` input (`{queries: [..] | ".."}`,
/// a list, a string). Cline hands each to ripgrep as an argument, so one
/// that starts with `-` is an option (`-f FILE` reads any file, `-L`
/// follows links): refused.
pub(super) fn search_queries(input: &Value) -> Result<Vec<String>, String> {
    let unknown =
        || "Cline's search_codebase input is in a shape agentctx does not know".to_owned();
    let value = match input {
        Value::Object(args) => args.get("queries").ok_or_else(unknown)?,
        other => other,
    };
    let queries: Vec<String> = match value {
        Value::String(query) => vec![query.clone()],
        Value::Array(items) => items
            .iter()
            .map(|q| q.as_str().map(str::to_owned).ok_or_else(unknown))
            .collect::<Result<_, _>>()?,
        _ => return Err(unknown()),
    };
    if let Some(option) = queries.iter().find(|q| q.starts_with('-')) {
        return Err(format!(
            "the search `{option}` starts with `-`: ripgrep would take it as an option; search for it without the leading `-`"
        ));
    }
    Ok(queries)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use serde_json::json;

    use super::*;

    #[test]
    fn every_read_files_shape_names_its_files_and_an_unknown_one_none() {
        let cases = [
            (
                json!({"files": [{"path": "a", "start_line": 1}]}),
                vec!["a"],
            ),
            (json!({"file_path": "a"}), vec!["a"]),
            (json!({"filePath": "a"}), vec!["a"]),
            (json!({"path": "a"}), vec!["a"]),
            (json!("a"), vec!["a"]),
            (json!(["a", "b"]), vec!["a", "b"]),
            (json!([{"path": "a"}, {"file_path": "b"}]), vec!["a", "b"]),
            (json!({"files": ["a", {"filePath": "b"}]}), vec!["a", "b"]),
            (json!({"files": {"path": "a"}}), vec!["a"]),
            (json!({"files": "a"}), vec!["a"]),
            (json!({"file_paths": ["a"]}), vec!["a"]),
            (json!({"file_paths": "a"}), vec!["a"]),
            (json!({"paths": [{"path": "a"}, "b"]}), vec!["a", "b"]),
            (json!({"paths": "a"}), vec!["a"]),
            // Every key that could name a file is judged, whichever
            // schema Cline picks.
            (
                json!({"files": [{"path": "a"}], "file_path": "b"}),
                vec!["a", "b"],
            ),
        ];
        for (input, want) in cases {
            assert_eq!(read_paths(&input).unwrap(), want, "{input}");
        }
        for bad in [
            json!({"files": [{"path": 1}]}),
            json!({"files": [{"name": "a"}]}),
            json!({"other": "a"}),
            json!(7),
            json!({"paths": [["a"]]}),
        ] {
            assert!(read_paths(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_run_commands_shape_is_one_line_that_runs_what_cline_would() {
        let cases = [
            (json!({"commands": ["ls"]}), "ls"),
            (json!({"commands": "ls"}), "ls"),
            (json!("ls"), "ls"),
            (json!(["ls"]), "ls"),
            (json!({"command": "ls"}), "ls"),
            (json!({"cmd": "ls"}), "ls"),
            (
                json!({"command": "cat", "args": ["a b", "it's"]}),
                "'cat' 'a b' 'it'\\''s'",
            ),
            (json!({"commands": [{"command": "ls", "args": []}]}), "'ls'"),
            (
                json!({"commands": ["cd a && pwd", "pwd"]}),
                "(\ncd a && pwd\n)\n(\npwd\n)",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(command_line(&input).unwrap(), want, "{input}");
        }
        for bad in [
            json!({"commands": [1]}),
            json!({"commands": [{"args": ["x"]}]}),
            json!({"command": "cat", "args": [1]}),
            json!({"other": "ls"}),
            json!({"commands": []}),
        ] {
            assert!(command_line(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_command_that_would_hide_the_next_from_the_judge_is_refused() {
        // Run apart, as Cline runs them, the second is a command; joined,
        // an open quote or here-document would make it text.
        for first in ["echo 'x", "cat <<X", "echo \"x"] {
            let input = json!({"commands": [first, "rm -rf ~ #'\""]});
            let err = command_line(&input).unwrap_err();
            assert!(
                err.contains("not a whole command line") || err.contains("here-document"),
                "{first}: {err}"
            );
        }
    }

    #[test]
    fn a_line_range_on_its_own_names_no_file() {
        let input = json!({"files": [{"path": "a"}, {"start_line": 1, "end_line": 5}]});
        assert_eq!(read_paths(&input).unwrap(), ["a"]);
        assert_eq!(read_paths(&json!(["a", {"start_line": 1}])).unwrap(), ["a"]);
        assert!(read_paths(&json!([{}])).is_err());
    }

    #[test]
    fn several_commands_with_a_here_document_are_refused() {
        // Run as written, Cline would join them into one shell up to `EOF`.
        let input = json!({"commands": ["f=secrets/key #<<EOF", "cat $f", "EOF"]});
        let err = command_line(&input).unwrap_err();
        assert!(err.contains("here-document"), "{err}");
        // Alone, a here-document is the command's own.
        assert!(command_line(&json!({"commands": ["cat <<EOF\nx\nEOF"]})).is_ok());
    }

    #[test]
    fn relative_reads_are_opened_from_cline_s_own_folder_and_normalised_by_words() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("sub");
        std::fs::create_dir_all(&base).unwrap();
        std::fs::write(dir.path().join("key"), "k").unwrap();
        let opened = opened_files(&["../key".to_owned()], Some(&base)).unwrap();
        assert_eq!(opened, [dir.path().join("key").to_string_lossy()]);
        // Without Cline's folder a relative path cannot be judged.
        assert!(opened_files(&["key".to_owned()], None).is_err());
        // A missing file: Cline would look for a similar name.
        let err = opened_files(&["secret\u{a0}key".to_owned()], Some(dir.path())).unwrap_err();
        assert!(err.contains("does not exist"), "{err}");
        // Normalised by its words, as Node's `path.normalize` does.
        assert_eq!(
            normalize_lexically(Path::new("/a/b/../c/./d")),
            Path::new("/a/c/d")
        );
        assert_eq!(normalize_lexically(Path::new("/../a")), Path::new("/a"));
    }

    #[test]
    fn patch_paths_are_read_with_or_without_the_envelope_and_trimmed_as_javascript_does() {
        // Cline's patches are read by the shared reader (`patch_paths`).
        let read = |patch: &str| crate::patch_paths(patch);
        let bare = "*** Add File: .cline/plugins/evil.js\n+x\n";
        assert!(read(bare).contains(&".cline/plugins/evil.js".to_owned()));
        let bom = "*** Begin Patch\r\n*** Add File: \u{feff}.clinerules/hooks/PreToolUse\r\n+x\r\n*** End Patch";
        assert!(read(bom).contains(&".clinerules/hooks/PreToolUse".to_owned()));
        let moved = "*** Update File: secrets/key\n*** Move to: leaked.txt\n@@\n-a\n+b\n";
        assert_eq!(read(moved), ["secrets/key", "leaked.txt"]);
    }

    #[test]
    fn a_search_that_starts_with_a_dash_is_refused() {
        assert_eq!(
            search_queries(&json!({"queries": ["fn main"]})).unwrap(),
            ["fn main"]
        );
        assert_eq!(search_queries(&json!("x")).unwrap(), ["x"]);
        assert_eq!(search_queries(&json!({"queries": "x"})).unwrap(), ["x"]);
        assert!(search_queries(&json!({"queries": ["-LeBEGIN"]})).is_err());
        assert!(search_queries(&json!(["ok", "-f/etc/passwd"])).is_err());
        assert!(search_queries(&json!({"other": 1})).is_err());
    }
}
