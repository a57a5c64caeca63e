//! How a config or rule file's parse errors are worded for the person
//! editing it: what was expected and what was found, in the file's terms
//! (a list, a mapping, true or false), never the parser's or serde's
//! (`sequence start`, `string scalar`, `variant`). Text, and (feature
//! `yaml`) serde-saphyr's errors mapped onto it once for the config and
//! the rule files ([`yaml_message`]).

/// What a parser or serde expected (`sequence start`, `a map`, `u64`,
/// `struct Config`), in the file's terms; anything else as it is.
pub fn expected(what: &str) -> String {
    match what {
        "sequence start" | "a sequence" => "a list (`[a, b]`, or one `- item` per line)".to_owned(),
        "mapping start" | "a map" => {
            "a mapping of keys (leave an empty section out, or write `{}`)".to_owned()
        }
        "string scalar" | "a string" => "a text value".to_owned(),
        "a boolean" => "true or false".to_owned(),
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" => {
            "a whole number".to_owned()
        }
        "f32" | "f64" => "a number".to_owned(),
        other if other.starts_with("struct ") => "a mapping of keys".to_owned(),
        other => other.to_owned(),
    }
}

/// The value that starts at 1-based `line` and `column` of `text`, for a
/// message: `` `yes` ``, ``a list `[a]` ``, or `nothing`. It runs to the
/// end of its line, without a comment, and for a plain value in a flow
/// list or mapping, to its `,`, `]` or `}`.
pub fn found_at(text: &str, line: u64, column: u64) -> String {
    let value = value_at(text, line, column);
    match value.chars().next() {
        None => "nothing".to_owned(),
        Some('[') => format!("a list `{value}`"),
        Some('{') => format!("a mapping `{value}`"),
        Some(_) => format!("`{value}`"),
    }
}

/// The bare value [`found_at`] describes.
pub fn value_at(text: &str, line: u64, column: u64) -> String {
    let Some(row) = usize::try_from(line)
        .ok()
        .and_then(|l| l.checked_sub(1))
        .and_then(|l| text.lines().nth(l))
    else {
        return String::new();
    };
    let skip = usize::try_from(column.saturating_sub(1)).unwrap_or(usize::MAX);
    let rest: String = row.chars().skip(skip).collect();
    let rest = match rest.find(" #") {
        Some(at) => &rest[..at],
        None => rest.as_str(),
    };
    let rest = rest.trim();
    let end = match rest.chars().next() {
        Some('[' | '{') => flow_end(rest),
        Some('"' | '\'') => rest.len(),
        _ => rest.find([',', ']', '}']).unwrap_or(rest.len()),
    };
    rest[..end].trim().to_owned()
}

/// Where the flow list or mapping that `text` starts with ends (its
/// closing bracket included; the whole line when it does not close there).
fn flow_end(text: &str) -> usize {
    let mut depth = 0usize;
    let mut quote = None;
    for (at, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return at + c.len_utf8();
                }
            }
            (None, _) => {}
        }
    }
    text.len()
}

/// A strict boolean that was not one: what to say about `value`.
pub fn not_a_boolean(value: &str) -> String {
    let yaml11 = ["yes", "no", "on", "off", "y", "n"]
        .iter()
        .any(|word| value.eq_ignore_ascii_case(word));
    let found = if value.is_empty() {
        "nothing".to_owned()
    } else {
        format!("`{value}`")
    };
    format!(
        "expected true or false, got {found}{}",
        if yaml11 {
            " (yes, no, on and off are text here, not booleans)"
        } else {
            ""
        }
    )
}

/// An alias inside the anchor it names.
pub const ALIAS_LOOP: &str = "an alias (`*name`) refers to the anchor it is inside, so its value never ends; write the value out";

/// serde's generic messages (`invalid type: string "x", expected a
/// boolean`, `unknown field`, `unknown variant`, `missing field`) in the
/// file's terms; other messages as they are.
pub fn plain(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("invalid type: ")
        && let Some((found, what)) = rest.split_once(", expected ")
    {
        let found = match found {
            "sequence" => "a list",
            "map" => "a mapping",
            other => other,
        };
        return format!("expected {}, got {found}", expected(what));
    }
    if let Some(rest) = message.strip_prefix("invalid value: ")
        && let Some((found, what)) = rest.split_once(", expected ")
    {
        return format!("expected {what}, got {found}");
    }
    message
        .replace("unknown field `", "unknown key `")
        .replace("unknown variant `", "unknown value `")
        .replace("missing field `", "missing key `")
}

/// The error serde-saphyr reports under its snippet and alias wrappers.
#[cfg(feature = "yaml")]
pub fn innermost_yaml_error(mut error: &serde_saphyr::Error) -> &serde_saphyr::Error {
    loop {
        error = match error.without_snippet() {
            serde_saphyr::Error::AliasError { error, .. } => error,
            other => return other,
        };
    }
}

/// serde-saphyr's own message for `error`, in [`plain`] words and without
/// the position it appends (the caller prints `file:line:col` itself): for
/// the errors [`yaml_message`] does not word.
#[cfg(feature = "yaml")]
pub fn yaml_fallback(error: &serde_saphyr::Error) -> String {
    let rendered = error.without_snippet().to_string();
    let bare = match rendered.rfind(" at line ") {
        Some(at) => &rendered[..at],
        None => rendered.as_str(),
    };
    plain(bare.trim())
}

/// serde-saphyr's `error` (its innermost, past aliases) in the words of the
/// person editing the file, with the value found at `line` and `column`;
/// `None` for an error these words do not cover (the caller says it its
/// own way: a duplicate key names its path, which only the caller knows).
#[cfg(feature = "yaml")]
pub fn yaml_message(
    error: &serde_saphyr::Error,
    text: &str,
    line: u64,
    column: u64,
) -> Option<String> {
    Some(match error {
        serde_saphyr::Error::InvalidBooleanStrict { .. } => {
            not_a_boolean(&value_at(text, line, column))
        }
        serde_saphyr::Error::Unexpected { expected: what, .. } => format!(
            "expected {}, got {}",
            expected(what),
            found_at(text, line, column)
        ),
        serde_saphyr::Error::InvalidScalar { ty, .. } => format!(
            "expected {}, got {}",
            expected(ty),
            found_at(text, line, column)
        ),
        serde_saphyr::Error::NullIntoString { .. } => {
            "expected a text value, got nothing".to_owned()
        }
        serde_saphyr::Error::RecursiveReferencesRequireWeakTypes { .. } => ALIAS_LOOP.to_owned(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_found_where_the_parser_points() {
        let text = "a:\n  strict: maybe # sure\n  list: [one, {b: c}]\n";
        assert_eq!(found_at(text, 2, 11), "`maybe`");
        assert_eq!(found_at(text, 3, 9), "a list `[one, {b: c}]`");
        assert_eq!(found_at(text, 3, 10), "`one`");
        assert_eq!(found_at(text, 3, 15), "a mapping `{b: c}`");
        assert_eq!(found_at(text, 9, 1), "nothing");
    }

    #[test]
    fn serde_words_become_the_files() {
        assert_eq!(
            plain("invalid type: sequence, expected a boolean"),
            "expected true or false, got a list"
        );
        assert_eq!(
            plain("unknown variant `x`, expected one of a, b"),
            "unknown value `x`, expected one of a, b"
        );
        assert_eq!(
            not_a_boolean("Yes"),
            "expected true or false, got `Yes` (yes, no, on and off are text here, not booleans)"
        );
    }
}
