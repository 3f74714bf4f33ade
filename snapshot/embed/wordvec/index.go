package wordvec

import "fmt"

// index finds a word's row by open addressing (linear probing) in a table
// of twice the words' number of slots. It replaced a map[string]int32,
// whose look-ups (string hashing and group probing) cost a sixth of the
// static embedder's time; a slot here holds all a look-up reads before
// the one comparison of the word itself.
//
// A slot is tag<<48 | offset<<24 | row+1, 0 when empty: offset is where
// the word's length byte is in words, tag the top 16 bits of its hash.
type index struct {
	words string // the table's word list: per row a length byte, then the word
	slots []uint64
	mask  uint64
}

const (
	maxRows  = 1<<24 - 1
	maxWords = 1 << 24 // bytes of the word list
)

func newIndex(words string, n int) *index {
	size := 64
	for size < 2*n {
		size *= 2
	}
	return &index{words: words, slots: make([]uint64, size), mask: uint64(size - 1)}
}

// add makes the word at offset (its length byte) in ix.words row's; a
// word added again takes the later row, as a map assignment would.
func (ix *index) add(offset, row int) error {
	if row >= maxRows || offset >= maxWords {
		return fmt.Errorf("word-vector table: more than %d words or %d bytes of words", maxRows, maxWords)
	}
	l := int(ix.words[offset])
	w := ix.words[offset+1 : offset+1+l]
	h := hashWord(w)
	slot := h>>48<<48 | uint64(offset)<<24 | uint64(row+1)
	for i := h & ix.mask; ; i = (i + 1) & ix.mask {
		s := ix.slots[i]
		if s == 0 || s>>48 == h>>48 && ix.word(s) == w {
			ix.slots[i] = slot
			return nil
		}
	}
}

// find returns word's row, or -1.
func find[W string | []byte](ix *index, word W) int32 {
	h := hashWord(word)
	for i := h & ix.mask; ; i = (i + 1) & ix.mask {
		s := ix.slots[i]
		if s == 0 {
			return -1
		}
		if s>>48 == h>>48 && ix.word(s) == string(word) {
			return int32(s&maxRows) - 1
		}
	}
}

// word is the word slot s points to.
func (ix *index) word(s uint64) string {
	off := int(s >> 24 & (maxWords - 1))
	return ix.words[off+1 : off+1+int(ix.words[off])]
}

// hashWord is FNV-1a over the word's bytes, finished with the splitmix64
// mixer so that its top bits (the tag) and low bits (the slot) are both
// well spread.
func hashWord[W string | []byte](w W) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint64(w[i])) * 0x100000001b3
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}
