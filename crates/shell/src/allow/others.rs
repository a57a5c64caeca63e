//! The allowed programs with options, addresses or program texts that open
//! files by another route: `find`, `sed`, the shells, `tar`, `curl`, `jq`.

use super::{Access, Unverifiable, WordsChecked, deny_options, named, programs};

fn denied(program: &str, what: String, reason: &str) -> Result<(), Unverifiable> {
    Err(Unverifiable {
        what,
        reason: reason.to_owned(),
        program: Some(program.to_owned()),
    })
}

/// `find`: its `-exec` commands are checked as commands of their own; a
/// found file run as the program is not, nor a list of start points read
/// from a file.
pub(super) fn find(args: &[&str]) -> Result<(), Unverifiable> {
    for (i, word) in args.iter().copied().enumerate() {
        if word == "-files0-from" {
            return denied(
                "find",
                format!("find {word}"),
                "opens the files a list in a file names",
            );
        }
        if matches!(word, "-exec" | "-execdir" | "-ok" | "-okdir") {
            let command: Vec<Option<&str>> = args[i + 1..]
                .iter()
                .copied()
                .take_while(|w| !matches!(*w, ";" | "+"))
                .map(Some)
                .collect();
            let mut at = 0;
            while let Some(next) = programs::wrapped(&command, at) {
                at = next;
            }
            if command
                .get(at)
                .copied()
                .flatten()
                .is_some_and(|w| w.contains("{}"))
            {
                return denied(
                    "find",
                    format!("find {word} {{}}"),
                    "runs the files it finds",
                );
            }
        }
    }
    Ok(())
}

/// `sed`: a script from a file is unknown, and its `e`, `r`, `R`, `w`,
/// `W` commands (and `s///e`, `s///w`) run commands or open files.
pub(super) fn sed(args: &[&str]) -> Result<(), Unverifiable> {
    deny_options(
        "sed",
        args,
        &[("--file", "reads its script from a file")],
        &[('f', "reads its script from a file")],
    )?;
    let mut scripts: Vec<&str> = Vec::new();
    let mut words = args.iter().copied();
    let mut operand = None;
    while let Some(word) = words.next() {
        if word == "-e" || word == "--expression" {
            scripts.extend(words.next());
        } else if let Some(script) = word.strip_prefix("--expression=") {
            scripts.push(script);
        } else if let Some(script) = word.strip_prefix("-e").filter(|s| !s.is_empty()) {
            scripts.push(script);
        } else if word == "-l" || word == "--line-length" {
            words.next();
        } else if !word.starts_with('-') && operand.is_none() {
            operand = Some(word);
        }
    }
    if scripts.is_empty() {
        scripts.extend(operand);
    }
    match scripts
        .into_iter()
        .find(|script| programs::sed_file_commands(script).next().is_some())
    {
        Some(script) => denied(
            "sed",
            format!("sed {script}"),
            "runs a command or opens a file with its `e`, `r`, `R`, `w` or `W` command",
        ),
        None => Ok(()),
    }
}

/// A shell with a `-c` line (followed by the parser as commands of its
/// own) or a here-document, and no option that reads startup files.
pub(super) fn shell(program: &str, args: &[&str]) -> Result<(), Unverifiable> {
    const SET_OPTIONS: [&str; 5] = ["pipefail", "errexit", "nounset", "xtrace", "noglob"];
    let mut words = args.iter().copied();
    let mut line = false;
    while let Some(word) = words.next() {
        let quiet = match word {
            "--" => break,
            "--norc" | "--noprofile" => true,
            "-o" | "+o" => words.next().is_some_and(|o| SET_OPTIONS.contains(&o)),
            _ if word.len() > 1 && (word.starts_with('-') || word.starts_with('+')) => {
                word[1..].chars().all(|c| "ceuxvfn".contains(c))
            }
            _ => {
                if line {
                    // The line itself, then `$0` and its arguments.
                    return Ok(());
                }
                return denied(
                    program,
                    format!("{program} {word}"),
                    "runs a script file whose files cannot be known",
                );
            }
        };
        if !quiet {
            return denied(
                program,
                format!("{program} {word}"),
                "reads startup files or runs a script whose files cannot be known",
            );
        }
        line |= word.starts_with('-') && word.contains('c') && !word.starts_with("--");
    }
    Ok(())
}

/// `tar`: creating and listing archives, never extracting them (an
/// archive names the files it writes), with no list of files read from a
/// file, no other folder, no program of its own; the archive it creates
/// or changes is a file written.
pub(super) fn tar(args: &[&str], out: &mut WordsChecked) -> Result<(), Unverifiable> {
    const LIST: &str = "opens the files a list in a file names";
    const PROGRAM: &str = "runs a program";
    const EXTRACT: &str = "extracts an archive, which names the files it writes";
    deny_options(
        "tar",
        args,
        &[
            ("--extract", EXTRACT),
            ("--get", EXTRACT),
            ("--files-from", LIST),
            ("--directory", "works in another folder"),
            ("--use-compress-program", PROGRAM),
            ("--to-command", PROGRAM),
            ("--checkpoint-action", PROGRAM),
            ("--info-script", PROGRAM),
            ("--new-volume-script", PROGRAM),
            ("--rsh-command", PROGRAM),
            ("--rmt-command", PROGRAM),
            ("--listed-incremental", "writes a snapshot file"),
            ("--index-file", "writes a file"),
            ("--volno-file", "writes a file"),
        ],
        &[],
    )?;
    // Short options: `-czf ARCHIVE`, and the old style's first word `czf`
    // whose values follow it in order.
    const VALUES: &str = "bfgCFIKLNTVX";
    let mut values: Vec<char> = Vec::new();
    let mut archive: Option<&str> = None;
    let mut creates = false;
    let mut words = args.iter().copied().enumerate();
    while let Some((i, word)) = words.next() {
        let cluster = if let Some(long) = word.strip_prefix("--") {
            let (name, value) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            if name.len() >= 2 && "file".starts_with(name) {
                archive = value.or_else(|| words.next().map(|(_, w)| w));
            }
            creates |= matches!(
                name,
                "create" | "append" | "update" | "concatenate" | "catenate" | "delete"
            );
            continue;
        } else if let Some(cluster) = word.strip_prefix('-') {
            cluster
        } else if i == 0 {
            word
        } else {
            // An operand, or the value of an old-style letter.
            if !values.is_empty() && values.remove(0) == 'f' {
                archive = Some(word);
            }
            continue;
        };
        let old_style = !word.starts_with('-');
        for (at, letter) in cluster.char_indices() {
            match letter {
                'x' => return denied("tar", format!("tar {word}"), EXTRACT),
                'T' => return denied("tar", format!("tar {word}"), LIST),
                'C' => return denied("tar", format!("tar {word}"), "works in another folder"),
                'I' | 'F' => return denied("tar", format!("tar {word}"), PROGRAM),
                'g' => return denied("tar", format!("tar {word}"), "writes a snapshot file"),
                'c' | 'r' | 'u' | 'A' => creates = true,
                _ => {}
            }
            if VALUES.contains(letter) {
                if old_style {
                    values.push(letter);
                    continue;
                }
                let rest = &cluster[at + letter.len_utf8()..];
                let value = if rest.is_empty() {
                    words.next().map(|(_, w)| w)
                } else {
                    Some(rest)
                };
                if letter == 'f' {
                    archive = value;
                }
                break;
            }
        }
    }
    if let Some(archive) = archive.filter(|a| *a != "-") {
        if archive
            .split('/')
            .next()
            .is_some_and(|host| host.contains(':'))
        {
            return denied(
                "tar",
                format!("tar -f {archive}"),
                "names a remote archive, which tar reaches through a remote shell",
            );
        }
        let access = if creates { Access::Write } else { Access::Read };
        out.extra.push(named("tar", archive, access));
    }
    Ok(())
}

/// `curl`: options from a list of those that open no file and run
/// nothing (not `-K`/`--config`, not `@file` values, not `-O`), and URLs
/// of the network's schemes (not `file:`).
pub(super) fn curl(args: &[&str]) -> Result<(), Unverifiable> {
    const FLAGS: [&str; 34] = [
        "--silent",
        "--show-error",
        "--location",
        "--fail",
        "--fail-with-body",
        "--include",
        "--head",
        "--verbose",
        "--insecure",
        "--get",
        "--compressed",
        "--no-buffer",
        "--progress-bar",
        "--http1.0",
        "--http1.1",
        "--http2",
        "--http3",
        "--globoff",
        "--no-progress-meter",
        "--disable",
        "--location-trusted",
        "--raw",
        "--ssl-reqd",
        "--tlsv1.2",
        "--tlsv1.3",
        "--parallel",
        "--fail-early",
        "--no-keepalive",
        "--path-as-is",
        "--ipv4",
        "--ipv6",
        "--create-dirs",
        "--tr-encoding",
        "--no-sessionid",
    ];
    const VALUED: [&str; 28] = [
        "--request",
        "--header",
        "--data",
        "--data-raw",
        "--data-binary",
        "--data-ascii",
        "--data-urlencode",
        "--json",
        "--form",
        "--form-string",
        "--user-agent",
        "--referer",
        "--user",
        "--max-time",
        "--connect-timeout",
        "--retry",
        "--retry-delay",
        "--retry-max-time",
        "--write-out",
        "--range",
        "--proxy",
        "--url",
        "--max-redirs",
        "--limit-rate",
        "--resolve",
        "--connect-to",
        "--max-filesize",
        "--output",
    ];
    const SHORT_FLAGS: &str = "sSLfiIvkGN#46gqZ";
    const SHORT_VALUED: &str = "XHdAeumwrxoF";
    let long_of = |c: char| match c {
        'H' => "--header",
        'd' => "--data",
        'F' => "--form",
        'w' => "--write-out",
        'o' => "--output",
        _ => "",
    };
    let mut words = args.iter().copied();
    while let Some(word) = words.next() {
        let (option, value): (&str, Option<&str>) = if word.starts_with("--") {
            if word == "--" {
                continue;
            }
            let (name, inline) = word
                .split_once('=')
                .map_or((word, None), |(n, v)| (n, Some(v)));
            if FLAGS.contains(&name) {
                continue;
            }
            if !VALUED.contains(&name) {
                return denied(
                    "curl",
                    format!("curl {word}"),
                    "is not among curl's options that open no file and run nothing (`-K`/`--config` reads options from a file)",
                );
            }
            (name, inline.or_else(|| words.next()))
        } else if let Some(cluster) = word.strip_prefix('-').filter(|c| !c.is_empty()) {
            let mut found = None;
            for (at, c) in cluster.char_indices() {
                if SHORT_FLAGS.contains(c) {
                    continue;
                }
                if !SHORT_VALUED.contains(c) {
                    return denied(
                        "curl",
                        format!("curl {word}"),
                        "is not among curl's options that open no file and run nothing (`-K`/`--config` reads options from a file, `-O` names its own output)",
                    );
                }
                let rest = &cluster[at + 1..];
                found = Some((
                    long_of(c),
                    if rest.is_empty() {
                        words.next()
                    } else {
                        Some(rest)
                    },
                ));
                break;
            }
            match found {
                Some(found) => found,
                None => continue,
            }
        } else {
            url(word)?;
            continue;
        };
        let value = value.unwrap_or_default();
        let reads_file = match option {
            "--data" | "--data-binary" | "--data-ascii" | "--json" | "--header" | "--write-out" => {
                value.starts_with('@')
            }
            "--data-urlencode" => value.contains('@'),
            "--form" => value.contains("=@") || value.contains("=<"),
            "--url" => return url(value),
            _ => false,
        };
        if reads_file {
            return denied(
                "curl",
                format!("curl {option} {value}"),
                "reads a file its value names after `@` or `<`",
            );
        }
    }
    Ok(())
}

/// A URL curl may fetch: the network's schemes only (`file:` reads a
/// file; others run helpers or read keys).
fn url(word: &str) -> Result<(), Unverifiable> {
    let lower = word.to_ascii_lowercase();
    let scheme = lower.split_once("://").map(|(s, _)| s);
    let allowed = match scheme {
        Some(scheme) => matches!(scheme, "http" | "https" | "ftp" | "ftps"),
        None => !lower.starts_with("file:"),
    };
    if allowed {
        Ok(())
    } else {
        denied(
            "curl",
            format!("curl {word}"),
            "fetches a URL of a scheme that opens local files or runs helpers (only http, https and ftp are allowed)",
        )
    }
}

/// `jq`: its program from the command line, loading no module or data
/// file (`import`, `include`, `--rawfile`, `--slurpfile`, `-L`).
pub(super) fn jq(args: &[&str]) -> Result<(), Unverifiable> {
    const FILE: &str = "reads a file its words do not name as one";
    deny_options(
        "jq",
        args,
        &[
            ("--from-file", FILE),
            ("--rawfile", FILE),
            ("--slurpfile", FILE),
            ("--argfile", FILE),
            ("--library-path", FILE),
        ],
        &[('f', FILE), ('L', FILE)],
    )?;
    let mut words = args.iter().copied();
    while let Some(word) = words.next() {
        match word {
            "--arg" | "--argjson" => {
                words.next();
                words.next();
            }
            "--indent" => {
                words.next();
            }
            "--args" | "--jsonargs" | "--" => break,
            _ if word.starts_with('-') && word.len() > 1 => {}
            program => {
                const MODULES: [&str; 4] = ["import", "include", "modulemeta", "get_search_list"];
                if let Some(module) = MODULES.iter().find(|m| has_keyword(program, m)) {
                    return denied("jq", format!("jq {module}"), "loads a module or data file");
                }
                break;
            }
        }
    }
    Ok(())
}

/// Whether `text` holds `word` as a jq keyword or function name: not part
/// of a longer name, a field (`.include`) or a variable (`$import`).
fn has_keyword(text: &str, word: &str) -> bool {
    let name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(|c| name(c) || c == '.' || c == '$') && !after.is_some_and(name)
    })
}
