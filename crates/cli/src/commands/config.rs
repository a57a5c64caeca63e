//! `agentctx config`: the effective config, optionally with origins.

use std::io::Write;

use crate::cli::ConfigArgs;
use crate::commands::{Invocation, Outcome, write_json};

pub fn run(inv: &Invocation, args: &ConfigArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    match (args.origins, inv.json) {
        (false, false) => {
            let yaml = serde_saphyr::to_string(&inv.config.config)?;
            out.write_all(yaml.as_bytes())?;
            if !yaml.ends_with('\n') {
                out.write_all(b"\n")?;
            }
        }
        (false, true) => write_json(out, &inv.config.config)?,
        (true, false) => {
            // `git config --show-origin` layout: origin, tab, key=value.
            for entry in inv.config.entries() {
                writeln!(out, "{}\t{}={}", entry.origin, entry.key, entry.value)?;
            }
        }
        (true, true) => write_json(out, &inv.config.entries())?,
    }
    Ok(Outcome::Success)
}
