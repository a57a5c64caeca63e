//! Where the rules' text goes in the system prompt.

/// The system prompt in the spec's order: the base prompt, then the rules'
/// extension, then the tool descriptions, one blank line between parts.
/// Empty parts are left out; trailing whitespace of each part is trimmed.
///
/// ```
/// let prompt = agentctx_rules::compose_system_prompt("You are a coding agent.", Some("Use Rust 2024.\n"), "Tools: Read, Edit");
/// assert_eq!(prompt, "You are a coding agent.\n\nUse Rust 2024.\n\nTools: Read, Edit");
/// ```
pub fn compose_system_prompt(
    base: &str,
    extension: Option<&str>,
    tool_descriptions: &str,
) -> String {
    [Some(base), extension, Some(tool_descriptions)]
        .into_iter()
        .flatten()
        .map(str::trim_end)
        .filter(|part| !part.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::compose_system_prompt;

    #[test]
    fn empty_parts_are_left_out_and_no_blank_lines_pile_up() {
        assert_eq!(compose_system_prompt("", Some("  \n"), ""), "");
        assert_eq!(
            compose_system_prompt("base\n\n", None, "tools\n"),
            "base\n\ntools"
        );
        assert_eq!(compose_system_prompt("", Some("ext"), ""), "ext");
    }
}
