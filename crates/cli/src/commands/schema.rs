//! `agentctx schema`: JSON Schemas generated from the shared types.

use std::io::Write;

use agentctx_types::{SCHEMA_NAMES, schema_named};

use crate::cli::SchemaArgs;
use crate::commands::{Invocation, Outcome, write_json};

pub fn run(inv: &Invocation, args: &SchemaArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let Some(name) = &args.name else {
        if inv.json {
            write_json(out, &SCHEMA_NAMES[..])?;
        } else {
            for name in SCHEMA_NAMES {
                writeln!(out, "{name}")?;
            }
        }
        return Ok(Outcome::Success);
    };
    // clap only lets known names through.
    let schema = schema_named(name).ok_or_else(|| anyhow::anyhow!("unknown schema {name:?}"))?;
    write_json(out, &schema)?;
    Ok(Outcome::Success)
}
