#!/usr/bin/env bash
# The default file list (`agentctx files`, no flags) of the usual layouts on
# real repositories (issue 35): how many source files it names, its entries
# and tokens against the 500-entry limit, whether the root's README and
# manifests are named; then the same at --token-budget 4000.
#
# Usage: benches/filelist-layouts.sh DIR [BIN...]   (run from the repository root)
#   DIR holds git repositories, clones or bare snapshots (`fetch`'s
#   /work/.mirror/OWNER+NAME/repo); each is materialized at its HEAD with
#   benches/materialize.py (missing blobs become empty files: a file list
#   reads names only) and named with its commit in the output.
#   BIN: agentctx binaries to compare, e.g. a build of the commit before
#   (default: this tree's release build).
set -euo pipefail
dir=$(realpath "${1:?usage: benches/filelist-layouts.sh DIR [BIN...]}")
shift
if [ $# -eq 0 ]; then
  cargo build --release -q -p agentctx-cli
  set -- "$(realpath target/release/agentctx)"
fi
materialize=$(realpath benches/materialize.py)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home"; mkdir -p "$HOME"

for repo in "$dir"/*/; do
  repo=${repo%/}
  if [ -d "$repo/.git" ]; then git_dir="$repo/.git"; else git_dir="$repo"; fi
  [ -d "$git_dir/objects" ] || git_dir="$repo/repo"   # fetch's OWNER+NAME/repo
  name=$(basename "$repo"); name=${name#*+}; name=${name%.git}
  commit=$(git --git-dir "$git_dir" rev-parse HEAD)
  python3 "$materialize" "$git_dir" "$commit" "$work/trees/$name" 2>/dev/null
  echo "# $name @ $commit" >&2
done

echo "| repo | build | listing | source files named | lines | files shown | tokens | README, manifests |"
echo "|---|---|---|---|---|---|---|---|"
for tree in "$work"/trees/*/; do
  for bin in "$@"; do
    for args in "" "--token-budget 4000"; do
      # The universe: every file the filters let through, flat.
      (cd "$tree" && "$bin" files --no-timestamp --format flat --no-group \
        --max-files 1000000000 --max-depth 1000000) > "$work/all.txt"
      # shellcheck disable=SC2086
      (cd "$tree" && "$bin" --json files --no-timestamp $args) > "$work/out.json"
      python3 - "$work/out.json" "$work/all.txt" "$tree" "$bin" "${args:-default}" <<'PY'
import json, os, re, sys
out, universe, tree, binary, listing = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), sys.argv[3], sys.argv[4], sys.argv[5]
SOURCE = {".rs", ".go", ".java", ".kt", ".kts", ".scala", ".groovy", ".py", ".js", ".mjs",
          ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", ".vue", ".svelte", ".c", ".h", ".cc",
          ".cpp", ".hpp", ".cs", ".rb", ".php", ".swift", ".ex", ".exs"}
MANIFESTS = {"Cargo.toml", "package.json", "pyproject.toml", "setup.py", "go.mod", "pom.xml",
             "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
             "pnpm-workspace.yaml", "Makefile"}
is_source = lambda name: os.path.splitext(name.rstrip("@"))[1] in SOURCE
def named(text):
    """The files a tree listing names: a grouped run counts its members."""
    for line in text.splitlines()[1:-2]:
        entry = line.strip()
        if not entry or entry.startswith("...") or entry.endswith("/") or re.search(r"/ \(", entry):
            continue
        run = re.match(r"(.*) \((\d+) files\)$", entry)
        yield from [run.group(1)] * int(run.group(2)) if run else [entry]
source = sum(1 for n in named(out["text"]) if is_source(n))
total = sum(1 for l in universe.splitlines()[1:-2] if not l.endswith("/") and is_source(l))
top = [l for l in out["text"].splitlines()[1:] if l and not l.startswith((" ", "(", "<", "..."))]
root = set(os.listdir(tree))
wanted = sorted(MANIFESTS & root) + sorted(n for n in root if n.lower().startswith("readme"))
shown = [n for n in wanted if n in top]
entries = len(out["text"].splitlines()) - 3
limit = f"{out['tokens']} of 4000" if listing != "default" else f"{out['tokens']}"
print(f"| {os.path.basename(tree.rstrip('/'))} | {os.path.basename(binary)} | {listing} | {source} of {total} "
      f"| {entries} | {out['files_shown']} of {out['files_total']} | {limit} | {len(shown)}/{len(wanted)} |")
PY
    done
  done
done
