package codecontext

import "github.com/vaultgraph/vaultgraph/format"

// CodeLink is one of a note's links to code: its type, the file or symbol
// it names and whether that exists.
type CodeLink struct {
	Type   string `json:"type"`
	Target string `json:"target"`
	// Missing is set when no tracked file or symbol has the id (the note
	// and the code have drifted apart).
	Missing bool  `json:"missing,omitempty"`
	Line    int32 `json:"line,omitempty"`
}

// CodeLinks lists the links to code of the note with this id, in the
// order the note writes them, so that an agent reading a note sees the
// code it points at as links, not only in its text.
func (ix *Index) CodeLinks(note string) []CodeLink {
	n, ok := ix.byID[note]
	if !ok || ix.nodes[n].kind != KindNote {
		return nil
	}
	var out []CodeLink
	for _, a := range ix.adj[n] {
		if !a.out {
			continue
		}
		e := &ix.edges[a.edge]
		if !format.IsCodeID(e.Target) {
			continue
		}
		out = append(out, CodeLink{Type: e.Type, Target: e.Target, Missing: ix.nodes[a.to].kind == KindStub, Line: e.Line})
	}
	return out
}
