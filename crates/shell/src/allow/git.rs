//! git in words-only mode: its global options that point it elsewhere or
//! set configuration (`-c alias.x='!cmd'`, `-c core.fsmonitor=cmd`,
//! `--exec-path`, `-C`) are denied, and so is every subcommand but those
//! whose files are their operands: the ones that read, and the ones that
//! write what their operands name or what git keeps under `.git`. Denied:
//! the subcommands that write the files a commit holds (`checkout REV`,
//! `merge`, `reset --hard`), talk to other repositories through programs
//! the configuration names (`fetch`, `push`, `clone`), run commands
//! (`rebase -x`, `bisect run`, `submodule foreach`, `difftool`), change
//! the configuration, and aliases. The repository's hooks, which git runs
//! for most of the allowed ones too, are the caller's to look for
//! (`WordsChecked::runs_git`).

use super::{Access, NamedPath, Unverifiable, WordsChecked};

/// Global options that change nothing git opens.
const QUIET_GLOBALS: [&str; 12] = [
    "--no-pager",
    "-P",
    "-p",
    "--paginate",
    "--no-optional-locks",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-replace-objects",
    "--no-advice",
    "--version",
];

/// Subcommands that only read (the repository, the working tree, what
/// their operands name).
const READS: [&str; 24] = [
    "status",
    "diff",
    "log",
    "show",
    "blame",
    "annotate",
    "grep",
    "ls-files",
    "ls-tree",
    "rev-parse",
    "rev-list",
    "describe",
    "shortlog",
    "whatchanged",
    "show-ref",
    "for-each-ref",
    "merge-base",
    "name-rev",
    "cat-file",
    "count-objects",
    "check-ignore",
    "check-attr",
    "reflog",
    "version",
];

/// Subcommands that write only what their operands name, or refs and
/// objects under `.git`.
const WRITES: [&str; 7] = ["add", "commit", "rm", "mv", "restore", "branch", "tag"];

/// The subcommand and where its arguments start, after the global options.
pub(super) fn subcommand<'w>(args: &[&'w str]) -> Option<(&'w str, usize)> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        if matches!(
            *word,
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
        ) {
            i += 2;
        } else if word.starts_with('-') {
            i += 1;
        } else {
            return Some((word, i + 1));
        }
    }
    None
}

pub(super) fn check(args: &[&str], out: &mut WordsChecked) -> Result<(), Unverifiable> {
    let deny = |what: String, reason: &str| {
        Err(Unverifiable {
            what,
            reason: reason.to_owned(),
            program: Some("git".to_owned()),
        })
    };
    for word in args.iter().copied().take_while(|w| w.starts_with('-')) {
        if QUIET_GLOBALS.contains(&word) {
            continue;
        }
        let reason = match word.split_once('=').map_or(word, |(o, _)| o) {
            "-c" | "--config-env" => {
                "sets git's configuration, which can make it run any program (`alias.x=!cmd`, `core.fsmonitor`, `core.pager`)"
            }
            "--exec-path" => "runs git's programs from another folder",
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" | "--bare" => {
                "points git at another repository or folder, whose configuration and hooks it would run"
            }
            _ => "is not among git's options whose effects agentctx knows",
        };
        return deny(format!("git {word}"), reason);
    }
    let Some((sub, at)) = subcommand(args) else {
        return Ok(());
    };
    let rest = &args[at..];
    let what = |word: &str| format!("git {sub} {word}");
    // Anywhere: a list of paths read from a file, an output file.
    for word in rest.iter().copied().take_while(|w| *w != "--") {
        let option = word.split_once('=').map_or(word, |(o, _)| o);
        if option.len() > 3 && "--pathspec-from-file".starts_with(option) {
            return deny(what(word), "takes the paths it works on from a file");
        }
        if (option.len() > 3 && "--open-files-in-pager".starts_with(option))
            || (sub == "grep" && word.starts_with("-O"))
        {
            return deny(what(word), "runs a program on the files it finds");
        }
    }
    if READS.contains(&sub) {
        return Ok(());
    }
    let has = |names: &[&str]| {
        rest.iter()
            .copied()
            .take_while(|w| *w != "--")
            .any(|w| names.contains(&w.split_once('=').map_or(w, |(o, _)| o)))
    };
    match sub {
        "add" => {
            // It reads every file below a folder it is given (and below
            // the root with `-A`), untracked ones too: a search.
            let operands: Vec<&str> = operands(rest);
            for operand in &operands {
                out.extra.push(search(operand, false));
            }
            if operands.is_empty() && has(&["-A", "--all", "--no-ignore-removal"]) {
                out.extra.push(search(".", true));
            }
            if has(&["-e", "--edit"]) {
                return deny(what("--edit"), "runs an editor");
            }
            Ok(())
        }
        "stash" => {
            let action = rest.iter().copied().find(|w| !w.starts_with('-'));
            match action {
                None | Some("push" | "save" | "list" | "show" | "drop" | "pop" | "apply") => {
                    if has(&["-u", "--include-untracked", "-a", "--all"]) {
                        out.extra.push(search(".", true));
                    }
                    Ok(())
                }
                Some(other) => deny(
                    what(other),
                    "is not among the stash actions whose files agentctx knows",
                ),
            }
        }
        "checkout" | "switch" => {
            // A new branch where HEAD is, or files restored by name.
            let create = has(&[
                "-b",
                "-B",
                "-c",
                "-C",
                "--create",
                "--force-create",
                "--orphan",
            ]);
            let named_paths = sub == "checkout" && rest.contains(&"--");
            let start_point = operands(rest).len() > 1;
            if (create && !start_point) || named_paths {
                Ok(())
            } else {
                deny(
                    format!("git {sub}"),
                    "writes the files a commit holds, which its words do not name (name the files after `--`, or create a branch where HEAD is)",
                )
            }
        }
        "reset" if has(&["--hard", "--merge", "--keep"]) => deny(
            format!("git {sub} --hard"),
            "writes the files a commit holds, which its words do not name",
        ),
        "reset" => Ok(()),
        "config" => {
            let reads = has(&[
                "--get",
                "--get-all",
                "--get-regexp",
                "--get-urlmatch",
                "-l",
                "--list",
            ]) || matches!(rest.first(), Some(&"get" | &"list"));
            let elsewhere = has(&["-f", "--file", "--blob", "-e", "--edit"]);
            if reads && !elsewhere {
                Ok(())
            } else {
                deny(
                    "git config".to_owned(),
                    "changes git's configuration or reads another file as one",
                )
            }
        }
        "remote" => match rest.iter().copied().find(|w| !w.starts_with('-')) {
            None | Some("show" | "get-url") => Ok(()),
            Some(other) => deny(what(other), "changes git's configuration"),
        },
        "branch" if has(&["--edit-description"]) => {
            deny(what("--edit-description"), "runs an editor")
        }
        _ if WRITES.contains(&sub) => Ok(()),
        "fetch" | "pull" | "push" | "clone" | "ls-remote" | "submodule" | "archive" => deny(
            format!("git {sub}"),
            "talks to other repositories through programs and files git's configuration names, or writes the files they hold",
        ),
        "rebase" | "bisect" | "difftool" | "mergetool" | "filter-branch" | "am" | "apply"
        | "merge" | "cherry-pick" | "revert" | "worktree" | "init" | "gc" | "maintenance" => deny(
            format!("git {sub}"),
            "writes files the repository or a patch decides, or runs commands, which its words do not show",
        ),
        _ => deny(
            format!("git {sub}"),
            "is not among the git subcommands whose files agentctx knows (an alias, or one that runs programs)",
        ),
    }
}

/// The words of a subcommand's arguments that are neither options nor
/// after a `--` ... (paths after `--` count too).
fn operands<'w>(rest: &[&'w str]) -> Vec<&'w str> {
    let mut done = false;
    rest.iter()
        .copied()
        .filter(|w| {
            if !done && *w == "--" {
                done = true;
                return false;
            }
            done || !w.starts_with('-')
        })
        .collect()
}

fn search(path: &str, from_root: bool) -> NamedPath {
    NamedPath {
        path: path.to_owned(),
        program: "git".to_owned(),
        access: Access::Search,
        pattern: false,
        from_root,
    }
}
