//! Repository names, checked before any request is made: `OWNER/REPO[@REF]`
//! on GitHub, `GROUP/.../PROJECT[@REF]` or a numeric project id on GitLab.
//! A name that cannot be one (`not a repo`, `acme`, `acme/app/extra` on
//! GitHub, `acme/../app`) is an error naming what is wrong, never a request
//! (and never a cache file named after it).

use super::{Platform, RemoteError, RemoteRepo};

/// Longest owner or repository name GitHub accepts (repositories: 100).
const GITHUB_PART_MAX: usize = 100;
/// Longest group or project path GitLab accepts.
const GITLAB_PART_MAX: usize = 255;
/// Longest ref this checks (git itself has no fixed limit; a longer one
/// is no branch or tag anyone typed).
const REF_MAX: usize = 1024;

/// `Ok` when `repo` names a repository and ref that can exist on its
/// platform; else why not.
pub(super) fn check(repo: &RemoteRepo) -> Result<(), RemoteError> {
    let invalid = |reason: String| RemoteError::InvalidName {
        name: match &repo.reference {
            Some(reference) => format!("{}@{reference}", repo.repo),
            None => repo.repo.clone(),
        },
        platform: repo.platform.name(),
        expected: match repo.platform {
            Platform::GitHub => "OWNER/REPO[@REF]",
            Platform::GitLab => "GROUP/.../PROJECT[@REF] or a project id",
        },
        reason,
    };
    let parts: Vec<&str> = repo.repo.split('/').collect();
    match repo.platform {
        Platform::GitHub => {
            if parts.len() != 2 {
                return Err(invalid(format!(
                    "{} where OWNER/REPO has 2",
                    count(parts.len())
                )));
            }
            for part in &parts {
                part_problem(part, GITHUB_PART_MAX).map_or(Ok(()), |why| Err(invalid(why)))?;
            }
        }
        Platform::GitLab => {
            let numeric_id = parts.len() == 1
                && !parts[0].is_empty()
                && parts[0].bytes().all(|b| b.is_ascii_digit());
            if !numeric_id {
                if parts.len() < 2 {
                    return Err(invalid(format!(
                        "{} where GROUP/PROJECT has at least 2",
                        count(parts.len())
                    )));
                }
                for part in &parts {
                    part_problem(part, GITLAB_PART_MAX).map_or(Ok(()), |why| Err(invalid(why)))?;
                }
            }
        }
    }
    if let Some(reference) = &repo.reference
        && let Some(why) = ref_problem(reference)
    {
        return Err(invalid(why));
    }
    Ok(())
}

fn count(parts: usize) -> String {
    match parts {
        1 => "1 part".to_owned(),
        n => format!("{n} parts"),
    }
}

/// What is wrong with one part of a repository's path (owner, group,
/// name): both platforms take ASCII letters, digits, `-`, `_` and `.`.
fn part_problem(part: &str, max: usize) -> Option<String> {
    if part.is_empty() {
        return Some("an empty part (`//`, or `/` at an end)".to_owned());
    }
    if let Some(c) = part
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Some(format!(
            "{} in `{part}`: a name holds letters, digits, `-`, `_` and `.`",
            shown(c)
        ));
    }
    if part == "." || part == ".." {
        return Some(format!("`{part}` is not a name"));
    }
    if part.starts_with('-') {
        return Some(format!("`{part}` starts with `-`"));
    }
    if part.len() > max {
        return Some(format!("`{part}` is longer than {max} characters"));
    }
    None
}

/// What is wrong with a branch, tag or commit name, by git's own rules
/// (`git check-ref-format`): no control characters, spaces or `~^:?*[\`,
/// no `..` or `@{`, no part that starts with `.` or ends with `.lock`, no
/// `/` at an end or twice in a row, no `.` at the end, not `@` alone, not
/// starting with `-`.
fn ref_problem(reference: &str) -> Option<String> {
    let bad = |why: &str| Some(format!("ref `{}`: {why}", reference.escape_debug()));
    if reference.len() > REF_MAX {
        return Some(format!("a ref longer than {REF_MAX} bytes"));
    }
    if let Some(c) = reference
        .chars()
        .find(|c| c.is_control() || matches!(c, ' ' | '~' | '^' | ':' | '?' | '*' | '[' | '\\'))
    {
        return bad(&format!("{} is not allowed in a ref", shown(c)));
    }
    if reference.contains("..") || reference.contains("@{") || reference == "@" {
        return bad("`..`, `@{` and `@` alone are not allowed in a ref");
    }
    if reference.starts_with('-') {
        return bad("a ref does not start with `-`");
    }
    if reference.ends_with('.') {
        return bad("a ref does not end with `.`");
    }
    for part in reference.split('/') {
        if part.is_empty() {
            return bad("an empty part (`//`, or `/` at an end)");
        }
        if part.starts_with('.') || part.ends_with(".lock") {
            return bad("a part of a ref does not start with `.` or end with `.lock`");
        }
    }
    None
}

/// A character as an error shows it: a space by name, others quoted.
fn shown(c: char) -> String {
    match c {
        ' ' => "a space".to_owned(),
        c if c.is_control() => format!("`{}`", c.escape_default()),
        c => format!("`{c}`"),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;

    fn checked(platform: Platform, spec: &str) -> Result<(), String> {
        check(&RemoteRepo::parse(platform, spec, None)).map_err(|e| e.to_string())
    }

    #[test]
    fn github_names_that_can_exist_pass() {
        for spec in [
            "BurntSushi/ripgrep",
            "spring-projects/spring-petclinic",
            "acme/app.js",
            "acme/app@main",
            "acme/app@feature/x",
            "acme/app@x&y#1",
            "acme/app@v1.2.3",
            "acme/app@c0ffee0000000000000000000000000000000001",
            "octo_emu/my_repo",
        ] {
            assert_eq!(checked(Platform::GitHub, spec), Ok(()), "{spec}");
        }
    }

    #[test]
    fn github_names_that_cannot_exist_say_why() {
        for (spec, why) in [
            ("not a repo", "1 part where OWNER/REPO has 2"),
            ("acme", "1 part where OWNER/REPO has 2"),
            ("acme/app/extra", "3 parts where OWNER/REPO has 2"),
            ("acme//app", "3 parts"),
            ("not a/repo", "a space in `not a`"),
            ("acme/app?x=1", "`?` in `app?x=1`"),
            ("acme/..", "`..` is not a name"),
            ("-acme/app", "`-acme` starts with `-`"),
            ("acme/app@", "`@` in `app@`"),
            ("acme/app@a..b", "ref `a..b`"),
            ("acme/app@has space", "a space is not allowed in a ref"),
            ("acme/app@x.lock", "`.lock`"),
            ("acme/app@-x", "does not start with `-`"),
        ] {
            let error = checked(Platform::GitHub, spec).unwrap_err();
            assert!(error.contains(why), "{spec}: {error}");
            assert!(error.contains("expected OWNER/REPO[@REF]"), "{error}");
        }
    }

    #[test]
    fn gitlab_takes_nested_groups_and_ids_and_refuses_the_rest() {
        for spec in [
            "group/project",
            "group/sub/sub2/project@main",
            "12345",
            "12345@v1",
        ] {
            assert_eq!(checked(Platform::GitLab, spec), Ok(()), "{spec}");
        }
        for (spec, why) in [
            ("project", "1 part where GROUP/PROJECT has at least 2"),
            ("group/pro ject", "a space"),
            ("group/../project", "`..` is not a name"),
        ] {
            let error = checked(Platform::GitLab, spec).unwrap_err();
            assert!(error.contains(why), "{spec}: {error}");
        }
    }
}
