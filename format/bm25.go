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
// # BM25 file (bm25-chunks.bin, BM25Version 1)
//
// Little-endian:
//
//	offset  size          field
//	0       8             magic "VGBM25\x00\x01"
//	8       4             layout version (uint32, 1)
//	12      4             tokenizer version (uint32)
//	16      4             docs N (uint32)
//	20      4             terms T (uint32)
//	24      8             postings P (uint64): (document, frequency) pairs
//	32      8             total terms of all documents (uint64)
//	40      4             k1 (float32), the default saturation
//	44      4             b (float32), the default length normalisation
//	48      4             term bytes B (uint32)
//	52      4             reserved, zero
//	56      32            docs digest: raw sha256 of every chunk id followed
//	                      by '\n', in table order
//	88      8             reserved, zero
//	96      N*4           length of each document in terms (uint32)
//	        (T+1)*4       term offsets into the term bytes (uint32), from 0
//	                      to B, ascending
//	        (T+1)*8       postings offsets into the postings (uint64), from
//	                      0, ascending
//	        T*4           document frequency of each term (uint32)
//	        B             term bytes: the terms, UTF-8, concatenated in
//	                      strictly ascending byte order
//	        rest          postings: per term, df pairs of uvarint(document
//	                      gap) and uvarint(frequency >= 1); the first gap is
//	                      the document number, later gaps are > 0
//
// The file ends where the last term's postings end. Why not Parquet: the
// server decodes it once into arrays and binary-searches terms; postings
// are delta-varint coded, a fraction of the size of any columnar layout.
const BM25File = "bm25-chunks.bin"

// BM25Version is the layout above. A snapshot whose index has another
// version gets a new one from the next index run.
const BM25Version = 1

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
