package serve

import "github.com/vaultgraph/vaultgraph/snapshot/linkgraph"

// Requests shared by the REST routes and the MCP tools, so that both
// surfaces take the same arguments under the same names and a field added
// here reaches both.

// GraphRequest is POST /graph and the MCP graph tool: the
// obsidian-mcp-plugin graph tool's arguments (linkgraph.Request) and its
// raw switch.
type GraphRequest struct {
	linkgraph.Request
	// Raw asks the MCP tool for the answer's JSON as its text content
	// instead of a compact listing; REST answers JSON either way.
	Raw bool `json:"raw,omitempty"`
}
