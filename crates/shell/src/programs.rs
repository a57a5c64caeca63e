//! What programs do with their words: which run another command (and
//! where it starts), which only read, which search a whole tree, which
//! write in place or to an output option, and which run code of their
//! own that no command line reveals.

/// Programs that run the rest of their words as a command, each with the
/// options that take a value (skipped with it).
const WRAPPERS: [(&str, &[&str]); 24] = [
    // `busybox sh -c ...`: the applet is the program.
    ("busybox", &[]),
    ("flock", &["-w", "--timeout", "-E", "--conflict-exit-code"]),
    ("chroot", &["--userspec", "--groups"]),
    (
        "unshare",
        &[
            "-S", "-G", "--setuid", "--setgid", "-R", "--root", "-w", "--wd",
        ],
    ),
    ("nsenter", &["-t", "--target", "-S", "-G", "-r", "-w"]),
    ("watch", &["-n", "--interval", "-d", "-q", "--equexit"]),
    ("taskset", &[]),
    (
        "sudo",
        &["-u", "-g", "-h", "-p", "-C", "-D", "-U", "-r", "-t", "-T"],
    ),
    ("doas", &["-u", "-C"]),
    (
        "env",
        &["-u", "-S", "--unset", "--split-string", "-C", "--chdir"],
    ),
    ("time", &["-f", "-o", "--format", "--output"]),
    ("nice", &["-n", "--adjustment"]),
    ("ionice", &["-c", "-n", "-p"]),
    ("nohup", &[]),
    ("command", &[]),
    ("builtin", &[]),
    ("exec", &["-a"]),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"]),
    ("stdbuf", &["-i", "-o", "-e"]),
    ("setsid", &[]),
    ("chrt", &[]),
    ("strace", &["-o", "-e", "-p", "-s"]),
    ("ltrace", &["-o", "-e", "-p", "-s"]),
    (
        "xargs",
        &[
            "-I",
            "-i",
            "-n",
            "-P",
            "-d",
            "-a",
            "-L",
            "-l",
            "-s",
            "-E",
            "-e",
            "--arg-file",
            "--max-args",
            "--max-procs",
            "--delimiter",
            "--replace",
            "--max-lines",
        ],
    ),
];

/// Shells: `-c SCRIPT` is a command line; stdin (a here-document, a
/// here-string) is a script; a file operand is a script nobody can see.
pub(crate) const SHELLS: [&str; 7] = ["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish"];

/// Where the command a wrapper runs starts in `words` (the index of its
/// program), skipping the wrapper's options, `NAME=VALUE` assignments
/// (`env`) and the duration (`timeout`). `None` when `words[at]` is no
/// wrapper, or nothing follows it.
pub(crate) fn wrapped(words: &[Option<&str>], at: usize) -> Option<usize> {
    let program = base_name(words.get(at).copied().flatten()?);
    let (_, takes_value) = WRAPPERS.iter().find(|(name, _)| *name == program)?;
    let mut i = at + 1;
    // `timeout DURATION CMD`, `flock FILE CMD`, `chroot DIR CMD`,
    // `taskset MASK CMD`: one operand before the command.
    let mut positional_skipped = !matches!(program, "timeout" | "flock" | "chroot" | "taskset");
    while let Some(word) = words.get(i) {
        let Some(word) = word else { return Some(i) };
        if word == &"--" {
            return (i + 1 < words.len()).then_some(i + 1);
        }
        if word.starts_with('-') && word.len() > 1 {
            i += if takes_value.contains(word) { 2 } else { 1 };
            continue;
        }
        if program == "env" && word.contains('=') {
            i += 1;
            continue;
        }
        if !positional_skipped {
            // timeout DURATION COMMAND
            positional_skipped = true;
            i += 1;
            continue;
        }
        return Some(i);
    }
    None
}

/// Programs whose last operand is the file or folder they write (copy,
/// move, link, install, sync).
pub(crate) const COPIERS: [&str; 6] = ["cp", "mv", "rsync", "scp", "install", "ln"];

/// Package runners that run the command after them (`npx sh -c ...`,
/// `pnpm exec sh -c ...`, `yarn dlx`): the index in `rest` (the words after
/// the runner) where that command starts.
pub(crate) fn runner_start(program: &str, rest: &[Option<&str>]) -> Option<usize> {
    let skip = match program {
        "npx" | "pnpx" | "bunx" | "uvx" | "corepack" => 0,
        "pipx" => match rest.first().copied().flatten()? {
            "run" => 1,
            _ => return None,
        },
        "npm" | "pnpm" | "yarn" | "bun" => match rest.first().copied().flatten()? {
            "exec" | "x" | "dlx" => 1,
            _ => return None,
        },
        _ => return None,
    };
    let mut i = skip;
    while let Some(word) = rest.get(i) {
        let word = (*word)?;
        match word {
            "--" => return (i + 1 < rest.len()).then_some(i + 1),
            // `-c` is a command line, not a program (`runner_call`).
            "-c" | "--call" => return None,
            "-p" | "--package" | "--filter" | "-F" | "-C" | "--dir" => i += 2,
            _ if word.starts_with('-') => i += 1,
            _ => return Some(i),
        }
    }
    None
}

/// The command line a package runner's `-c`/`--call` runs (`npx -c 'CMD'`,
/// `npm exec -c 'CMD'`).
pub(crate) fn runner_call<'w>(program: &str, rest: &[Option<&'w str>]) -> Option<&'w str> {
    let runs = match program {
        "npx" | "pnpx" => true,
        "npm" | "pnpm" | "yarn" => {
            matches!(rest.first().copied().flatten(), Some("exec" | "x" | "dlx"))
        }
        _ => false,
    };
    if !runs {
        return None;
    }
    let at = rest.iter().position(
        |w| matches!(w, Some(w) if *w == "-c" || *w == "--call" || w.starts_with("--call=")),
    )?;
    match rest[at] {
        Some(w) if w.starts_with("--call=") => w.strip_prefix("--call="),
        _ => rest.get(at + 1).copied().flatten(),
    }
}

/// The shell command lines GNU make runs from its command line before any
/// makefile: `NAME != CMD` assignments, `$(shell CMD)` in assignments and
/// `--eval` text, and the recipes of rules `--eval` defines (`x: ; CMD`).
pub(crate) fn make_code(rest: &[Option<&str>]) -> Vec<String> {
    let mut code = Vec::new();
    let mut i = 0;
    while let Some(word) = rest.get(i) {
        let Some(word) = word else {
            i += 1;
            continue;
        };
        let eval = if let Some(text) = word.strip_prefix("--eval=") {
            Some(text)
        } else if matches!(*word, "--eval" | "-E") {
            i += 1;
            rest.get(i).copied().flatten()
        } else {
            word.strip_prefix("-E").filter(|t| !t.is_empty())
        };
        match eval {
            Some(text) => {
                for line in text.lines() {
                    make_line(line, true, &mut code);
                }
            }
            None if word.contains('=') && !word.starts_with('-') => {
                make_line(word, false, &mut code)
            }
            None => {}
        }
        i += 1;
    }
    code
}

fn make_line(line: &str, rules: bool, code: &mut Vec<String>) {
    let mut rest = line;
    while let Some(start) = rest.find("$(shell ") {
        let inner = &rest[start + "$(shell ".len()..];
        let mut depth = 1usize;
        let end = inner
            .char_indices()
            .find(|(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .map_or(inner.len(), |(i, _)| i);
        code.push(inner[..end].to_owned());
        rest = &inner[end..];
    }
    if let Some((name, command)) = line.split_once("!=")
        && !name.trim().is_empty()
        && !name.contains([':', ';'])
    {
        code.push(command.to_owned());
    } else if rules
        && let Some((head, recipe)) = line.split_once(';')
        && head.contains(':')
    {
        code.push(recipe.to_owned());
    }
}

/// The last path component of a program word (`/usr/bin/cat` → `cat`).
pub(crate) fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Programs that only read the files they name (without in-place or
/// output options); every other program may write what it names.
const READERS: [&str; 62] = [
    "test",
    "[",
    "cat",
    "tac",
    "head",
    "tail",
    "less",
    "more",
    "most",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "wc",
    "ls",
    "dir",
    "stat",
    "file",
    "diff",
    "cmp",
    "nl",
    "bat",
    "batcat",
    "sed",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "find",
    "tree",
    "od",
    "xxd",
    "hexdump",
    "strings",
    "base64",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "cksum",
    "cut",
    "sort",
    "uniq",
    "jq",
    "yq",
    "column",
    "fold",
    "fmt",
    "rev",
    "comm",
    "join",
    "paste",
    "zcat",
    "zless",
    "readlink",
    "realpath",
    "basename",
    "dirname",
    "du",
    "git",
];

/// Whether `program` only reads what it names, given its `words`
/// (`sed -i` and `sort -o FILE` write).
pub(crate) fn reads_only(program: &str, words: &[&str]) -> bool {
    if !READERS.contains(&program) {
        return false;
    }
    match program {
        "sed" => !words.iter().any(|w| in_place_sed(w)),
        // git reads what it shows; its other subcommands change files.
        "git" => matches!(
            git_subcommand(words),
            Some(
                "show"
                    | "cat-file"
                    | "log"
                    | "diff"
                    | "grep"
                    | "status"
                    | "blame"
                    | "ls-files"
                    | "ls-tree"
                    | "rev-parse"
                    | "describe"
                    | "branch"
                    | "remote"
                    | "config"
            )
        ),
        _ => true,
    }
}

/// `-i`, `-i.bak`, `-Ei`, `-ni`, `--in-place[=SUFFIX]`: sed edits in place.
fn in_place_sed(word: &str) -> bool {
    word.starts_with("--in-place")
        || (word.starts_with('-') && !word.starts_with("--") && {
            // A short-option cluster: `-i` anywhere before a value begins.
            let cluster = &word[1..];
            cluster
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .any(|c| c == 'i')
                && !cluster.starts_with('e')
                && !cluster.starts_with('f')
        })
}

/// The folder a copy writes into by option (`-t DIR`, `-tDIR`,
/// `--target-directory=DIR`, `--target-directory DIR`, or an abbreviation
/// of it down to `--t`), when it names one.
pub(crate) fn target_directory<'w>(words: &[&'w str]) -> Option<&'w str> {
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        if word == "--" {
            return None;
        }
        let (option, value) = word
            .split_once('=')
            .map_or((word, None), |(o, v)| (o, Some(v)));
        let long = option.len() >= 3
            && option.starts_with("--")
            && "--target-directory".starts_with(option);
        if long || option == "-t" {
            return value.or_else(|| words.get(i + 1).copied());
        }
        if let Some(rest) = word
            .strip_prefix("-t")
            .filter(|r| !r.is_empty() && !word.starts_with("--"))
        {
            return Some(rest);
        }
        // `-rt DIR`: a cluster ending in `t` takes the next word.
        if word.len() > 2 && word.starts_with('-') && !word.starts_with("--") && word.ends_with('t')
        {
            return words.get(i + 1).copied();
        }
        i += 1;
    }
    None
}

/// The backup suffix of a sed in-place option (`-i.bak`, `-ni.orig`,
/// `--in-place=.b`), when it has one.
pub(crate) fn sed_backup_suffix(word: &str) -> Option<&str> {
    if let Some(suffix) = word.strip_prefix("--in-place=") {
        return Some(suffix).filter(|s| !s.is_empty());
    }
    if !in_place_sed(word) || word.starts_with("--") {
        return None;
    }
    let cluster = &word[1..];
    let at = cluster.find('i')?;
    Some(&cluster[at + 1..]).filter(|s| !s.is_empty())
}

/// The subcommand of a `git` command line (after `-C DIR`, `-c K=V` and
/// other global options).
pub(crate) fn git_subcommand<'w>(words: &[&'w str]) -> Option<&'w str> {
    let mut i = 1;
    while let Some(word) = words.get(i) {
        if matches!(
            *word,
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace"
        ) {
            i += 2;
        } else if word.starts_with('-') {
            i += 1;
        } else {
            return Some(word);
        }
    }
    None
}

/// Programs whose first operand is a subcommand, not a file.
pub(crate) fn has_subcommand(program: &str) -> bool {
    matches!(
        program,
        "git"
            | "cargo"
            | "npm"
            | "pnpm"
            | "yarn"
            | "go"
            | "docker"
            | "podman"
            | "kubectl"
            | "pip"
            | "pip3"
            | "uv"
            | "poetry"
            | "gh"
            | "systemctl"
            | "brew"
            | "apt"
            | "apt-get"
    )
}

/// Options whose value is a file the program writes (`sort -o F`,
/// `tree -o F`, `curl -o F`).
pub(crate) fn output_options(program: &str) -> &'static [&'static str] {
    match program {
        "sort" | "tree" | "gcc" | "cc" | "clang" | "ld" => &["-o", "--output"],
        "curl" => &[
            "-o",
            "--output",
            "-D",
            "--dump-header",
            "-c",
            "--cookie-jar",
        ],
        "wget" => &["-O", "--output-document", "-o", "--output-file"],
        "find" => &["-fprint", "-fprint0", "-fprintf", "-fls"],
        "git" => &["--output"],
        // The folder every operand is copied, moved or linked into.
        "cp" | "mv" | "install" | "ln" => &["-t", "--target-directory"],
        "tee" | "dd" => &[],
        _ => &[],
    }
}

/// Whether `option` of `program` takes the next word as its value, not a
/// file (`head -n 5`, `grep -e PATTERN`, `rg -C 3`).
pub(crate) fn takes_value(program: &str, option: &str) -> bool {
    match program {
        "head" | "tail" => matches!(option, "-n" | "-c"),
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" => matches!(
            option,
            "-e" | "-m"
                | "-A"
                | "-B"
                | "-C"
                | "-t"
                | "-T"
                | "-j"
                | "-g"
                | "--glob"
                | "--type"
                | "-d"
                | "-D"
                | "--include"
                | "--exclude"
                | "--exclude-dir"
                | "--max-count"
                | "--context"
                | "--after-context"
                | "--before-context"
                | "--regexp"
        ),
        "sed" => matches!(option, "-e" | "--expression" | "-l"),
        "awk" | "gawk" | "mawk" | "nawk" => matches!(option, "-F" | "-v"),
        "sort" => matches!(option, "-k" | "-t" | "-S" | "-T" | "--key"),
        "cut" => matches!(option, "-d" | "-f" | "-b" | "-c"),
        "uniq" => matches!(option, "-f" | "-s" | "-w"),
        "xxd" => matches!(option, "-c" | "-g" | "-l" | "-s" | "-o" | "-n"),
        "git" => matches!(option, "-C" | "-c" | "-m" | "-n" | "-U" | "--format"),
        "tree" => matches!(option, "-L" | "-P" | "-I"),
        "find" => matches!(
            option,
            "-name"
                | "-iname"
                | "-path"
                | "-ipath"
                | "-regex"
                | "-iregex"
                | "-type"
                | "-maxdepth"
                | "-mindepth"
                | "-newer"
                | "-perm"
                | "-size"
                | "-user"
                | "-group"
                | "-mtime"
                | "-mmin"
                | "-atime"
                | "-ctime"
                | "-printf"
                | "-wholename"
        ),
        _ => false,
    }
}

/// Programs whose first operand is not a file (a pattern or a script),
/// unless the pattern is given with an option.
pub(crate) fn pattern_first(program: &str, words: &[&str]) -> bool {
    let explicit = words.iter().any(|w| {
        matches!(*w, "-e" | "-f" | "--file")
            || w.starts_with("--regexp")
            || w.starts_with("--expression")
    });
    let pattern = matches!(
        program,
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" | "sed" | "awk" | "gawk" | "mawk" | "nawk"
    );
    pattern && !explicit
}

/// Programs that name no file (their operands are text, numbers,
/// processes, users or programs).
pub(crate) const NO_FILES: [&str; 24] = [
    "echo", "printf", "true", "false", "exit", "export", "unset", "pwd", "tr", "seq", "sleep",
    "expr", "kill", "yes", "whoami", "id", "uname", "nproc", "umask", "wait", "shift", "which",
    "type", "printenv",
];

/// Programs that read everything below the directories they name (the
/// working directory when they name none): a search reads every file in
/// its scope. `words` are the literal words of the command.
pub(crate) fn searches(program: &str, words: &[&str]) -> Option<SearchDefault> {
    let has = |short: char, long: &str| {
        words.iter().skip(1).any(|w| {
            *w == long || (w.starts_with('-') && !w.starts_with("--") && w[1..].contains(short))
        })
    };
    match program {
        "rg" | "ag" | "ack" => Some(SearchDefault::Cwd),
        // `-d recurse` and `--directories=recurse` are `-r`.
        "grep" | "egrep" | "fgrep"
            if has('r', "--recursive")
                || has('R', "--dereference-recursive")
                || words.windows(2).any(|w| w[0] == "-d" && w[1] == "recurse")
                || words.iter().any(|w| {
                    *w == "-drecurse"
                        || w.strip_prefix("--d").is_some_and(|rest| {
                            rest.split_once('=').is_some_and(|(name, value)| {
                                "irectories".starts_with(name) && value == "recurse"
                            })
                        })
                }) =>
        {
            Some(SearchDefault::Cwd)
        }
        // `diff -r` reads both trees whole.
        "diff" if has('r', "--recursive") => Some(SearchDefault::None),
        "git" if git_subcommand(words) == Some("grep") => Some(SearchDefault::Cwd),
        "zip" if has('r', "--recurse-paths") => Some(SearchDefault::None),
        "tar"
            if words
                .get(1)
                .is_some_and(|w| w.trim_start_matches('-').contains('c'))
                || words.contains(&"--create") =>
        {
            Some(SearchDefault::None)
        }
        "cp" | "scp" | "rsync"
            if has('r', "--recursive") || has('R', "--recursive") || has('a', "--archive") =>
        {
            Some(SearchDefault::None)
        }
        "find"
            if words
                .iter()
                .any(|w| matches!(*w, "-exec" | "-execdir" | "-ok" | "-okdir")) =>
        {
            Some(SearchDefault::Cwd)
        }
        _ => None,
    }
}

/// What a search reads when it names no directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SearchDefault {
    /// The working directory.
    Cwd,
    /// Nothing.
    None,
}

/// Programs that run code no command line reveals (a script file, a
/// program text of their own), for strict mode without a sandbox: their
/// files cannot be known before they run. Matched by name, with version
/// suffixes (`python3.12`, `node20`).
pub(crate) fn runs_code(program: &str, words: &[&str]) -> bool {
    const INTERPRETERS: [&str; 14] = [
        "python",
        "perl",
        "ruby",
        "node",
        "deno",
        "bun",
        "php",
        "lua",
        "luajit",
        "tclsh",
        "Rscript",
        "java",
        "pwsh",
        "osascript",
    ];
    const EDITORS: [&str; 7] = ["vim", "vi", "nvim", "ex", "ed", "emacs", "nano"];
    const RUNNERS: [&str; 9] = [
        "eval", "source", ".", "xargs", "trap", "alias", "make", "npx", "parallel",
    ];
    let stem = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if INTERPRETERS.contains(&stem)
        || EDITORS.contains(&program)
        || RUNNERS.contains(&program)
        || SHELLS.contains(&program)
    {
        return true;
    }
    match program {
        // awk programs can run commands and write files.
        "awk" | "gawk" | "mawk" | "nawk" => words.iter().any(|w| {
            w.contains("system(") || w.contains('|') || w.contains('>') || w.contains("getline")
        }),
        // sed's `e`, `r`, `w` commands.
        "sed" => words
            .iter()
            .skip(1)
            .any(|w| !w.starts_with('-') && sed_file_commands(w).next().is_some()),
        "find" => words
            .iter()
            .any(|w| matches!(*w, "-exec" | "-execdir" | "-ok" | "-okdir")),
        _ => false,
    }
}

/// The files a sed script names with its `r`/`R` (read) and `w`/`W`
/// (write) commands, and `e` (run) as an empty name.
pub(crate) fn sed_file_commands(script: &str) -> impl Iterator<Item = (bool, &str)> {
    script.split(['\n', ';']).filter_map(|command| {
        // A block's braces (`1{e cmd` ... `}`) come before its commands.
        let command =
            command.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '{' | '}'));
        // An address (`1,5`, `/re/`, `\,re,`, `$`, `0~2`, `1,+3`) may come first.
        let body = skip_sed_address(command);
        let body = body.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '{' | '!'));
        let mut chars = body.chars();
        let op = chars.next()?;
        let rest = chars.as_str();
        match op {
            'r' | 'R' => Some((false, rest.trim())),
            'w' | 'W' => Some((true, rest.trim())),
            // `e`, `e cmd`, `ecmd` (GNU sed needs no space).
            'e' => Some((false, "")),
            's' => {
                // s/a/b/w FILE
                let delimiter = rest.chars().next()?;
                let mut parts = rest[delimiter.len_utf8()..].splitn(3, delimiter);
                let (_, _, flags) = (parts.next()?, parts.next()?, parts.next()?);
                let at = flags.find(['w', 'e'])?;
                let file = flags[at + 1..].trim();
                Some((flags[at..].starts_with('w'), file))
            }
            _ => None,
        }
    })
}

/// `command` past its address: one or two of a line number with an
/// optional `~step`, `$`, `/re/` or `\cREc` (a `[...]` in a regular
/// expression may hold the delimiter; `I` and `M` may follow), and after
/// the comma also `+N` or `~N`; then `!`.
fn skip_sed_address(command: &str) -> &str {
    fn one(text: &str, second: bool) -> &str {
        let text = text.trim_start();
        fn digits(t: &str) -> &str {
            t.trim_start_matches(|c: char| c.is_ascii_digit())
        }
        if let Some(rest) = text.strip_prefix('$') {
            return rest;
        }
        if second && let Some(rest) = text.strip_prefix(['+', '~']) {
            return digits(rest);
        }
        if text.starts_with(|c: char| c.is_ascii_digit()) {
            let rest = digits(text);
            return rest.strip_prefix('~').map_or(rest, digits);
        }
        let (delimiter, rest) = match text.strip_prefix('\\') {
            Some(rest) => match rest.chars().next() {
                Some(c) => (c, &rest[c.len_utf8()..]),
                None => return rest,
            },
            None => match text.strip_prefix('/') {
                Some(rest) => ('/', rest),
                None => return text,
            },
        };
        // The regular expression: up to an unescaped delimiter outside `[...]`.
        let mut in_class = false;
        let mut escaped = false;
        for (i, c) in rest.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '[' if !in_class => in_class = true,
                ']' if in_class => in_class = false,
                c if c == delimiter && !in_class => {
                    return rest[i + c.len_utf8()..].trim_start_matches(['I', 'M']);
                }
                _ => {}
            }
        }
        ""
    }
    let rest = one(command, false);
    let rest = match rest.trim_start().strip_prefix(',') {
        Some(second) => one(second, true),
        None => rest,
    };
    rest.trim_start()
        .trim_start_matches(|c: char| c == '!' || c.is_whitespace())
}

/// The files an awk program text writes or reads by itself
/// (`print > "f"`, `getline < "f"`): the quoted names after `>`, `>>`, `<`.
pub(crate) fn awk_files(program: &str) -> Vec<(bool, String)> {
    let mut found = Vec::new();
    let bytes = program.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let write = match bytes[i] {
            b'>' => true,
            b'<' => false,
            _ => {
                i += 1;
                continue;
            }
        };
        let mut j = i + 1;
        while j < bytes.len() && matches!(bytes[j], b'>' | b' ' | b'\t') {
            j += 1;
        }
        if bytes.get(j) == Some(&b'"')
            && let Some(end) = program[j + 1..].find('"')
        {
            found.push((write, program[j + 1..j + 1 + end].to_owned()));
            i = j + 2 + end;
            continue;
        }
        i = j.max(i + 1);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrappers_lead_to_the_real_program() {
        let w = |line: &str| {
            let words: Vec<Option<&str>> = line.split(' ').map(Some).collect();
            wrapped(&words, 0).map(|i| words[i].unwrap_or_default().to_owned())
        };
        assert_eq!(w("env A=1 bash -c x").as_deref(), Some("bash"));
        assert_eq!(w("timeout 5 cat f").as_deref(), Some("cat"));
        assert_eq!(w("timeout -s KILL 5 cat f").as_deref(), Some("cat"));
        assert_eq!(w("sudo -u root cat f").as_deref(), Some("cat"));
        assert_eq!(w("command -p cat f").as_deref(), Some("cat"));
        assert_eq!(w("cat f"), None);
    }

    #[test]
    fn in_place_and_output_options_are_writes() {
        for flags in [
            &["sed", "-i", "s/a/b/", "f"][..],
            &["sed", "-Ei", "x", "f"],
            &["sed", "-i.bak", "x", "f"],
            &["sed", "--in-place=.b", "x", "f"],
        ] {
            assert!(!reads_only("sed", flags), "{flags:?}");
        }
        assert!(reads_only("sed", &["sed", "-n", "1p", "f"]));
        assert!(reads_only("sed", &["sed", "-e", "s/i/x/", "f"]));
        assert!(output_options("tree").contains(&"-o"));
    }

    #[test]
    fn sed_and_awk_programs_name_their_files() {
        let sed: Vec<(bool, &str)> = sed_file_commands("1r secrets/key;w out.txt").collect();
        assert_eq!(sed, [(false, "secrets/key"), (true, "out.txt")]);
        let subst: Vec<(bool, &str)> = sed_file_commands("s/a/b/w .agentctx.yaml").collect();
        assert_eq!(subst, [(true, ".agentctx.yaml")]);
        assert_eq!(
            awk_files(r#"{print > ".agentctx.yaml"} END{getline x < "secrets/key"}"#),
            [
                (true, ".agentctx.yaml".to_owned()),
                (false, "secrets/key".to_owned())
            ]
        );
    }

    #[test]
    fn runners_include_versioned_interpreters() {
        assert!(runs_code("python3.12", &[]));
        assert!(runs_code("node20", &[]));
        assert!(runs_code("awk", &["awk", "BEGIN{system(\"x\")}"]));
        assert!(!runs_code("awk", &["awk", "{print $1}"]));
        assert!(!runs_code("cat", &[]));
    }
}
