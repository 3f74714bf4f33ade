package serve

import (
	"reflect"

	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
)

// Requests shared by the REST routes and the MCP tools: both decode the
// same types, under the same names, with the same aliases, so that a field
// added here (a vault, a fusion option) reaches every surface at once.
// Names follow the Typed Graph sidecar where it names the same thing
// (neighbor_cap, chunk_cap, mode, backend) and the obsidian-mcp-plugin in
// the graph request (sourcePath, maxDepth, ...); FieldAliases maps the
// names vaultgraph used before, which are still accepted.

// QueryRequest is POST /query and the cypher_query tool.
type QueryRequest struct {
	Query  string         `json:"query"`
	Params map[string]any `json:"params"`
	// TimeoutMS and MaxRows lower the server's limits for this query;
	// they cannot raise them.
	TimeoutMS int `json:"timeout_ms"`
	MaxRows   int `json:"max_rows"`
	// Backend is the Typed Graph sidecar's engine choice, builtin or
	// ladybug; both run on the snapshot's graph (see CheckBackend).
	Backend string `json:"backend"`
}

// SearchRequest is POST /search and the vector_search tool. Types are note
// labels, for every target (for edges: a label of either end), and
// EdgeTypes are edge types.
type SearchRequest struct {
	Query string `json:"query"`
	// Target is nodes (default; notes is accepted for it), chunks or
	// edges.
	Target string `json:"target"`
	// Types keeps notes with one of these labels, chunks of such notes,
	// and edges with such a note at either end. Labels is its older name;
	// the two are merged.
	Types  []string `json:"types"`
	Labels []string `json:"labels"`
	// EdgeTypes keeps edges of these types (target edges only).
	EdgeTypes []string `json:"edge_types"`
	K         int      `json:"k"`
	// Mode scores a note by its best passage (best, the default) or by
	// all of them (pooled; mean is accepted for it).
	Mode string `json:"mode"`
	// Method is fused (default: vectors and BM25 by reciprocal rank
	// fusion), vectors or bm25 (needs no embedder; not for edges).
	Method string `json:"method"`
	// Then is a Cypher query run after the search on the same snapshot,
	// with the hits bound to $hits and Params bound as usual.
	Then      string         `json:"then"`
	Params    map[string]any `json:"params"`
	TimeoutMS int            `json:"timeout_ms"`
	MaxRows   int            `json:"max_rows"`
	// Backend is then's engine, as in QueryRequest.
	Backend string `json:"backend"`
}

// FieldAliases are, per request type, names a request may use for a
// field besides its own: vaultgraph's names from before it adopted the
// peers' (score, max_chunks, per_node_cap). A request naming both is
// refused.
var FieldAliases = map[reflect.Type]map[string]string{
	reflect.TypeFor[SearchRequest]():    {"score": "mode"},
	reflect.TypeFor[retrieve.Request](): {"max_chunks": "chunk_cap", "per_node_cap": "neighbor_cap"},
	reflect.TypeFor[GraphRequest]():     {},
	reflect.TypeFor[QueryRequest]():     {},
}

// GraphRequest is POST /graph and the MCP graph tool: the
// obsidian-mcp-plugin graph tool's arguments (linkgraph.Request) and its
// raw switch.
type GraphRequest struct {
	linkgraph.Request
	// Raw asks the MCP tool for the answer's JSON as its text content
	// instead of a compact listing; REST answers JSON either way.
	Raw bool `json:"raw,omitempty"`
}
