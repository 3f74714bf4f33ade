package format

import (
	"crypto/sha256"
	"encoding/hex"
)

// Chunk is one row of chunks.parquet: a passage of a note of about
// ChunkChars characters, split at headings, then paragraphs, then sentences.
type Chunk struct {
	ID      string `parquet:"id,plain" json:"id"`
	Note    string `parquet:"note,plain" json:"note"`
	Ordinal int32  `parquet:"ordinal" json:"ordinal"`
	// Heading is the heading path joined with HeadingSeparator; "" (NULL
	// in the table) before the first heading.
	Heading string `parquet:"heading,optional,plain" json:"heading,omitempty"`
	// Start and End are byte offsets of Text in the note's Content; Line is
	// the 1-based line of Start. Their columns are start_byte and end_byte
	// (END is an SQL keyword), DELTA_BINARY_PACKED since format 7 (they
	// grow along a note: 0.20 instead of 0.25 MB in the help vault).
	Start int32 `parquet:"start_byte,delta" json:"start"`
	End   int32 `parquet:"end_byte,delta" json:"end"`
	Line  int32 `parquet:"line" json:"line"`
	// Context is the header embedded with the text: the note's title,
	// labels, properties and heading path, so that a passage is embedded as
	// part of the note it belongs to. It is not a column (since format 7):
	// it is a function of the note's row and the chunk's Heading, which
	// the indexer computes again for a reused chunk when a stage needs it
	// (indexer/note's NoteContext and ChunkContext); the text key already
	// holds what it contributed. Readers of a snapshot leave it empty.
	Context string `parquet:"-" json:"context,omitempty"`
	// Text is the passage: the note's Content from Start to End. It is
	// not a column (the note's text is stored once, in nodes.parquet);
	// readers cut it from the note's content (snapshot.Chunks and
	// snapshot.ChunkText do), and SQL reads it as
	// decode(encode(n.content)[c.start_byte + 1:c.end_byte]).
	Text string `parquet:"-" json:"text"`
	// TextSHA256 is the chunk's text key, TextKey(EmbedText(Context,
	// Text)): the hex of the first 16 bytes of that text's sha256, the
	// bytes a vector file keys its rows by. With the embedding model, the
	// key under which a vector is reused. Version 5 snapshots hold all 32
	// bytes (64 hex digits); readers take the first 16 of either.
	TextSHA256 string `parquet:"text_sha256,plain" json:"text_sha256"`
}

// EmbedText is the exact text embedded for a chunk.
func EmbedText(context, text string) string {
	if context == "" {
		return text
	}
	return context + "\n\n" + text
}

// TextHash returns the hex sha256 of s: the key for reusing work done on
// exactly that text.
func TextHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TextKeyBytes is how many bytes of a text's sha256 a chunk's text key
// holds: as many as a vector file stores per row (format/vectors.go). 128
// bits of sha256 do not collide among a vault's texts.
const TextKeyBytes = 16

// TextKey returns the hex of the first TextKeyBytes bytes of s's sha256:
// a chunk's TextSHA256. Half of TextHash's digits, and the half that
// matters: storing the other half cost 0.9 MB of the help vault's chunks
// tables for nothing.
func TextKey(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:TextKeyBytes])
}

// EmbedTextKey returns TextKey(EmbedText(context, text)), building the
// text in buf instead of a new string (and without TextKey's copy of it),
// and buf, grown, for the next call.
func EmbedTextKey(buf []byte, context, text string) (string, []byte) {
	buf = buf[:0]
	if context != "" {
		buf = append(append(buf, context...), "\n\n"...)
	}
	buf = append(buf, text...)
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:TextKeyBytes]), buf
}

// DefaultChunkChars is the target chunk size in characters.
const DefaultChunkChars = 1500
