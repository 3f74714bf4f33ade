package embed

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/embed/wordvec"
)

// Static embedder parameters. Changing any of them, the lexical features
// or the table must change staticAlgorithm (or wordvec.Name), so that the
// fingerprint changes.
const (
	// StaticModel is the builtin model name of the default embedder.
	StaticModel     = "glove100-sif+hashed-ngrams-v1"
	staticAlgorithm = StaticModel
	// sifA is the a of the SIF weight a/(a+p(w)) (Arora, Liang and Ma,
	// 2017): "the" counts 0.001, a word of rank 10,000 0.93.
	sifA = 1e-4
	// StaticLexicalDims is the dimension of the hashed lexical features
	// appended to the 100 word-vector dimensions: 256 in all, two thirds
	// of the lexical embedder's 384 (1 KB per vector).
	StaticLexicalDims = 156
	// StaticSemanticWeight is the share of the cosine that comes from the
	// word vectors: the vector is [sqrt(w) semantic, sqrt(1-w) lexical].
	// Weight and lexical dimension were chosen on the evaluation set
	// (snapshot/retrieve TestEvalEmbedders with VAULTGRAPH_EVAL_WEIGHTS=1).
	StaticSemanticWeight = 0.8
)

// StaticOptions shape a static embedder; the zero value is the default.
// Other values are for measurements (the evaluation set compares them):
// they fingerprint differently, and a snapshot built with them cannot be
// searched by an embedder ForSnapshot makes.
type StaticOptions struct {
	// SemanticWeight is the share of the cosine from the word vectors:
	// 1 gives word vectors only, a value <= 0 StaticSemanticWeight.
	SemanticWeight float64
	// LexicalDims is the dimension of the lexical features
	// (StaticLexicalDims when 0); ignored when SemanticWeight is 1.
	LexicalDims int
}

// Static is the default offline embedder: a SIF-weighted mean of static
// English word vectors (GloVe 6B, 100 dimensions, package wordvec) with
// the common direction removed, concatenated with the builtin embedder's
// hashed lexical features. Each half is normalised on its own, so the
// cosine of two vectors is w * cos(word vectors) + (1-w) * cos(lexical).
//
// The word vectors make texts close that say the same in other words
// ("pays for" and "funds"); words the table lacks (names, identifiers,
// other languages) still count through the lexical half. Word order is
// lost in the mean; vectors are the same for documents and queries.
type Static struct {
	table    *wordvec.Table
	semW     float32 // sqrt of the semantic share
	lexW     float32 // sqrt of the lexical share
	lexDims  int
	dims     int
	model    string
	fp       string
	procs    int
	pool     sync.Pool // *featurizer
	weighted []float32 // per row: SIF weight times the int8 scale
}

// NewStatic returns the default static embedder.
func NewStatic() (*Static, error) { return NewStaticWith(StaticOptions{}) }

// NewStaticWith returns a static embedder with other weights (see
// StaticOptions).
func NewStaticWith(o StaticOptions) (*Static, error) {
	t, err := wordvec.Load()
	if err != nil {
		return nil, err
	}
	w := o.SemanticWeight
	if w <= 0 {
		w = StaticSemanticWeight
	}
	if w > 1 {
		return nil, fmt.Errorf("static embedder: semantic weight %v is above 1", w)
	}
	lex := o.LexicalDims
	if lex <= 0 {
		lex = StaticLexicalDims
	}
	if w == 1 {
		lex = 0
	}
	s := &Static{table: t, semW: float32(math.Sqrt(w)), lexW: float32(math.Sqrt(1 - w)), lexDims: lex,
		dims: t.Dims + lex, model: staticAlgorithm, procs: runtime.GOMAXPROCS(0)}
	s.fp = fingerprint("builtin", staticAlgorithm, wordvec.Name, t.Sum, builtinAlgorithm,
		strconv.Itoa(s.dims), strconv.Itoa(lex), strconv.FormatFloat(w, 'g', -1, 64))
	if o != (StaticOptions{}) {
		s.model = fmt.Sprintf("%s(w=%g,lex=%d)", staticAlgorithm, w, lex)
	}
	s.weighted = make([]float32, t.Len())
	for i := range s.weighted {
		p := t.Probability(t.Rank(int32(i)))
		s.weighted[i] = float32(sifA/(sifA+p)) * t.Scale(int32(i))
	}
	return s, nil
}

// Info describes the static embedder.
func (s *Static) Info() Info {
	return Info{
		Provider: "builtin", Model: s.model, Dimensions: s.dims, Kind: format.EmbedderStatic,
		Note: "static word vectors plus lexical features: a SIF-weighted mean of GloVe 6B 100d English word vectors " +
			"(finds passages that say the same in other words) joined with hashed word and character n-grams " +
			"(names, identifiers, words the table lacks); ignores word order, and weak beyond English",
		Fingerprint: s.fp,
	}
}

// Batch lets the batcher run one batch per CPU.
func (s *Static) Batch() (size, concurrency int) { return 64, s.procs }

// Embed computes the vectors; documents and queries are embedded alike.
func (s *Static) Embed(ctx context.Context, _ Task, texts []string) ([][]float32, error) {
	fz, _ := s.pool.Get().(*featurizer)
	if fz == nil {
		fz = newFeaturizer()
		fz.wv = s
	}
	defer s.pool.Put(fz)
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*s.dims)
	for i, t := range texts {
		if i%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := flat[i*s.dims : (i+1)*s.dims : (i+1)*s.dims]
		d := s.table.Dims
		// One pass over the text for both halves: the lexical features'
		// tokenizer sums the word vectors too.
		fz.wvOut, fz.wvFound = v[:d], false
		fz.embed(fz.runes.nfkc(t), v[d:])
		if fz.wvFound {
			s.removeCommon(v[:d])
		}
		scale(v[:d], s.semW)
		scale(v[d:], s.lexW)
		normalize(v) // one half may be zero
		out[i] = v
	}
	return out, nil
}

func scale(v []float32, w float32) {
	for i := range v {
		v[i] *= w
	}
}

// addWordVector adds the SIF-weighted vector of fz.bytes, the word the
// tokenizer just ended (NFKC, case-folded, in UTF-8), to fz.wvOut, if the
// table has the word, and empties fz.bytes.
func (fz *featurizer) addWordVector() {
	t := fz.wv.table
	if r := t.LookupBytes(fz.bytes); r >= 0 {
		fz.wvFound = true
		addScaled(fz.wvOut, t.Row(r), fz.wv.weighted[r])
	}
	fz.bytes = fz.bytes[:0]
}

// removeCommon makes v, the sum of a text's word vectors, its unit SIF
// vector: the sum minus its projection on the common direction,
// normalised.
func (s *Static) removeCommon(v []float32) {
	t := s.table
	var p float32
	for j, u := range t.Common {
		p += v[j] * u
	}
	for j, u := range t.Common {
		v[j] -= p * u
	}
	normalize(v)
}
