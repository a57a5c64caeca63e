#!/usr/bin/env python3
"""Rows for the shared PostgreSQL store's benchmark (benches/pg-store.sh),
as tab-separated lines for COPY into a staging table: N captures
(default 1,000,000) in the style of benches/gen-memory.py (bodies of 200
words drawn with Zipf-like weights from about 2,000 words,
five paragraphs of a pool of 50,000, five
categories, one in CJK_EVERY (default 10) with a Japanese paragraph),
spread over PROJECTS repositories (default 50, github.com/acme/project-<k>)
and over the two years before 2026-11-25, newest last; each completion
ends with a ticket number (`ticket<k>`) that ten captures share.
Deterministic.

Columns: i, name, short, time, category, agent, completion, body,
body_cjk_bigrams, remote, top. The bigrams are what agentctx's capture
indexes for CJK runs (crates/agentmem/src/cjk.rs: overlapping bigrams and
the run's last character).

Usage: benches/gen-pg-store.py [N] [PROJECTS] [CJK_EVERY] > rows.tsv"""
import datetime
import hashlib
import random
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
projects = int(sys.argv[2]) if len(sys.argv) > 2 else 50
cjk_every = int(sys.argv[3]) if len(sys.argv) > 3 else 10
rng = random.Random(7)
cjk_rng = random.Random(11)
ja_words = ("認証 フロー 調査 トークン 更新 競合 設計 キャッシュ 遅延 索引 移行 権限 設定 "
            "検証 障害 監査 依存 脆弱性 配布 画面 配色 構文 解析 再試行 接続 上限 予算").split()
ja_particles = ["を", "が", "の", "に", "は", "で", "と"]
base = ("auth token refresh race cache invalidation index query planner latency budget schema migration "
        "header layout palette contrast rollout canary feature flag retry backoff timeout socket buffer "
        "parser lexer grammar ambiguity audit dependency lockfile vulnerability patch release note").split()
syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "xe", "zu", "pa", "qui"]
words = base + ["".join(rng.choice(syllables) for _ in range(3)) + str(k) for k in range(2000)]
weights = [1.0 / (rank + 1) for rank in range(len(words))]
cats = [("RESEARCH", "researcher"), ("DECISION", "architect"), ("IMPLEMENTATION", "engineer"),
        ("DESIGN", "designer"), ("SECURITY", "pentester")]
start = datetime.datetime(2024, 11, 25)
span = datetime.timedelta(days=730).total_seconds()


def is_cjk(c):
    o = ord(c)
    return 0x3040 <= o <= 0x30FF or 0x4E00 <= o <= 0x9FFF


def bigrams(text):
    runs, run = [], ""
    for c in text:
        if is_cjk(c):
            run += c
        elif run:
            runs.append(run)
            run = ""
    if run:
        runs.append(run)
    out = []
    for r in runs:
        out.append(" ".join([r[k:k + 2] for k in range(len(r) - 1)] + [r[-1]]))
    return " ".join(out)


# Drawing 200 words per capture would take minutes in Python at 1,000,000:
# bodies are five paragraphs drawn from a pool of 50,000 (3e20 bodies).
pool = [" ".join(rng.choices(words, weights, k=40)) + "." for _ in range(50_000)]
ja_pool = ["".join("".join(w + cjk_rng.choice(ja_particles) for w in cjk_rng.choices(ja_words, k=6)) + "。"
                   for _ in range(4)) for _ in range(2_000)]
out = sys.stdout
for i in range(n):
    cat, agent = cats[i % 5]
    t = start + datetime.timedelta(seconds=span * i / n)
    time = t.strftime("%Y-%m-%d %H:%M:%S")
    # A ticket number shared by ten captures: the rare word people search.
    completion = " ".join(rng.choices(words, weights, k=6)).capitalize() + f" ticket{i % (n // 10 or 1)}"
    slug = completion.lower().replace(" ", "-")
    name = f"{t.strftime('%Y-%m-%d-%H%M%S')}_AGENT-{agent}_{cat}_{slug}-{i}"
    short = hashlib.sha256(name.encode()).hexdigest()[:10]
    body = " ".join(pool[rng.randrange(50_000)] for _ in range(5))
    grams = ""
    if cjk_every and i % cjk_every == 0:
        ja = ja_pool[rng.randrange(2_000)]
        body += " " + ja
        grams = bigrams(ja)
    k = i % projects
    out.write(f"{i}\t{name}\t{short}\t{time}\t{cat}\t{agent}\t{completion}\t{body}\t{grams}\t"
              f"github.com/acme/project-{k}\t/work/project-{k}\n")
