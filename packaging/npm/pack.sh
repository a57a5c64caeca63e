#!/usr/bin/env bash
# Writes agentctx's npm tarballs for one platform with `npm pack`:
#
#   packaging/npm/pack.sh TARGET BIN_DIR VERSION OUT_DIR
#
# TARGET is a Rust target triple listed in packaging/npm/targets.tsv,
# BIN_DIR the folder holding that target's built `agentctx` and
# `agentctx-sandbox-init` (`.exe` on Windows; the sandbox's first program
# is needed on Linux, where the sandbox runs, and packed elsewhere when it
# is there), VERSION the release's version. OUT_DIR receives
#
#   agentctx-VERSION.tgz                  the launcher, with every platform
#                                         package as an optional dependency
#   agentctx-cli-<os>-<arch>[-musl]-VERSION.tgz   the binaries
#
# and their paths are printed, one a line. The same input gives the same
# bytes: files are staged with fixed modes and npm pack writes fixed
# mtimes and a fixed order. No package has an install script: npm picks
# the platform package by its os, cpu and libc fields.
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: packaging/npm/pack.sh TARGET BIN_DIR VERSION OUT_DIR" >&2
  exit 2
fi
target="$1" bin_dir="$2" version="$3" out="$4"
here="$(cd "$(dirname "$0")" && pwd)"

if ! command -v npm > /dev/null || ! command -v node > /dev/null; then
  echo "pack.sh: node and npm are needed (apt-get install nodejs npm)" >&2
  exit 1
fi
# npm's own rule for versions (semver 2.0, no leading v).
if ! [[ "$version" =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]; then
  echo "pack.sh: $version is not a semver version such as 0.1.0" >&2
  exit 2
fi
row="$(awk -F'\t' -v t="$target" '$1 == t' "$here/targets.tsv")"
if [ -z "$row" ]; then
  echo "pack.sh: no npm package for target $target (packaging/npm/targets.tsv lists them)" >&2
  exit 2
fi
IFS=$'\t' read -r _ package os cpu libc suffix <<< "$row"
[ "$suffix" = "-" ] && suffix=""
[ "$libc" = "-" ] && libc=""

binaries=("agentctx$suffix")
if [ -e "$bin_dir/agentctx-sandbox-init$suffix" ] || [ "$os" = linux ]; then
  binaries+=("agentctx-sandbox-init$suffix")
fi
for binary in "${binaries[@]}"; do
  if [ ! -f "$bin_dir/$binary" ]; then
    echo "pack.sh: $bin_dir/$binary is missing (the $target build of agentctx)" >&2
    exit 1
  fi
done

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out" "$stage/main/bin" "$stage/platform/bin"
out="$(cd "$out" && pwd)"

# The launcher package: the template with this version and every
# platform package pinned to it.
install -m 0644 "$here/agentctx/README.md" "$stage/main/README.md"
install -m 0755 "$here/agentctx/bin/agentctx.js" "$stage/main/bin/agentctx.js"
node - "$here/agentctx/package.json" "$here/targets.tsv" "$version" > "$stage/main/package.json" <<'JS'
const fs = require("node:fs");
const [template, targets, version] = process.argv.slice(2);
const manifest = JSON.parse(fs.readFileSync(template, "utf8"));
manifest.version = version;
manifest.optionalDependencies = {};
for (const line of fs.readFileSync(targets, "utf8").split("\n")) {
  if (line === "" || line.startsWith("#")) continue;
  manifest.optionalDependencies[line.split("\t")[1]] = version;
}
process.stdout.write(JSON.stringify(manifest, null, 2) + "\n");
JS

# The platform package: the binaries and the fields npm matches.
for binary in "${binaries[@]}"; do
  install -m 0755 "$bin_dir/$binary" "$stage/platform/bin/$binary"
done
node - "$package" "$version" "$os" "$cpu" "$libc" "$target" > "$stage/platform/package.json" <<'JS'
const [name, version, os, cpu, libc, target] = process.argv.slice(2);
const manifest = {
  name,
  version,
  description: `The agentctx binary for ${target}; installed by the agentctx package.`,
  license: "MIT OR Apache-2.0",
  os: [os],
  cpu: [cpu],
};
if (libc) manifest.libc = [libc];
manifest.files = ["bin"];
// Yarn Plug'n'Play keeps packages zipped unless told; a binary must be on disk.
manifest.preferUnplugged = true;
process.stdout.write(JSON.stringify(manifest, null, 2) + "\n");
JS
# shellcheck disable=SC2016 # the backticks are Markdown's
printf '# %s\n\nThe agentctx binaries for %s, installed by the `agentctx` package (`npm i -g agentctx`).\n' \
  "$package" "$target" > "$stage/platform/README.md"
chmod 0644 "$stage/platform/README.md" "$stage/platform/package.json" "$stage/main/package.json"

for dir in main platform; do
  # No user or project .npmrc changes what is packed.
  (cd "$stage/$dir" && npm pack --ignore-scripts --userconfig /dev/null --no-update-notifier --loglevel warn --pack-destination "$out" --json) \
    > "$stage/$dir.json"
  node -e 'console.log(require("node:path").join(process.argv[1], JSON.parse(require("node:fs").readFileSync(process.argv[2], "utf8"))[0].filename))' \
    "$out" "$stage/$dir.json"
done
