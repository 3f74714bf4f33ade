# Follows an MCP tool's pages and prints each page's size and what it holds:
#
#   python3 ci/mcp-pages.py BINARY DATA TOOL ARGUMENTS-JSON
#
# runs `BINARY serve --stdio --data DATA`, calls TOOL with the arguments,
# then again with next.cursor (read_note: offset next_offset) until the
# last page; per page: bytes of the JSON-RPC response line and the number
# of chunks, edges and notes (read_note: the bytes of text and of JSON),
# then the calls and bytes in all.
import json, subprocess, sys
bin_, data, tool, args = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
p = subprocess.Popen([bin_, "serve", "--stdio", "--data", data], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
i = 0
def rpc(method, params):
    global i; i += 1
    p.stdin.write((json.dumps({"jsonrpc":"2.0","id":i,"method":method,"params":params})+"\n").encode()); p.stdin.flush()
    while True:
        line = p.stdout.readline()
        m = json.loads(line)
        if m.get("id") == i: return line, m
rpc("initialize", {"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}})
p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'); p.stdin.flush()
calls = tot = 0; seen = {"chunks":0,"edges":0,"notes":0}
while True:
    line, m = rpc("tools/call", {"name": tool, "arguments": args})
    calls += 1; tot += len(line)
    r = m.get("result", {})
    if r.get("isError") or "error" in m:
        print("page", calls, len(line), "ERROR", (r.get("content") or [{}])[0].get("text", m.get("error"))[:200]); break
    sc = r["structuredContent"]
    counts = {k: len(sc.get(k) or []) for k in ("chunks","edges","notes")}
    for k in seen: seen[k] += counts[k]
    extra = ""
    if tool == "read_note":
        extra = "text %d-%d json %d" % (sc["content_offset"], sc["content_end"], len(r["content"][0]["text"].encode()))
    print("page", calls, "bytes", len(line), counts if tool != "read_note" else "", extra)
    nx = sc.get("next")
    if tool == "read_note":
        if not sc.get("content_truncated"): break
        args = dict(args, offset=sc["next_offset"])
    elif nx: args = dict(args, cursor=nx["cursor"])
    else: break
    if calls > 200: break
    sys.stdout.flush()
print("calls", calls, "total bytes", tot, "seen", seen)
p.stdin.close(); p.wait()
