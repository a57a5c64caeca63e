//! Codex's permission profile kept in step with the rules: install writes
//! it into the project's `.codex/config.toml`; a session start writes it
//! again when the rules or the tree changed since.

use agentctx_session::Host;

/// Codex's own sandbox refuses what the rules mask through the
/// permission profile install wrote into the project's
/// `.codex/config.toml`; when the rules or the tree changed since, the
/// profile is written again (Codex reads it at its next start; until
/// then `agentctx exec` finds the gap and, where the sandbox is
/// required, refuses the command).
pub(crate) fn refresh(host: &Host<'_>, notes: &mut Vec<String>) {
    let Some(anchor) = host.anchor else {
        return;
    };
    let Some(file) = real_file(&anchor.root.join(".codex/config.toml"), &anchor.root) else {
        return notes.push(
            "Codex permission profile not refreshed: .codex/config.toml links out of the project"
                .to_owned(),
        );
    };
    // Not blocking on a FIFO a command could have left there.
    let Ok(text) = agentctx_fs::read_to_string(&file, agentctx_agents::PROJECT_FILE_LIMIT) else {
        return;
    };
    if !text.contains(&format!("[permissions.{}", agentctx_agents::CODEX_PROFILE)) {
        return;
    }
    let entries = match agentctx_guard::codex_permissions(host, &anchor.root) {
        Ok(entries) => entries,
        Err(error) => {
            return notes.push(format!("Codex permission profile not refreshed: {error}"));
        }
    };
    match agentctx_install::edit_codex_profile(Some(&text), &entries, true) {
        Ok(fresh) if fresh != text => {
            // The user's file: its mode and owner stay.
            match agentctx_fs::replace_file(&file, fresh.as_bytes(), None) {
                Ok(()) => notes.push(format!(
                    "Codex permission profile in {} refreshed (from the next session)",
                    file.display()
                )),
                Err(error) => {
                    notes.push(format!("Codex permission profile not refreshed: {error}"))
                }
            }
        }
        Ok(_) => {}
        Err(error) => notes.push(format!("Codex permission profile not refreshed: {error}")),
    }
}

/// The file itself, or the target of a link that stays in the project
/// (written there so the link stays a link, as install does); `None` for
/// a link out of it.
fn real_file(file: &std::path::Path, root: &std::path::Path) -> Option<std::path::PathBuf> {
    let is_link = std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return Some(file.to_path_buf());
    }
    // A dangling link is left to the read that follows.
    let Ok(target) = std::fs::canonicalize(file) else {
        return Some(file.to_path_buf());
    };
    let root = std::fs::canonicalize(root).ok()?;
    target.starts_with(&root).then_some(target)
}
