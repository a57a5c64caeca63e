//! Counts the tokens of stdin, for comparing listings of other tools with
//! the same tokenizer: `tree -a | cargo run --release -p agentctx-filelist --example count_tokens`.
//! `--cl100k` selects cl100k_base (default o200k_base).

use std::io::Read;

use agentctx_filelist::Tokenizer;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    let tokenizer = if std::env::args().any(|a| a == "--cl100k") {
        Tokenizer::Cl100k
    } else {
        Tokenizer::O200k
    };
    println!("{}", tokenizer.count(&text));
    Ok(())
}
