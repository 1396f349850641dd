#!/bin/bash
# lab/consolebench/crawl.sh BINARY MODE OUT: one crawl of the Rust docs
# served on 127.0.0.1:18093 (/work/shared/lab/serve-corpus.sh
# /tmp/corpora/rust 18093), 16 requests in flight, into a new store; its
# summary's pages_per_second is appended to OUT as "MODE PAGES/S FETCHED
# STORED". MODE: plain (no --serve), serve (--serve, nobody looking) or
# viewer (--serve and a headless Chromium keeping the console open until
# the crawl ends). Run it in pairs under farm-bench (docs/console.md).
set -euo pipefail
bin=$1 mode=$2 out=$3
dir=$(mktemp -d /tmp/consolebench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/crawl.yaml" <<YAML
seeds:
  - http://127.0.0.1:18093/index.html
politeness:
  per_host_parallelism: 16
  concurrency: 16
YAML
port=$((20000 + RANDOM % 20000))
args=(crawl "$dir/crawl.yaml" --store "$dir/store" --json)
[ "$mode" = plain ] || args+=(--serve "127.0.0.1:$port")
"$bin" "${args[@]}" >"$dir/out.json" 2>"$dir/err" &
pid=$!
cpid=""
if [ "$mode" = viewer ]; then
	for _ in $(seq 200); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
	chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --disable-quic --user-data-dir="$dir/chrome" \
		--remote-debugging-port=0 "http://127.0.0.1:$port/" >/dev/null 2>&1 &
	cpid=$!
fi
wait "$pid"
if [ -n "$cpid" ]; then kill "$cpid" 2>/dev/null || true; wait "$cpid" 2>/dev/null || true; fi
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], d["pages_per_second"], d["fetched"], d["stored"])' "$dir/out.json" "$mode" >>"$out"
