package mcp

import "github.com/mark3labs/mcp-go/mcp"

// Tool names.
const (
	toolCypher   = "cypher_query"
	toolSearch   = "vector_search"
	toolRetrieve = "graphrag_retrieve"
	toolGraph    = "graph"
	toolReadNote = "read_note"
	toolStatus   = "vault_status"
)

// allTools returns every tool the server knows, in the order they are
// documented; Sync lists those the served snapshot can answer.
func (s *Server) allTools() ([]*tool, error) {
	tools := []*tool{
		s.cypherTool(),
		s.searchTool(),
		s.retrieveTool(),
		s.contextTool(),
		s.graphTool(),
		s.readNoteTool(),
		s.statusTool(),
	}
	for _, t := range tools {
		if t.paged {
			addCursorArg(&t.def)
		}
		if err := compactOutputSchema(&t.def, t.paged); err != nil {
			return nil, err
		}
		var err error
		if s.vaults.Len() > 1 {
			addVaultArg(&t.def, s.vaults.Default().Name)
		}
		if t.args, err = compileArgs(&t.def); err != nil {
			return nil, err
		}
	}
	return tools, nil
}

// noteName is the description of a note-naming argument.
const noteName = "The note's path (People/Alice.md), title or alias."

// addVaultArg gives def the optional vault argument, with the default
// named. The description names no other vault, so that the tool list
// does not grow with their number; vault_status lists them.
func addVaultArg(def *mcp.Tool, defaultVault string) {
	if def.InputSchema.Properties == nil {
		def.InputSchema.Properties = map[string]any{}
	}
	def.InputSchema.Properties[vaultArg] = map[string]any{
		"type":        "string",
		"description": "The vault to ask (vault_status lists them); default " + defaultVault + ".",
	}
}
