# Writes N (default 100000) seed-004 JSON-lines requests to stdout for a
# load run of `bloomcrawl dedup`: 1,500-character windows of the fixture
# texts (English and Chinese), about 30% re-sent under a new URL with a date
# line added, and one malformed line per thousand. Seeded: the same N gives
# the same file.
#   python3 contentdedup/testdata/gen_dedup_lines.py 100000 > /tmp/100k.jsonl
import json, os, random, sys
n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
here = os.path.dirname(os.path.abspath(__file__))
R = random.Random(3)
texts = [open(os.path.join(here, f), encoding='utf-8').read() for f in ['en_controlflow.txt', 'en_functions.txt', 'zh_first.txt', 'zh_choosing.txt']]
out = sys.stdout
prev = []
for i in range(n):
    if i % 1000 == 999:
        out.write('{"url": "https://bad.example/%d", "title": ' % i + '\n')
        continue
    if prev and R.random() < 0.3:
        u, t, c = R.choice(prev)
        c = 'Posted on 2026-11-%02d\n' % R.randint(1, 28) + c
        out.write(json.dumps({"id": i, "url": "https://copy%d.example/%d" % (R.randint(0, 9), i), "title": t, "content": c}, ensure_ascii=False) + '\n')
        continue
    t = R.choice(texts)
    off = R.randrange(len(t) - 1500)
    c = ' '.join(t[off:off + 1500].split(' ') + ['doc%d' % i, 'w%d' % R.randint(0, 10**9)])
    d = ("https://site.example/p/%d" % i, "Page %d" % i, c)
    prev.append(d)
    if len(prev) > 1000:
        prev.pop(0)
    out.write(json.dumps({"id": i, "url": d[0], "title": d[1], "content": c}, ensure_ascii=False) + '\n')
