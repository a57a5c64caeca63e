#!/usr/bin/env bash
# `agentctx rules check-file --stdin` run from a subdirectory: every path is
# "typed", judged as written at the root or against the working directory
# (`FileChecker::check_typed`), which once canonicalized the working
# directory for every path. 100,000 relative paths (deterministic, a tenth
# of them real files) against a project with two excludes; the run's cwd is
# a subdirectory of the project. Pass a second binary to compare builds
# side by side (their outputs must be identical).
# Needs hyperfine (Debian: apt-get install hyperfine).
# Usage: benches/rules-typed.sh [path/to/agentctx [path/to/other-agentctx]]
set -euo pipefail
bin=$(realpath "${1:-target/release/agentctx}")
other=${2:+$(realpath "$2")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import os, sys
work = sys.argv[1]
root = os.path.join(work, "project")
os.makedirs(os.path.join(root, ".git"))
open(os.path.join(root, ".git", "HEAD"), "w").write("ref: refs/heads/main\n")
open(os.path.join(root, ".coding-agent-rules.yaml"), "w").write(
    "file_patterns:\n  exclude: [\"secrets/\", \"**/*.pem\"]\n")
dirs = ["src", "tests", "secrets", "docs", "app/lib"]
exts = ["rs", "md", "pem", "json"]
paths = [f"{dirs[i % len(dirs)]}/m{(i // 10) % 50}/file{i}.{exts[i % len(exts)]}"
         for i in range(100_000)]
for p in paths[::10]:
    full = os.path.join(root, "app", p)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    open(full, "w").close()
with open(os.path.join(work, "paths.txt"), "w") as f:
    f.write("\n".join(paths) + "\n")
PY
export HOME="$work/home"; mkdir -p "$HOME"
cwd="$work/project/app"
runs=()
i=0
for b in "$bin" ${other:+"$other"}; do
  i=$((i + 1))
  (cd "$cwd" && "$b" rules check-file --stdin < "$work/paths.txt" > "$work/out-$i.txt") || true
  echo "$b: $(grep -c '^allow' "$work/out-$i.txt") of 100000 allowed, output md5 $(md5sum < "$work/out-$i.txt" | cut -d' ' -f1)"
  runs+=(-n "check-file --stdin from app/, 100k paths ($b)" "cd $cwd && $b rules check-file --stdin < $work/paths.txt > /dev/null")
done
# --ignore-failure: check-file exits 1 because some paths are denied.
hyperfine --ignore-failure --warmup 1 --runs 10 --export-json "$work/typed.json" "${runs[@]}"
python3 - "$work/typed.json" <<'PY'
import json, sys
print("\nmedians:")
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']:<70} median {r['median']*1000:.1f} ms  (system {r['system']*1000:.1f} ms)")
PY
