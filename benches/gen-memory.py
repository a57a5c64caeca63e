#!/usr/bin/env python3
"""Generates N capture files (default 100,000) in the UOCS format under DIR,
deterministically: five categories, several agents and projects, months
across two years, bodies of 200 words drawn with Zipf-like weights from a
vocabulary of about 2,000 words (so common words are in most captures and
most words in few, as in real text).

With CJK_EVERY (default 0, none), every CJK_EVERY-th capture also gets a
Japanese paragraph (words from a small vocabulary joined by particles,
without spaces, as Japanese is written).

Each capture's cwd is $CWD_BASE/project-<i % 7> (CWD_BASE defaults to
/work); with $REPOSITORY set, each also names its repository,
$REPOSITORY-<i % 7> (as captures made since project identities do).

Usage: benches/gen-memory.py DIR [N] [CJK_EVERY]"""
import os
import random
import sys

root = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
cjk_every = int(sys.argv[3]) if len(sys.argv) > 3 else 0
cwd_base = os.environ.get("CWD_BASE", "/work")
repository = os.environ.get("REPOSITORY", "")
rng = random.Random(7)
cjk_rng = random.Random(11)
ja_words = ("認証 フロー 調査 トークン 更新 競合 設計 キャッシュ 遅延 索引 移行 権限 設定 "
            "検証 障害 監査 依存 脆弱性 配布 画面 配色 構文 解析 再試行 接続 上限 予算").split()
ja_particles = ["を", "が", "の", "に", "は", "で", "と"]
base = ("auth token refresh race cache invalidation index query planner latency budget schema migration "
        "header layout palette contrast rollout canary feature flag retry backoff timeout socket buffer "
        "parser lexer grammar ambiguity audit dependency lockfile vulnerability patch release note").split()
# A realistic vocabulary: the 45 words above plus 2,000 made-up ones, drawn
# with Zipf-like weights, so that common words are common and most are rare.
syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "xe", "zu", "pa", "qui"]
words = base + ["".join(rng.choice(syllables) for _ in range(3)) + str(k) for k in range(2000)]
weights = [1.0 / (rank + 1) for rank in range(len(words))]
cats = [("RESEARCH", "researcher"), ("DECISION", "architect"), ("IMPLEMENTATION", "engineer"), ("DESIGN", "designer"), ("SECURITY", "pentester")]
for i in range(n):
    cat, agent = cats[i % 5]
    year = 2025 + (i // 50_000)
    month = 1 + (i // 4000) % 12
    day = 1 + i % 28
    stamp = f"{year}-{month:02d}-{day:02d}-{(i // 60) % 24:02d}{i % 60:02d}{i % 60:02d}"
    completion = " ".join(rng.choices(words, weights, k=6)).capitalize()
    slug = completion.lower().replace(" ", "-")
    d = os.path.join(root, cat, stamp[:7])
    os.makedirs(d, exist_ok=True)
    body = "\n\n".join(" ".join(rng.choices(words, weights, k=40)) + "." for _ in range(5))
    if cjk_every and i % cjk_every == 0:
        sentence = lambda: "".join(w + cjk_rng.choice(ja_particles) for w in cjk_rng.choices(ja_words, k=6)) + "。"
        body += "\n\n" + "".join(sentence() for _ in range(4))
    repo_line = f'repository: "{repository}-{i % 7}"\n' if repository else ""
    ts = f"{stamp[:10]} {stamp[11:13]}:{stamp[13:15]}:{stamp[15:17]} UTC"
    text = (f'---\ncapture_type: "{cat}"\ntimestamp: "{ts}"\nexecutor: "{agent}"\nagent_completion: "{completion}"\n'
            f'transcript_path: "/t/{i}.jsonl"\nsession_id: "s-{i // 10}"\ncwd: "{cwd_base}/project-{i % 7}"\n{repo_line}source: "claude-hook"\nredactions: "0"\n---\n\n'
            f"# {cat}: {completion}\n\n**Agent:** {agent}\n**Completed:** {ts}\n\n---\n\n## Agent Output\n\n{body}\n\n---\n\n## Metadata\n\n"
            f"**Transcript:** `/t/{i}.jsonl`\n**Captured:** {ts}\n")
    with open(os.path.join(d, f"{stamp}_AGENT-{agent}_{cat}_{slug}-{i}.md"), "w") as f:
        f.write(text)
print(f"{n} captures under {root}")
