package format

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/vaultgraph/vaultgraph/format/glob"
	"github.com/vaultgraph/vaultgraph/format/spell"
)

// CodeCatalog is what a snapshot holds of its repositories' code: enough
// to resolve a code link as people write it, and to say why one names
// nothing. The indexer resolves with it; readers explain divergence with
// it.
type CodeCatalog struct {
	repos    map[string]Repo
	files    map[string]CodeFile // by id
	symbols  map[string][]Symbol // file id -> its symbols
	symbolID map[string]bool
	// folded holds every file id and repository name by its lower case,
	// for links that differ only in case.
	folded map[string][]string
	// byBase holds file ids by their path's last element.
	byBase map[string][]string
}

// NewCodeCatalog indexes the repositories, files and symbols of a snapshot.
func NewCodeCatalog(repos []Repo, files []CodeFile, symbols []Symbol) *CodeCatalog {
	c := &CodeCatalog{repos: map[string]Repo{}, files: make(map[string]CodeFile, len(files)),
		symbols: map[string][]Symbol{}, symbolID: make(map[string]bool, len(symbols)),
		folded: map[string][]string{}, byBase: map[string][]string{}}
	for _, r := range repos {
		c.repos[r.Name] = r
		k := strings.ToLower(r.Name)
		c.folded[k] = append(c.folded[k], r.Name)
	}
	for _, f := range files {
		c.files[f.ID] = f
		k := strings.ToLower(f.ID)
		c.folded[k] = append(c.folded[k], f.ID)
		b := path.Base(f.Path)
		c.byBase[b] = append(c.byBase[b], f.ID)
	}
	for _, s := range symbols {
		c.symbols[s.File] = append(c.symbols[s.File], s)
		c.symbolID[s.ID] = true
	}
	return c
}

// Has reports whether id names a file or symbol of the catalog as it is.
func (c *CodeCatalog) Has(id string) bool {
	_, file := c.files[id]
	return file || c.symbolID[id]
}

// Resolve returns the file or symbol a code link names: the link as
// written, its path cleaned (code:api/./app.py), or a line anchor pasted
// from a forge (#L341, #L341-L350) taken to the innermost symbol spanning
// that line, or to the file when no symbol does.
func (c *CodeCatalog) Resolve(target string) (string, bool) {
	if c.Has(target) {
		return target, true
	}
	repo, p, sym, ok := SplitCodeID(target)
	if !ok {
		return "", false
	}
	file := CodeFileID(repo, cleanPath(p))
	f, found := c.files[file]
	if !found {
		return "", false
	}
	if sym == "" {
		return file, true
	}
	if c.symbolID[SymbolID(file, sym)] {
		return SymbolID(file, sym), true
	}
	line, ok := lineAnchor(sym)
	if !ok || line > f.Lines {
		return "", false
	}
	if s, ok := c.enclosing(file, line); ok {
		return s.ID, true
	}
	return file, true
}

// Why says why target names no file or symbol, with what it most likely
// meant when something is close.
func (c *CodeCatalog) Why(target string) string {
	repo, p, sym, ok := SplitCodeID(target)
	if !ok {
		return "write code:REPO/path or code:REPO/path#Symbol"
	}
	r, indexed := c.repos[repo]
	if !indexed {
		why := "no repository named " + repo + " is indexed"
		if names := c.folded[strings.ToLower(repo)]; len(names) > 0 {
			return why + "; did you mean " + names[0] + "?"
		}
		return why + " (index it with --repo " + repo + "=PATH)"
	}
	file := CodeFileID(repo, cleanPath(p))
	f, found := c.files[file]
	if !found {
		return c.whyNoFile(r, cleanPath(p))
	}
	if line, isLine := lineAnchor(sym); isLine {
		return "the file has " + strconv.Itoa(int(f.Lines)) + " lines, not " + strconv.Itoa(int(line))
	}
	why := "the file has no symbol " + sym
	if m := c.closestSymbol(file, sym); m != "" {
		why += "; did you mean " + m + "?"
	}
	return why
}

// whyNoFile explains a path that is no file of repository r.
func (c *CodeCatalog) whyNoFile(r Repo, p string) string {
	if ex, _ := glob.Compile(r.Exclude); ex != nil {
		if pat := ex.Which(p); pat != "" {
			return "the run left it out: --repo-exclude " + pat
		}
	}
	if in, _ := glob.Compile(r.Include); in != nil && !in.Empty() && !in.Match(p) {
		return "the run left it out: --repo-include " + strings.Join(r.Include, ",") + " does not match it"
	}
	why := "no tracked file has this path"
	id := CodeFileID(r.Name, p)
	if ids := c.folded[strings.ToLower(id)]; len(ids) > 0 {
		return why + "; did you mean " + ids[0] + "?"
	}
	var same []string
	for _, other := range c.byBase[path.Base(p)] {
		if strings.HasPrefix(other, CodeFileID(r.Name, "")) {
			same = append(same, other)
		}
	}
	sort.Strings(same)
	if len(same) > 0 && len(same) <= 3 {
		return why + "; did you mean " + strings.Join(same, " or ") + "?"
	}
	return why
}

// closestSymbol is the symbol of a file an anchor most likely meant: the
// method whose name after its type is the anchor (handleEvent for
// inotify.handleEvent), the one that differs only in case, else the
// closest by spelling, or "".
func (c *CodeCatalog) closestSymbol(file, anchor string) string {
	best, bestD := "", 3
	for _, s := range c.symbols[file] {
		n := s.Name
		if short := n[strings.LastIndex(n, ".")+1:]; short == anchor || strings.EqualFold(n, anchor) {
			return n
		}
		if d := spell.Distance(spell.Fold(anchor), spell.Fold(n), 2); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// enclosing is the innermost symbol of file whose lines span line.
func (c *CodeCatalog) enclosing(file string, line int32) (Symbol, bool) {
	var best Symbol
	found := false
	for _, s := range c.symbols[file] {
		if s.Line <= line && line <= s.EndLine && (!found || s.EndLine-s.Line < best.EndLine-best.Line) {
			best, found = s, true
		}
	}
	return best, found
}

// lineAnchor reads L341 or L341-L350 (GitHub's and GitLab's line
// anchors; also L341-350) as its first line.
func lineAnchor(anchor string) (int32, bool) {
	rest, ok := strings.CutPrefix(anchor, "L")
	if !ok {
		return 0, false
	}
	first, last, ranged := strings.Cut(rest, "-")
	n, err := strconv.ParseInt(first, 10, 32)
	if err != nil || n < 1 {
		return 0, false
	}
	if ranged {
		last = strings.TrimPrefix(last, "L")
		if m, err := strconv.ParseInt(last, 10, 32); err != nil || m < n {
			return 0, false
		}
	}
	return int32(n), true
}

// cleanPath drops ./ and folds a/../b, as a path written by hand may hold.
func cleanPath(p string) string {
	if c := path.Clean(p); c != "." && !strings.HasPrefix(c, "../") && c != ".." {
		return strings.TrimPrefix(c, "/")
	}
	return p
}
