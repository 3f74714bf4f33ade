package graphdb

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// randomVault is a vault in table form that random edits change without
// changing the graph's layout: two anchor notes hold every note property
// key with the kinds that fix its column type (and conflict), and one
// anchor edge per typed edge type holds that type's keys. Edits never
// touch the anchors, and give other rows only values of kinds that keep
// the types.
type randomVault struct {
	t     testing.TB
	notes map[string]format.Note
	edges []format.Edge
	next  int
}

// noteKinds are the kinds an edited note may give each key.
var noteKinds = map[string][]string{
	"role":     {format.KindString},
	"hours":    {format.KindInt, format.KindNull},
	"score":    {format.KindInt, format.KindFloat},
	"active":   {format.KindBool},
	"joined":   {format.KindDate},
	"start":    {format.KindDateTime, format.KindDate},
	"langs":    {format.KindList},
	"nums":     {"intlist"},
	"meta":     {format.KindMap},
	"conflict": {format.KindInt, format.KindString, format.KindBool},
	"id":       {format.KindString},
	"Über":     {format.KindString},
	"nothing":  {format.KindNull},
}

// edgeKeys are the property keys of each typed edge type, with the one
// kind every edge gives them (edge property types span all types).
var edgeKeys = map[string]map[string]string{
	"knows":       {"since": format.KindInt, "weight": format.KindFloat, "note": format.KindString},
	"mentored by": {"since": format.KindInt},
	"über":        {"tags": format.KindList, "ok": format.KindBool},
}

var edgeTypes = []string{format.TypeLinksTo, format.TypeEmbeds, "knows", "mentored by", "über"}

func newRandomVault(t testing.TB, r *rand.Rand, n int) *randomVault {
	v := &randomVault{t: t, notes: map[string]format.Note{}}
	mod := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	a1 := format.Note{ID: "Anchor.md", Path: "Anchor.md", Title: "Anchor", Modified: mod}
	a2 := format.Note{ID: "Anchor2.md", Path: "Anchor2.md", Title: "Anchor 2", Modified: mod}
	for _, key := range sortedKeys(noteKinds) {
		kind := noteKinds[key][0]
		switch key {
		case "score":
			kind = format.KindFloat
		case "start":
			kind = format.KindDateTime
		case "nums": // a list of ints only once an int is in it
			p, _ := format.NewProperty(key, format.KindList, []any{1, 2})
			a1.Properties = append(a1.Properties, p)
			continue
		}
		a1.Properties = append(a1.Properties, v.value(r, key, kind))
	}
	a1.Properties = append(a1.Properties, format.PropertyFromJSON("broken", format.KindDate, `"not a date"`))
	a2.Properties = append(a2.Properties, v.value(r, "conflict", format.KindString))
	v.notes[a1.ID], v.notes[a2.ID] = a1, a2
	for _, typ := range edgeTypes[2:] {
		e := format.Edge{ID: "anchor-" + typ, Source: a1.ID, Target: a2.ID, Type: typ, Sign: 1, Count: 1, Origin: format.OriginField}
		for _, key := range sortedKeys(edgeKeys[typ]) {
			e.Properties = append(e.Properties, v.value(r, key, edgeKeys[typ][key]))
		}
		v.edges = append(v.edges, e)
	}
	for range n {
		v.addNote(r)
	}
	for range 3 * n {
		v.addEdge(r)
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// rows returns the vault's rows: notes in id order, edges as kept.
func (v *randomVault) rows() ([]format.Note, []format.Edge) {
	notes := make([]format.Note, 0, len(v.notes))
	for _, id := range sortedKeys(v.notes) {
		notes = append(notes, v.notes[id])
	}
	return notes, slices.Clone(v.edges)
}

var texts = []string{"", "plain", "it's", `back\slash`, "ünïcödé", "line\nbreak", `"quoted"`, "tab\there", "{\"a\": 1}", "日本語"}

func (v *randomVault) text(r *rand.Rand) string { return texts[r.IntN(len(texts))] }

func (v *randomVault) value(r *rand.Rand, key, kind string) format.Property {
	var x any
	switch kind {
	case format.KindString:
		x = v.text(r)
	case format.KindInt:
		x = []int64{0, -3, 7, 1 << 53, 2024}[r.IntN(5)]
	case format.KindFloat:
		x = []float64{0, -1.5, 1e-7, 3.141592653589793, 1e21}[r.IntN(5)]
	case format.KindBool:
		x = r.IntN(2) == 0
	case format.KindDate:
		x = []string{"2024-02-29", "1970-01-01", "2031-12-31"}[r.IntN(3)]
	case format.KindDateTime:
		x = []string{"2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123456Z", "1999-12-31T23:59:59+02:00"}[r.IntN(3)]
	case format.KindList:
		x = [][]any{{}, {"Go"}, {"Go", "Rust", ""}, {"a", nil}}[r.IntN(4)]
	case "intlist":
		kind, x = format.KindList, [][]any{{}, {1}, {1, 2, 3}, {0, nil}}[r.IntN(4)]
	case format.KindMap:
		x = map[string]any{"a": r.IntN(3), "b": "x"}
	case format.KindNull:
		x = nil
	}
	p, err := format.NewProperty(key, kind, x)
	if err != nil {
		v.t.Fatal(err)
	}
	return p
}

func (v *randomVault) noteProperties(r *rand.Rand) []format.Property {
	var props []format.Property
	for _, key := range sortedKeys(noteKinds) {
		if r.IntN(3) == 0 {
			kinds := noteKinds[key]
			props = append(props, v.value(r, key, kinds[r.IntN(len(kinds))]))
		}
	}
	r.Shuffle(len(props), func(i, j int) { props[i], props[j] = props[j], props[i] })
	return props
}

func (v *randomVault) pickList(r *rand.Rand, from []string) []string {
	if r.IntN(4) == 0 {
		return nil
	}
	var out []string
	for _, s := range from {
		if r.IntN(2) == 0 {
			out = append(out, s)
		}
	}
	return out
}

func (v *randomVault) fillNote(r *rand.Rand, n *format.Note) {
	n.Title = v.text(r) + fmt.Sprint(r.IntN(10))
	n.Folder = []string{"", "People", "Projects/Sub"}[r.IntN(3)]
	n.Labels = v.pickList(r, []string{"Person", "Engineer", "Project"})
	n.Tags = v.pickList(r, []string{"a", "b/c", "ü"})
	n.Aliases = v.pickList(r, []string{"Al", "it's", ""})
	n.Size = int64(r.IntN(5000))
	n.Modified = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(int64(1000 * time.Hour))))
	n.Properties = v.noteProperties(r)
}

func (v *randomVault) addNote(r *rand.Rand) {
	v.next++
	id := fmt.Sprintf("Notes/N%d %s.md", v.next, v.text(r))
	n := format.Note{ID: id, Path: id}
	v.fillNote(r, &n)
	v.notes[id] = n
}

// ids returns the ids of the notes edits may touch.
func (v *randomVault) ids() []string {
	var out []string
	for _, id := range sortedKeys(v.notes) {
		if id != "Anchor.md" && id != "Anchor2.md" {
			out = append(out, id)
		}
	}
	return out
}

func (v *randomVault) anyNote(r *rand.Rand) string {
	all := sortedKeys(v.notes)
	return all[r.IntN(len(all))]
}

func (v *randomVault) fillEdge(r *rand.Rand, e *format.Edge) {
	e.Sign = []int32{1, 1, -1}[r.IntN(3)]
	e.Count = int32(1 + r.IntN(3))
	e.Line = int32(r.IntN(100))
	e.Heading = []string{"", "Intro", "it's"}[r.IntN(3)]
	e.Sentence = v.text(r)
	e.Anchors = v.pickList(r, []string{"x", "^block"})
	e.Origin = []string{format.OriginBody, format.OriginField}[r.IntN(2)]
	e.Unresolved = r.IntN(2) == 0
	e.Properties = nil
	for _, key := range sortedKeys(edgeKeys[e.Type]) {
		if r.IntN(2) == 0 {
			e.Properties = append(e.Properties, v.value(r, key, edgeKeys[e.Type][key]))
		}
	}
}

func (v *randomVault) addEdge(r *rand.Rand) {
	v.next++
	e := format.Edge{ID: fmt.Sprintf("e%d", v.next), Source: v.anyNote(r), Target: v.anyNote(r), Type: edgeTypes[r.IntN(len(edgeTypes))]}
	v.fillEdge(r, &e)
	v.edges = append(v.edges, e)
}

// editable returns the indexes of the edges edits may touch.
func (v *randomVault) editable() []int {
	var out []int
	for i, e := range v.edges {
		if len(e.ID) < 7 || e.ID[:7] != "anchor-" {
			out = append(out, i)
		}
	}
	return out
}

// removeNote removes a note; its edges go with it, or, like links to a
// deleted note, point to a new stub (with new ids, or keeping a pinned
// one: then the edge moves).
func (v *randomVault) removeNote(r *rand.Rand, id string) {
	delete(v.notes, id)
	stub := ""
	if r.IntN(2) == 0 {
		v.next++
		stub = fmt.Sprintf("Stub %d", v.next)
		v.notes[stub] = format.Note{ID: stub, Title: stub, Stub: true}
	}
	kept := v.edges[:0]
	for _, e := range v.edges {
		if e.Source == id || (e.Target == id && stub == "") {
			continue
		}
		if e.Target == id {
			e.Target, e.Unresolved = stub, true
			if r.IntN(2) == 0 {
				v.next++
				e.ID = fmt.Sprintf("e%d", v.next)
			}
		}
		kept = append(kept, e)
	}
	v.edges = kept
}

// fixedWidthKinds are the kinds whose columns are fixed-width.
var fixedWidthKinds = map[string]bool{format.KindInt: true, format.KindFloat: true, format.KindBool: true,
	format.KindDate: true, format.KindDateTime: true}

// saveNote changes what saving a note changes in its graph row: the size,
// the modification time and, sometimes, the values of fixed-width
// properties (the same keys, so the same kinds).
func (v *randomVault) saveNote(r *rand.Rand, n *format.Note) {
	n.Size = int64(r.IntN(5000))
	n.Modified = n.Modified.Add(time.Duration(1+r.IntN(5000)) * time.Millisecond)
	if r.IntN(2) == 0 {
		return
	}
	n.Properties = slices.Clone(n.Properties)
	for i, p := range n.Properties {
		if fixedWidthKinds[p.Kind] && p.Key != "conflict" && r.IntN(2) == 0 {
			n.Properties[i] = v.value(r, p.Key, p.Kind)
		}
	}
}

// shiftEdge changes an edge the way editing the text above it does: its
// line, and sometimes its count, sign, resolution and numbers.
func (v *randomVault) shiftEdge(r *rand.Rand, e *format.Edge) {
	e.Line += int32(1 + r.IntN(5))
	if r.IntN(2) == 0 {
		return
	}
	e.Count, e.Sign, e.Unresolved = int32(1+r.IntN(3)), -e.Sign, !e.Unresolved
	e.Properties = slices.Clone(e.Properties)
	for i, p := range e.Properties {
		if fixedWidthKinds[p.Kind] {
			e.Properties[i] = v.value(r, p.Key, p.Kind)
		}
	}
}

// edit applies n random edits.
func (v *randomVault) edit(r *rand.Rand, n int) {
	for range n {
		ids, edges := v.ids(), v.editable()
		switch k := r.IntN(14); {
		case k >= 10 && k < 12 && len(ids) > 0:
			id := ids[r.IntN(len(ids))]
			note := v.notes[id]
			if !note.Stub {
				v.saveNote(r, &note)
				v.notes[id] = note
			}
		case k >= 12 && len(edges) > 0:
			i := edges[r.IntN(len(edges))]
			v.shiftEdge(r, &v.edges[i])
		case k == 0 && len(ids) > 0:
			id := ids[r.IntN(len(ids))]
			note := v.notes[id]
			note.Title = v.text(r)
			note.Labels = v.pickList(r, []string{"Person", "Engineer", "Project"})
			v.notes[id] = note
		case k == 1 && len(ids) > 0:
			id := ids[r.IntN(len(ids))]
			note := v.notes[id]
			note.Properties = v.noteProperties(r)
			v.notes[id] = note
		case k == 2:
			v.addNote(r)
		case k == 3 && len(ids) > 0:
			v.removeNote(r, ids[r.IntN(len(ids))])
		case k == 4 && len(ids) > 0:
			// A stub becomes a note with its id, or a note a stub.
			id := ids[r.IntN(len(ids))]
			note := format.Note{ID: id, Title: id}
			if v.notes[id].Stub {
				note.Path = id
				v.fillNote(r, &note)
			} else {
				note.Stub = true
			}
			v.notes[id] = note
		case k == 5 && len(edges) > 0:
			i := edges[r.IntN(len(edges))]
			v.fillEdge(r, &v.edges[i])
		case k == 6 && len(edges) > 0:
			i := edges[r.IntN(len(edges))]
			v.edges[i].Target = v.anyNote(r)
		case k == 7 && len(edges) > 0:
			i := edges[r.IntN(len(edges))]
			v.edges = slices.Delete(v.edges, i, i+1)
		default:
			v.addEdge(r)
		}
	}
}
