//! `agentctx install` / `agentctx uninstall`: hook configuration for Claude
//! Code and Codex, merged into the user's files without losing or
//! reordering anything, backed up, idempotent, and reversible.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde_json::{Map, Value, json};

use crate::cli::InstallArgs;
use crate::commands::{Invocation, Outcome};

/// The command every hook entry runs.
pub const HOOK_COMMAND: &str = "agentctx hook";
/// Codex `notify`.
const NOTIFY: [&str; 3] = ["agentctx", "mem", "capture"];
/// Marks the TOML values install added, so uninstall removes exactly those.
const MARK: &str = "added by agentctx";
const EVENTS: [(&str, bool); 4] = [
    ("SessionStart", false),
    ("PreToolUse", true),
    ("PostToolUse", true),
    ("SubagentStop", false),
];

struct Targets {
    hooks_json: PathBuf,
    codex_toml: Option<PathBuf>,
}

fn targets(inv: &Invocation, args: &InstallArgs) -> anyhow::Result<Targets> {
    let base = if args.user {
        inv.env.home().context("--user needs $HOME")?
    } else {
        crate::commands::project_root(inv, &inv.cwd)?.root
    };
    Ok(match args.agent.as_str() {
        "codex" => Targets {
            hooks_json: base.join(".codex/hooks.json"),
            codex_toml: Some(base.join(".codex/config.toml")),
        },
        _ => Targets {
            hooks_json: base.join(".claude/settings.json"),
            codex_toml: None,
        },
    })
}

pub fn install(
    inv: &Invocation,
    args: &InstallArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    apply(inv, args, out, true)
}

pub fn uninstall(
    inv: &Invocation,
    args: &InstallArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    apply(inv, args, out, false)
}

fn apply(
    inv: &Invocation,
    args: &InstallArgs,
    out: &mut dyn Write,
    adding: bool,
) -> anyhow::Result<Outcome> {
    let targets = targets(inv, args)?;
    let mut changes = Vec::new();
    let old = read(&targets.hooks_json)?;
    let new = edit_hooks_json(&targets.hooks_json, old.as_deref(), adding)?;
    changes.push((targets.hooks_json.clone(), old, new));
    if let Some(toml) = &targets.codex_toml {
        let old = read(toml)?;
        let (new, warnings) = edit_codex_toml(toml, old.as_deref(), adding)?;
        for warning in warnings {
            tracing::warn!("{warning}");
        }
        changes.push((toml.clone(), old, new));
    }
    for (path, old, new) in changes {
        let before = old.clone().unwrap_or_default();
        if new == before || (old.is_none() && new.is_empty()) {
            writeln!(out, "{}: unchanged", path.display())?;
            continue;
        }
        if args.dry_run {
            let diff = similar::TextDiff::from_lines(&before, &new);
            write!(
                out,
                "{}",
                diff.unified_diff().header(
                    &format!("{} (now)", path.display()),
                    &format!("{} (after)", path.display())
                )
            )?;
            continue;
        }
        write_file(&path, old.as_deref(), &new)?;
        writeln!(
            out,
            "{}: {}",
            path.display(),
            if adding { "installed" } else { "uninstalled" }
        )?;
    }
    Ok(Outcome::Success)
}

fn read(path: &Path) -> anyhow::Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Backs the original up as `*.bak`, then replaces the file atomically.
fn write_file(path: &Path, original: Option<&str>, text: &str) -> anyhow::Result<()> {
    let dir = path.parent().context("a settings file has a folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    if let Some(original) = original {
        let mut backup = path.as_os_str().to_owned();
        backup.push(".bak");
        std::fs::write(&backup, original).with_context(|| {
            format!(
                "cannot write the backup {}",
                PathBuf::from(&backup).display()
            )
        })?;
    }
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(text.as_bytes())?;
    temp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

fn is_ours(hook: &Value) -> bool {
    hook.get("command").and_then(Value::as_str) == Some(HOOK_COMMAND)
}

/// Adds (or removes) one `agentctx hook` entry per event, keeping every
/// other key and hook where it was.
pub fn edit_hooks_json(path: &Path, text: Option<&str>, adding: bool) -> anyhow::Result<String> {
    let mut root: Value = match text {
        Some(t) if !t.trim().is_empty() => serde_json::from_str(t)
            .with_context(|| format!("{} is not valid JSON; not touching it", path.display()))?,
        _ => Value::Object(Map::new()),
    };
    let Some(object) = root.as_object_mut() else {
        anyhow::bail!(
            "{} does not hold a JSON object; not touching it",
            path.display()
        );
    };
    if adding {
        let hooks = object
            .entry("hooks")
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(hooks) = hooks.as_object_mut() else {
            anyhow::bail!(
                "{}: `hooks` is not an object; not touching it",
                path.display()
            );
        };
        for (event, tool_event) in EVENTS {
            let list = hooks
                .entry(event)
                .or_insert_with(|| Value::Array(Vec::new()));
            let Some(list) = list.as_array_mut() else {
                anyhow::bail!(
                    "{}: `hooks.{event}` is not a list; not touching it",
                    path.display()
                );
            };
            let present = list.iter().any(|entry| {
                entry
                    .get("hooks")
                    .and_then(Value::as_array)
                    .is_some_and(|h| h.iter().any(is_ours))
            });
            if !present {
                let mut entry = json!({"hooks": [{"type": "command", "command": HOOK_COMMAND}]});
                if tool_event {
                    entry = json!({"matcher": "*", "hooks": [{"type": "command", "command": HOOK_COMMAND}]});
                }
                list.push(entry);
            }
        }
    } else if let Some(hooks) = object.get_mut("hooks").and_then(Value::as_object_mut) {
        for (event, _) in EVENTS {
            let Some(list) = hooks.get_mut(event).and_then(Value::as_array_mut) else {
                continue;
            };
            for entry in list.iter_mut() {
                if let Some(inner) = entry.get_mut("hooks").and_then(Value::as_array_mut) {
                    inner.retain(|h| !is_ours(h));
                }
            }
            list.retain(|entry| {
                entry
                    .get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|h| !h.is_empty())
            });
            if list.is_empty() {
                hooks.remove(event);
            }
        }
        if hooks.is_empty() {
            object.remove("hooks");
        }
    }
    if text.is_none() && !adding {
        return Ok(String::new());
    }
    Ok(serde_json::to_string_pretty(&root)? + "\n")
}

/// Codex `config.toml`: `notify` and `[features] codex_hooks = true`, each
/// marked so that uninstall removes only what install added. A `notify` the
/// user set to something else is left alone (with a warning).
pub fn edit_codex_toml(
    path: &Path,
    text: Option<&str>,
    adding: bool,
) -> anyhow::Result<(String, Vec<String>)> {
    let mut doc: toml_edit::DocumentMut = text
        .unwrap_or("")
        .parse()
        .with_context(|| format!("{} is not valid TOML; not touching it", path.display()))?;
    let mut warnings = Vec::new();
    let marked = |item: Option<&toml_edit::Item>| {
        item.and_then(toml_edit::Item::as_value)
            .and_then(|v| v.decor().suffix())
            .and_then(|s| s.as_str())
            .is_some_and(|s| s.contains(MARK))
    };
    if adding {
        let ours: toml_edit::Array = NOTIFY.iter().copied().collect();
        match doc.get("notify") {
            None => {
                let mut value = toml_edit::Value::Array(ours);
                value.decor_mut().set_suffix(format!(" # {MARK}"));
                doc.insert("notify", toml_edit::Item::Value(value));
            }
            Some(existing) if existing.as_array().is_some_and(|a| a.iter().map(|v| v.as_str()).eq(NOTIFY.iter().map(|s| Some(*s)))) => {}
            Some(_) => warnings.push(format!("{}: `notify` is already set to another program; left as it is (memory capture runs through the SubagentStop hook)", path.display())),
        }
        let features = doc.entry("features").or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(false);
            toml_edit::Item::Table(table)
        });
        if let Some(features) = features.as_table_like_mut() {
            match features.get("codex_hooks").and_then(toml_edit::Item::as_bool) {
                Some(true) => {}
                Some(false) => warnings.push(format!("{}: `[features] codex_hooks = false` is left as it is; the hooks will not run until it is true", path.display())),
                None => {
                    let mut value = toml_edit::Value::from(true);
                    value.decor_mut().set_suffix(format!(" # {MARK}"));
                    features.insert("codex_hooks", toml_edit::Item::Value(value));
                }
            }
        }
    } else {
        if marked(doc.get("notify")) {
            doc.remove("notify");
        }
        let mut empty = false;
        if let Some(features) = doc
            .get_mut("features")
            .and_then(toml_edit::Item::as_table_like_mut)
        {
            if marked(features.get("codex_hooks")) {
                features.remove("codex_hooks");
            }
            empty = features.is_empty();
        }
        if empty {
            doc.remove("features");
        }
    }
    Ok((doc.to_string(), warnings))
}
