//! `agentctx rules ...` and `agentctx prompt rules`.

use std::io::{BufRead, BufWriter, Write};
use std::path::Path;

use agentctx_rules::{Rules, lint};
use agentctx_types::{PromptText, RuleDecision};

use crate::cli::{CheckArgs, RulesCommand};
use crate::commands::{Invocation, Outcome, write_json};

/// The project's rules, with problems logged. A broken rule file is a
/// warning here (the rules fall back as configured); broken config
/// `default_rules` are an error.
pub fn load(inv: &Invocation) -> anyhow::Result<Rules> {
    load_at(inv, &inv.cwd)
}

/// [`load`] for another working directory (a hook's `cwd`).
pub fn load_at(inv: &Invocation, cwd: &Path) -> anyhow::Result<Rules> {
    let root = crate::commands::project_root(inv, cwd)?;
    let rules =
        Rules::load(&root.root, &inv.config.config.project_agent_rules)?.with_home(inv.env.home());
    for problem in rules.problems() {
        tracing::warn!("{problem}");
    }
    Ok(rules)
}

pub fn run(
    inv: &Invocation,
    command: &RulesCommand,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    match command {
        RulesCommand::Show => show(inv, out),
        RulesCommand::CheckTool(args) => {
            check(inv, args, out, |rules, item| rules.check_tool(item))
        }
        RulesCommand::CheckFile(args) => {
            let rules = load(inv)?;
            let mut checker = rules.file_checker();
            check_with(inv, args, out, |item| checker.check_typed(&inv.cwd, item))
        }
        RulesCommand::CheckCommand(args) => check_command(inv, args, out),
        RulesCommand::Lint => lint_command(inv, out),
    }
}

/// `rules check-command`: each line's verdict, the command that matched,
/// the pattern and where it is written.
fn check_command(
    inv: &Invocation,
    args: &CheckArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let rules = load(inv)?;
    let mut lines: Vec<String> = args.items.clone();
    if args.stdin {
        for line in std::io::stdin().lock().lines() {
            let line = line?;
            if !line.trim().is_empty() {
                lines.push(line);
            }
        }
    }
    let mut held = false;
    let mut json = Vec::new();
    for line in &lines {
        let verdict = agentctx_guard::commands::check_command_line(&rules, line, &inv.cwd);
        let (decision, message) = match &verdict {
            Ok(None) => ("allow", "no command rule matches".to_owned()),
            Ok(Some(found)) => (
                match found.action {
                    agentctx_rules::CommandAction::Deny => "deny",
                    agentctx_rules::CommandAction::Ask => "ask",
                },
                format!(
                    "it runs `{}`, which matches `{}` ({})",
                    found.command,
                    found.pattern,
                    rules.locate_command_rule(&found.origin)
                ),
            ),
            Err(error) if rules.commands().is_empty() => (
                "allow",
                format!("not read ({error}); no command rule is set"),
            ),
            Err(error) => ("deny", format!("the line cannot be read ({error})")),
        };
        held |= decision != "allow";
        if inv.json {
            json.push(serde_json::json!({"line": line, "decision": decision, "message": message}));
        } else {
            writeln!(out, "{decision}\t{line}\t{message}")?;
        }
    }
    if inv.json {
        write_json(out, &json)?;
    }
    Ok(if held {
        Outcome::Negative
    } else {
        Outcome::Success
    })
}

fn show(inv: &Invocation, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let report = load(inv)?.report();
    if inv.json {
        write_json(out, &report)?;
        return Ok(Outcome::Success);
    }
    writeln!(out, "# source: {}", report.source)?;
    for warning in &report.warnings {
        writeln!(out, "# warning: {warning}")?;
    }
    out.write_all(serde_saphyr::to_string(&report.rules)?.as_bytes())?;
    Ok(Outcome::Success)
}

fn check(
    inv: &Invocation,
    args: &CheckArgs,
    out: &mut dyn Write,
    decide: impl Fn(&Rules, &str) -> RuleDecision,
) -> anyhow::Result<Outcome> {
    let rules = load(inv)?;
    check_with(inv, args, out, |item| decide(&rules, item))
}

/// Decides every item (arguments first, then stdin lines), printing as it
/// goes so that a long `--stdin` run streams.
fn check_with(
    inv: &Invocation,
    args: &CheckArgs,
    out: &mut dyn Write,
    mut decide: impl FnMut(&str) -> RuleDecision,
) -> anyhow::Result<Outcome> {
    let mut out = BufWriter::with_capacity(64 * 1024, out);
    let mut any_denied = false;
    let mut json: Vec<RuleDecision> = Vec::new();
    let mut handle = |item: &str, out: &mut BufWriter<&mut dyn Write>| -> anyhow::Result<()> {
        let decision = decide(item);
        any_denied |= !decision.allowed;
        if inv.json {
            json.push(decision);
        } else {
            let verdict = if decision.allowed { "allow" } else { "deny" };
            writeln!(out, "{verdict}\t{item}\t{}", decision.message)?;
        }
        Ok(())
    };
    for item in &args.items {
        handle(item, &mut out)?;
    }
    if args.stdin {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let line = line?;
            let item = line.trim_end_matches('\r');
            if !item.is_empty() {
                handle(item, &mut out)?;
            }
        }
    }
    if inv.json {
        write_json(&mut out, &json)?;
    }
    out.flush()?;
    Ok(if any_denied {
        Outcome::Negative
    } else {
        Outcome::Success
    })
}

fn lint_command(inv: &Invocation, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let root = crate::commands::project_root(inv, &inv.cwd)?;
    let report = lint(&root.root, &inv.config.config.project_agent_rules);
    if inv.json {
        write_json(out, &report)?;
    } else {
        match &report.file {
            None => writeln!(out, "no rule file at {}", root.root.display())?,
            Some(file) if report.findings.is_empty() => writeln!(out, "{}: ok", file.display())?,
            Some(_) => {
                for finding in &report.findings {
                    writeln!(out, "{finding}")?;
                }
            }
        }
    }
    Ok(if report.findings.is_empty() {
        Outcome::Success
    } else {
        Outcome::Negative
    })
}

/// `agentctx prompt rules`.
pub fn prompt(inv: &Invocation, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let rules = load(inv)?;
    let text = rules.prompt_extension().unwrap_or("").trim_end();
    if inv.json {
        let text = text.to_owned();
        write_json(out, &PromptText { text })?;
    } else if !text.is_empty() {
        writeln!(out, "{text}")?;
    }
    Ok(Outcome::Success)
}
