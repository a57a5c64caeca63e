#!/usr/bin/env bash
# The shared PostgreSQL store at 1,000,000 captures (issue 28): search,
# recall (`mem index`), show, context and capture as whole processes of a
# release build, against a throwaway cluster on the loopback
# (scripts/pg-local, default settings). Rows come from
# benches/gen-pg-store.py (the vocabulary of benches/gen-memory.py, 50
# repositories, one capture in ten with Japanese), loaded with COPY and the
# same tsvector the capture path builds; a capture is then measured with
# the store set and without it (local files only).
# Needs hyperfine, git and the PostgreSQL server.
# Usage: benches/pg-store.sh [N]   (from the repository root)
set -euo pipefail
n=${1:-1000000}
cargo build --release -q -p agentctx-cli
bin=$(realpath target/release/agentctx)
# Under /tmp: as root the server runs as the postgres user, who must reach it.
# With PGBENCH_DIR set, the cluster is kept there and a loaded one reused.
work=${PGBENCH_DIR:-$(mktemp -d /tmp/agentctx-pgbench.XXXXXX)}
mkdir -p "$work" && chmod 755 "$work"
export PGPORT=${PGPORT:-5499}
url=$(scripts/pg-local start "$work/pg")
if [ -z "${PGBENCH_DIR:-}" ]; then
  trap 'scripts/pg-local stop "$work/pg" > /dev/null 2>&1 || true; rm -rf "$work"' EXIT
fi
export HOME="$work/home" AGENTMEM_ROOT="$work/MEMORY" AGENTMEM_STORE="$url"
mkdir -p "$HOME"
if [ ! -f "$work/loaded" ]; then
  "$bin" mem migrate
  psql "$url" -qc "CREATE UNLOGGED TABLE bench_stage (i int, name text, short text, time text, category text, agent text, completion text, body text, grams text, remote text, top text)"
  start=$(date +%s)
  python3 benches/gen-pg-store.py "$n" | psql "$url" -qc "\copy bench_stage FROM STDIN"
  # The search indexes are built after the load (faster than row by row):
  # GIN here, RUM by the `mem migrate` that follows.
  psql "$url" -q -v ON_ERROR_STOP=1 <<'SQL'
DROP INDEX agentmem_captures_search;
DROP INDEX IF EXISTS agentmem_captures_rum;
INSERT INTO agentmem_captures (capture_key, name, short, time, category, agent, source, session,
    project, completion, description, remote, root_commit, pname, top, package, body, document, search)
SELECT 'bench:' || i, name, short, time, category, agent, 'claude-hook', 's-' || (i / 10), top,
    completion, '', remote, '', '', top, '', body,
    E'---\ncapture_type: "' || category || E'"\ntimestamp: "' || time || E' UTC"\nexecutor: "' || agent
        || E'"\nagent_completion: "' || completion || E'"\n---\n\n# ' || category || ': ' || completion
        || E'\n\n## Agent Output\n\n' || body || E'\n',
    setweight(to_tsvector('simple', completion), 'A')
        || setweight(to_tsvector('simple', body || E'\n' || grams), 'C')
FROM bench_stage;
CREATE INDEX agentmem_captures_search ON agentmem_captures USING gin (search);
DROP TABLE bench_stage;
VACUUM ANALYZE agentmem_captures;
SQL
  "$bin" mem migrate
  echo "loaded in $(( $(date +%s) - start )) s"
  touch "$work/loaded"
fi
"$bin" mem stats > "$work/stats" && head -1 "$work/stats"
# A clone of the first repository (20,000 captures at 1,000,000).
proj="$work/project-0"
rm -rf "$proj" "$work/n" && mkdir -p "$proj" && cd "$proj"
git init -q -b main && git -c user.name=b -c user.email=b@b commit -q --allow-empty -m first
git remote add origin https://github.com/acme/project-0
cd - > /dev/null
mkdir -p "$AGENTMEM_ROOT"
# Warm: the index's line counts and one context's entry counts are kept.
(cd "$proj" && "$bin" mem index | head -3)
(cd "$proj" && "$bin" mem context 認証 > /dev/null)
id=$(cd "$proj" && "$bin" mem index | grep -o '\[[0-9a-f]\{10\}\]' | head -1 | tr -d '[]')
hook='{"session_id":"b","hook_event_name":"SubagentStop","agent_id":"AGENT","agent_type":"engineer","agent_transcript_path":"/t.jsonl","last_assistant_message":"🗣️ Engineer: Benchmarked the shared store"}'
cat > "$work/capture.sh" <<CAP
#!/usr/bin/env bash
n=\$(( \$(cat "$work/n" 2>/dev/null || echo 0) + 1 )); echo "\$n" > "$work/n"
echo '${hook}' | sed "s/AGENT/a-$(date +%s%N)-\$n/" | "$bin" mem capture
CAP
chmod +x "$work/capture.sh"
hyperfine -N --warmup ${WARMUP:-2} --runs ${RUNS:-20} --export-json "$work/a.json" \
  -n "mem search ticket4242 (in 10 captures)" "$bin mem search ticket4242" \
  -n "mem search quiruti1999 (in 1% of captures)" "$bin mem search quiruti1999" \
  -n "mem search '\"feature flag\" category:design'" "$bin mem search '\"feature flag\" category:design'" \
  -n "mem search フロー (inside Japanese runs)" "$bin mem search フロー" \
  -n "mem search --this-project quiruti1999" "sh -c 'cd $proj && $bin mem search --this-project quiruti1999'" \
  -n "mem search 'cache latency' (two of the commonest)" "$bin mem search 'cache latency'" \
  -n "mem search auth (in every capture)" "$bin mem search auth" \
  -n "mem index (recall, 20,000 in the project)" "sh -c 'cd $proj && $bin mem index'" \
  -n "mem show ID" "$bin mem show $id" \
  -n "mem context --this-project 認証" "sh -c 'cd $proj && $bin mem context --this-project 認証'" \
  -n "mem capture, sent to the store" "$work/capture.sh" \
  -n "mem capture, local only" "sh -c 'AGENTMEM_STORE= $work/capture.sh'"
python3 - "$work/a.json" <<'PY'
import json, sys
print("\nmedians:")
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['command']:<52} {r['median']*1000:8.1f} ms")
PY
"$bin" mem stats > "$work/stats" && head -1 "$work/stats"
