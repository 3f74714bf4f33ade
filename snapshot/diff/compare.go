package diff

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// The columns Compare reads; Content and the other large columns are not
// decoded.
type noteRow struct {
	ID         string            `parquet:"id"`
	Path       string            `parquet:"path,optional"`
	Title      string            `parquet:"title"`
	Labels     []string          `parquet:"labels,list"`
	Tags       []string          `parquet:"tags,list"`
	Aliases    []string          `parquet:"aliases,list"`
	Properties []format.Property `parquet:"properties,list"`
	Stub       bool              `parquet:"stub"`
	Signature  string            `parquet:"signature,optional"`
}

type edgeRow struct {
	ID         string            `parquet:"id"`
	Source     string            `parquet:"source"`
	Target     string            `parquet:"target"`
	Type       string            `parquet:"type"`
	Sign       int32             `parquet:"sign"`
	Properties []format.Property `parquet:"properties,list"`
	Unresolved bool              `parquet:"unresolved"`
}

type chunkRow struct {
	Note  string `parquet:"note"`
	Start int32  `parquet:"start_byte"`
	End   int32  `parquet:"end_byte"`
	Text  string `parquet:"-"` // cut from the note's content
}

// side is everything Compare needs of one snapshot.
type side struct {
	Manifest *format.Manifest
	Notes    []noteRow
	Edges    []edgeRow
	Chunks   []chunkRow
}

// Compare reports what changed from snapshot a to snapshot b. The two may
// be any snapshots, of one data directory or of two; b need not be newer.
func Compare(a, b *snapshot.Snapshot) (*Report, error) {
	sa, err := load(a)
	if err != nil {
		return nil, err
	}
	sb, err := load(b)
	if err != nil {
		return nil, err
	}
	return compare(sa, sb), nil
}

func load(s *snapshot.Snapshot) (*side, error) {
	notes, err := snapshot.ReadSegments[noteRow](s, format.NotesTable)
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", s.ID, err)
	}
	edges, err := snapshot.ReadSegments[edgeRow](s, format.EdgesTable)
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", s.ID, err)
	}
	chunks, err := snapshot.ReadSegments[chunkRow](s, format.ChunksTable)
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", s.ID, err)
	}
	contents, err := s.NoteContents()
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", s.ID, err)
	}
	for i := range chunks {
		c := &chunks[i]
		if c.Text, err = snapshot.ChunkText(contents, c.Note, c.Start, c.End); err != nil {
			return nil, fmt.Errorf("diff %s: %w", s.ID, err)
		}
	}
	return &side{Manifest: s.Manifest, Notes: notes, Edges: edges, Chunks: chunks}, nil
}

func compare(a, b *side) *Report {
	r := &Report{From: sideOf(a.Manifest), To: sideOf(b.Manifest)}
	rename := compareNotes(a, b, r)
	compareEdges(a.Edges, b.Edges, rename, r)
	compareWarnings(a.Manifest.Warnings, b.Manifest.Warnings, rename, r)
	if changedEmbedder(a.Manifest.Embedder, b.Manifest.Embedder) {
		r.Embedder = &EmbedderChange{Before: a.Manifest.Embedder, After: b.Manifest.Embedder}
	}
	return r
}

func sideOf(m *format.Manifest) Side {
	return Side{ID: m.ID, Created: m.Created, Counts: m.Counts, Embedder: m.Embedder}
}

// compareNotes fills r.Notes and returns the renames, old path to new.
func compareNotes(a, b *side, r *Report) map[string]string {
	before, after := notesByPath(a.Notes), notesByPath(b.Notes)
	// Removed and added notes with the same content signature are renames,
	// paired in path order when several share one (empty notes).
	removedBySig := map[string][]string{}
	addedBySig := map[string][]string{}
	for _, p := range sortedKeys(before) {
		if _, ok := after[p]; !ok {
			removedBySig[before[p].Signature] = append(removedBySig[before[p].Signature], p)
		}
	}
	for _, p := range sortedKeys(after) {
		if _, ok := before[p]; !ok {
			addedBySig[after[p].Signature] = append(addedBySig[after[p].Signature], p)
		}
	}
	rename := map[string]string{}
	for sig, removed := range removedBySig {
		added := addedBySig[sig]
		n := min(len(removed), len(added))
		for i := range n {
			rename[removed[i]] = added[i]
			r.Notes.Renamed = append(r.Notes.Renamed, Rename{From: removed[i], To: added[i]})
		}
		r.Notes.Removed = append(r.Notes.Removed, removed[n:]...)
		addedBySig[sig] = added[n:]
	}
	for _, added := range addedBySig {
		r.Notes.Added = append(r.Notes.Added, added...)
	}
	chunksBefore, chunksAfter := chunkHashes(a.Chunks), chunkHashes(b.Chunks)
	for _, p := range sortedKeys(before) {
		nb, ok := after[p]
		if !ok || before[p].Signature == nb.Signature {
			continue
		}
		r.Notes.Changed = append(r.Notes.Changed, noteChange(before[p], nb, chunksBefore[p], chunksAfter[p]))
	}
	sort.Strings(r.Notes.Added)
	sort.Strings(r.Notes.Removed)
	sort.Slice(r.Notes.Renamed, func(i, j int) bool { return r.Notes.Renamed[i].From < r.Notes.Renamed[j].From })
	r.Notes.Added = nonNil(r.Notes.Added)
	r.Notes.Removed = nonNil(r.Notes.Removed)
	r.Notes.Renamed = nonNil(r.Notes.Renamed)
	r.Notes.Changed = nonNil(r.Notes.Changed)
	return rename
}

func notesByPath(rows []noteRow) map[string]noteRow {
	m := make(map[string]noteRow, len(rows))
	for _, n := range rows {
		if !n.Stub {
			m[n.Path] = n
		}
	}
	return m
}

// chunkHashes returns each note's passage texts, hashed. The passage text
// alone is compared, not the context header, so that a property change
// does not show every chunk of the note as changed.
func chunkHashes(rows []chunkRow) map[string][]string {
	m := map[string][]string{}
	for _, c := range rows {
		m[c.Note] = append(m[c.Note], format.TextHash(c.Text))
	}
	return m
}

func noteChange(a, b noteRow, chunksA, chunksB []string) NoteChange {
	c := NoteChange{
		Note:       b.Path,
		Labels:     setChange(a.Labels, b.Labels),
		Tags:       setChange(a.Tags, b.Tags),
		Aliases:    setChange(a.Aliases, b.Aliases),
		Properties: propertyChanges(a.Properties, b.Properties),
	}
	if a.Title != b.Title {
		c.Title = &ValueChange{Before: a.Title, After: b.Title}
	}
	added, removed := multisetDiff(chunksA, chunksB)
	if len(added)+len(removed) > 0 {
		c.Chunks = &ChunkChange{Before: len(chunksA), After: len(chunksB), Added: len(added), Removed: len(removed)}
	}
	return c
}

func setChange(a, b []string) SetChange {
	c := SetChange{Added: []string{}, Removed: []string{}}
	for _, x := range b {
		if !slices.Contains(a, x) && !slices.Contains(c.Added, x) {
			c.Added = append(c.Added, x)
		}
	}
	for _, x := range a {
		if !slices.Contains(b, x) && !slices.Contains(c.Removed, x) {
			c.Removed = append(c.Removed, x)
		}
	}
	return c
}

// propertyChanges compares properties by key. A key written several times
// (repeated inline fields) compares as all its values together.
func propertyChanges(a, b []format.Property) []PropertyChange {
	va, vb := propertyValues(a), propertyValues(b)
	out := []PropertyChange{}
	keys := sortedKeys(va)
	for k := range vb {
		if _, ok := va[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		x, inA := va[k]
		y, inB := vb[k]
		switch {
		case !inA:
			out = append(out, PropertyChange{Key: k, Change: PropertyAdded, After: y.text})
		case !inB:
			out = append(out, PropertyChange{Key: k, Change: PropertyRemoved, Before: x.text})
		case x.raw != y.raw:
			out = append(out, PropertyChange{Key: k, Change: PropertyChanged, Before: x.text, After: y.text})
		}
	}
	return out
}

type propertyValue struct{ raw, text string }

func propertyValues(props []format.Property) map[string]propertyValue {
	m := map[string]propertyValue{}
	for _, p := range props {
		v, ok := m[p.Key]
		if ok {
			v.raw += "\x00"
			v.text += ", "
		}
		v.raw += p.Kind + "\x01" + p.JSON()
		v.text += p.Text()
		m[p.Key] = v
	}
	return m
}

// compareEdges fills r.Edges and r.Unresolved, with the endpoints of a's
// edges mapped through the renames.
func compareEdges(a, b []edgeRow, rename map[string]string, r *Report) {
	moved := func(id string) string {
		if to, ok := rename[id]; ok {
			return to
		}
		return id
	}
	var resolvedA, resolvedB, unresolvedA, unresolvedB []edgeItem
	for _, e := range a {
		it := itemOf(e)
		it.key.Source = moved(it.key.Source)
		if e.Unresolved {
			unresolvedA = append(unresolvedA, it) // Target is link text, not a note id
		} else {
			it.key.Target = moved(it.key.Target)
			resolvedA = append(resolvedA, it)
		}
	}
	for _, e := range b {
		if e.Unresolved {
			unresolvedB = append(unresolvedB, itemOf(e))
		} else {
			resolvedB = append(resolvedB, itemOf(e))
		}
	}
	var changed, changedUnresolved []EdgeChange
	r.Edges.Added, r.Edges.Removed, changed = matchEdges(resolvedA, resolvedB, false)
	r.Unresolved.Gained, r.Unresolved.Lost, changedUnresolved = matchEdges(unresolvedA, unresolvedB, true)
	for _, l := range [][]Edge{r.Edges.Added, r.Edges.Removed, r.Unresolved.Gained, r.Unresolved.Lost} {
		sortEdges(l)
	}
	for _, l := range [][]EdgeChange{changed, changedUnresolved} {
		sort.SliceStable(l, func(i, j int) bool { return edgeLess(l[i].edge(), l[j].edge()) })
	}
	r.Edges.Changed = append(changed, changedUnresolved...)
	counts := map[string]*TypeCount{}
	for _, e := range r.Edges.Added {
		typeCount(counts, e.Type).Added++
	}
	for _, e := range r.Edges.Removed {
		typeCount(counts, e.Type).Removed++
	}
	for _, e := range r.Edges.Changed {
		typeCount(counts, e.Type).Changed++
	}
	r.Edges.ByType = []TypeCount{}
	for _, t := range sortedKeys(counts) {
		r.Edges.ByType = append(r.Edges.ByType, *counts[t])
	}
}

// edgeItem is one edge as compared: type (with its sign), source and
// target, and what tells apart edges that share those.
type edgeItem struct {
	key   Edge
	id    string
	props []format.Property
	sig   string // propertySignature(props)
}

func itemOf(e edgeRow) edgeItem {
	t := e.Type
	if e.Sign < 0 {
		t = "-" + t
	}
	return edgeItem{key: Edge{Type: t, Source: e.Source, Target: e.Target}, id: e.ID, props: e.Properties, sig: propertySignature(e.Properties)}
}

// matchEdges pairs the edges of a and b with the same type, source and
// target, and reports the pairs whose properties differ as changed. Of
// several edges sharing those three (a typed edge written more than once),
// those with the same properties pair first, then those with the same id
// (a pinned id, or the same ordinal), then the rest in written order; the
// surplus on one side is added or removed.
func matchEdges(a, b []edgeItem, unresolved bool) (added, removed []Edge, changed []EdgeChange) {
	groupA, groupB := map[Edge][]edgeItem{}, map[Edge][]edgeItem{}
	var keys []Edge
	for _, it := range a {
		if groupA[it.key] == nil {
			keys = append(keys, it.key)
		}
		groupA[it.key] = append(groupA[it.key], it)
	}
	for _, it := range b {
		if groupA[it.key] == nil && groupB[it.key] == nil {
			keys = append(keys, it.key)
		}
		groupB[it.key] = append(groupB[it.key], it)
	}
	added, removed, changed = []Edge{}, []Edge{}, []EdgeChange{}
	for _, k := range keys {
		_, xs, ys := pairBy(groupA[k], groupB[k], func(it edgeItem) string { return it.sig })
		pairs, xs, ys := pairBy(xs, ys, func(it edgeItem) string { return it.id })
		n := min(len(xs), len(ys))
		for i := range n {
			pairs = append(pairs, [2]edgeItem{xs[i], ys[i]})
		}
		for _, p := range pairs {
			if props := propertyChanges(p[0].props, p[1].props); len(props) > 0 {
				changed = append(changed, EdgeChange{Type: k.Type, Source: k.Source, Target: k.Target, Unresolved: unresolved, Properties: props})
			}
		}
		for range ys[n:] {
			added = append(added, k)
		}
		for range xs[n:] {
			removed = append(removed, k)
		}
	}
	return added, removed, changed
}

// pairBy pairs the elements of xs and ys with equal keys, each element
// once, in order. It returns the pairs and what is left of xs and ys, in
// order.
func pairBy(xs, ys []edgeItem, key func(edgeItem) string) (pairs [][2]edgeItem, restX, restY []edgeItem) {
	waiting := map[string][]int{}
	for j, y := range ys {
		waiting[key(y)] = append(waiting[key(y)], j)
	}
	used := make([]bool, len(ys))
	for _, x := range xs {
		k := key(x)
		q := waiting[k]
		if len(q) == 0 {
			restX = append(restX, x)
			continue
		}
		waiting[k] = q[1:]
		used[q[0]] = true
		pairs = append(pairs, [2]edgeItem{x, ys[q[0]]})
	}
	for j, y := range ys {
		if !used[j] {
			restY = append(restY, y)
		}
	}
	return pairs, restX, restY
}

// propertySignature identifies a property list by what propertyChanges
// compares: every key with its values, in key order.
func propertySignature(props []format.Property) string {
	values := propertyValues(props)
	var b strings.Builder
	for _, k := range sortedKeys(values) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(values[k].raw)
		b.WriteByte(0)
	}
	return b.String()
}

func typeCount(m map[string]*TypeCount, t string) *TypeCount {
	if m[t] == nil {
		m[t] = &TypeCount{Type: t}
	}
	return m[t]
}

func sortEdges(es []Edge) {
	sort.Slice(es, func(i, j int) bool { return edgeLess(es[i], es[j]) })
}

// edgeLess orders edges by type, source and target.
func edgeLess(a, b Edge) bool {
	if a.Type != b.Type {
		return a.Type < b.Type
	}
	if a.Source != b.Source {
		return a.Source < b.Source
	}
	return a.Target < b.Target
}

func compareWarnings(a, b []format.Warning, rename map[string]string, r *Report) {
	type key struct{ file, kind, msg string }
	ka := make([]key, len(a))
	for i, w := range a {
		f := w.File
		if to, ok := rename[f]; ok {
			f = to
		}
		ka[i] = key{f, w.Kind, w.Message}
	}
	kb := make([]key, len(b))
	for i, w := range b {
		kb[i] = key{w.File, w.Kind, w.Message}
	}
	// Report the warnings themselves, with their lines, in manifest order.
	gained, resolved := multisetDiff(ka, kb)
	r.Warnings.Gained = pickWarnings(b, kb, gained)
	r.Warnings.Resolved = pickWarnings(a, ka, resolved)
}

func pickWarnings[K comparable](ws []format.Warning, keys []K, want []K) []format.Warning {
	need := map[K]int{}
	for _, k := range want {
		need[k]++
	}
	out := []format.Warning{}
	for i, k := range keys {
		if need[k] > 0 {
			need[k]--
			out = append(out, ws[i])
		}
	}
	return out
}

func changedEmbedder(a, b *format.Embedder) bool {
	switch {
	case a == nil && b == nil:
		return false
	case a == nil || b == nil:
		return true
	}
	return a.Fingerprint != b.Fingerprint || a.Dimensions != b.Dimensions && a.Dimensions != 0 && b.Dimensions != 0
}

// multisetDiff returns the elements of b not matched in a (added) and of a
// not matched in b (removed), counting repeats.
func multisetDiff[T comparable](a, b []T) (added, removed []T) {
	count := make(map[T]int, len(a))
	for _, x := range a {
		count[x]++
	}
	added, removed = []T{}, []T{}
	for _, x := range b {
		if count[x] > 0 {
			count[x]--
		} else {
			added = append(added, x)
		}
	}
	for _, x := range a {
		if count[x] > 0 {
			count[x]--
			removed = append(removed, x)
		}
	}
	return added, removed
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
