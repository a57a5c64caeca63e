#!/usr/bin/env bash
# The release archive of one target, with its checksum:
#
#   scripts/release-archive.sh TARGET BIN_DIR OUT_DIR
#
# BIN_DIR holds that target's built `agentctx` and `agentctx-sandbox-init`
# (`.exe` on Windows). OUT_DIR receives agentctx-TARGET.tar.gz (.zip for
# Windows) and its .sha256 (`HASH  NAME`, as sha256sum writes it), whose
# paths are printed. The archive holds one folder, agentctx-TARGET/, with
# both programs, README.md and the licence files: the layout
# cargo-binstall is told about (crates/cli/Cargo.toml) and the installer
# unpacks (scripts/install.sh). With GNU tar the same input gives the same
# bytes: names sorted, the commit's time, no owner. Run from the
# repository root (.github/workflows/release.yml does).
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: scripts/release-archive.sh TARGET BIN_DIR OUT_DIR" >&2
  exit 2
fi
target="$1" bin_dir="$2" out="$3"
suffix=""
case "$target" in *windows*) suffix=.exe ;; esac
name="agentctx-$target"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name" "$out"
for program in agentctx agentctx-sandbox-init; do
  if [ ! -f "$bin_dir/$program$suffix" ]; then
    echo "release-archive.sh: $bin_dir/$program$suffix is missing" >&2
    exit 1
  fi
  install -m 0755 "$bin_dir/$program$suffix" "$stage/$name/$program$suffix"
done
for doc in README.md LICENSE-MIT LICENSE-APACHE; do
  install -m 0644 "$doc" "$stage/$name/$doc"
done

case "$target" in
  *windows*)
    archive="$name.zip"
    (cd "$stage" && 7z a -tzip -bd "$archive" "$name" > /dev/null)
    ;;
  *)
    archive="$name.tar.gz"
    if tar --version 2> /dev/null | grep -q 'GNU tar'; then
      mtime="$(git log -1 --format=%ct 2> /dev/null || echo 0)"
      tar --sort=name --mtime="@$mtime" --owner=0 --group=0 --numeric-owner \
        -C "$stage" -cf - "$name" | gzip -9 -n > "$stage/$archive"
    else
      # bsdtar (macOS): no --sort or --mtime; the bytes then vary by run.
      tar -C "$stage" -cf - "$name" | gzip -9 -n > "$stage/$archive"
    fi
    ;;
esac
mv "$stage/$archive" "$out/$archive"
# sha256sum on Linux and in Git Bash, shasum on macOS: the same line.
if command -v sha256sum > /dev/null; then
  (cd "$out" && sha256sum "$archive" > "$archive.sha256")
else
  (cd "$out" && shasum -a 256 "$archive" > "$archive.sha256")
fi
echo "$out/$archive"
echo "$out/$archive.sha256"
