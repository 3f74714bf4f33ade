package codecontext

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// ErrUnknownCode is returned by Impact for an id that names no code file
// or symbol of the snapshot.
var ErrUnknownCode = errors.New("no code file or symbol has this id")

// ErrUnknownRepo is returned (wrapped) by Retrieve for a Repo the
// snapshot does not hold.
var ErrUnknownRepo = errors.New("unknown repository")

// ImpactRequest anchors the buckets on one file or symbol.
type ImpactRequest struct {
	// ID is code:NAME/path or code:NAME/path#Symbol.
	ID       string
	K        int
	MaxBytes int
	Weights  Weights
}

// Impact answers in the same buckets as Retrieve, seeded with one file or
// symbol instead of a question: must_read is its file, may_change what
// depends on it, must_test the tests of either, knowledge and danger the
// notes about any of it.
func (ix *Index) Impact(ctx context.Context, req ImpactRequest) (*Answer, error) {
	n, ok := ix.byID[req.ID]
	if !ok || (ix.nodes[n].kind != KindFile && ix.nodes[n].kind != KindSymbol) {
		return nil, fmt.Errorf("%w: %q (ids look like code:REPO/path or code:REPO/path#Symbol)%s", ErrUnknownCode, req.ID, ix.suggest(req.ID))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	seed := map[int32]float64{n: 1}
	why := map[int32][]string{n: {"the anchor"}}
	a := ix.answer(seed, why, ix.fileOf(n), req.K, req.Weights, "")
	a.Anchor = req.ID
	a.fit(orDefault(req.MaxBytes, DefaultMaxBytes))
	return a, nil
}

// suggest names up to three ids that end like id, for the error message.
func (ix *Index) suggest(id string) string {
	_, p, sym, ok := format.SplitCodeID(id)
	if !ok {
		return ""
	}
	want := p
	if sym != "" {
		want = sym
	}
	var cands, inFile []string
	for _, nd := range ix.nodes {
		// A method named by its bare name (handleEvent for
		// inotify.handleEvent), as an agent that read its source writes
		// it, in the file the id names first.
		method := nd.kind == KindSymbol && sym != "" && strings.HasSuffix(nd.title, "."+sym)
		if method && strings.HasPrefix(nd.id, id[:len(id)-len(sym)]) {
			inFile = append(inFile, nd.id)
		} else if method || (nd.kind == KindFile && nd.path == want) || (nd.kind == KindSymbol && nd.title == want) || (nd.kind == KindFile && sym == "" && len(nd.path) > len(p) && nd.path[len(nd.path)-len(p):] == p) {
			cands = append(cands, nd.id)
		}
	}
	sort.Strings(inFile)
	sort.Strings(cands)
	cands = append(inFile, cands...)
	if len(cands) > 3 {
		cands = cands[:3]
	}
	if len(cands) == 0 {
		return ""
	}
	return fmt.Sprintf("; did you mean %v?", cands)
}

// Divergence is a note's code link that names no tracked file or symbol:
// the note and the code have drifted apart.
type Divergence struct {
	Note   string `json:"note"`
	Type   string `json:"type"`
	Target string `json:"target"`
	Line   int32  `json:"line,omitempty"`
	// Reason says what is missing: the file, or the symbol in a file that
	// still exists.
	Reason string `json:"reason"`
}

// Divergence lists every note's code link whose target does not exist,
// sorted by note, line and target.
func (ix *Index) Divergence() []Divergence {
	return DivergenceOf(ix.edges, ix.catalog)
}

// DivergenceOf lists the unresolved code links among edges; the catalog of
// the snapshot's code says why each names nothing.
func DivergenceOf(edges []format.Edge, cat *format.CodeCatalog) []Divergence {
	var out []Divergence
	for _, e := range edges {
		if !e.Unresolved || !format.IsCodeID(e.Target) {
			continue
		}
		out = append(out, Divergence{Note: e.Source, Type: e.Type, Target: e.Target, Line: e.Line, Reason: cat.Why(e.Target)})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Note != b.Note {
			return a.Note < b.Note
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Target < b.Target
	})
	return out
}
