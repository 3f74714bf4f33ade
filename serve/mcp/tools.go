package mcp

import (
	"github.com/mark3labs/mcp-go/mcp"
)

// Tool names.
const (
	toolCypher       = "cypher_query"
	toolSearch       = "vector_search"
	toolRetrieve     = "graphrag_retrieve"
	toolTraverse     = "graph_traverse"
	toolNeighbors    = "graph_neighbors"
	toolPath         = "graph_path"
	toolStatistics   = "graph_statistics"
	toolBacklinks    = "graph_backlinks"
	toolForwardlinks = "graph_forwardlinks"
	toolReadNote     = "read_note"
	toolStatus       = "vault_status"
)

// allTools returns every tool the server knows, in the order they are
// documented; Sync lists those the served snapshot can answer.
func (s *Server) allTools() ([]*tool, error) {
	tools := []*tool{
		s.cypherTool(),
		s.searchTool(),
		s.retrieveTool(),
		s.traverseTool(),
		s.neighborsTool(),
		s.pathTool(),
		s.statisticsTool(),
		s.backlinksTool(),
		s.forwardlinksTool(),
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

// Input properties shared by several tools.

// noteName is the description of a note-naming argument.
const noteName = "The note: its vault path (People/Alice.md, .md optional), its title or one of its aliases. An ambiguous name is an error listing the candidate paths."

func sourcePathArg() mcp.ToolOption {
	return mcp.WithString("sourcePath", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(4096), mcp.Description(noteName))
}

func edgeTypesArg() mcp.ToolOption {
	return mcp.WithArray("edgeTypes", mcp.WithStringItems(mcp.MinLength(1)), mcp.MaxItems(100),
		mcp.Description("Follow only edges of these types: typed edges by name as written in the vault (depends_on, works_at, \"mentored by\"), links_to for plain links, embeds for embeds. Case-insensitive. Default: every type."))
}

func filterArgs() []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithString("fileFilter", mcp.MaxLength(1000),
			mcp.Description("Keep only notes whose path matches this regular expression (RE2, e.g. ^Projects/). The source note always passes.")),
		mcp.WithString("folderFilter", mcp.MaxLength(1000),
			mcp.Description("Keep only notes in this folder or its subfolders (e.g. People). The source note always passes.")),
	}
}

func directionArgs() []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithBoolean("followBacklinks", mcp.DefaultBool(true), mcp.Description("Follow links that point to a note.")),
		mcp.WithBoolean("followForwardLinks", mcp.DefaultBool(true), mcp.Description("Follow links a note makes.")),
	}
}

func tagsArg() mcp.ToolOption {
	return mcp.WithBoolean("followTags", mcp.DefaultBool(false),
		mcp.Description("Also connect notes that share a tag (edges of type \"tag\")."))
}

func unresolvedArg() mcp.ToolOption {
	return mcp.WithBoolean("includeUnresolved", mcp.DefaultBool(false),
		mcp.Description("Also step onto stubs: link targets that have no note yet."))
}
