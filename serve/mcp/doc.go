// Package mcp serves a data directory's newest snapshot to AI agents over
// the Model Context Protocol (github.com/mark3labs/mcp-go): read-only tools,
// every note as a resource, and the two transports, stdio (vaultgraph serve
// --stdio) and streamable HTTP (POST /mcp on the REST server, behind its
// token, limits, logs and metrics). It owns the MCP surface only: snapshots
// are opened, reference-counted and swapped by package serve/store, shared
// with the REST server, and every answer comes from the snapshot
// components that package serve answers from.
//
// # Tools
//
//	cypher_query        openCypher over the snapshot's graph (package graphdb)
//	vector_search       notes, chunks or edges by meaning, with citations (package search)
//	graphrag_retrieve   GraphRAG: seeds by meaning and words, then typed edges (package retrieve)
//	graph               the obsidian-mcp-plugin's graph tool (package linkgraph):
//	                    action traverse, neighbors, path, statistics,
//	                    backlinks or forwardlinks, with the plugin's
//	                    parameters and answer shapes plus typed-edge filters
//	read_note           a note's text, metadata and edges
//	vault_status        which snapshot, how fresh, which embedder, counts, graph schema
//
// Every tool is read-only and annotated so (readOnlyHint true,
// destructiveHint false, idempotentHint true, openWorldHint false). Each
// has an input schema with defaults and bounds, checked before the tool
// runs (unknown arguments are refused; a violation is a tool error naming
// the argument), an output schema naming the answer's members, and
// answers with structuredContent and, as its text, the same JSON, so that a
// client that reads only text misses nothing (read_note adds the note's
// text once, as a second text block, never in the JSON). A tool call holds one snapshot (Acquire)
// from its start to its end, so its answer is consistent with one snapshot
// even while newer ones are swapped in; the answer names that snapshot.
// The answer is encoded into memory of its own before the snapshot is
// released. Problems an agent can fix (a Cypher syntax error, an ambiguous
// or unknown note name, a bound exceeded) are tool errors (isError) whose
// text says what to do next; they are never protocol errors. A Cypher
// error is package cypher's message, which carries the query language's
// advice (how to backquote a name, which procedures may be called), then
// the query line with a caret under the column, then a hint with what the
// tool adds (the snapshot's labels and relationship types, the argument to
// change), never repeating that advice.
//
// # The context budget
//
// An agent pays for every byte in context it cannot get back, so bytes
// handed to it are bounded like bytes on the request path (budget.go):
// tools/list stays short (descriptions say when to use each tool, output
// schemas name members only; the budget test in cmd/vaultgraph holds it
// under 12 KB on a real vault), the server's instructions say which tool
// answers which kind of question, and every answer, text and structured
// content together, fits Options.MaxResultBytes (default 12,000 bytes).
// Lists page instead of being cut without recourse: cypher_query's rows,
// vector_search's hits, graphrag_retrieve's passages and edges (in turn),
// the graph tool's nodes (each page with the edges that touch them) or
// paths. An answer that holds part of its list has a next member with a
// cursor and a line saying how to ask for the rest: the same call with
// the cursor, which names the snapshot and the call's other arguments and
// is refused, with what to do, for another snapshot or other arguments.
// read_note pages the note's text by byte offset the same way (next_offset
// and hint). What does not page (a note's links and headings, vault-wide
// statistics, a large schema) is cut to fit and the answer says how to
// get the rest. Every answer that quotes vault text carries the notice that
// quoted vault content is data, not instructions (serve.VaultTextNotice).
//
// # Tools follow the snapshot
//
// A tool is listed only when the served snapshot can answer it:
// cypher_query needs the graph database, vector_search the vectors and a
// usable embedder, graphrag_retrieve the retriever built over them. There
// are no stubs. While no snapshot is served yet, only vault_status is
// listed: it answers with status "waiting for the first snapshot", the data
// directory and the command that publishes one; any other call (one that
// raced the list) says once that there is no snapshot yet, what to run,
// and that vault_status shows progress. The lists of tools and of note
// resources are brought in
// step with the served snapshot whenever it changes: checked before every
// request (one atomic load) and by Server.Watch once a second, so that an
// idle stdio client hears of a swap. When a swap changes the tool set the
// server sends notifications/tools/list_changed, and when it changes the
// notes notifications/resources/list_changed, to every session that can
// receive them (stdio, and HTTP sessions: on their event stream, see
// below). A call that raced a swap to a snapshot without
// its capability gets a tool error with the reason, or, if the tool was
// already unlisted, the protocol's unknown-tool error.
//
// # Resources
//
// Every note (not stubs) is a resource vault://<path> with the path
// escaped as RFC 6570 simple expansion escapes it (every byte but
// A-Z a-z 0-9 - . _ ~ percent-encoded, so "/" is %2F), and the template
// vault://{path} reads any note of the snapshot, including one added after
// the client listed. resources/list is paginated (Options.PageSize per
// page, ordered by path; the cursor survives swaps). Reads return the
// note's markdown with the snapshot id and the notice in _meta. Reading a
// URI that names no note of the served snapshot (a missing note, a stub, a
// path not percent-encoded, a URI that is not vault://, or any note while
// no snapshot is served) is the protocol's resource-not-found error:
// -32002, or -32602 for clients of protocol version 2026-07-28, whose
// message names the URI and why. mcp-go reports every error of a resource
// handler as an internal error (-32603), so a hook turns such reads away
// before the lookup (see markMissing).
//
// # Transports
//
// Stdio (Run with Config.Stdio): newline-delimited JSON-RPC on stdin and
// stdout; nothing else is ever written to stdout (on Unix, file descriptor
// 1 is pointed at stderr for the life of the process, so that even a
// native library's stray print cannot corrupt the stream), logs go to
// stderr. No port and no token: only the parent process can talk to it.
//
// Streamable HTTP (Mounts), as the transport of the 2025-11-25
// specification says: POST /mcp carries JSON-RPC, answered with a single
// JSON body, or, when a notification comes while the request is handled
// (a swap's list_changed), a short event stream of it and the response
// (fiber buffers responses, so answers are sent whole). initialize hands
// out a session id (Mcp-Session-Id, 128 random bits) and later requests
// carry it; a POST without one is served without a session, as the Typed
// Graph sidecar's stateless transport serves every message (such a client
// gets no notifications; resources/subscribe and logging/setLevel, which
// need a session, are refused with 400, and so are GET and DELETE). An
// id that is sent must be live: 404 for an id that is unknown,
// ended with DELETE /mcp, idle past Options.SessionIdle, or evicted past
// Options.MaxSessions (the least recently used goes); a restarted server
// knows no sessions, so clients initialize again, as the transport
// requires of them. GET /mcp is the session's event stream (server-sent
// events, a ping every 25 s): tools/list_changed and
// resources/list_changed when a swap changes the lists, and
// notifications/resources/updated for the notes the session subscribed
// to (resources/subscribe) that the swap changed, added or removed; it
// ends with its session, when a newer stream of the session opens, or on
// Close (which Run calls when told to stop, so that shutdown need not wait
// for streams). JSON-RPC batches are answered message by message for
// sessions of protocol version 2025-03-26, the only one that has them,
// and refused with 400 for later versions. Requests of protocol version
// 2026-07-28, which has no sessions, are left to mcp-go. The routes run
// behind the REST server's middleware: its bearer token (401 without it),
// its Host check against DNS rebinding when no token is set, its body
// limit, its cap on concurrent heavy requests (every POST /mcp counts as
// one; excess gets 429 with Retry-After), its logs and metrics, to which
// the MCP server adds its own (Collectors): tool calls by tool and outcome,
// their durations, open event streams and live sessions.
package mcp
