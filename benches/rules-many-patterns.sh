#!/usr/bin/env bash
# Rules at scale (issue 14): a rule file of 10 or 10,000 exclude patterns
# (`gen/dir<i>/**/*.tmp`, plus `secrets/`). Measures `rules check-file`
# with two paths (load + 2 decisions; hyperfine -N, 30 runs) and
# `rules check-file --stdin` with 10,000 paths (/usr/bin/time: seconds,
# peak memory), for paths outside the patterns' directories and for
# paths half of which fall in 5,000 of them. Usage: benches/rules-many-patterns.sh [path/to/agentctx]
set -euo pipefail
bin=$(realpath "${1:-target/release/agentctx}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home"; mkdir -p "$HOME"
for n in 10 10000; do
  root="$work/p$n"
  mkdir -p "$root/.git" "$root/src"
  echo "ref: refs/heads/main" > "$root/.git/HEAD"
  {
    echo "file_patterns:"
    echo "  exclude:"
    echo "    - \"secrets/\""
    for ((i = 1; i < n; i++)); do echo "    - \"gen/dir$i/**/*.tmp\""; done
  } > "$root/.coding-agent-rules.yaml"
  # Paths outside every pattern's directory, and paths of which half fall
  # in 5,000 different pattern directories (each bucket compiled on first use).
  python3 -c "print('\n'.join(f'src/m{i % 50}/f{i}.rs' for i in range(10000)))" > "$root/outside.txt"
  python3 -c "print('\n'.join(f'gen/dir{i}/x/file{i}.tmp' if i % 2 else f'src/m{i % 50}/f{i}.rs' for i in range(10000)))" > "$root/inside.txt"
done
hyperfine -N -i --warmup 3 --runs 30 \
  -n "10 patterns: check-file secrets/x src/main.rs" "$bin --cwd $work/p10 rules check-file secrets/x src/main.rs" \
  -n "10,000 patterns: check-file secrets/x src/main.rs" "$bin --cwd $work/p10000 rules check-file secrets/x src/main.rs" \
  2>&1 | grep -E "Benchmark|Time"
for n in 10 10000; do
  for paths in outside inside; do
    /usr/bin/time -f "$n patterns, 10,000 paths ($paths) on stdin: %e s, %M KB" \
      "$bin" --cwd "$work/p$n" rules check-file --stdin < "$work/p$n/$paths.txt" > /dev/null || true
  done
done
