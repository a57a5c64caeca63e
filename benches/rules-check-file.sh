#!/usr/bin/env bash
# `agentctx rules check-file --stdin` with 100,000 paths, against rule files
# of 10 and of 200 exclude patterns (plus include patterns), side by side.
# The paths are generated (deterministically) and mostly do not exist on
# disk, as with paths an agent proposes to write; a tenth are real files.
# Needs hyperfine (Debian: apt-get install hyperfine).
# Usage: benches/rules-check-file.sh [path/to/agentctx]
set -euo pipefail
bin=$(realpath "${1:-target/release/agentctx}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import os, sys
work = sys.argv[1]
exts = ["rs", "ts", "py", "md", "json", "pem", "env", "lock"]
dirs = ["src", "tests", "crates/core/src", "crates/cli/src", "docs", "secrets", "node_modules/x", "app/config", "build/out", "scripts"]
paths = []
for i in range(100_000):
    d = dirs[i % len(dirs)]
    sub = f"m{(i // 10) % 50}"
    paths.append(f"{d}/{sub}/file{i}.{exts[i % len(exts)]}")
with open(os.path.join(work, "paths.txt"), "w") as f:
    f.write("\n".join(paths) + "\n")
for n in (10, 200):
    root = os.path.join(work, f"p{n}")
    os.makedirs(os.path.join(root, ".git"))
    open(os.path.join(root, ".git", "HEAD"), "w").write("ref: refs/heads/main\n")
    for p in paths[::10]:
        full = os.path.join(root, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        open(full, "w").close()
    base = ["**/*.pem", "**/.env", "secrets/", "node_modules/", "build/", "**/*.lock", "docs/internal/**", "app/config/*.json", "*.key", "**/id_rsa*"]
    extra = [f"generated-{k}/**" if k % 2 else f"**/*.gen{k}" for k in range(n - len(base))]
    with open(os.path.join(root, ".coding-agent-rules.yaml"), "w") as f:
        f.write("file_patterns:\n  include: [\"src/**\", \"tests/**\", \"crates/**\", \"docs/**\", \"app/**\", \"scripts/**\"]\n  exclude:\n")
        for pat in base + extra:
            f.write(f"    - \"{pat}\"\n")
PY
export HOME="$work/home"; mkdir -p "$HOME"
for n in 10 200; do
  "$bin" -C "$work/p$n" rules check-file --stdin < "$work/paths.txt" > "$work/out$n.txt" || true
  echo "patterns=$n: $(grep -c '^allow' "$work/out$n.txt") allowed, $(grep -c '^deny' "$work/out$n.txt") denied"
done
# Debian's hyperfine (1.15) has no --input: the shell redirects stdin.
# --ignore-failure: check-file exits 1 because some paths are denied.
hyperfine --ignore-failure --warmup 2 --runs 15 --export-json "$work/rules.json" \
  -n "check-file --stdin, 100k paths, 10 patterns" "$bin -C $work/p10 rules check-file --stdin < $work/paths.txt > /dev/null" \
  -n "check-file --stdin, 100k paths, 200 patterns" "$bin -C $work/p200 rules check-file --stdin < $work/paths.txt > /dev/null" \
  -n "cat (the same input and output: I/O floor)" "cat < $work/paths.txt > /dev/null"
python3 - "$work/rules.json" <<'PY'
import json, sys
print("\nmedians:")
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']:<48} median {r['median']*1000:.1f} ms  (mean {r['mean']*1000:.1f}, max {r['max']*1000:.1f})")
PY
