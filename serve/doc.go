// Package serve is the read-only REST server over a data directory's
// newest snapshot (vaultgraph serve). It owns the HTTP surface: routes,
// request and response shapes, authentication, limits, logs and metrics.
// Snapshots are opened, reference-counted and swapped by package
// serve/store, which the MCP server shares.
//
// # Routes
//
//	GET  /health         liveness and readiness; never needs a token
//	GET  /status         the served snapshot, its age, counts and capabilities (200 with state starting before there is one)
//	POST /query          read-only openCypher (package graphdb)
//	POST /search         vector search (package search), then optional Cypher on $hits
//	GET  /notes/{path}   a note, its edges in both directions and its chunks
//	POST /graph          link-graph navigation (package linkgraph)
//	POST /retrieve       GraphRAG retrieval (package retrieve)
//	GET  /metrics        Prometheus text format
//	GET  /openapi.json   the OpenAPI 3 document of these routes
//	POST /admin/reload   look for a newer snapshot now
//
// Later features add routes through Options.Mounts (POST /mcp) or in
// register; every route is documented in openapi.json, which a test keeps
// in step with the router.
//
// Every response to a client allowed to read the vault names the snapshot
// that answered: the X-Snapshot-Id header, and a snapshot field in JSON
// bodies (x-snapshot in the OpenAPI document, the vaultgraph_snapshot_info
// series in /metrics); responses refused by authentication, and /health
// asked without the token, name none. A request holds one snapshot from
// start to end, so its answer is consistent with that snapshot even while
// newer ones are swapped in. Errors are JSON, {"error": {"kind",
// "message", "line", "column"}, "snapshot"}, never a stack trace. A query
// the graph engine has no memory for is a 503 with Retry-After (kind
// out_of_memory), not a 400: nothing is wrong with it that a retry, a
// larger --graph-memory or a narrower pattern cannot fix.
//
// A snapshot never changes, so POST /query and POST /retrieve keep their
// recent successful answers by vault, snapshot and request body (answers,
// Options.AnswerCache), once one has been computed twice, and send it
// again, marked X-Answer-Cache: hit, without running anything.
//
// Request bodies are JSON objects sent as application/json (415
// otherwise, which also keeps web pages from posting to a loopback server
// without a CORS preflight), decoded strictly: a member that is not a
// field of the request is refused, naming the field meant when one is
// close, since a misspelt filter silently ignored answers another
// question. Integer fields left out take their defaults; set, they must
// be at least their documented minimum. GET routes answer HEAD.
//
// # Safe by default
//
// Run binds to loopback unless given a token (CheckExposure); with a token
// every route but /health requires it as a bearer token, compared as
// SHA-256 digests in constant time and never logged; without one, requests
// whose Host header is not a loopback name are refused, which defeats DNS
// rebinding from a browser. Request bodies, query text, result rows and
// bytes, and search k are bounded; compressed bodies are refused (they
// would be inflated without bound). Queries and searches run with a
// timeout and in a bounded number of slots: a request finding none free
// within a short wait gets 429 with Retry-After rather than queueing. No
// CORS headers are sent unless origins are configured. Logs are
// structured (log/slog) with request ids, and carry route patterns, never
// note paths, note text, queries or tokens. On SIGTERM the server stops
// accepting connections, finishes the requests in flight, then closes
// the snapshots.
package serve
