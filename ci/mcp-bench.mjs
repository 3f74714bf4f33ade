// Tool-call latency of vaultgraph's MCP server, measured with the official
// TypeScript SDK client: N sequential calls of each tool after a warm-up,
// on one connection, timed around client.callTool (so the figures include
// JSON-RPC encoding, the transport and the SDK's output-schema check).
//
//   node mcp-bench.mjs N stdio BINARY [ARG...]
//   node mcp-bench.mjs N http URL [TOKEN]
//
// Prints one JSON object: per tool, the median, p90 and mean in ms.

import { setMaxListeners } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [nArg, kind, target, ...rest] = process.argv.slice(2);
const n = Number(nArg);
if (!n || !kind || !target) {
  console.error("usage: node mcp-bench.mjs N stdio BINARY [ARG...] | N http URL [TOKEN]");
  process.exit(2);
}
const transport =
  kind === "stdio"
    ? new StdioClientTransport({ command: target, args: rest, stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(target), {
        requestInit: { headers: rest[0] ? { Authorization: `Bearer ${rest[0]}` } : {} },
      });
// The HTTP transport hands one AbortSignal to every request, and fetch
// (undici) keeps a listener on it per request until garbage collection:
// thousands of calls on one connection trip Node's leak warning. Harmless
// here, and not the server's doing.
setMaxListeners(0);
const client = new Client({ name: "vaultgraph-bench", version: "1.0.0" }, { capabilities: {} });
await client.connect(transport);
await client.listTools();

const calls = {
  vault_status: {},
  vector_search: { query: "who funds the search project", k: 10 },
  cypher_query: {
    query: "MATCH (p:Person)-[r]->(proj:Project) RETURN p.title, type(r), proj.title ORDER BY p.title LIMIT 20",
  },
};

const report = { transport: kind, calls: n };
for (const [name, args] of Object.entries(calls)) {
  for (let i = 0; i < Math.min(20, n); i++) await client.callTool({ name, arguments: args });
  const ms = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    const res = await client.callTool({ name, arguments: args });
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (res.isError) throw new Error(`${name}: ${JSON.stringify(res.content)}`);
  }
  ms.sort((a, b) => a - b);
  const at = (q) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))];
  report[name] = {
    median_ms: +at(0.5).toFixed(3),
    p90_ms: +at(0.9).toFixed(3),
    mean_ms: +(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(3),
  };
}
await client.close();
console.log(JSON.stringify(report));
