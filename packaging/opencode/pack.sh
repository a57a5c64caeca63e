#!/usr/bin/env bash
# Writes agentctx's opencode plugin package, `@agentctx/opencode`, with
# `npm pack`:
#
#   packaging/opencode/pack.sh VERSION OUT_DIR
#
# opencode has no command hooks; its plugins are JavaScript modules, and it
# installs one named in its config's `plugin` list itself. This package is
# the plugin `agentctx install opencode` writes (crates/install/src/
# opencode_plugin.js, with the shell it makes opencode's beside it,
# opencode_shell.sh), filled in for a package: the `agentctx` on PATH, and
# the shell from the package's own folder. The same input gives the same
# bytes. Prints the tarball's path.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: packaging/opencode/pack.sh VERSION OUT_DIR" >&2
  exit 2
fi
version="$1" out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
install_src="$here/../../crates/install/src"

if ! command -v npm > /dev/null || ! command -v node > /dev/null; then
  echo "pack.sh: node and npm are needed (apt-get install nodejs npm)" >&2
  exit 1
fi
if ! [[ "$version" =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]; then
  echo "pack.sh: $version is not a semver version such as 0.1.0" >&2
  exit 2
fi

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out"
out="$(cd "$out" && pwd)"

node - "$install_src/opencode_plugin.js" "$version" "$stage" <<'JS'
const fs = require("node:fs");
const path = require("node:path");
const [template, version, stage] = process.argv.slice(2);
const source = fs.readFileSync(template, "utf8");
for (const name of ["__AGENTCTX_PROGRAM__", "__AGENTCTX_SHELL__"]) {
  if (source.split(name).length !== 2) {
    throw new Error(`${template}: expected ${name} once`);
  }
}
const plugin =
  "// @agentctx/opencode: agentctx's opencode plugin as a package (packaging/opencode/pack.sh).\n" +
  "// It runs the `agentctx` on PATH; its shell is the file `bash` beside this one.\n" +
  source
    .replace("__AGENTCTX_PROGRAM__", JSON.stringify("agentctx"))
    .replace("__AGENTCTX_SHELL__", 'decodeURIComponent(new URL("./bash", import.meta.url).pathname)');
fs.writeFileSync(path.join(stage, "index.js"), plugin);
const manifest = {
  name: "@agentctx/opencode",
  version,
  description:
    "agentctx for opencode: the project's context, AGENTS.md reminders, project rules on tools, files and commands. Runs the agentctx on PATH (npm i -g agentctx).",
  license: "MIT OR Apache-2.0",
  keywords: ["opencode", "opencode-plugin", "agents-md"],
  type: "module",
  main: "index.js",
  files: ["index.js", "bash", "README.md"],
};
fs.writeFileSync(path.join(stage, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
JS
install -m 0755 "$install_src/opencode_shell.sh" "$stage/bash"
install -m 0644 "$here/README.md" "$stage/README.md"
chmod 0644 "$stage/index.js" "$stage/package.json"

(cd "$stage" && npm pack --ignore-scripts --userconfig /dev/null --no-update-notifier --loglevel warn \
  --pack-destination "$out" --json) > "$stage.json"
node -e 'console.log(require("node:path").join(process.argv[1], JSON.parse(require("node:fs").readFileSync(process.argv[2], "utf8"))[0].filename))' \
  "$out" "$stage.json"
rm -f "$stage.json"
