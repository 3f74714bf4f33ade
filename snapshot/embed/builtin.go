package embed

import (
	"context"
	"math"
	"runtime"
	"strconv"
	"sync"

	"github.com/vaultgraph/vaultgraph/format"
)

// Builtin embedder parameters. Changing any of them, or the feature
// extraction in features.go, must change builtinAlgorithm so that the
// fingerprint changes and old vectors are never compared with new ones.
const (
	builtinAlgorithm = "hashed-ngrams-v1"
	// BuiltinDims is the dimension of builtin vectors: 384 float32s, 1.5 KB
	// per chunk.
	BuiltinDims = 384
	// Weights of the feature groups, each normalised on its own first, so
	// that the many character n-grams do not drown the words.
	weightWords   = 1.0
	weightBigrams = 0.6
	weightGrams   = 0.7
)

// Builtin is the offline embedder: every text becomes a signed, hashed bag
// of words (and their English stems), word bigrams and character 3- to
// 5-grams of words, with
// sublinear term frequency (1 + ln tf), each group L2-normalised, weighted,
// summed and normalised again. It is deterministic and needs no model.
//
// It is lexical: texts are close when they share words or parts of words
// ("fund", "funds", "funding"), not when they mean the same in other words.
type Builtin struct {
	dims  int
	pool  sync.Pool // *featurizer
	fp    string
	procs int
}

// NewBuiltin returns the builtin embedder with BuiltinDims dimensions.
func NewBuiltin() *Builtin { return newBuiltin(BuiltinDims) }

func newBuiltin(dims int) *Builtin {
	return &Builtin{
		dims:  dims,
		fp:    fingerprint("builtin", builtinAlgorithm, strconv.Itoa(dims)),
		procs: runtime.GOMAXPROCS(0),
	}
}

// Info describes the builtin embedder.
func (b *Builtin) Info() Info {
	return Info{
		Provider: "builtin", Model: builtinAlgorithm, Dimensions: b.dims, Kind: format.EmbedderLexical,
		Note: "lexical, not semantic: hashed word, word-pair and character n-gram features; " +
			"finds passages that share words or word parts with the query, not synonyms or paraphrases",
		Fingerprint: b.fp,
	}
}

// Batch lets the batcher run one batch per CPU.
func (b *Builtin) Batch() (size, concurrency int) { return 64, b.procs }

// Embed computes the vectors; task does not matter to a lexical embedder.
func (b *Builtin) Embed(ctx context.Context, _ Task, texts []string) ([][]float32, error) {
	fz, _ := b.pool.Get().(*featurizer)
	if fz == nil {
		fz = newFeaturizer()
	}
	defer b.pool.Put(fz)
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*b.dims)
	for i, t := range texts {
		if i%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = flat[i*b.dims : (i+1)*b.dims : (i+1)*b.dims]
		fz.embed(fz.runes.nfkc(t), out[i])
	}
	return out, nil
}

// featurizer holds the scratch space of one embedding.
type featurizer struct {
	runes                 *runeTable
	tok                   []rune
	framed                []rune // the word being split into n-grams, framed by '<' and '>'
	words, bigrams, grams []uint64
	stops                 []uint64
	group                 []float32
	// Static's word vectors, summed by extract when wv is set: the word
	// being built (its runes case-folded, in UTF-8), where the sum goes,
	// and whether the table had any word.
	wv      *Static
	bytes   []byte
	wvOut   []float32
	wvFound bool
	counts  counter
}

func newFeaturizer() *featurizer { return &featurizer{runes: runes()} }

// embed writes the lexical vector of text, in NFKC already
// (fz.runes.nfkc), into out.
func (fz *featurizer) embed(text string, out []float32) {
	fz.words, fz.bigrams, fz.grams, fz.stops = fz.words[:0], fz.bigrams[:0], fz.grams[:0], fz.stops[:0]
	fz.extract(text)
	if len(out) == 0 {
		return // Static with word vectors only
	}
	if len(fz.group) != len(out) {
		fz.group = make([]float32, len(out))
	}
	clear(out)
	fz.addGroup(out, fz.words, weightWords)
	fz.addGroup(out, fz.bigrams, weightBigrams)
	fz.addGroup(out, fz.grams, weightGrams)
	normalize(out)
}

// addGroup hashes one feature group into fz.group with sublinear term
// frequency, normalises it and adds it to out with weight w.
func (fz *featurizer) addGroup(out []float32, feats []uint64, w float32) {
	if len(feats) == 0 {
		return
	}
	g := fz.group
	clear(g)
	dims := uint64(len(g))
	c := &fz.counts
	c.count(feats)
	for _, e := range c.counted {
		h := e.key
		v := logTF(e.n)
		if h&1 == 1 {
			v = -v
		}
		g[(h>>32)*dims>>32] += v
	}
	if !normalize(g) {
		return
	}
	for i, x := range g {
		out[i] += w * x
	}
}

// logTF is a feature's sublinear term frequency, 1 + ln n: from a table
// for the counts almost every feature has, the same float32 as computed.
func logTF(n uint32) float32 {
	if n < uint32(len(logTFs)) {
		return logTFs[n]
	}
	return float32(1 + math.Log(float64(n)))
}

var logTFs = func() (t [256]float32) {
	for n := range t {
		t[n] = float32(1 + math.Log(float64(n)))
	}
	return t
}()

// counter counts distinct feature hashes in an open-addressing table:
// sorting them cost most of the embedder's time. The table's slots point
// into a list of the distinct features in first-seen order (the order
// their terms are summed in, which the vector's bits depend on), so that
// probing reads 8 bytes a slot and summing reads the list in order.
type counter struct {
	slots   []uint64  // the top 32 bits of the feature, then its index in counted plus 1; 0 when empty
	counted []counted // distinct features, in first-seen order
}

type counted struct {
	key  uint64 // the feature hash, 1 for 0
	n    uint32 // times seen
	slot uint32
}

func (c *counter) count(feats []uint64) {
	size := 64
	for size < 2*len(feats) {
		size *= 2
	}
	if len(c.slots) < size {
		c.slots = make([]uint64, size)
	} else {
		for _, e := range c.counted {
			c.slots[e.slot] = 0
		}
		size = len(c.slots)
	}
	c.counted = c.counted[:0]
	mask := uint64(size - 1)
	for _, h := range feats {
		if h == 0 {
			h = 1 // 0 marks an empty slot
		}
		tag := h &^ (1<<32 - 1)
		for i := h & mask; ; i = (i + 1) & mask {
			s := c.slots[i]
			if s == 0 {
				c.slots[i] = tag | uint64(len(c.counted)+1)
				c.counted = append(c.counted, counted{key: h, n: 1, slot: uint32(i)})
				break
			}
			if s&^(1<<32-1) == tag {
				if e := &c.counted[uint32(s)-1]; e.key == h {
					e.n++
					break
				}
			}
		}
	}
}

// normalize scales v to unit length; a zero vector stays zero.
func normalize(v []float32) bool {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		return false
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return true
}
