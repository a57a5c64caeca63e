#!/bin/sh
# Installs agentctx from a release's archives, checking each against its
# SHA-256 checksum before anything is unpacked:
#
#   curl -fsSL https://<release>/agentctx-installer.sh | sh
#   sh agentctx-installer.sh [--to DIR] [--version X.Y.Z] [--libc gnu|musl]
#
# The release workflow (.github/workflows/release.yml) attaches this file as
# agentctx-installer.sh with RELEASES below set to the repository's
# releases URL, so the script needs no argument. AGENTCTX_RELEASES
# overrides it (a mirror, a local folder served over HTTP for a test).
#
# Both programs go to DIR (default ~/.local/bin): `agentctx` looks for
# `agentctx-sandbox-init` beside itself. Linux and macOS only; on Windows
# use the zip archive, npm or PyPI (docs/RELEASING.md).
set -eu

RELEASES="${AGENTCTX_RELEASES:-@RELEASES@}"
VERSION="@VERSION@"
to="${AGENTCTX_INSTALL_DIR:-$HOME/.local/bin}"
libc=""

say() { printf 'agentctx-installer: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --to) [ $# -ge 2 ] || fail "--to needs a folder"; to="$2"; shift 2 ;;
    --version) [ $# -ge 2 ] || fail "--version needs a version"; VERSION="${2#v}"; shift 2 ;;
    --libc) [ $# -ge 2 ] || fail "--libc needs gnu or musl"; libc="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" 2>/dev/null || true; exit 0 ;;
    *) fail "unknown argument $1 (--to DIR, --version X.Y.Z, --libc gnu|musl)" ;;
  esac
done
case "$RELEASES" in @*) fail "no release URL: set AGENTCTX_RELEASES" ;; esac
case "$VERSION" in @*) fail "no version: pass --version X.Y.Z" ;; esac

case "$(uname -m)" in
  x86_64|amd64) arch=x86_64 ;;
  aarch64|arm64) arch=aarch64 ;;
  *) fail "no build for this processor ($(uname -m)): build from source with cargo install --locked agentctx-cli" ;;
esac
case "$(uname -s)" in
  Linux)
    if [ -z "$libc" ]; then
      # The glibc builds need the runner's glibc (2.35) or newer; the
      # static musl builds run anywhere, so anything else gets those.
      glibc="$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')" || glibc=""
      major="${glibc%%.*}" minor="${glibc#*.}"
      minor="${minor%%.*}"
      if [ -n "$glibc" ] && [ "$major" -eq 2 ] 2>/dev/null && [ "$minor" -ge 35 ] 2>/dev/null; then
        libc=gnu
      else
        libc=musl
      fi
    fi
    case "$libc" in gnu|musl) ;; *) fail "--libc is gnu or musl, not $libc" ;; esac
    target="$arch-unknown-linux-$libc" ;;
  Darwin) target="$arch-apple-darwin" ;;
  *) fail "no installer for $(uname -s): use the zip archive, npm (npm i -g agentctx) or PyPI (uv tool install agentctx-cli)" ;;
esac

fetch() { # URL FILE
  if command -v curl > /dev/null; then
    curl --proto '=https,http' -fsSL "$1" -o "$2" || fail "could not download $1"
  elif command -v wget > /dev/null; then
    wget -q "$1" -O "$2" || fail "could not download $1"
  else
    fail "curl or wget is needed"
  fi
}

sha256() {
  if command -v sha256sum > /dev/null; then
    sha256sum "$1" | awk '{print $1}'
  elif command -v shasum > /dev/null; then
    shasum -a 256 "$1" | awk '{print $1}'
  else
    fail "sha256sum or shasum is needed to check the download"
  fi
}

name="agentctx-$target"
base="$RELEASES/download/v$VERSION"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT INT TERM
say "downloading $name $VERSION"
fetch "$base/$name.tar.gz" "$work/$name.tar.gz"
fetch "$base/$name.tar.gz.sha256" "$work/$name.tar.gz.sha256"
want="$(awk '{print $1}' "$work/$name.tar.gz.sha256")"
got="$(sha256 "$work/$name.tar.gz")"
if [ -z "$want" ] || [ "$want" != "$got" ]; then
  fail "checksum mismatch for $name.tar.gz: expected $want, got $got"
fi
tar -xzf "$work/$name.tar.gz" -C "$work"
mkdir -p "$to"
for program in agentctx agentctx-sandbox-init; do
  [ -f "$work/$name/$program" ] || continue
  # Replace by rename so a running agentctx (a hook) is never half-written.
  cp "$work/$name/$program" "$to/.$program.new"
  chmod 0755 "$to/.$program.new"
  mv -f "$to/.$program.new" "$to/$program"
done
say "installed $("$to/agentctx" --version) in $to"
case ":${PATH:-}:" in
  *":$to:"*) ;;
  *) say "$to is not on PATH: add it, or run $to/agentctx" ;;
esac
say "next: agentctx install claude   (or codex, gemini, copilot, opencode, qwen, cline)"
