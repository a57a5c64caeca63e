#!/usr/bin/env bash
# The file list at token budgets 1000, 4000 and 16000 on real repositories
# (issue 16): tokens used and whether README, a root manifest, the main
# packages and the test directory are in the listing; then time and peak
# memory against fd, tree, repomix and code2prompt, and the selection on
# 40,000 one-file directories plus 40,000 files.
#
# Usage: benches/filelist-budget.sh DIR   (run from the repository root)
#   DIR holds git clones (flask, ripgrep, pydantic, sympy, cargo, babel, ...);
#   each is named with its commit in the output.
# Needs: hyperfine, fd-find, tree (Debian), repomix (npm), code2prompt (cargo).
set -euo pipefail
dir=$(realpath "${1:?usage: benches/filelist-budget.sh DIR-OF-CLONES}")
cargo build --release -q -p agentctx-cli
bin=$(realpath target/release/agentctx)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home"; mkdir -p "$HOME"
fd=$(command -v fdfind || command -v fd)

echo "## tokens used and what the listing holds (o200k_base)"
printf '%-10s %-8s %6s %6s %5s  %-6s %-8s %-8s %-5s\n' repo budget tokens used files README manifest packages tests
for repo in "$dir"/*/; do
  name=$(basename "$repo")
  echo "# $name @ $(git -C "$repo" rev-parse HEAD) ($(git -C "$repo" ls-files | wc -l) tracked files)" >&2
  for budget in 1000 4000 16000; do
    (cd "$repo" && "$bin" --json files --no-timestamp --token-budget "$budget") > "$work/out.json"
    python3 - "$work/out.json" "$name" "$budget" "$repo" <<'PY'
import json, os, sys
out, name, budget, repo = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), sys.argv[4]
lines = out["text"].splitlines()
top = [l for l in lines[1:] if l and not l.startswith((" ", "(", "<"))]
names = {l.split("/")[0].split(" ")[0] for l in top}
manifests = {"Cargo.toml", "package.json", "pyproject.toml", "setup.py", "go.mod", "pom.xml"}
root = set(os.listdir(repo))
has_manifest = bool(manifests & root)
readme = any(n.lower().startswith("readme") for n in names)
manifest = bool(manifests & names) if has_manifest else None
# Main packages: root directories with an __init__.py, Cargo.toml or
# package.json of their own, or crates/, packages/, src/.
def is_package(d):
    p = os.path.join(repo, d)
    return os.path.isdir(p) and not d.startswith(".") and (
        d in ("crates", "packages", "src", "lib")
        or any(os.path.exists(os.path.join(p, m)) for m in ("__init__.py", "Cargo.toml", "package.json")))
packages = [d for d in sorted(root) if is_package(d)]
shown_packages = [d for d in packages if any(l.startswith(d + "/") for l in top)]
tests = [d for d in ("tests", "test") if d in root]
tests_shown = any(any(l.startswith(t + "/") for l in top) for t in tests) if tests else None
yn = lambda v: "-" if v is None else ("yes" if v else "NO")
print(f"{name:<10} {budget:<8} {out['tokens']:>6} {100*out['tokens']/budget:5.0f}% {out['files_shown']:>5}/{out['files_total']:<6} "
      f"{yn(readme):<6} {yn(manifest):<8} {len(shown_packages)}/{len(packages):<6} {yn(tests_shown):<5}")
PY
  done
done

echo
echo "## time (hyperfine -N, medians) and peak memory"
for repo in "$dir"/*/; do
  name=$(basename "$repo")
  cd "$repo"
  hyperfine -N --warmup 2 --runs 10 --export-json "$work/$name.json" \
    -n "agentctx files" "$bin files --no-timestamp" \
    -n "agentctx files --token-budget 4000" "$bin files --no-timestamp --token-budget 4000" \
    -n "agentctx files --token-budget 16000" "$bin files --no-timestamp --token-budget 16000" \
    -n "fd --type f" "$fd --type f" \
    -n "tree -a --gitignore" "tree -a --gitignore -I .git" \
    -n "repomix --no-files" "repomix --no-files --quiet -o $work/repomix.txt" \
    -n "code2prompt -O file" "code2prompt . --output-file $work/c2p.txt" \
    > /dev/null 2>&1 || echo "  ($name: a command failed; see hyperfine)"
  # The first budget run of a tree loads the tokenizer; later ones use the
  # kept line counts (the runs above).
  hyperfine -N --warmup 1 --runs 5 --export-json "$work/$name-cold.json" \
    --prepare "rm -rf $HOME/.cache/agentctx/filelist-tokens" \
    -n "agentctx files --token-budget 4000 (no counts kept)" "$bin files --no-timestamp --token-budget 4000" \
    > /dev/null 2>&1
  python3 - "$work/$name.json" "$name" "$work/$name-cold.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["results"] + json.load(open(sys.argv[3]))["results"]
fd = next(r for r in rows if r["command"].startswith("fd"))["median"]
for r in rows:
    print(f"  {sys.argv[2]:<10} {r['command']:<38} {r['median']*1000:8.1f} ms {r['median']/fd:6.2f}x fd")
PY
  for args in "files --no-timestamp" "files --no-timestamp --token-budget 4000"; do
    kb=$(/usr/bin/time -v "$bin" $args 2>&1 >/dev/null | awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}')
    echo "  $name agentctx $args: $((kb / 1024)) MiB peak"
  done
  cd - > /dev/null
done

echo
echo "## selection: 40,000 one-file directories plus 40,000 files"
mkdir -p "$work/wide"
python3 - "$work/wide" <<'PY'
import os, sys
root = sys.argv[1]
for i in range(40000):
    d = os.path.join(root, f"d{i:05}")
    os.mkdir(d)
    open(os.path.join(d, "f.txt"), "w").close()
    open(os.path.join(root, f"file{i:05}.txt"), "w").close()
PY
cd "$work/wide"
hyperfine -N --warmup 1 --runs 5 \
  -n "agentctx files" "$bin files --no-timestamp" \
  -n "agentctx files --token-budget 4000" "$bin files --no-timestamp --token-budget 4000" \
  -n "fd --type f" "$fd --type f" 2>/dev/null | grep -E "Benchmark|Time"
