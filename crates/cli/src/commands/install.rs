//! `agentctx install` / `agentctx uninstall`: see `agentctx_hooks::install`.

use std::io::Write;

use agentctx_hooks::install::{
    ChangeKind, Places, Request, Scope, apply, hook_program, plan_install, plan_uninstall,
};
use agentctx_types::HookAgent;
use anyhow::Context as _;

use crate::cli::InstallArgs;
use crate::commands::{Invocation, Outcome};

pub fn install(
    inv: &Invocation,
    args: &InstallArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    run(inv, args, out, true)
}

pub fn uninstall(
    inv: &Invocation,
    args: &InstallArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    run(inv, args, out, false)
}

fn run(
    inv: &Invocation,
    args: &InstallArgs,
    out: &mut dyn Write,
    adding: bool,
) -> anyhow::Result<Outcome> {
    let agent = HookAgent::from(args.agent);
    let scope = if args.user {
        Scope::User
    } else if args.shared {
        Scope::Shared
    } else {
        Scope::Project
    };
    let program = match (&args.program, scope) {
        (Some(program), _) => program.clone(),
        // Teammates have agentctx elsewhere: a shared file names it by PATH
        // (the PreToolUse guard still blocks when it is missing).
        (None, Scope::Shared) => "agentctx".to_owned(),
        (None, _) if !adding => "agentctx".to_owned(),
        (None, _) => {
            let exe = std::env::current_exe().context("cannot find the running agentctx")?;
            hook_program(&exe, &std::env::temp_dir()).map_err(anyhow::Error::msg)?
        }
    };
    let home = inv.env.home();
    let state = agentctx_config::state_dir(&inv.env)
        .context("install needs $XDG_STATE_HOME or $HOME to keep its record of what it changed")?;
    let root = if scope == Scope::User {
        inv.cwd.clone()
    } else {
        crate::commands::project_root(inv, &inv.cwd)?.root
    };
    let places = Places {
        root,
        claude_user_settings: agentctx_hooks::claude_user_settings(&inv.env),
        codex_home: inv
            .env
            .get("CODEX_HOME")
            .map(std::path::PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| home.as_ref().map(|h| h.join(".codex"))),
        home,
        manifests: state.join("installs"),
    };
    let request = Request {
        agent,
        scope,
        program,
        agents_md_plugin_off: args.replace_agents_md_loader,
        codex_trust: args.trust,
        agent_version: agent_version(agent, args.agent_version.as_deref()),
    };
    let changes = if adding {
        plan_install(&request, &places)?
    } else {
        plan_uninstall(&request, &places)?
    };
    if args.dry_run {
        for change in &changes {
            if change.is_unchanged() {
                writeln!(out, "{}: unchanged", change.path.display())?;
            } else {
                write!(out, "{}", change.diff())?;
            }
        }
        return Ok(Outcome::Success);
    }
    apply(&changes, &places)?;
    for change in &changes {
        let word = match change.how {
            ChangeKind::Unchanged => "unchanged",
            ChangeKind::Installed => "installed",
            ChangeKind::Restored => "restored as it was before install",
            ChangeKind::Removed => "agentctx's entries removed (your later edits kept)",
        };
        writeln!(out, "{}: {word}", change.path.display())?;
    }
    if adding {
        match (agent, scope) {
            (HookAgent::Claude, Scope::Project) => writeln!(
                out,
                "Claude Code reads this file in sessions started anywhere in the project; it is personal (keep it out of git)."
            )?,
            (HookAgent::Claude, Scope::Shared) => writeln!(
                out,
                "note: Claude Code reads a project's .claude/settings.json only in sessions started at the project root; `agentctx install claude` (settings.local.json) works in every subdirectory."
            )?,
            (HookAgent::Codex, _) if !args.trust => writeln!(
                out,
                "Codex runs these hooks only in a trusted project and once they are trusted: start `codex` in the project and accept \"Hooks need review ... Trust all and continue\" (or run `agentctx install codex --trust` to record the trust now). `codex exec` skips untrusted hooks without a word."
            )?,
            (HookAgent::Codex, _) => writeln!(
                out,
                "agentctx's hooks are recorded as trusted in Codex's user config; Codex also needs the project trusted (its first start in the project asks)."
            )?,
            _ => {}
        }
    }
    Ok(Outcome::Success)
}

/// The agent's version: the flag, else `claude --version` / `codex --version`
/// from PATH; `None` when neither tells.
fn agent_version(agent: HookAgent, flag: Option<&str>) -> Option<(u32, u32, u32)> {
    if let Some(text) = flag {
        return agentctx_hooks::install::parse_version(text);
    }
    let program = match agent {
        HookAgent::Claude => "claude",
        HookAgent::Codex => "codex",
    };
    let output = std::process::Command::new(program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    agentctx_hooks::install::parse_version(&String::from_utf8_lossy(&output.stdout))
}
