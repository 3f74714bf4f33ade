package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

func searchCommand() *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "find notes, passages or edges by meaning in a snapshot",
		ArgsUsage: "QUERY",
		Description: `Embeds QUERY with the model that computed the snapshot's vectors, searches
its HNSW graphs and fuses that ranking with BM25 over the chunks' text, titles
and aliases by reciprocal rank fusion (--method vectors or --method bm25 keeps
one; edges have vectors only). --target nodes returns notes (scored by their best chunk, or
the mean of their chunks with --score mean), chunks returns passages with
their path, heading and byte offsets, edges returns edges with their sentences.
--types keeps notes with one of the labels (for edges: either end has one);
filters never lose results.`,
		Flags: append([]cli.Flag{
			dataFlag(),
			&cli.StringFlag{Name: "snapshot", Usage: "snapshot id or unique prefix (default: the newest that passes its checks)"},
			&cli.StringFlag{Name: "target", Value: "nodes", Usage: "nodes, chunks or edges"},
			&cli.StringSliceFlag{Name: "types", Usage: "keep notes with one of these labels: Person,Company"},
			&cli.StringSliceFlag{Name: "edge-types", Usage: "keep edges of these types: funds,works_at"},
			&cli.IntFlag{Name: "k", Value: 10, Usage: "number of results", Action: atLeast("k", 1)},
			&cli.StringFlag{Name: "mode", Aliases: []string{"score"}, Value: string(search.Best), Usage: "a note's score: its best chunk (best), or the mean of its chunks (pooled, or mean)"},
			&cli.StringFlag{Name: "method", Value: string(search.Fused), Usage: "fused (vectors and BM25), vectors or bm25 (needs no embedder)"},
			&cli.IntFlag{Name: "ef", Usage: "HNSW beam width: larger is more exact and slower (default: the snapshot's)", Action: atLeast("ef", 1)},
			&cli.StringFlag{Name: "embedder", Usage: "fail unless the snapshot's vectors come from this embedder"},
		}, append(formatFlags(), embedderConnFlags()...)...),
		Before: takesArgs(1, many, ""),
		Action: runSearch,
	}
}

func runSearch(c *cli.Context) error {
	text := strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
	if text == "" {
		return usageError(fmt.Errorf("empty QUERY; usage: vaultgraph search --data DIR [flags] QUERY"))
	}
	target, err := search.ParseTarget(c.String("target"))
	if err != nil {
		return usageError(err)
	}
	outFormat, err := outputFormat(c)
	if err != nil {
		return err
	}
	score, err := serve.ParseMode(c.String("mode"))
	if err != nil {
		return usageError(fmt.Errorf("unknown --mode %q: use best or pooled", c.String("mode")))
	}
	method, err := search.ParseMethod(c.String("method"))
	if err != nil {
		return usageError(err)
	}
	entry, err := readRef(logger(c), c.String("data"), c.String("snapshot"))
	if err != nil {
		return err
	}
	s, err := snapshot.Open(entry.Dir, snapshot.OpenOptions{})
	if err != nil {
		return err
	}
	ix, err := search.Open(s, search.Options{Text: true, EfSearch: c.Int("ef")})
	if err != nil {
		return err
	}
	defer ix.Close()
	var e embed.Embedder
	switch spec := c.String("embedder"); {
	case spec != "":
		if e, err = embed.New(spec, embedConfig(c)); err == nil {
			err = embed.CheckRevision(c.Context, s.Manifest.Embedder, e, 0)
		}
	case method != search.BM25Only:
		e, err = embed.ForSnapshot(s.Manifest.Embedder, embedConfig(c))
	}
	if err != nil {
		return err
	}
	res, err := ix.Search(c.Context, search.Query{
		Text: text, Target: target, K: c.Int("k"), Labels: c.StringSlice("types"),
		EdgeTypes: c.StringSlice("edge-types"), Score: score, Method: method,
	}, e)
	if errors.Is(err, search.ErrNotEmbedded) {
		return usageError(err)
	}
	if err != nil {
		return err
	}
	if outFormat == formatJSON {
		return writeJSON(c.App.Writer, searchJSON(res))
	}
	printResult(c.App.Writer, res, s)
	return nil
}

func printResult(w io.Writer, res *search.Result, s *snapshot.Snapshot) {
	n := 0
	for i, h := range res.Notes {
		n++
		fmt.Fprintf(w, "%2d. %.3f  %s  (%s)%s\n", i+1, h.Score, h.Title, h.Path, labelList(h.Labels))
		fmt.Fprintf(w, "      %s\n", citation(h.Best))
	}
	for i, h := range res.Chunks {
		n++
		fmt.Fprintf(w, "%2d. %.3f  %s\n", i+1, h.Score, citation(h))
		fmt.Fprintf(w, "      %s\n", snippet(h.Text, 160))
	}
	for i, h := range res.Edges {
		n++
		fmt.Fprintf(w, "%2d. %.3f  %s\n", i+1, h.Score, h.Sentence)
		fmt.Fprintf(w, "      %s -[%s]-> %s\n", h.Source, h.Type, h.Target)
	}
	if n == 0 {
		fmt.Fprintln(w, "no results")
	}
	if res.VectorsSkipped != "" {
		fmt.Fprintf(w, "\n(%s)\n", res.VectorsSkipped)
	}
	if res.Pending > 0 {
		reason := ""
		if v := s.Manifest.Vectors; v != nil && v.PendingReason != "" {
			reason = " (" + v.PendingReason + ")"
		}
		what := "chunks"
		if res.Target == search.Edges {
			what = "edges"
		}
		fmt.Fprintf(w, "\n%d %s not searchable yet: their embedding is pending%s; the next vaultgraph index embeds them\n",
			res.Pending, what, reason)
	}
	if e := s.Manifest.Embedder; e != nil && res.Method != search.BM25Only {
		switch e.Kind {
		case format.EmbedderLexical:
			fmt.Fprintf(w, "\n(vectors from the builtin lexical embedder: matches shared words, not meaning; "+
				"index with --reembed --embedder builtin for static word vectors, or ollama:nomic-embed-text for a language model)\n")
		case format.EmbedderStatic:
			fmt.Fprintf(w, "\n(vectors from static English word vectors plus lexical features: finds other words for the same "+
				"thing, ignores word order; index with --reembed --embedder ollama:nomic-embed-text for a language model)\n")
		}
	}
}

// citation is path:line, the heading path and the byte range of a chunk.
func citation(h search.ChunkHit) string {
	s := fmt.Sprintf("%s:%d", h.Path, h.Line)
	if h.Heading != "" {
		s += "  § " + h.Heading
	}
	return s + fmt.Sprintf("  [bytes %d-%d]", h.Start, h.End)
}

func labelList(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	return "  [" + strings.Join(labels, ", ") + "]"
}

// snippet folds text to one line of at most max runes.
func snippet(text string, max int) string {
	t := strings.Join(strings.Fields(text), " ")
	if r := []rune(t); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return t
}

// searchBody is a search as POST /search answers it (without "then"), so
// that a script reads the CLI's JSON and the server's alike.
type searchBody struct {
	Snapshot string `json:"snapshot"`
	Target   string `json:"target"`
	// Hits are notes, chunks or edges, best first (the Typed Graph
	// sidecar's results).
	Hits  any  `json:"results"`
	Stale bool `json:"stale"`
	// HitIDs are the ids a query's $hits would bind: note ids for notes
	// and chunks (first occurrence first), edge ids for edges.
	HitIDs []string `json:"hit_ids"`
	// Method is the rankings the hits come from: fused, vectors or bm25.
	Method  string `json:"method"`
	Exact   bool   `json:"exact"`
	Pending int    `json:"pending"`
	// Notices say what may be missing, as POST /search's do.
	Notices []string `json:"notices,omitempty"`
	Notice  string   `json:"notice"`
}

func searchJSON(r *search.Result) searchBody {
	b := searchBody{Snapshot: r.Snapshot, Target: string(r.Target), Method: string(r.Method), Exact: r.Exact, Pending: r.Pending,
		Notice: serve.VaultTextNotice, HitIDs: []string{}}
	if r.VectorsSkipped != "" {
		b.Notices = append(b.Notices, r.VectorsSkipped)
	}
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			b.HitIDs = append(b.HitIDs, id)
		}
	}
	switch r.Target {
	case search.Chunks:
		hits := append([]search.ChunkHit{}, r.Chunks...)
		for _, h := range hits {
			add(h.Note)
		}
		b.Hits = hits
	case search.Edges:
		hits := append([]search.EdgeHit{}, r.Edges...)
		for _, h := range hits {
			add(h.ID)
		}
		b.Hits = hits
	default:
		hits := append([]search.NoteHit{}, r.Notes...)
		for _, h := range hits {
			add(h.ID)
		}
		b.Hits = hits
	}
	return b
}
