package indexer

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/code"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// DefaultCoEditCommits is how many commits of each repository's history
// the co_edits edges count.
const DefaultCoEditCommits = 200

// coEditMaxFiles skips commits that change more files than this (sweeping
// renames and reformats say nothing about which files belong together).
const coEditMaxFiles = 40

// codeTables are the rows of the code half of a snapshot.
type codeTables struct {
	files   []format.CodeFile
	symbols []format.Symbol
	chunks  []format.CodeChunk
	edges   []format.Edge
	repos   []format.Repo
	// parsed and reused count files read and parsed, and files whose rows
	// were taken from the parent because their blob was unchanged.
	parsed, reused int
	historyRead    int // repositories whose history was read again
}

// codeReuse holds the parent's code rows by file id.
type codeReuse struct {
	files   map[string]format.CodeFile
	symbols map[string][]format.Symbol
	chunks  map[string][]format.CodeChunk
	coEdits map[string][]format.Edge // by repository
	repos   map[string]format.Repo
}

// reusableCode loads the parent's code rows, or returns nil.
func reusableCode(parent *snapshot.Snapshot, opts Options) *codeReuse {
	if parent == nil || opts.Full || len(parent.Manifest.Repos) == 0 {
		return nil
	}
	var (
		cg     snapshot.CodeGraph
		chunks []format.CodeChunk
		g      errgroup.Group
	)
	g.Go(func() (err error) {
		chunks, err = snapshot.ReadTable[format.CodeChunk](filepath.Join(parent.Dir, format.CodeChunksFile))
		return err
	})
	g.Go(func() (err error) {
		cg, err = parent.CodeGraph()
		return err
	})
	if err := g.Wait(); err != nil {
		opts.Log.Warn("cannot reuse the parent snapshot's code tables; reading every file", "parent", parent.ID, "err", err)
		return nil
	}
	r := &codeReuse{files: map[string]format.CodeFile{}, symbols: map[string][]format.Symbol{}, coEdits: map[string][]format.Edge{},
		repos: map[string]format.Repo{}, chunks: map[string][]format.CodeChunk{}}
	for _, c := range chunks {
		r.chunks[c.File] = append(r.chunks[c.File], c)
	}
	for _, rp := range parent.Manifest.Repos {
		if rp.Reader == code.Revision {
			r.repos[rp.Name] = rp
		}
	}
	for _, f := range cg.Files {
		if _, ok := r.repos[f.Repo]; ok {
			r.files[f.ID] = f
		}
	}
	for _, s := range cg.Symbols {
		r.symbols[s.File] = append(r.symbols[s.File], s)
	}
	for _, e := range cg.Edges {
		if e.Type == format.TypeCoEdits && e.Origin == format.OriginHistory {
			repo, _, _, _ := format.SplitCodeID(e.Source)
			r.coEdits[repo] = append(r.coEdits[repo], e)
		}
	}
	return r
}

// buildCode reads, parses (or reuses) and links the files of every
// repository.
func buildCode(ctx context.Context, repos []repoInput, prev *codeReuse, opts Options) (*codeTables, []format.Warning, error) {
	ct := &codeTables{}
	var warnings []format.Warning
	for _, in := range repos {
		files, symbols, chunks, parsed, err := parseRepo(ctx, in, prev, opts)
		if err != nil {
			return nil, nil, err
		}
		ct.parsed += parsed
		ct.reused += len(files) - parsed
		lk := newCodeLinker(in.spec.Name, files, symbols)
		for _, f := range files {
			if path.Base(f.Path) == "go.mod" {
				if content, err := in.repo.Read(f.Path); err == nil {
					if mod := goModule(content); mod != "" {
						lk.setModule(mod, path.Dir(f.Path))
					}
				}
			}
		}
		edges := lk.edges()
		co, read, err := coEdits(ctx, in, files, prev, opts)
		if err != nil {
			return nil, nil, err
		}
		if read {
			ct.historyRead++
		}
		edges = append(edges, co...)
		ct.files = append(ct.files, files...)
		ct.symbols = append(ct.symbols, symbols...)
		ct.chunks = append(ct.chunks, chunks...)
		ct.edges = append(ct.edges, edges...)
		ct.repos = append(ct.repos, in.manifestRepo(len(symbols)))
		for _, s := range in.skipped {
			warnings = append(warnings, format.Warning{File: format.CodeFileID(in.spec.Name, s.Path), Kind: format.WarnCodeSkipped,
				Message: "tracked file not read: " + s.Reason})
		}
	}
	return ct, warnings, nil
}

// parseRepo returns the rows of a repository's files, parsing those whose
// blob the parent does not have.
func parseRepo(ctx context.Context, in repoInput, prev *codeReuse, opts Options) ([]format.CodeFile, []format.Symbol, []format.CodeChunk, int, error) {
	files := make([]format.CodeFile, len(in.files))
	syms := make([][]format.Symbol, len(in.files))
	chunks := make([][]format.CodeChunk, len(in.files))
	parsed := make([]bool, len(in.files))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Workers)
	for i, f := range in.files {
		id := format.CodeFileID(in.spec.Name, f.Path)
		if prev != nil {
			if old, ok := prev.files[id]; ok && old.Blob == f.Blob {
				files[i], syms[i], chunks[i] = old, prev.symbols[id], prev.chunks[id]
				files[i].Size = f.Size
				continue
			}
		}
		parsed[i] = true
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			content := f.Content
			if content == nil {
				var err error
				if content, err = in.repo.Read(f.Path); err != nil {
					// Changed or removed since it was listed: read it next run.
					content = nil
				}
			}
			files[i], syms[i], chunks[i] = codeRows(in.spec.Name, f.Path, f.Blob, content)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, nil, 0, err
	}
	var symbols []format.Symbol
	var allChunks []format.CodeChunk
	n := 0
	for i := range files {
		symbols = append(symbols, syms[i]...)
		allChunks = append(allChunks, chunks[i]...)
		if parsed[i] {
			n++
		}
	}
	return files, symbols, allChunks, n, nil
}

func codeRows(repo, p, blob string, content []byte) (format.CodeFile, []format.Symbol, []format.CodeChunk) {
	pf := code.Parse(p, content)
	id := format.CodeFileID(repo, p)
	f := format.CodeFile{ID: id, Repo: repo, Path: p, Language: pf.Language, Lines: int32(pf.Lines), Size: int64(len(content)),
		Blob: blob, Imports: pf.Imports, Package: pf.Package, Test: pf.Test, Build: pf.Build}
	syms := make([]format.Symbol, len(pf.Symbols))
	for i, s := range pf.Symbols {
		syms[i] = format.Symbol{ID: format.SymbolID(id, s.Name), File: id, Name: s.Name, Kind: s.Kind, Line: int32(s.Line),
			EndLine: int32(s.EndLine), Calls: s.Calls}
	}
	if pf.Generated {
		// Only its head (where the marker is) is searched: its symbols
		// would crowd out the code written by hand.
		return f, syms, codeChunks(f, nil, content)
	}
	return f, syms, codeChunks(f, syms, content)
}

// codeChunks cuts a file into its head and one chunk per symbol. Files of
// no known language get only a head.
func codeChunks(f format.CodeFile, syms []format.Symbol, content []byte) []format.CodeChunk {
	if len(content) == 0 || bytes.IndexByte(content, 0) >= 0 {
		return nil // empty or binary
	}
	lines := strings.SplitAfter(string(content), "\n")
	first := len(lines)
	for _, s := range syms {
		if int(s.Line)-1 < first {
			first = int(s.Line) - 1
		}
	}
	head := f.Path + "\n" + strings.Join(lines[:min(first, 60, len(lines))], "")
	for _, s := range syms {
		head += "\n" + s.Name
	}
	out := []format.CodeChunk{{ID: f.ID, File: f.ID, Line: 1, Text: cut(head, format.MaxCodeChunkBytes)}}
	for _, s := range syms {
		from, to := int(s.Line)-1, min(int(s.EndLine), len(lines))
		if from < 0 || from >= to {
			continue
		}
		out = append(out, format.CodeChunk{ID: s.ID, File: f.ID, Line: s.Line, Text: cut(strings.Join(lines[from:to], ""), format.MaxCodeChunkBytes)})
	}
	return out
}

// cut shortens s to at most n bytes at a UTF-8 boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// codeLinker resolves a repository's imports, calls and tests.
type codeLinker struct {
	repo    string
	files   []format.CodeFile
	byPath  map[string]*format.CodeFile
	byDir   map[string][]*format.CodeFile // Go files by folder
	byBase  map[string][]*format.CodeFile // by file name without extension
	pyByEnd map[string][]*format.CodeFile // Python files by the last name of their module path
	symbols []format.Symbol
	byName  map[string][]*format.Symbol // by short name (after the last '.')
	modules map[string]string           // Go module path -> folder ("" for the root)
	out     []format.Edge
	ordinal map[edgeKey]int
	imports map[string][]string // file id -> imported file ids
	kept    []*format.Symbol    // resolveCall's candidates, reused
	pathOf  map[string]string   // file id -> path
	langOf  map[string]string   // file id -> language
	oses    map[string]uint32   // Go file id -> goOSSet
}

func newCodeLinker(repo string, files []format.CodeFile, symbols []format.Symbol) *codeLinker {
	lk := &codeLinker{repo: repo, files: files, symbols: symbols, byPath: map[string]*format.CodeFile{},
		byDir: map[string][]*format.CodeFile{}, byBase: map[string][]*format.CodeFile{}, pyByEnd: map[string][]*format.CodeFile{}, byName: map[string][]*format.Symbol{},
		modules: map[string]string{}, ordinal: map[edgeKey]int{}, imports: map[string][]string{},
		pathOf: map[string]string{}, langOf: map[string]string{}, oses: map[string]uint32{}}
	for i := range files {
		f := &files[i]
		lk.byPath[f.Path] = f
		lk.pathOf[f.ID], lk.langOf[f.ID] = f.Path, f.Language
		if f.Language == code.LangGo {
			lk.byDir[path.Dir(f.Path)] = append(lk.byDir[path.Dir(f.Path)], f)
		}
		base := path.Base(f.Path)
		lk.byBase[strings.TrimSuffix(base, path.Ext(base))] = append(lk.byBase[strings.TrimSuffix(base, path.Ext(base))], f)
		if f.Language == code.LangPython {
			end := path.Base(pythonModulePath(f.Path))
			lk.pyByEnd[end] = append(lk.pyByEnd[end], f)
		}
	}
	for i := range symbols {
		s := &symbols[i]
		short := s.Name[strings.LastIndex(s.Name, ".")+1:]
		lk.byName[short] = append(lk.byName[short], s)
	}
	return lk
}

// setModule records a Go module of the repository (a go.mod file) and its
// folder ("." for the root).
func (lk *codeLinker) setModule(mod, dir string) { lk.modules[mod] = dir }

func (lk *codeLinker) add(src, typ, dst, origin string, count int32, sentence string) {
	k := edgeKey{src, typ, dst}
	n := lk.ordinal[k]
	lk.ordinal[k] = n + 1
	if n > 0 {
		return // one edge per pair and type
	}
	lk.out = append(lk.out, format.Edge{ID: format.EdgeID(src, typ, dst, 0), Source: src, Target: dst, Type: typ, Sign: 1,
		Count: count, Origin: origin, Sentence: sentence})
}

// edges returns contains, imports, tests and calls edges.
func (lk *codeLinker) edges() []format.Edge {
	for _, s := range lk.symbols {
		lk.add(s.File, format.TypeContains, s.ID, format.OriginCode, 1, fmt.Sprintf("%s contains %s %s", s.File, s.Kind, s.Name))
	}
	for i := range lk.files {
		f := &lk.files[i]
		for _, dst := range lk.resolveImports(f) {
			if dst.ID == f.ID || !lk.buildsWith(f, dst) {
				continue
			}
			lk.imports[f.ID] = append(lk.imports[f.ID], dst.ID)
			lk.add(f.ID, format.TypeImports, dst.ID, format.OriginCode, 1, fmt.Sprintf("%s imports %s", f.ID, dst.ID))
		}
	}
	for i := range lk.files {
		if f := &lk.files[i]; f.Test {
			for _, dst := range lk.tested(f) {
				if !lk.buildsWith(f, dst) {
					continue
				}
				lk.add(f.ID, format.TypeTests, dst.ID, format.OriginConvention, 1, fmt.Sprintf("%s tests %s", f.ID, dst.ID))
			}
		}
	}
	for _, s := range lk.symbols {
		for _, c := range s.Calls {
			if dst := lk.resolveCall(&s, c); dst != nil && dst.ID != s.ID {
				lk.add(s.ID, format.TypeCalls, dst.ID, format.OriginCode, 1, fmt.Sprintf("%s calls %s", s.ID, dst.ID))
			}
		}
	}
	return lk.out
}

// tested returns the files a test file tests: those it imports that are
// not tests, and the file its name points at (test_cron.py, cron_test.py,
// cron.test.ts -> cron.*; a Go test file tests its folder's package when no
// file of its name exists).
func (lk *codeLinker) tested(t *format.CodeFile) []*format.CodeFile {
	var out []*format.CodeFile
	for _, id := range lk.imports[t.ID] {
		if _, p, _, ok := format.SplitCodeID(id); ok {
			if f := lk.byPath[p]; f != nil && !f.Test {
				out = append(out, f)
			}
		}
	}
	base := path.Base(t.Path)
	stem := strings.TrimSuffix(base, path.Ext(base))
	var subject string
	switch {
	case t.Language == code.LangGo:
		subject = strings.TrimSuffix(stem, "_test")
	case strings.HasPrefix(stem, "test_"):
		subject = strings.TrimPrefix(stem, "test_")
	case strings.HasSuffix(stem, "_test"):
		subject = strings.TrimSuffix(stem, "_test")
	default:
		for _, mark := range []string{".test", ".spec"} {
			if i := strings.Index(base, mark+"."); i > 0 {
				subject = base[:i]
			}
		}
	}
	if subject != "" {
		if f := lk.bestByBase(subject, t); f != nil {
			out = append(out, f)
		} else if t.Language == code.LangGo {
			for _, f := range lk.byDir[path.Dir(t.Path)] {
				if !f.Test {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// bestByBase picks the non-test file named subject closest to t: in its
// folder, else sharing the longest folder prefix.
func (lk *codeLinker) bestByBase(subject string, t *format.CodeFile) *format.CodeFile {
	var best *format.CodeFile
	bestScore := -1
	for _, f := range lk.byBase[subject] {
		if f.Test || f.Language == "" {
			continue
		}
		score := commonPrefix(path.Dir(f.Path), path.Dir(t.Path))
		if path.Dir(f.Path) == path.Dir(t.Path) {
			score = 1 << 20
		}
		if score > bestScore || (score == bestScore && f.Path < best.Path) {
			best, bestScore = f, score
		}
	}
	return best
}

func commonPrefix(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}

// resolveCall finds the symbol a call names: one in the caller's file,
// else one in a file the caller's file imports, else the only one of that
// name in the repository (for a member call of a method, only in the
// caller's folder), among the symbols the call can name. A bare
// call (f()) never names a method; in Go it names a function of the
// caller's package or a builtin (len, append), so it looks nowhere else.
// A Go name in lower case is the package's own: a member call of it
// (x.f()) names a method or function of the caller's package only.
func (lk *codeLinker) resolveCall(caller *format.Symbol, call string) *format.Symbol {
	name, member := strings.CutPrefix(call, code.MemberCall)
	cands := lk.byName[name]
	if len(cands) == 0 {
		return nil
	}
	callerDir := path.Dir(lk.pathOf[caller.File])
	goCaller := lk.langOf[caller.File] == code.LangGo
	samePackage := func(c *format.Symbol) bool { return path.Dir(lk.pathOf[c.File]) == callerDir }
	can := func(c *format.Symbol) bool {
		method := strings.Contains(c.Name, ".")
		switch {
		case !member && method:
			return false
		case !goCaller:
			return true
		case !member:
			return samePackage(c) // f(): a function of the package
		case !isExported(name):
			return method && samePackage(c) // x.f(): a method of the package's own
		case !method:
			return !samePackage(c) // pkg.F(): a function of another package
		}
		return true // x.F(): an exported method
	}
	from := lk.byPath[lk.pathOf[caller.File]]
	kept := lk.kept[:0] // reused: resolveCall runs once per call of every symbol
	for _, c := range cands {
		if can(c) && (from == nil || lk.buildsWith(from, lk.byPath[lk.pathOf[c.File]])) {
			kept = append(kept, c)
		}
	}
	lk.kept, cands = kept, kept
	for _, c := range cands {
		if c.File == caller.File {
			return c
		}
	}
	if goCaller && !member {
		// Another file of the package: the only function of that name.
		if len(cands) == 1 {
			return cands[0]
		}
		return nil
	}
	imported := lk.imports[caller.File]
	var hit *format.Symbol
	for _, c := range cands {
		if slices.Contains(imported, c.File) {
			if hit != nil {
				return nil // ambiguous
			}
			hit = c
		}
	}
	if hit != nil {
		return hit
	}
	// The only one of that name in the repository; but a member call
	// (x.push()) of a method outside the caller's package and imports is
	// no evidence: x may be an array, a file, anything with a push.
	if len(cands) == 1 && !(member && strings.Contains(cands[0].Name, ".") && !samePackage(cands[0])) {
		return cands[0]
	}
	return nil
}

// isExported reports whether a Go name is exported (begins with an upper
// case letter).
func isExported(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

// sortCodeEdges orders edges by source, type and target, for stable tables.
func sortCodeEdges(edges []format.Edge) {
	sort.SliceStable(edges, func(i, j int) bool {
		a, b := edges[i], edges[j]
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Target < b.Target
	})
}

// warnDroppedRepos warns about each repository the parent snapshot indexed
// that this run does not: a run by hand without the --repo flags a timer's
// run has publishes a snapshot without that code, and servers swap to it.
func warnDroppedRepos(parent *snapshot.Snapshot, repos []repoInput, opts Options) {
	if parent == nil {
		return
	}
	for _, r := range parent.Manifest.Repos {
		if !slices.ContainsFunc(repos, func(in repoInput) bool { return in.spec.Name == r.Name }) {
			opts.Log.Warn("the parent snapshot indexed a repository this run does not; its code is left out of the new snapshot (add --repo NAME=PATH to keep it)",
				"repo", r.Name, "path", r.Root, "parent", parent.ID)
		}
	}
}

// addCode builds the code half of the tables: the repositories' rows and
// the edges of notes to code. It does nothing when no repository is indexed
// and no note links to code.
func (t *tables) addCode(ctx context.Context, repos []repoInput, parent *snapshot.Snapshot, opts Options) error {
	warnDroppedRepos(parent, repos, opts)
	if len(repos) == 0 && len(t.codeLinks) == 0 {
		return nil
	}
	ct, warnings, err := buildCode(ctx, repos, reusableCode(parent, opts), opts)
	if err != nil {
		return err
	}
	noteEdges, linkWarnings, unresolved := resolveCodeLinks(t.codeLinks, ct)
	t.code = ct
	t.codeEdges = append(slices.Clone(ct.edges), noteEdges...)
	sortCodeEdges(t.codeEdges)
	t.unresolvedCode = unresolved
	t.warnings = append(t.warnings, warnings...)
	t.warnings = append(t.warnings, linkWarnings...)
	return nil
}
