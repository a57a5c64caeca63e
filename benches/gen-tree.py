#!/usr/bin/env python3
"""Generates a deterministic source-like tree of N files (default 100,000)
for the file-list benchmark: nested packages with src/ and test/ folders,
varied names and extensions, some numbered runs, a few hidden folders.

Usage: benches/gen-tree.py DIR [N]"""
import os
import random
import sys

root = sys.argv[1]
total = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
rng = random.Random(42)
words = ["alpha", "bravo", "core", "delta", "engine", "fabric", "gamma", "http", "index", "json",
         "kernel", "layout", "model", "net", "orbit", "parser", "query", "render", "store", "token",
         "util", "view", "worker", "xml", "yield", "zone"]
exts = [".rs", ".ts", ".py", ".go", ".md", ".json", ".toml", ".yaml", ".txt", ".c", ".h"]
made = 0
pkg = 0
while made < total:
    pkg += 1
    base = os.path.join(root, "packages", f"{rng.choice(words)}-{pkg}")
    for sub in ["src", "src/" + rng.choice(words), "src/" + rng.choice(words) + "/" + rng.choice(words), "tests", "docs", ".config"]:
        d = os.path.join(base, sub)
        os.makedirs(d, exist_ok=True)
        for _ in range(rng.randint(3, 30)):
            if made >= total:
                break
            name = f"{rng.choice(words)}_{rng.choice(words)}{rng.choice(exts)}"
            if rng.random() < 0.05:
                name = f"snapshot-{rng.randint(1, 999):03d}.json"
            p = os.path.join(d, name)
            if not os.path.exists(p):
                open(p, "w").close()
                made += 1
for f in ["README.md", "Cargo.toml", "package.json", "LICENSE"]:
    open(os.path.join(root, f), "w").close()
print(f"{made + 4} files under {root}")
