package mcp

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
		s.graphTool(),
		s.readNoteTool(),
		s.statusTool(),
	}
	for _, t := range tools {
		var err error
		if t.args, err = compileArgs(&t.def); err != nil {
			return nil, err
		}
	}
	return tools, nil
}

// noteName is the description of a note-naming argument.
const noteName = "The note: its vault path (People/Alice.md, .md optional), its title or one of its aliases. An ambiguous name is an error listing the candidate paths."
