package diff

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// The columns Compare reads; Content and the other large columns are not
// decoded.
type noteRow struct {
	ID         string            `parquet:"id"`
	Path       string            `parquet:"path"`
	Title      string            `parquet:"title"`
	Labels     []string          `parquet:"labels,list"`
	Tags       []string          `parquet:"tags,list"`
	Aliases    []string          `parquet:"aliases,list"`
	Properties []format.Property `parquet:"properties,list"`
	Stub       bool              `parquet:"stub"`
	Signature  string            `parquet:"signature"`
}

type edgeRow struct {
	Source     string `parquet:"source"`
	Target     string `parquet:"target"`
	Type       string `parquet:"type"`
	Sign       int32  `parquet:"sign"`
	Unresolved bool   `parquet:"unresolved"`
}

type chunkRow struct {
	Note string `parquet:"note"`
	Text string `parquet:"text"`
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
	notes, err := snapshot.ReadTable[noteRow](filepath.Join(s.Dir, format.NotesFile))
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", s.ID, err)
	}
	edges, err := snapshot.ReadTable[edgeRow](filepath.Join(s.Dir, format.EdgesFile))
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", s.ID, err)
	}
	chunks, err := snapshot.ReadTable[chunkRow](filepath.Join(s.Dir, format.ChunksFile))
	if err != nil {
		return nil, fmt.Errorf("diff %s: %w", s.ID, err)
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
		v.raw += p.Kind + "\x01" + p.Value
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
	key := func(e edgeRow, mapIDs bool) Edge {
		t := e.Type
		if e.Sign < 0 {
			t = "-" + t
		}
		if mapIDs {
			return Edge{Type: t, Source: moved(e.Source), Target: moved(e.Target)}
		}
		return Edge{Type: t, Source: e.Source, Target: e.Target}
	}
	var resolvedA, resolvedB, unresolvedA, unresolvedB []Edge
	for _, e := range a {
		k := key(e, true)
		if e.Unresolved {
			k.Target = e.Target // link text, not a note id
			unresolvedA = append(unresolvedA, k)
		} else {
			resolvedA = append(resolvedA, k)
		}
	}
	for _, e := range b {
		if e.Unresolved {
			unresolvedB = append(unresolvedB, key(e, false))
		} else {
			resolvedB = append(resolvedB, key(e, false))
		}
	}
	r.Edges.Added, r.Edges.Removed = multisetDiff(resolvedA, resolvedB)
	r.Unresolved.Gained, r.Unresolved.Lost = multisetDiff(unresolvedA, unresolvedB)
	for _, l := range [][]Edge{r.Edges.Added, r.Edges.Removed, r.Unresolved.Gained, r.Unresolved.Lost} {
		sortEdges(l)
	}
	counts := map[string]*TypeCount{}
	for _, e := range r.Edges.Added {
		typeCount(counts, e.Type).Added++
	}
	for _, e := range r.Edges.Removed {
		typeCount(counts, e.Type).Removed++
	}
	r.Edges.ByType = []TypeCount{}
	for _, t := range sortedKeys(counts) {
		r.Edges.ByType = append(r.Edges.ByType, *counts[t])
	}
}

func typeCount(m map[string]*TypeCount, t string) *TypeCount {
	if m[t] == nil {
		m[t] = &TypeCount{Type: t}
	}
	return m[t]
}

func sortEdges(es []Edge) {
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		return a.Target < b.Target
	})
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
