#!/usr/bin/env bash
# Starts `agentctx mem serve` on a copy of fixtures/memory, loads the page in
# headless Chromium (Debian's `chromium`), saves a screenshot, and fails if
# the page does not show the fixture's captures.
# Needs: chromium (apt-get install chromium). Usage: scripts/viewer-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v chromium > /dev/null || { echo "chromium is needed: apt-get install chromium" >&2; exit 2; }
cargo build -q -p agentctx-cli
work=$(mktemp -d)
cleanup() { [ -n "${server:-}" ] && kill "$server" 2> /dev/null; rm -rf "$work"; }
trap cleanup EXIT
cp -r fixtures/memory "$work/MEMORY"
export HOME="$work/home" AGENTMEM_ROOT="$work/MEMORY"
mkdir -p "$HOME"
target/debug/agentctx mem serve --port 0 > "$work/serve.out" &
server=$!
for _ in $(seq 50); do grep -q listening "$work/serve.out" 2> /dev/null && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$work/serve.out")
[ -n "$url" ] || { echo "the viewer did not start" >&2; exit 1; }
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$work/profile")
chromium "${flags[@]}" --dump-dom "$url" > "$work/dom.html" 2> /dev/null
chromium "${flags[@]}" --window-size=1200,900 --screenshot="$work/viewer.png" "$url" 2> /dev/null || true
cp "$work/viewer.png" "${SCREENSHOT:-/tmp/agentctx-viewer.png}" 2> /dev/null || true
missing=0
for expected in "Chose REST with cursor pagination" "Found the auth race in token refresh" "認証フローを調査しました" "Notes on caching"; do
  if ! grep -q "$expected" "$work/dom.html"; then
    echo "missing on the page: $expected" >&2
    missing=1
  fi
done
[ "$missing" = 0 ] || exit 1
echo "viewer smoke test passed: $url showed the fixture captures (screenshot: ${SCREENSHOT:-/tmp/agentctx-viewer.png})"
