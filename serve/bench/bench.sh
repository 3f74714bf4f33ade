#!/usr/bin/env bash
# Load figures of vaultgraph serve: a generated vault, indexed; the server
# started as its own process; wrk (apt-get install wrk) as the load
# generator from a second process; vgbench for start-up time and the time
# from a snapshot's publish to the first answer served from it.
#
# Usage, from anywhere in the repository:
#   serve/bench/bench.sh [WORKDIR]        (default /tmp/vaultgraph-bench)
# Environment: NOTES (10000), DURATION (20s per route), CONNECTIONS (8),
# THREADS (2), PORT (7411), SWAPS (3); MIXED_THREADS (4), MIXED_DURATION
# (90s) and MIXED_SWAPS (6) for the mixed load with swaps during it. A WORKDIR from an earlier run keeps
# its vault and index, so a re-run only measures.
set -euo pipefail
cd "$(dirname "$0")/../.."
NOTES=${NOTES:-10000}
DURATION=${DURATION:-20s}
CONN=${CONNECTIONS:-8}
THREADS=${THREADS:-2}
PORT=${PORT:-7411}
SWAPS=${SWAPS:-3}
MIXED_THREADS=${MIXED_THREADS:-4}
MIXED_SWAPS=${MIXED_SWAPS:-6}
MIXED_DURATION=${MIXED_DURATION:-90s}
WORK=${1:-/tmp/vaultgraph-bench}
URL=http://127.0.0.1:$PORT
command -v wrk >/dev/null || { echo "bench.sh needs wrk: apt-get install wrk" >&2; exit 1; }

mkdir -p "$WORK"
go build -o "$WORK/vaultgraph" ./cmd/vaultgraph
go build -o "$WORK/vgbench" ./serve/bench/vgbench
VG="$WORK/vaultgraph"
[ -d "$WORK/vault" ] || "$VG" gen --notes "$NOTES" --seed 1 "$WORK/vault"
if [ ! -d "$WORK/data/snapshots" ]; then
  echo "== indexing $NOTES notes (once)"
  /usr/bin/time -f "index: %e s, max RSS %M KiB" "$VG" --log-level warn index --vault "$WORK/vault" --data "$WORK/data"
fi
echo "== machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); wrk -t$THREADS -c$CONN -d$DURATION"

start=$(date +%s%N)
# The server's log (slow requests are warnings) goes to WORKDIR/serve.log.
"$VG" --log-level warn serve --data "$WORK/data" --addr "127.0.0.1:$PORT" 2> "$WORK/serve.log" &
PID=$!
trap 'kill -TERM $PID 2>/dev/null; wait $PID 2>/dev/null || true' EXIT
rss() { awk '/VmRSS/ {printf "%.0f MiB", $2/1024}' "/proc/$PID/status"; }
echo "start-up to first ready /health: $("$WORK/vgbench" ready -url "$URL" -since "$start") ms"
echo "resident memory after start-up: $(rss)"

post() { # name JSON: a wrk script posting JSON
  cat > "$WORK/$1.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [==[$2]==]
LUA
}
post search '{"query": "release plan for the winter design review", "k": 10}'
post search-chunks '{"query": "release plan for the winter design review", "target": "chunks", "k": 10}'
post query-links '{"query": "MATCH (a)-[:links_to]->(b) WHERE a.path = $p RETURN b.title, b.path ORDER BY b.title LIMIT 20", "params": {"p": "Order Model Part.md"}}'
post query-typed '{"query": "MATCH (p:Person)-[:authored]->(x) WHERE x.title STARTS WITH $s RETURN p.title, x.title LIMIT 20", "params": {"s": "B"}}'
post query-labels '{"query": "MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS notes ORDER BY notes DESC"}'
post graph '{"action": "neighbors", "sourcePath": "Order Model Part"}'
post retrieve '{"question": "what does the winter release depend on, and who reviews it?", "k": 5, "depth": 1}'

# The routes above send one request body again and again, which the
# server answers from its answer cache after the first time (--answer-cache).
# These send a different body every time, so every answer is computed:
# a one-hop query from each note in turn (with a changing max_rows above
# its LIMIT, since a run sends more requests than there are notes), a
# count by label with a changing
# LIMIT, the typed query with a changing two-letter prefix (and a
# changing max_rows above its LIMIT, so that no body repeats), and the
# retrieval question with a number that changes (each wrk thread takes
# its own numbers).
(cd "$WORK/vault" && find . -name '*.md' | sed 's|^\./||' | sort) > "$WORK/paths.txt"
varied() { # name [threads]: a wrk script whose body(i) (Lua, on stdin) makes request i's body, and optionally its path (else the URL's)
  {
    echo "local PATHS, THREADS = '$WORK/paths.txt', ${2:-$THREADS}"
    cat <<'LUA'
local threads = 0
function setup(thread) thread:set("id", threads); threads = threads + 1 end
local paths = {}
for line in io.lines(PATHS) do paths[#paths + 1] = line end
local function json(s) return '"' .. s:gsub('\\', '\\\\'):gsub('"', '\\"') .. '"' end
local n = 0
function request()
  local i = n * THREADS + id -- unique across threads
  n = n + 1
  local b, path = body(i, paths, json)
  return wrk.format("POST", path, {["Content-Type"] = "application/json"}, b)
end
LUA
    cat
  } > "$WORK/$1.lua"
}
varied query-links-varied <<'LUA'
function body(i, paths, json)
  return '{"query": "MATCH (a)-[:links_to]->(b) WHERE a.path = $p RETURN b.title, b.path ORDER BY b.title LIMIT 20", "params": {"p": ' .. json(paths[i % #paths + 1]) .. '}, "max_rows": ' .. (100 + i) .. '}'
end
LUA
varied query-labels-varied <<'LUA'
function body(i)
  return '{"query": "MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS notes ORDER BY notes DESC LIMIT ' .. (1000 + i) .. '"}'
end
LUA
varied query-typed-varied <<'LUA'
function body(i)
  local letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
  local a, b = i % 26 + 1, math.floor(i / 26) % 26 + 1
  return '{"query": "MATCH (p:Person)-[:authored]->(x) WHERE x.title STARTS WITH $s RETURN p.title, x.title LIMIT 20", "params": {"s": "' .. letters:sub(a, a) .. letters:sub(b, b):lower() .. '"}, "max_rows": ' .. (100 + i) .. '}'
end
LUA
varied retrieve-varied <<'LUA'
function body(i)
  return '{"question": "what does the winter release ' .. i .. ' depend on, and who reviews it?", "k": 5, "depth": 1}'
end
LUA
# The mixed load: every request new, a tenth of them sorts over every edge
# (the heaviest queries in Kuzu), three tenths one-hop queries, a tenth
# counts by person, two tenths retrievals and two tenths searches.
varied mixed "$MIXED_THREADS" <<'LUA'
function body(i, paths, json)
  local kind = i * 7919 % 10
  if kind < 3 then
    return '{"query": "MATCH (a)-[:links_to]->(b) WHERE a.path = $p RETURN b.title, b.path ORDER BY b.title LIMIT 20", "params": {"p": ' .. json(paths[i * 31 % #paths + 1]) .. '}, "max_rows": ' .. (100 + i) .. '}', "/query"
  elseif kind < 4 then
    return '{"query": "MATCH (a)-[e]->(b) RETURN a.title, b.title ORDER BY b.title DESC, a.title SKIP ' .. (i % 5000) .. ' LIMIT 20", "max_rows": ' .. (100 + i) .. '}', "/query"
  elseif kind < 5 then
    return '{"query": "MATCH (p:Person)-[:authored]->(x) RETURN p.title, count(x) AS n ORDER BY n DESC, p.title LIMIT ' .. (10 + i) .. '"}', "/query"
  elseif kind < 7 then
    return '{"question": "what does the winter release ' .. i .. ' depend on, and who reviews it?", "k": 5, "depth": 1}', "/retrieve"
  else
    return '{"query": "release plan ' .. i .. ' for the winter design review", "k": 10}', "/search"
  end
end
LUA

run() { # name path [script]
  echo "== $1: ${3:+POST }$2${3:+ ($3)}"
  wrk -t"$THREADS" -c"$CONN" -d"$DURATION" --latency ${3:+-s "$WORK/$3.lua"} "$URL$2" |
    grep -E "Requests/sec|^ +50%|^ +99%|Non-2xx|Socket errors|requests in"
}
run status /status
run note "/notes/Order%20Model%20Part.md"
run search /search search
run search-chunks /search search-chunks
run query-links /query query-links
run query-typed /query query-typed
run query-labels /query query-labels
run graph /graph graph
run retrieve /retrieve retrieve
run query-links-varied /query query-links-varied
run query-labels-varied /query query-labels-varied
run query-typed-varied /query query-typed-varied
run retrieve-varied /retrieve retrieve-varied
echo "resident memory after load: $(rss)"
curl -s "$URL/metrics" | grep -E '^vaultgraph_(heavy_requests_rejected_total|answer_cache_(hits|misses)_total)'

echo "== publish to first response ($SWAPS incremental index runs)"
"$WORK/vgbench" swap -url "$URL" -vault "$WORK/vault" -data "$WORK/data" -bin "$VG" -n "$SWAPS"
# The snapshot replaced last closes once its last request is done.
for _ in $(seq 50); do
  curl -s "$URL/metrics" | grep -q '^vaultgraph_snapshots_open 1$' && break
  sleep 0.2
done
echo "resident memory after swaps: $(rss)"
curl -s "$URL/metrics" | grep -E '^vaultgraph_snapshot(s_open|_swaps_total)'

# Swaps under load: the mixed load runs for MIXED_DURATION, and
# MIXED_SWAPS incremental index runs publish from 2 s into it; the
# server's resident memory is sampled every 0.2 s meanwhile (the peaks are
# while a snapshot loads beside the one served).
echo "== mixed load ($MIXED_THREADS threads, $MIXED_DURATION) with $MIXED_SWAPS swaps during it"
( while kill -0 "$PID" 2>/dev/null; do awk '/VmRSS/ {print int($2/1024)}' "/proc/$PID/status"; sleep 0.2; done ) > "$WORK/rss-mixed.txt" &
SAMPLER=$!
wrk -t"$MIXED_THREADS" -c"$CONN" -d"$MIXED_DURATION" -s "$WORK/mixed.lua" "$URL" > "$WORK/wrk-mixed.txt" 2>&1 &
WRK=$!
sleep 2
"$WORK/vgbench" swap -url "$URL" -vault "$WORK/vault" -data "$WORK/data" -bin "$VG" -n "$MIXED_SWAPS" | tail -1
kill -0 $WRK 2>/dev/null || echo "(the swaps outlasted the load: raise MIXED_DURATION)"
wait $WRK || true
kill $SAMPLER; wait $SAMPLER 2>/dev/null || true
grep -E "Requests/sec|Non-2xx|Socket errors|requests in" "$WORK/wrk-mixed.txt"
sort -n "$WORK/rss-mixed.txt" | awk '{v[NR] = $1} END {
  p = int(NR * 0.9); if (p < 1) p = 1
  printf "resident memory under the mixed load with swaps: median %d MiB, 90th percentile %d, max %d (%d samples)\n", v[int((NR + 1) / 2)], v[p], v[NR], NR }'
for _ in $(seq 50); do
  curl -s "$URL/metrics" | grep -q '^vaultgraph_snapshots_open 1$' && break
  sleep 0.2
done
echo "resident memory after the mixed load: $(rss)"
curl -s "$URL/metrics" | grep -E '^vaultgraph_(snapshot_swaps_total|heavy_requests_rejected_total)'
