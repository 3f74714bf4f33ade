package diff

import (
	"fmt"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// Report is what changed from snapshot From to snapshot To. Every list is
// sorted and non-nil, so the JSON form always has every key.
type Report struct {
	From       Side              `json:"from"`
	To         Side              `json:"to"`
	Notes      NoteChanges       `json:"notes"`
	Edges      EdgeChanges       `json:"edges"`
	Unresolved UnresolvedChanges `json:"unresolved"`
	Warnings   WarningChanges    `json:"warnings"`
	// Embedder is set when the embedding model differs (by fingerprint),
	// or only one side has vectors.
	Embedder *EmbedderChange `json:"embedder,omitempty"`
}

// Side identifies one of the compared snapshots.
type Side struct {
	ID       string           `json:"id"`
	Created  time.Time        `json:"created"`
	Counts   format.Counts    `json:"counts"`
	Embedder *format.Embedder `json:"embedder,omitempty"`
}

// NoteChanges lists the notes (not stubs) that differ, by vault path.
type NoteChanges struct {
	Added   []string     `json:"added"`
	Removed []string     `json:"removed"`
	Renamed []Rename     `json:"renamed"`
	Changed []NoteChange `json:"changed"`
}

// Rename is a note whose content moved, unchanged, to a new path.
type Rename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// NoteChange says what changed in a note kept at the same path.
type NoteChange struct {
	Note       string           `json:"note"`
	Title      *ValueChange     `json:"title,omitempty"`
	Labels     SetChange        `json:"labels"`
	Tags       SetChange        `json:"tags"`
	Aliases    SetChange        `json:"aliases"`
	Properties []PropertyChange `json:"properties"`
	Chunks     *ChunkChange     `json:"chunks,omitempty"`
}

// ValueChange is a value before and after.
type ValueChange struct {
	Before string `json:"before"`
	After  string `json:"after"`
}

// SetChange lists the members gained and lost.
type SetChange struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
}

func (s SetChange) empty() bool { return len(s.Added) == 0 && len(s.Removed) == 0 }

// Property change kinds.
const (
	PropertyAdded   = "added"
	PropertyRemoved = "removed"
	PropertyChanged = "changed"
)

// PropertyChange is one frontmatter key or inline field that changed.
// Before and After are the values as text (a repeated key's values joined
// with ", "); Before is empty for an added key and After for a removed one.
type PropertyChange struct {
	Key    string `json:"key"`
	Change string `json:"change"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// ChunkChange counts a note's chunks (passages) before and after, and how
// many passage texts are new or gone.
type ChunkChange struct {
	Before  int `json:"before"`
	After   int `json:"after"`
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

// EdgeChanges lists resolved edges added and removed, and edges whose
// properties changed. Edges are compared by type, source and target: of
// several edges with the same three (typed edges written twice), the
// surplus on one side counts as added or removed, and the others pair up
// (same properties first, then the same id, then in written order) and
// count as changed when their properties differ.
type EdgeChanges struct {
	Added   []Edge `json:"added"`
	Removed []Edge `json:"removed"`
	// Changed lists edges on both sides whose properties differ, the
	// resolved ones first, then unresolved links.
	Changed []EdgeChange `json:"changed"`
	ByType  []TypeCount  `json:"by_type"`
}

// Edge is an edge between two notes. Type has a leading '-' for an edge
// written with a negative sign.
type Edge struct {
	Type   string `json:"type"`
	Source string `json:"source"`
	Target string `json:"target"`
}

// EdgeChange is an edge kept with other properties: the keys added,
// removed and changed, with their values before and after (as for note
// properties). Unresolved is set for a link to no note; Target is then
// the link text.
type EdgeChange struct {
	Type       string           `json:"type"`
	Source     string           `json:"source"`
	Target     string           `json:"target"`
	Unresolved bool             `json:"unresolved,omitempty"`
	Properties []PropertyChange `json:"properties"`
}

func (c EdgeChange) edge() Edge { return Edge{Type: c.Type, Source: c.Source, Target: c.Target} }

// TypeCount is the number of edges of one type added, removed and changed.
type TypeCount struct {
	Type    string `json:"type"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Changed int    `json:"changed"`
}

// UnresolvedChanges lists links whose target is no note: Target is the
// link text as written.
type UnresolvedChanges struct {
	Gained []Edge `json:"gained"`
	Lost   []Edge `json:"lost"`
}

// WarningChanges lists warnings that are new and warnings that went away.
// Warnings are compared by file, kind and message, not line, so text added
// above a problem does not make it new.
type WarningChanges struct {
	Gained   []format.Warning `json:"gained"`
	Resolved []format.Warning `json:"resolved"`
}

// EmbedderChange is a change of the model vectors are computed with; nil
// Before or After means that side has no vectors.
type EmbedderChange struct {
	Before *format.Embedder `json:"before"`
	After  *format.Embedder `json:"after"`
}

// Empty reports whether nothing changed.
func (r *Report) Empty() bool {
	n := r.Notes
	return len(n.Added)+len(n.Removed)+len(n.Renamed)+len(n.Changed) == 0 &&
		len(r.Edges.Added)+len(r.Edges.Removed)+len(r.Edges.Changed) == 0 &&
		len(r.Unresolved.Gained)+len(r.Unresolved.Lost) == 0 &&
		len(r.Warnings.Gained)+len(r.Warnings.Resolved) == 0 && r.Embedder == nil
}

// Condition is a CI gate: a kind of change that should fail the build.
type Condition string

// Conditions a gate can fail on.
const (
	RemovedEdges  Condition = "removed-edges"
	NewUnresolved Condition = "new-unresolved"
	NewWarnings   Condition = "new-warnings"
	ModelChange   Condition = "model-change"
	// ChangedEdges holds when an edge's properties changed
	// ({critical: true} became {critical: false}).
	ChangedEdges Condition = "changed-edges"
	// NewDivergence holds when a note gained a code link that names no
	// tracked file or symbol (a new unresolved-code-link warning: the file
	// or symbol was removed or renamed, or the note was written wrong).
	NewDivergence Condition = "new-divergence"
)

// Conditions lists every condition, in the order they are reported.
var Conditions = []Condition{RemovedEdges, NewUnresolved, NewWarnings, ModelChange, ChangedEdges, NewDivergence}

// ParseConditions parses comma-separated condition names (repeats and
// blanks allowed).
func ParseConditions(specs []string) ([]Condition, error) {
	var out []Condition
	for _, spec := range specs {
		for _, name := range strings.Split(spec, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			c := Condition(name)
			if !isCondition(c) {
				return nil, fmt.Errorf("unknown --fail-on condition %q: use %s", name, joinConditions(Conditions))
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func isCondition(c Condition) bool {
	for _, k := range Conditions {
		if k == c {
			return true
		}
	}
	return false
}

func joinConditions(cs []Condition) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

// Holds reports whether the report shows condition c.
func (r *Report) Holds(c Condition) bool {
	switch c {
	case RemovedEdges:
		return len(r.Edges.Removed) > 0
	case NewUnresolved:
		return len(r.Unresolved.Gained) > 0
	case NewWarnings:
		return len(r.Warnings.Gained) > 0
	case ModelChange:
		return r.Embedder != nil
	case ChangedEdges:
		return len(r.Edges.Changed) > 0
	case NewDivergence:
		for _, w := range r.Warnings.Gained {
			if w.Kind == format.WarnUnresolvedCodeLink {
				return true
			}
		}
	}
	return false
}

// Failed returns the conditions of gate that hold, each once, in the order
// of Conditions.
func (r *Report) Failed(gate []Condition) []Condition {
	var out []Condition
	for _, c := range Conditions {
		for _, g := range gate {
			if g == c && r.Holds(c) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// FailureMessage describes failed conditions for a person reading CI logs.
func FailureMessage(failed []Condition) string {
	return "snapshot diff fails --fail-on " + joinConditions(failed)
}
