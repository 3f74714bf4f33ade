package format

// The lexical index of a snapshot. It is additive within format version 1:
// a snapshot built without the BM25 stage has no BM25File and no BM25
// section in its manifest, and readers that do not know them ignore both.
//
// # Documents
//
// Document i is row i of chunks.parquet. Its terms are those of the chunk's
// Context (the note's title, labels, aliases, tags, properties and heading
// path) and Text, plus the note's title and aliases BM25TitleWeight-1 more
// times, so that a note is found by its name. Terms come from the tokenizer
// of package snapshot/bm25, whose version the file records: Unicode
// compatibility decomposition with diacritics removed, lower case, runs of
// letters and digits, English stopwords and one-letter words dropped, plural
// endings stripped.
//
// # BM25 file (bm25-chunks.bin, BM25Version 3)
//
// Little-endian:
//
//	offset  size          field
//	0       8             magic "VGBM25\x00\x01"
//	8       4             layout version (uint32, 3)
//	12      4             tokenizer version (uint32)
//	16      4             docs N (uint32)
//	20      4             terms T (uint32)
//	24      8             postings P (uint64): (document, frequency) pairs
//	32      8             total terms of all documents (uint64)
//	40      4             k1 (float32), the default saturation
//	44      4             b (float32), the default length normalisation
//	48      4             term section bytes B (uint32)
//	52      4             reserved, zero
//	56      32            docs digest: raw sha256 of every chunk id followed
//	                      by '\n', in table order
//	88      8             sections bytes S (uint64): the length of the
//	                      sections below before compression
//	96      rest          the sections, S bytes, compressed as one zstd
//	                      frame:
//	        N*4           length of each document in terms (uint32)
//	        B             terms, in strictly ascending byte order, each as
//	                      uvarint(bytes shared with the previous term),
//	                      uvarint(length L >= 1 of the rest), the rest (L
//	                      bytes of UTF-8; a term is at most 48 bytes), and
//	                      uvarint(document frequency df >= 1)
//	        the rest      postings: per term in the same order, df postings
//	                      of uvarint(gap<<1 | f), where f is 1 when the
//	                      term's frequency in the document is more than 1,
//	                      then uvarint(frequency - 2) when f is 1; the first
//	                      gap is the document number, later gaps are > 0
//
// The sections end where the last term's postings end. Why not Parquet:
// the server decompresses the file and decodes it once into arrays (terms,
// their offsets and where each term's postings start, found by walking
// them once) and binary-searches terms; postings are delta-varint coded, a
// fraction of the size of any columnar layout, and zstd takes a further
// 40-45% (the documents' lengths, the two-byte gaps of rare terms).
const BM25File = "bm25-chunks.bin"

// BM25Version is the layout above. A snapshot whose index has another
// version gets a new one from the next index run.
//
//	1: uint32 term offsets, uint64 postings offsets and uint32 document
//	   frequencies per term, the terms' bytes, postings of uvarint(gap)
//	   and uvarint(frequency).
//	2: terms front-coded with their frequencies, no offsets (the reader
//	   finds them), a frequency of 1 folded into the gap: the generated
//	   10,000-note vault's file 5.8 -> 3.3 MB, the help vault's 12.4 ->
//	   5.9 MB.
//	3: the sections compressed with zstd, their length in the header:
//	   3.4 -> 1.9 MB and 6.2 -> 3.4 MB.
const BM25Version = 3

// BM25TitleWeight is how many times a note's title and aliases count in
// each of its chunks.
const BM25TitleWeight = 3

// BM25 is the manifest section describing the lexical index.
type BM25 struct {
	Version   int    `json:"version"`
	Tokenizer int    `json:"tokenizer"`
	File      string `json:"file"`
	// Docs is the number of documents (chunks), Terms of distinct terms,
	// Postings of (document, term) pairs.
	Docs     int     `json:"docs"`
	Terms    int     `json:"terms"`
	Postings int     `json:"postings"`
	K1       float64 `json:"k1"`
	B        float64 `json:"b"`
}
