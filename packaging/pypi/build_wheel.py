#!/usr/bin/env python3
"""Writes agentctx's wheel for one platform from binaries already built.

    python3 packaging/pypi/build_wheel.py TARGET BIN_DIR VERSION OUT_DIR

TARGET is a Rust target triple (the TARGETS below), BIN_DIR the folder with
that target's `agentctx` and `agentctx-sandbox-init` (`.exe` on Windows),
VERSION the release's version (PEP 440). Prints the wheel's path.

The wheel is what maturin's `bindings = "bin"` makes, by hand: the binaries
in `<name>.data/scripts/`, which pip, uv and pipx install into the
environment's `bin/` folder, both in the same one (agentctx looks for
`agentctx-sandbox-init` beside itself). By hand because maturin builds the
binaries itself, while a release packs the binaries it already built for
npm and the archives, once. The same input gives the same bytes: entries
sorted, fixed timestamps and modes. Standard library only.
"""

import base64
import hashlib
import io
import re
import sys
import zipfile
from pathlib import Path

# The PyPI name: `agentctx` there is an unrelated project (docs/install.md).
NAME = "agentctx-cli"
SUMMARY = (
    "Assemble and guard the context of a coding agent: AGENTS.md hierarchy, "
    "project rules, file list, sub-agent memory."
)
LICENSE = "MIT OR Apache-2.0"

# Target triple -> (platform tag, executable suffix). A glibc build's
# manylinux tag is worked out from the symbol versions the binaries need.
TARGETS = {
    "x86_64-unknown-linux-gnu": ("manylinux:x86_64", ""),
    "aarch64-unknown-linux-gnu": ("manylinux:aarch64", ""),
    "x86_64-unknown-linux-musl": ("musllinux_1_2_x86_64", ""),
    "aarch64-unknown-linux-musl": ("musllinux_1_2_aarch64", ""),
    "x86_64-apple-darwin": ("macosx_10_12_x86_64", ""),
    "aarch64-apple-darwin": ("macosx_11_0_arm64", ""),
    "x86_64-pc-windows-msvc": ("win_amd64", ".exe"),
}

# PEP 440's public versions, the forms a release uses.
VERSION = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")

# 1980-01-01, the earliest time a zip entry can hold.
EPOCH = (1980, 1, 1, 0, 0, 0)


def fail(message, code=1):
    print(f"build_wheel.py: {message}", file=sys.stderr)
    sys.exit(code)


def manylinux_tag(arch, blobs):
    """The manylinux tag that covers every GLIBC_2.N symbol version the
    binaries name (their .gnu.version_r strings)."""
    needed = 17  # Rust's std needs glibc 2.17 at least: manylinux2014.
    for blob in blobs:
        for minor in re.findall(rb"GLIBC_2\.(\d+)", blob):
            needed = max(needed, int(minor))
    tag = f"manylinux_2_{needed}_{arch}"
    # pip before 20.3 knows only the legacy alias of 2.17.
    return f"{tag}.manylinux2014_{arch}" if needed == 17 else tag


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def main(argv):
    if len(argv) != 4:
        fail("usage: build_wheel.py TARGET BIN_DIR VERSION OUT_DIR", 2)
    target, bin_dir, version, out = argv
    if target not in TARGETS:
        fail(f"no wheel for target {target} (known: {', '.join(sorted(TARGETS))})", 2)
    if not VERSION.match(version):
        fail(f"{version} is not a PEP 440 release version such as 0.1.0", 2)
    platform, suffix = TARGETS[target]
    names = [f"agentctx{suffix}", f"agentctx-sandbox-init{suffix}"]
    binaries = {}
    for name in names:
        path = Path(bin_dir) / name
        if not path.is_file():
            # The sandbox's first program runs only on Linux.
            if name.startswith("agentctx-sandbox-init") and "linux" not in target:
                continue
            fail(f"{path} is missing (the {target} build of agentctx)")
        binaries[name] = path.read_bytes()
    if platform.startswith("manylinux:"):
        platform = manylinux_tag(platform.split(":", 1)[1], binaries.values())

    dist = NAME.replace("-", "_")
    data = f"{dist}-{version}.data/scripts"
    info = f"{dist}-{version}.dist-info"
    readme = (Path(__file__).parent / "README.md").read_text(encoding="utf-8")
    metadata = (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\n"
        f"Version: {version}\n"
        f"Summary: {SUMMARY}\n"
        f"License: {LICENSE}\n"
        "Classifier: Environment :: Console\n"
        "Classifier: Programming Language :: Rust\n"
        "Description-Content-Type: text/markdown\n"
        "\n" + readme
    )
    tags = "".join(f"Tag: py3-none-{tag}\n" for tag in platform.split("."))
    wheel = (
        "Wheel-Version: 1.0\n"
        "Generator: agentctx packaging/pypi/build_wheel.py\n"
        "Root-Is-Purelib: false\n" + tags
    )
    files = [(f"{data}/{name}", blob, 0o755) for name, blob in binaries.items()]
    files += [
        (f"{info}/METADATA", metadata.encode(), 0o644),
        (f"{info}/WHEEL", wheel.encode(), 0o644),
    ]
    files.sort()
    record = "".join(f"{path},{record_hash(blob)},{len(blob)}\n" for path, blob, _ in files)
    record += f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode(), 0o644))

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, blob, mode in files:
            entry = zipfile.ZipInfo(path, date_time=EPOCH)
            entry.create_system = 3  # Unix, so the mode below counts.
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, blob, compresslevel=9)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel_path = out_dir / f"{dist}-{version}-py3-none-{platform}.whl"
    wheel_path.write_bytes(buffer.getvalue())
    print(wheel_path)


if __name__ == "__main__":
    main(sys.argv[1:])
