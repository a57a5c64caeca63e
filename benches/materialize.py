#!/usr/bin/env python3
"""Materializes a git repository's commit into a folder, for benchmarks on
real trees without a checkout: every tracked path, with its content where
the object is present (a fetched snapshot may lack its largest blobs: those
become empty files, which a file list does not see), symlinks as symlinks,
submodules as empty folders. The folder is then made a git repository
whose index holds every path (`git init`, `git add -A -f`), so it is a
project root and its tracked files are what a clone's are.

Usage: benches/materialize.py GIT_DIR COMMIT DEST
"""
import os
import subprocess
import sys

git_dir, commit, dest = sys.argv[1], sys.argv[2], sys.argv[3]
listing = subprocess.run(
    ["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", "--full-tree", commit],
    check=True, capture_output=True).stdout.split(b"\0")
cat = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)
paths = missing = 0
for record in listing:
    if not record:
        continue
    meta, path = record.split(b"\t", 1)
    mode, kind, oid = meta.split(b" ")
    target = os.path.join(dest.encode(), path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    paths += 1
    if kind == b"commit":
        os.makedirs(target, exist_ok=True)
        continue
    cat.stdin.write(oid + b"\n")
    cat.stdin.flush()
    header = cat.stdout.readline().split()
    data = b""
    if header[-1] == b"missing":
        missing += 1
    else:
        data = cat.stdout.read(int(header[2]))
        cat.stdout.read(1)
    if mode == b"120000" and data:
        os.symlink(data, target)
        continue
    with open(target, "wb") as out:
        out.write(data)
    if mode == b"100755":
        os.chmod(target, 0o755)
cat.stdin.close()
cat.wait()
subprocess.run(["git", "init", "-q", dest], check=True)
subprocess.run(["git", "-C", dest, "-c", "core.autocrlf=false", "add", "-A", "-f"], check=True)
print(f"{dest}: {paths} paths, {missing} without content", file=sys.stderr)
