package indexer

import (
	"path"
	"sort"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/vaultgraph/vaultgraph/format"
)

// resolver finds the note a link points to, the way Obsidian does: an exact
// vault path wins; otherwise, among notes whose path ends with the link
// path, one in the linking note's own folder, else the shortest path. A
// markdown link's path is looked up the same way (Obsidian treats it as a
// wikilink's path once decoded), so "[x](Projects/Foo.md)" from any folder
// finds Projects/Foo.md, and "[x](Foo.md)" a Foo.md elsewhere. Last come
// aliases, which Obsidian does not resolve links by: that step is ours.
// Matching ignores case and Unicode normalisation form (macOS file names
// are NFD, typed links NFC).
type resolver struct {
	exact   map[string]string   // path as written -> note id
	byPath  map[string][]string // fold(path) -> note ids
	byName  map[string][]string // fold(file name) -> note ids
	byAlias map[string][]string // fold(alias) -> note ids
	// seen remembers what a link path matched, which does not depend on
	// the linking note (only the tie-break among candidates does): a vault
	// links to the same notes from many notes. Not safe for concurrent use
	// (fork gives another goroutine its own).
	seen map[lookupKey]matches
	// plain is seen by the target as written, for targets whose vault
	// path does not depend on the linking note (not "./" or "../"): most
	// links are looked up without building that path again.
	plain map[string]matches
}

// lookupKey is a link target as written and as a vault path.
type lookupKey struct{ path, target string }

// matches is what a link path matched: one note whatever links to it
// (exact), or the candidates the linking note's folder decides among
// (by path suffix, else by alias), or none.
type matches struct {
	exact      string
	candidates []string
}

func fold(s string) string { return strings.ToLower(norm.NFC.String(s)) }

func newResolver(notes []format.Note) *resolver {
	r := &resolver{
		exact:   make(map[string]string, len(notes)),
		byPath:  make(map[string][]string, len(notes)),
		byName:  make(map[string][]string, len(notes)),
		byAlias: make(map[string][]string),
		// A vault links to about as many targets as it has notes:
		// growing these two maps was a third of resolving an edit.
		seen:  make(map[lookupKey]matches, len(notes)),
		plain: make(map[string]matches, len(notes)),
	}
	for _, n := range notes {
		if n.Stub {
			continue
		}
		r.exact[n.ID] = n.ID
		k := fold(n.ID)
		r.byPath[k] = append(r.byPath[k], n.ID)
		r.byName[path.Base(k)] = append(r.byName[path.Base(k)], n.ID)
		for _, a := range n.Aliases {
			ka := fold(strings.TrimSpace(a))
			if ka != "" {
				r.byAlias[ka] = append(r.byAlias[ka], n.ID)
			}
		}
	}
	return r
}

// fork returns a resolver of the same notes with a memory of its own,
// for use on another goroutine: the notes' maps are only read once built.
func (r *resolver) fork() *resolver {
	f := *r
	f.seen, f.plain = make(map[lookupKey]matches, len(r.exact)), make(map[string]matches, len(r.exact))
	return &f
}

// resolve returns the id of the note l points to. A markdown link's target
// is already a vault path (package note applied "./" and "../" and added
// ".md"); it resolves like a wikilink with a folder: exact path, then path
// suffix. It never falls back to the file name alone, which would drop the
// folder the author wrote and could pick a note in another folder.
func (r *resolver) resolve(l format.Link) (string, bool) {
	return r.resolveWikilink(l.Target, l.Source)
}

func (r *resolver) resolveWikilink(target, source string) (string, bool) {
	if m, ok := r.plain[target]; ok {
		return m.pick(source)
	}
	t := strings.TrimSpace(target)
	relative := strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../")
	switch {
	case relative:
		t = path.Join(format.NoteFolder(source), t)
		if strings.HasPrefix(t, "../") || t == ".." {
			return "", false
		}
	case strings.HasPrefix(t, "/"):
		t = strings.TrimLeft(t, "/")
	}
	if t == "" {
		return "", false
	}
	if !strings.EqualFold(path.Ext(t), ".md") {
		t += ".md"
	}
	key := lookupKey{t, target}
	m, ok := r.seen[key]
	if !ok {
		m = r.match(t, target)
		r.seen[key] = m
	}
	if !relative {
		r.plain[target] = m
	}
	return m.pick(source)
}

// pick returns the note a link from source resolves to among m.
func (m matches) pick(source string) (string, bool) {
	if m.exact != "" {
		return m.exact, true
	}
	return pickCandidate(m.candidates, source)
}

// match finds the notes the vault path t (the link target as written:
// target) can resolve to: an exact path, else the notes whose path ends
// with it, else those with it as an alias.
func (r *resolver) match(t, target string) matches {
	if id, ok := r.byExactPath(t); ok {
		return matches{exact: id}
	}
	k := fold(t)
	var candidates []string
	for _, id := range r.byName[path.Base(k)] {
		if strings.HasSuffix(fold(id), "/"+k) {
			candidates = append(candidates, id)
		}
	}
	if len(candidates) == 0 {
		candidates = r.byAlias[fold(strings.TrimSuffix(strings.TrimSpace(target), ".md"))]
	}
	if len(candidates) == 1 {
		return matches{exact: candidates[0]}
	}
	return matches{candidates: candidates}
}

func (r *resolver) byExactPath(p string) (string, bool) {
	if id, ok := r.exact[p]; ok {
		return id, true
	}
	ids := r.byPath[fold(p)]
	if len(ids) == 0 {
		return "", false
	}
	return minString(ids), true
}

// pickCandidate applies Obsidian's tie-break among notes matching a link: the
// linking note's own folder first, then the shortest path, then the
// lexicographically first.
func pickCandidate(ids []string, source string) (string, bool) {
	if len(ids) == 0 {
		return "", false
	}
	folder := format.NoteFolder(source)
	var same []string
	for _, id := range ids {
		if format.NoteFolder(id) == folder {
			same = append(same, id)
		}
	}
	if len(same) > 0 {
		ids = same
	}
	sorted := append([]string(nil), ids...)
	sort.Slice(sorted, func(i, j int) bool {
		if len(sorted[i]) != len(sorted[j]) {
			return len(sorted[i]) < len(sorted[j])
		}
		return sorted[i] < sorted[j]
	})
	return sorted[0], true
}

func minString(ss []string) string {
	m := ss[0]
	for _, s := range ss[1:] {
		if s < m {
			m = s
		}
	}
	return m
}
