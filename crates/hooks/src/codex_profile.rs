//! Codex's permission profile kept in step with the rules: install writes
//! it into the project's `.codex/config.toml`; a session start writes it
//! again when the rules or the tree changed since.

use crate::Host;

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
    let file = anchor.root.join(".codex/config.toml");
    let Ok(text) = std::fs::read_to_string(&file) else {
        return;
    };
    if !text.contains(&format!("[permissions.{}", crate::CODEX_PROFILE)) {
        return;
    }
    let entries = match crate::codex_permissions(host, &anchor.root) {
        Ok(entries) => entries,
        Err(error) => {
            return notes.push(format!("Codex permission profile not refreshed: {error}"));
        }
    };
    match crate::install::edit_codex_profile(Some(&text), &entries, true) {
        Ok(fresh) if fresh != text => {
            let written = tempfile::NamedTempFile::new_in(file.parent().unwrap_or(&anchor.root))
                .and_then(|mut temp| {
                    std::io::Write::write_all(&mut temp, fresh.as_bytes())?;
                    temp.persist(&file).map(drop).map_err(|e| e.error)
                });
            match written {
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
