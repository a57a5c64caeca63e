//! `resolve_for_path` on a covered path 12 directories deep: the cost a hook
//! pays on every tool call once the session knows the chain.
//!
//! Run: `cargo bench -p agentctx-core --bench resolve`. Prints the median and
//! the 10th/90th percentiles of per-call time over batches.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark fails loudly"
)]

use std::time::Instant;

use agentctx_core::start_session;
use agentctx_types::AgentsConfig;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("repo");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(root.join("AGENTS.md"), "root\n").unwrap();
    let mut deep = root.clone();
    for level in 1..=12 {
        deep.push(format!("d{level}"));
        std::fs::create_dir_all(&deep).unwrap();
        if level % 4 == 0 {
            std::fs::write(deep.join("AGENTS.md"), format!("level {level}\n")).unwrap();
        }
    }
    let target = deep.join("main.rs");
    std::fs::write(&target, "fn main() {}\n").unwrap();

    let mut session = start_session(&root, &AgentsConfig::default(), None).unwrap();
    let first = session.resolver.resolve_for_path(&target);
    assert_eq!(
        first.files.len(),
        3,
        "the three nested files are offered once"
    );

    const BATCH: u32 = 2_000;
    const BATCHES: usize = 200;
    let mut per_call_ns: Vec<f64> = Vec::with_capacity(BATCHES);
    for _ in 0..BATCHES {
        let start = Instant::now();
        for _ in 0..BATCH {
            let found = session
                .resolver
                .resolve_for_path(std::hint::black_box(&target));
            assert!(found.files.is_empty());
        }
        per_call_ns.push(start.elapsed().as_nanos() as f64 / f64::from(BATCH));
    }
    per_call_ns.sort_by(f64::total_cmp);
    let at = |q: f64| per_call_ns[((per_call_ns.len() - 1) as f64 * q) as usize] / 1000.0;
    println!(
        "resolve_for_path, covered, 12 deep: median {:.2} µs (p10 {:.2}, p90 {:.2}) over {} calls",
        at(0.5),
        at(0.1),
        at(0.9),
        u64::from(BATCH) * BATCHES as u64
    );
}
