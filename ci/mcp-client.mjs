// An MCP client built on the official TypeScript SDK, driven by the Go
// tests (cmd/vaultgraph/mcp_test.go) to check vaultgraph's MCP server from
// the outside.
//
//   node mcp-client.mjs PLAN stdio BINARY [ARG...]
//   node mcp-client.mjs PLAN http URL [TOKEN]
//
// PLAN is a JSON array of steps, run in order on one connection:
//
//   {"op": "init"}                          server info, capabilities, instructions, protocol version
//   {"op": "listTools"}                     every tool, following cursors
//   {"op": "callTool", "name": N, "arguments": {...}}
//   {"op": "listResources", "pageLimit": P} every resource, following cursors (at most P pages)
//   {"op": "listResourceTemplates"}
//   {"op": "readResource", "uri": U}
//   {"op": "subscribe", "uri": U}           resources/subscribe
//   {"op": "waitNotification", "method": M, "readyFile": R}
//       touch R, then wait (up to a minute) until a notification M has
//       come; the result lists the params of every notification M so far
//   {"op": "terminate"}                     end the session (DELETE, HTTP only)
//   {"op": "loop", "calls": [{"name", "arguments"}...], "stopFile": F, "readyFile": R, "seenFile": S}
//     (S, when given, lists the snapshot ids the calls have named so far,
//     one a line, rewritten by rename whenever a new one appears)
//       call the tools round-robin until file F exists (touching R once the
//       first round is done), and report every snapshot id seen and every
//       failure
//
// Tools are listed before the first call, so that the SDK checks every
// result's structuredContent against the tool's output schema, as real
// clients do. Each step's outcome is printed as one JSON array on stdout:
// {"op", "ok": true, "result"} or {"op", "ok": false, "error", "code"}.
// Notifications received are reported in a final {"op": "notifications"}.

import { existsSync, renameSync, writeFileSync } from "node:fs";
import { setMaxListeners } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ToolListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [plan, kind, target, ...rest] = process.argv.slice(2);
if (!plan || !kind || !target) {
  console.error("usage: node mcp-client.mjs PLAN stdio BINARY [ARG...] | PLAN http URL [TOKEN]");
  process.exit(2);
}

let transport;
if (kind === "stdio") {
  transport = new StdioClientTransport({ command: target, args: rest, stderr: "inherit" });
} else if (kind === "http") {
  const headers = rest[0] ? { Authorization: `Bearer ${rest[0]}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } });
} else {
  console.error(`unknown transport ${kind}`);
  process.exit(2);
}
let protocolVersion;
const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (v) => {
  protocolVersion = v;
  setProtocolVersion?.(v);
};

// The HTTP transport hands one AbortSignal to every request, and fetch
// (undici) keeps a listener on it per request until garbage collection:
// thousands of calls on one connection trip Node's leak warning. Harmless
// here, and not the server's doing.
setMaxListeners(0);
const client = new Client({ name: "vaultgraph-ci", version: "1.0.0" }, { capabilities: {} });
const notifications = [];
const received = []; // every notification: {method, params}
const waiters = [];
function notified(n) {
  notifications.push(n.method);
  received.push({ method: n.method, params: n.params ?? {} });
  for (const w of waiters.splice(0)) w();
}
client.setNotificationHandler(ToolListChangedNotificationSchema, notified);
client.setNotificationHandler(ResourceListChangedNotificationSchema, notified);
client.setNotificationHandler(ResourceUpdatedNotificationSchema, notified);

// waitNotification resolves with the params of every notification of
// method once there is one.
async function waitNotification(step) {
  if (step.readyFile) writeFileSync(step.readyFile, "ready\n");
  const deadline = Date.now() + 60000;
  for (;;) {
    const got = received.filter((n) => n.method === step.method).map((n) => n.params);
    if (got.length > 0) return got;
    if (Date.now() > deadline) throw new Error(`no ${step.method} within a minute; got ${JSON.stringify(notifications)}`);
    await new Promise((resolve) => {
      waiters.push(resolve);
      setTimeout(resolve, 1000);
    });
  }
}

const out = [];
try {
  await client.connect(transport);
} catch (e) {
  out.push({ op: "connect", ok: false, error: String(e?.message ?? e), code: e?.code });
  console.log(JSON.stringify(out));
  process.exit(0);
}

let listed = false;
async function listTools() {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  listed = true;
  return tools;
}

async function run(step) {
  switch (step.op) {
    case "init":
      return {
        serverVersion: client.getServerVersion(),
        capabilities: client.getServerCapabilities(),
        instructions: client.getInstructions(),
        protocolVersion,
      };
    case "listTools":
      return listTools();
    case "callTool":
      if (!listed) await listTools();
      return client.callTool({ name: step.name, arguments: step.arguments ?? {} });
    case "listResources": {
      const resources = [];
      let cursor;
      let pages = 0;
      do {
        const page = await client.listResources(cursor ? { cursor } : {});
        resources.push(...page.resources);
        cursor = page.nextCursor;
        pages++;
      } while (cursor && pages < (step.pageLimit ?? 1000));
      return { resources, pages };
    }
    case "listResourceTemplates":
      return client.listResourceTemplates();
    case "readResource":
      return client.readResource({ uri: step.uri });
    case "subscribe":
      return client.subscribeResource({ uri: step.uri });
    case "waitNotification":
      return waitNotification(step);
    case "terminate":
      await transport.terminateSession();
      return { sessionId: transport.sessionId ?? null };
    case "loop":
      return loop(step);
  }
  throw new Error(`unknown op ${step.op}`);
}

// loop calls tools round-robin until stopFile exists.
async function loop(step) {
  if (!listed) await listTools();
  const snapshots = {};
  const failures = [];
  let calls = 0;
  for (let round = 0; !existsSync(step.stopFile); round++) {
    for (const c of step.calls) {
      calls++;
      try {
        const res = await client.callTool({ name: c.name, arguments: c.arguments ?? {} });
        const id = res.structuredContent?.snapshot;
        if (res.isError || !id) {
          failures.push(`${c.name}: ${JSON.stringify(res.content)}`);
        } else {
          if (!(id in snapshots) && step.seenFile) {
            writeFileSync(step.seenFile + ".tmp", Object.keys(snapshots).concat([id]).join("\n") + "\n");
            renameSync(step.seenFile + ".tmp", step.seenFile);
          }
          snapshots[id] = (snapshots[id] ?? 0) + 1;
        }
      } catch (e) {
        failures.push(`${c.name}: ${e?.message ?? e}`);
      }
    }
    if (round === 0 && step.readyFile) writeFileSync(step.readyFile, "ready\n");
  }
  return { calls, snapshots, failures };
}

for (const step of JSON.parse(plan)) {
  try {
    out.push({ op: step.op, ok: true, result: await run(step) });
  } catch (e) {
    out.push({ op: step.op, ok: false, error: String(e?.message ?? e), code: e?.code });
  }
}
out.push({ op: "notifications", ok: true, result: notifications });
await client.close();
console.log(JSON.stringify(out));
