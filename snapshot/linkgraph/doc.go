// Package linkgraph is the in-memory link graph of one snapshot: every note
// and stub, and every edge between them (plain links, embeds and typed
// edges) indexed in both directions, with a name index that finds a note by
// its path, title or alias. It answers the graph-view questions an Obsidian
// user knows (traverse, neighbors, path, statistics, backlinks,
// forwardlinks) without touching the disk or a database.
//
// A Graph is built once per snapshot (Load, or New from rows already in
// memory) by whoever opens the snapshot, the server's loader or a CLI
// command, and is read-only afterwards: it is safe for concurrent use by any
// number of queries, and no query rebuilds or modifies it. It holds no open
// files and needs no Close; it keeps no note content, only names, labels,
// tags and edges.
//
// Every query is bounded: traversals stop at maxNodes, lists at their
// limit, path enumeration at maxPaths and a deadline. A note with thousands
// of backlinks (a hub) costs at most one pass over its edges per visit, and
// every answer says when it stopped early (Response.Truncated and
// Response.Stopped).
//
// The request and response shapes (Request, Response) keep the contract of
// the graph tool of the obsidian-mcp-plugin (parameter names action,
// sourcePath, targetPath, maxDepth, maxNodes, followBacklinks,
// followForwardLinks, followTags, fileFilter, folderFilter; nodes with path,
// title, tags and links {forward, backward, total}; edges with source,
// target, type and count; graphStats; paths as lists of paths) and extend it
// with typed-edge fields: labels, depth, sign, properties, sentence and the
// edgeTypes filter.
package linkgraph
