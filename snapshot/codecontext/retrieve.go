package codecontext

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// Request is a retrieve_context question.
type Request struct {
	Question string
	// K bounds each bucket (DefaultK when 0).
	K int
	// MaxBytes bounds the answer's JSON (DefaultMaxBytes when 0).
	MaxBytes int
	// Weights override DefaultWeights by edge type.
	Weights Weights
	// Repo, when set, keeps the answer's code to that repository (the
	// name given to --repo); notes are kept whatever they link to.
	Repo string
}

// SeedShare is the least share of the best lexical hit's score (of notes,
// or of code) that another hit needs to seed the walk.
const SeedShare = 0.3

// MustReadShare is the least share of the best file's rank that another
// file needs to be in must_read.
const MustReadShare = 0.25

// DefaultK is the default size of each bucket.
const DefaultK = 5

// Seeds bounds the lexical hits of each kind that seed the walk.
const Seeds = 20

// DangerTypes are the edge types (compared in lower case) by which a note
// flags code as dangerous.
var DangerTypes = []string{"dangerous", "danger", "gotcha", "warning", "warns", "fragile", "caution", "risk", "hazard", "do_not_touch"}

func isDanger(typ string) bool { return slices.Contains(DangerTypes, strings.ToLower(typ)) }

// Retrieve answers a question in five buckets. It fails only for an empty
// question or a canceled ctx.
func (ix *Index) Retrieve(ctx context.Context, req Request) (*Answer, error) {
	if strings.TrimSpace(req.Question) == "" {
		return nil, fmt.Errorf("question is empty: say what the change is about")
	}
	if req.Repo != "" && !slices.Contains(ix.repos, req.Repo) {
		return nil, fmt.Errorf("%w: no repository %q in this snapshot; its repositories are %s", ErrUnknownRepo, req.Repo, strings.Join(ix.repos, ", "))
	}
	seed, why, note, err := ix.seeds(ctx, req.Question)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Repo != "" {
		for n := range seed {
			if r := ix.nodes[n].repo; r != "" && r != req.Repo {
				delete(seed, n)
				delete(why, n)
			}
		}
	}
	a := ix.answer(seed, why, -1, req.K, req.Weights, req.Repo)
	a.Question, a.SeedsNote = req.Question, note
	a.fit(orDefault(req.MaxBytes, DefaultMaxBytes))
	return a, nil
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// seeds are the hits over notes and code, each ranking's hits scaled to
// 1 for its best: for each kind, the lexical hits (within SeedShare of
// the best, at most Seeds) and, when the Index has vectors, the vector
// hits (within VectorShare, at most VectorSeeds, weighing VectorWeight),
// fused by adding their shares (CombSUM), with the reasons each was
// found. A question that cannot be embedded is seeded lexically, and the
// returned note says why.
//
// Notes are seeded by their vectors only with a model embedder (Open) and
// only when no note has the question's words: a note that does is
// reached, and the notes found by meaning alone were, with the builtin
// embedder, every note about the same subject within a few hundredths of
// each other (for "the web player fetches the episode", both notes about
// the cron, which then came into must_read). Code vectors separate far
// better: a function's words are its own, and code is always fused.
//
// Not reciprocal rank fusion, which package search uses for result lists:
// ranks alone give the fifth lexical hit nearly the mass of the first
// (1/65 against 1/61), and the walk then spreads from every weak match (on
// the podcast fixture, "uploading an episode overwrites the old one"
// brought the cron and its tests through a note that says "episode" once).
func (ix *Index) seeds(ctx context.Context, question string) (map[int32]float64, map[int32][]string, string, error) {
	code := map[int32]float64{}
	for doc, s := range ix.codeLex.scores(codeTerms(question)) {
		n := ix.codeChunk[doc]
		code[n] = max(code[n], s)
	}
	notes := map[int32]float64{}
	if ix.noteLex != nil {
		var terms []string
		for _, t := range Terms(question) {
			if !ix.linkTerms[t] {
				terms = append(terms, t)
			}
		}
		scores := ix.noteLex.Scores(terms)
		for doc, s := range scores {
			if s > 0 && ix.noteChunk[doc] >= 0 {
				n := ix.noteChunk[doc]
				notes[n] = max(notes[n], float64(s))
			}
		}
		ix.noteLex.Recycle(scores)
	}
	codeVec, noteVec, err := ix.vectorHits(ctx, question)
	note := ""
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, nil, "", cerr
		}
		note = "seeded by words alone: " + err.Error()
	}
	if len(shares(notes, SeedShare, Seeds)) > 0 {
		noteVec = nil
	}
	seed := map[int32]float64{}
	why := map[int32][]string{}
	for _, r := range []struct {
		scores map[int32]float64
		share  float64
		limit  int
		reason string
	}{
		{code, SeedShare, Seeds, "matches the question"},
		{notes, SeedShare, Seeds, "matches the question"},
		{codeVec, VectorShare, VectorSeeds, "near the question in meaning"},
		{noteVec, VectorShare, VectorSeeds, "near the question in meaning"},
	} {
		for n, s := range shares(r.scores, r.share, r.limit) {
			seed[n] += s
			why[n] = append(why[n], r.reason)
		}
	}
	if weak := ix.weakWords(question); weak != "" {
		note = strings.TrimPrefix(note+"; "+weak, "; ")
	}
	return seed, why, note, nil
}

// weakWords says, when fewer than half of the question's words occur
// anywhere in the code or the notes, which ones do: what the answer holds
// then was reached from little and may have nothing to do with the
// question. "" otherwise.
func (ix *Index) weakWords(question string) string {
	terms, code := Terms(question), codeTerms(question)
	var known []string
	n := 0
	seen := map[string]bool{}
	for i, t := range terms {
		if ix.linkTerms[t] || seen[t] {
			continue
		}
		seen[t] = true
		n++
		if _, ok := ix.codeLex.postings[code[i]]; ok || ix.noteLex.Knows(t) {
			known = append(known, t)
		}
	}
	if n == 0 || 2*len(known) >= n {
		return ""
	}
	which := "none occurs"
	switch len(known) {
	case 0:
	case 1:
		which = "only " + known[0] + " occurs"
	default:
		which = "only " + strings.Join(known, ", ") + " occur"
	}
	return fmt.Sprintf("weak match: of the question's %d words, %s in the code or the notes; the answer may be unrelated to the question", n, which)
}

// fileOf is the file of a code node (itself for a file), -1 for others.
func (ix *Index) fileOf(n int32) int32 {
	switch ix.nodes[n].kind {
	case KindFile:
		return n
	case KindSymbol:
		return ix.nodes[n].file
	}
	return -1
}

// bucket collects entries by node.
type bucket struct {
	ix    *Index
	order []int32
	why   map[int32][]string
	syms  map[int32][]string
	uses  map[int32][]string
	score map[int32]float64
}

func newBucket(ix *Index) *bucket {
	return &bucket{ix: ix, why: map[int32][]string{}, syms: map[int32][]string{}, uses: map[int32][]string{}, score: map[int32]float64{}}
}

func (b *bucket) add(n int32, score float64, why ...string) {
	if _, ok := b.score[n]; !ok {
		b.order = append(b.order, n)
		b.score[n] = score
	} else {
		b.score[n] = max(b.score[n], score)
	}
	for _, w := range why {
		if !slices.Contains(b.why[n], w) {
			b.why[n] = append(b.why[n], w)
		}
	}
}

func (b *bucket) has(n int32) bool { _, ok := b.score[n]; return ok }

// top returns the k best nodes by score.
func (b *bucket) top(k int) []int32 {
	out := slices.Clone(b.order)
	sort.SliceStable(out, func(i, j int) bool { return b.score[out[i]] > b.score[out[j]] })
	if len(out) > k {
		out = out[:k]
	}
	return out
}

func (b *bucket) entries(nodes []int32) []Entry {
	out := make([]Entry, 0, len(nodes))
	for _, n := range nodes {
		nd := b.ix.nodes[n]
		e := Entry{ID: nd.id, Path: nd.path, Repo: nd.repo, Symbols: b.syms[n], Uses: b.uses[n], Why: b.why[n], Score: round(b.score[n])}
		if nd.kind == KindNote {
			e.Title = nd.title
		}
		out = append(out, e)
	}
	return out
}

func round(f float64) float64 { return float64(int64(f*1e6+0.5)) / 1e6 }

// answer ranks from seed and fills the buckets.
// anchor, when not -1, is the file that must_read holds alone (Impact).
func (ix *Index) answer(seed map[int32]float64, seedWhy map[int32][]string, anchor int32, k int, w Weights, repo string) *Answer {
	k = orDefault(k, DefaultK)
	// other is code of another repository than repo, when repo is set.
	other := func(n int32) bool { return repo != "" && ix.nodes[n].repo != "" && ix.nodes[n].repo != repo }
	rank := ix.pagerank(seed, w, 30, 0.85)
	fileScore := map[int32]float64{}
	symbolHits := map[int32][]int32{}
	for n, nd := range ix.nodes {
		if f := ix.fileOf(int32(n)); f >= 0 && rank[n] > 0 && !other(f) {
			fileScore[f] += rank[n]
			if nd.kind == KindSymbol && (seed[int32(n)] > 0 || rank[n] > 0) {
				symbolHits[f] = append(symbolHits[f], int32(n))
			}
		}
	}
	symbolNames := func(f int32) []string {
		syms := symbolHits[f]
		sort.SliceStable(syms, func(i, j int) bool { return rank[syms[i]] > rank[syms[j]] })
		var names []string
		for _, s := range syms {
			if len(names) == 5 {
				break
			}
			names = append(names, ix.nodes[s].title+":"+ix.lines(s))
		}
		return names
	}
	// must_read: the code the walk ranks highest, tests aside.
	read := newBucket(ix)
	// pointed are the files a note matching the question links to (or to
	// one of their symbols).
	pointed := map[int32]bool{}
	for f, s := range fileScore {
		if ix.nodes[f].test {
			continue
		}
		var why []string
		if seed[f] > 0 {
			why = append(why, seedWhy[f]...)
		}
		for _, sy := range ix.symbols[f] {
			if seed[sy] > 0 {
				for _, w := range seedWhy[sy] {
					why = append(why, ix.nodes[sy].title+" "+w)
				}
			}
		}
		for _, a := range ix.adj[f] {
			if seed[a.to] > 0 && ix.nodes[a.to].kind == KindNote {
				why = append(why, ix.describe(a, f))
				pointed[f] = true
			}
		}
		for _, sy := range ix.symbols[f] {
			for _, a := range ix.adj[sy] {
				if seed[a.to] > 0 && ix.nodes[a.to].kind == KindNote {
					why = append(why, ix.describe(a, sy))
					pointed[f] = true
				}
			}
		}
		if len(why) == 0 {
			why = append(why, "ranked by the walk from the matches")
		}
		read.add(f, s, why...)
	}
	// Keep what ranks near the best (a file far below it was reached, not
	// asked about); a file that depends on one already kept is left for
	// may_change, unless a note matching the question points at it (the
	// bug note's affected file is what to read: it comes first then) or
	// it ranks as high as every kept file it depends on.
	var mustRead []int32
	demoted := map[int32]bool{}
	inRead := map[int32]bool{}
	candidates := read.top(4 * k)
	if anchor >= 0 {
		candidates = []int32{anchor}
		read.add(anchor, rank[anchor], "the anchor")
	}
	for _, f := range candidates {
		if len(mustRead) == k || (len(mustRead) > 0 && read.score[f] < MustReadShare*read.score[mustRead[0]]) {
			break
		}
		if deps := ix.dependsOn(f, inRead); len(deps) > 0 && !pointed[f] &&
			slices.ContainsFunc(deps, func(d int32) bool { return read.score[f] < read.score[d] }) {
			demoted[f] = true
			continue
		}
		mustRead = append(mustRead, f)
		inRead[f] = true
	}
	// What a matching note points at first: the note says where the
	// question is, the walk only what is near.
	sort.SliceStable(mustRead, func(i, j int) bool { return pointed[mustRead[i]] && !pointed[mustRead[j]] })
	for _, f := range mustRead {
		read.syms[f] = symbolNames(f)
		read.uses[f] = ix.uses(f, inRead, rank)
	}
	// may_change: code that depends on it, by how much it does (calls of
	// its symbols above an import of its package).
	change := newBucket(ix)
	dependsScore := map[int32]float64{}
	for _, f := range mustRead {
		order, evs := ix.evidence(f, seed, func(g int32) bool { return !inRead[g] && !ix.nodes[g].test && !other(g) })
		for _, g := range order {
			ev := evs[g]
			if len(ev.called) == 0 && !ev.pkg && !ev.coEdit {
				continue
			}
			dependsScore[g] += ix.score(ev, g, f)
			change.add(g, 0, ev.why...)
		}
	}
	for g, s := range dependsScore {
		boost := 0.0
		if demoted[g] {
			boost = 1 // it matched the question too
		}
		change.score[g] = boost + s + fileScore[g]
	}
	mayChange := change.top(k)
	for _, f := range mayChange {
		change.syms[f] = symbolNames(f)
	}
	// must_test: tests of either, by how much they test it: the test named
	// for the file first, then those calling its symbols (the anchor's
	// above all), an import of its package least; benchmarks last.
	test := newBucket(ix)
	testScore := map[int32]float64{}
	covered := append(slices.Clone(mustRead), mayChange...)
	for pos, f := range covered {
		boost := 1.0
		if pos < len(mustRead) {
			boost = 2
		}
		order, evs := ix.evidence(f, seed, func(t int32) bool { return ix.nodes[t].test && !other(t) })
		for _, t := range order {
			ev := evs[t]
			if !ev.byName && !ev.pkg && len(ev.called) == 0 {
				continue
			}
			testScore[t] += boost * ix.score(ev, t, f)
			test.add(t, 0, ev.why...)
		}
	}
	for t, s := range testScore {
		s += fileScore[t]
		if ix.benchmarksOnly(t) {
			s *= BenchmarkShare
		}
		test.score[t] = s
	}
	mustTest := test.top(k)
	for _, t := range mustTest {
		test.syms[t] = symbolNames(t)
	}
	// knowledge and danger: notes linked to any of it.
	know := newBucket(ix)
	danger := newBucket(ix)
	var dangerEntries []Entry
	all := append(slices.Clone(covered), mustTest...)
	for _, f := range all {
		for _, n := range append([]int32{f}, ix.symbols[f]...) {
			for _, a := range ix.adj[n] {
				if ix.nodes[a.to].kind != KindNote || a.out {
					continue
				}
				e := ix.edges[a.edge]
				know.add(a.to, 1+rank[a.to], ix.seenFrom(a, n))
				if isDanger(e.Type) && !danger.has(n) {
					danger.add(n, 1)
					nd := ix.nodes[n]
					lines := ""
					if nd.kind == KindSymbol {
						lines = ix.lines(n)
					}
					dangerEntries = append(dangerEntries, Entry{ID: nd.id, Path: nd.path, Repo: nd.repo, Lines: lines, Note: e.Source,
						Type: e.Type, Reason: propsText(e.Properties), Why: []string{ix.describe(a, n)}, Score: 1})
				}
			}
		}
	}
	for n := range seed {
		if ix.nodes[n].kind == KindNote {
			know.add(n, rank[n], seedWhy[n]...)
		}
	}
	for n, nd := range ix.nodes {
		if nd.kind == KindNote && rank[n] > 0 && !know.has(int32(n)) && len(know.order) < 4*k {
			for _, a := range ix.adj[n] {
				if know.has(a.to) {
					know.add(int32(n), rank[n], ix.describe(a, int32(n)))
				}
			}
		}
	}
	if len(dangerEntries) > k {
		dangerEntries = dangerEntries[:k]
	}
	return &Answer{Snapshot: ix.snapshot, MustRead: read.entries(mustRead), MayChange: change.entries(mayChange),
		MustTest: test.entries(mustTest), Knowledge: know.entries(know.top(k)), Danger: orEmpty(dangerEntries), Notice: Notice}
}

// lines is where symbol n is in its file: "133-153", or "133" for one
// line.
func (ix *Index) lines(n int32) string {
	nd := ix.nodes[n]
	if nd.endLine <= nd.line {
		return strconv.Itoa(int(nd.line))
	}
	return strconv.Itoa(int(nd.line)) + "-" + strconv.Itoa(int(nd.endLine))
}

// UsesPerEntry bounds Entry.Uses.
const UsesPerEntry = 5

// uses lists what file f or its symbols call or import in f's repository,
// outside f and the files of skip: the symbols called in files f imports
// (or, in Go, in its own package), best ranked first, then the other files
// it imports; at most UsesPerEntry ids. A call is resolved by name alone,
// so one into a file f does not import is left out: "Response" would name
// any type of that name.
func (ix *Index) uses(f int32, skip map[int32]bool, rank []float64) []string {
	imports := map[int32]bool{}
	for _, a := range ix.adj[f] {
		if a.out && ix.edges[a.edge].Type == format.TypeImports && ix.nodes[a.to].kind == KindFile {
			imports[a.to] = true
		}
	}
	samePackage := func(g int32) bool {
		pf, pg := ix.nodes[f].path, ix.nodes[g].path
		return strings.HasSuffix(pf, ".go") && strings.HasSuffix(pg, ".go") && path.Dir(pf) == path.Dir(pg)
	}
	var called []int32
	seen := map[int32]bool{}
	for _, n := range append([]int32{f}, ix.symbols[f]...) {
		for _, a := range ix.adj[n] {
			g := ix.fileOf(a.to)
			if !a.out || g < 0 || g == f || skip[g] || seen[a.to] || ix.edges[a.edge].Type != format.TypeCalls || !(imports[g] || samePackage(g)) {
				continue
			}
			seen[a.to] = true
			called = append(called, a.to)
		}
	}
	byRank := func(ns []int32) []int32 {
		sort.SliceStable(ns, func(i, j int) bool {
			if rank[ns[i]] != rank[ns[j]] {
				return rank[ns[i]] > rank[ns[j]]
			}
			return ix.nodes[ns[i]].id < ix.nodes[ns[j]].id
		})
		return ns
	}
	var out []string
	viaSymbol := map[int32]bool{}
	for _, n := range byRank(called) {
		if len(out) == UsesPerEntry {
			return out
		}
		viaSymbol[ix.fileOf(n)] = true
		out = append(out, ix.nodes[n].id)
	}
	var files []int32
	for g := range imports {
		if !viaSymbol[g] && !skip[g] && g != f {
			files = append(files, g)
		}
	}
	for _, g := range byRank(files) {
		if len(out) == UsesPerEntry {
			break
		}
		out = append(out, ix.nodes[g].id)
	}
	return out
}

// dependsOn returns the files in set that file f (or one of its symbols)
// imports or calls into.
func (ix *Index) dependsOn(f int32, set map[int32]bool) []int32 {
	var out []int32
	for _, n := range append([]int32{f}, ix.symbols[f]...) {
		for _, a := range ix.adj[n] {
			e := ix.edges[a.edge]
			if g := ix.fileOf(a.to); a.out && (e.Type == format.TypeImports || e.Type == format.TypeCalls) && set[g] && !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

func orEmpty(e []Entry) []Entry {
	if e == nil {
		return []Entry{}
	}
	return e
}

// seenFrom describes arc a of node at as its other end sees it: the
// reason that end is in the answer.
func (ix *Index) seenFrom(a arc, at int32) string {
	return ix.describe(arc{to: at, edge: a.edge, out: !a.out}, a.to)
}

// describe says how arc a, seen from node at, brought its other end:
// "imports code:...", "imported by code:...", "documents:: from Note.md".
func (ix *Index) describe(a arc, at int32) string {
	e := ix.edges[a.edge]
	other := ix.nodes[a.to].id
	if a.out {
		return e.Type + " " + other
	}
	switch e.Type {
	case format.TypeImports:
		return "imported by " + other
	case format.TypeCalls:
		return "called by " + other
	case format.TypeTests:
		return "tested by " + other
	case format.TypeContains:
		return "in " + other
	case format.TypeCoEdits:
		return fmt.Sprintf("changed with %s in %d commits", other, e.Count)
	}
	return other + " " + e.Type + " " + ix.nodes[at].id
}

func propsText(props []format.Property) string {
	var parts []string
	for _, p := range props {
		parts = append(parts, p.Key+": "+p.Text())
	}
	return strings.Join(parts, ", ")
}
