package linkgraph

import (
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// Edge types of plain links and embeds in responses, as the
// obsidian-mcp-plugin's graph tool names them. The snapshot's tables (and
// Cypher) call them links_to and embeds; typed edges keep their names.
const (
	EdgeTypeLink  = "link"
	EdgeTypeEmbed = "embed"
)

// responseType is the type an edge of type t has in a response: link for
// links_to, embed for embeds, a typed edge's name as written.
func responseType(t string) string {
	switch t {
	case format.TypeLinksTo:
		return EdgeTypeLink
	case format.TypeEmbeds:
		return EdgeTypeEmbed
	}
	return t
}

// filterType folds a name of the edgeTypes filter to the type it selects
// in the snapshot's tables: link and links_to both select plain links,
// embed and embeds embeds.
func filterType(name string) string {
	switch t := strings.ToLower(strings.TrimSpace(name)); t {
	case EdgeTypeLink, format.TypeLinksTo:
		return format.TypeLinksTo
	case EdgeTypeEmbed, format.TypeEmbeds:
		return format.TypeEmbeds
	default:
		return t
	}
}

// foldTag is a tag as tagFilter compares it: without a leading '#',
// lower-cased.
func foldTag(t string) string {
	return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "#"))
}
