//! `agentctx install` / `agentctx uninstall`: see `agentctx_install`.

use std::io::Write;

use agentctx_install::{
    Places, Request, Scope, advice, apply, installed_agent_version, plan_install, plan_uninstall,
};

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
    let agent = args.agent;
    let scope = if args.user {
        Scope::User
    } else if args.shared {
        Scope::Shared
    } else {
        Scope::Project
    };
    let program = match scope.program(args.program.as_deref(), adding) {
        Ok(program) => program,
        // A dry run writes nothing: it shows the changes with this binary,
        // and why a real install would refuse it.
        Err(error) if args.dry_run && error.unreliable_program().is_some() => {
            tracing::warn!("{error}");
            error
                .unreliable_program()
                .map(|path| path.to_string_lossy().into_owned())
                .unwrap_or_default()
        }
        Err(error) => return Err(error.into()),
    };
    let root = if scope == Scope::User {
        inv.cwd.clone()
    } else {
        crate::commands::project_root(inv, &inv.cwd)?.root
    };
    let places = Places::from_env(&inv.env, root)?;
    let agent_version = match args.agent_version.as_deref() {
        Some(text) => agentctx_agents::parse_version(text),
        None => installed_agent_version(agent),
    };
    // Codex's own sandbox, when it is on, is configured to refuse what
    // agentctx's would (a project's profile: its paths are the project's).
    let profile = agentctx_agents::dialect::of(agent).keeps_permission_profile();
    let codex_profile = if profile && scope != Scope::User && adding {
        Some(agentctx_guard::codex_permissions(
            &inv.host(),
            &places.root,
        )?)
    } else {
        None
    };
    let request = Request {
        agent,
        scope,
        program,
        agents_md_plugin_off: args.replace_agents_md_loader,
        codex_trust: args.trust,
        agent_version,
        codex_profile,
        mcp: args.mcp,
    };
    let changes = if adding {
        plan_install(&request, &places)?
    } else {
        plan_uninstall(&request, &places)?
    };
    if args.dry_run {
        for change in &changes {
            if change.is_unchanged() {
                writeln!(out, "{}: {}", change.path.display(), change.how)?;
            } else {
                write!(out, "{}", change.diff())?;
            }
        }
        return Ok(Outcome::Success);
    }
    apply(&changes, &places)?;
    for change in &changes {
        writeln!(out, "{}: {}", change.path.display(), change.how)?;
    }
    if let Some(advice) = advice(&request).filter(|_| adding) {
        writeln!(out, "{advice}")?;
    }
    // The kernel around the whole agent, where this machine can make it.
    if adding && agentctx_sandbox::Bwrap::find().is_some() {
        let name = agent.as_str();
        writeln!(
            out,
            "To run {name} itself inside the sandbox of the project's rules (its own file tools, MCP servers and network too): agentctx run -- {name}; to make that every start: alias {name}='agentctx run -- {name}' in your shell's startup file (docs/integrations/run.md)."
        )?;
    }
    Ok(Outcome::Success)
}
