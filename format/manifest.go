package format

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrUnknownVersion is returned for a manifest written in a format version
// this build cannot read.
var ErrUnknownVersion = errors.New("unknown snapshot format version")

// Manifest is manifest.json, written last into a snapshot directory. Its
// presence is what makes a directory a snapshot.
type Manifest struct {
	FormatVersion int    `json:"format_version"`
	ID            string `json:"id"`
	// Parent is the snapshot this one was built from incrementally, "" for
	// a full build.
	Parent      string    `json:"parent,omitempty"`
	Created     time.Time `json:"created"`
	VaultRoot   string    `json:"vault_root"`
	ToolVersion string    `json:"tool_version"`
	// Options are the indexing options that shape the tables; a run with
	// different options re-parses every note.
	Options Options `json:"options"`
	Counts  Counts  `json:"counts"`
	// Notes maps every indexed note's vault path to its content signature.
	Notes    map[string]NoteSignature `json:"notes"`
	Warnings []Warning                `json:"warnings"`
	// Files maps every other file of the snapshot directory (relative
	// path, forward slashes) to its size and checksum.
	Files map[string]FileInfo `json:"files"`
	// Tables lists the segments of the notes, links, edges and chunks
	// tables in order, by table name (NotesTable, ...; see segments.go).
	Tables map[string][]TableSegment `json:"tables"`
	// Embedder and Vectors describe the vector files (see vectors.go);
	// absent when the snapshot was built without the embedding stage.
	Embedder *Embedder `json:"embedder,omitempty"`
	Vectors  *Vectors  `json:"vectors,omitempty"`
	// Graph describes the graph database (see graph.go); absent when the
	// snapshot was built without the graph stage.
	Graph *Graph `json:"graph,omitempty"`
	// BM25 describes the lexical index (see bm25.go); absent when the
	// snapshot was built without the BM25 stage.
	BM25 *BM25 `json:"bm25,omitempty"`
	// Repos are the git repositories indexed with the vault (see code.go),
	// in the order given.
	Repos []Repo `json:"repos,omitempty"`
	// Checksum is the sha256 (hex) of the manifest's own bytes as Encode
	// wrote them, with this value replaced by 64 zeros; it comes last
	// and is set by Encode. It covers what the files' checksums cannot:
	// a manifest edited after publishing (another dimension count, a
	// note's signature). See CheckManifestSum.
	Checksum string `json:"manifest_sha256,omitempty"`
}

// Options are the indexer settings recorded in a manifest.
type Options struct {
	ChunkChars   int      `json:"chunk_chars"`
	MaxNoteBytes int64    `json:"max_note_bytes"`
	Ignore       []string `json:"ignore,omitempty"`
	// Parser is the revision of the note parser that read the notes
	// (absent, 0, before revisions were recorded). A run with another
	// revision parses every note again instead of reusing its rows.
	Parser int `json:"parser,omitempty"`
}

// Counts summarises a snapshot's tables.
type Counts struct {
	Notes      int `json:"notes"`
	Stubs      int `json:"stubs"`
	Links      int `json:"links"`
	Edges      int `json:"edges"`
	Unresolved int `json:"unresolved_links"`
	Chunks     int `json:"chunks"`
	Warnings   int `json:"warnings"`
	// Code: files, symbols and code edges of the repositories, and the
	// code links of notes that name no tracked file or symbol.
	CodeFiles           int `json:"code_files,omitempty"`
	Symbols             int `json:"symbols,omitempty"`
	CodeEdges           int `json:"code_edges,omitempty"`
	UnresolvedCodeLinks int `json:"unresolved_code_links,omitempty"`
}

// NoteSignature identifies the content of one note file.
type NoteSignature struct {
	SHA256   string    `json:"sha256"`
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
}

// FileInfo is the size and sha256 (hex) of one snapshot file, and its
// xxh64 (XXH64 with seed 0, 16 hex digits), a hash twenty times faster to
// compute that the server checks before it swaps to a snapshot; absent in
// snapshots written before it was recorded and in files linked from them.
type FileInfo struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	XXH64  string `json:"xxh64,omitempty"`
}

// DecodeManifest parses manifest.json. It returns an error wrapping
// ErrUnknownVersion for a format version this build cannot read, and an
// error for a manifest missing its id.
func DecodeManifest(data []byte) (*Manifest, error) { return decodeManifest(data, false) }

// DecodeManifestWithoutNotes parses manifest.json as DecodeManifest does
// but leaves Notes nil: the per-note signatures are for the indexer's next
// run, a reader that serves the snapshot never reads them, and they are
// about 98% of a manifest's 1.74 MB at 10,000 notes (decoding them is 3.6
// MB of allocations, 2.2 MB of them kept). They are still parsed (the
// plain parser of unmarshalManifest takes 8-9 ms for all of them), so a
// manifest one of them breaks is refused as by DecodeManifest, and
// CheckManifestSum covers their bytes; then they are dropped.
func DecodeManifestWithoutNotes(data []byte) (*Manifest, error) { return decodeManifest(data, true) }

func decodeManifest(data []byte, withoutNotes bool) (*Manifest, error) {
	var m Manifest
	if err := unmarshalManifest(data, &m); err != nil {
		return nil, fmt.Errorf("decode manifest: %w", err)
	}
	if !SupportedVersion(m.FormatVersion) {
		if m.FormatVersion > 0 && m.FormatVersion < Version {
			return nil, fmt.Errorf("%w %d, older than this build's %d: run `vaultgraph index --vault VAULT --data DATA` to write a snapshot this build reads (it parses every note again)",
				ErrUnknownVersion, m.FormatVersion, Version)
		}
		return nil, fmt.Errorf("%w %d (this build reads version %d: upgrade vaultgraph to read it)", ErrUnknownVersion, m.FormatVersion, Version)
	}
	if !ValidSnapshotID(m.ID) {
		return nil, fmt.Errorf("decode manifest: invalid snapshot id %q", m.ID)
	}
	if withoutNotes {
		m.Notes = nil
	}
	return &m, nil
}

// Encode returns the manifest as compact JSON, with its own checksum
// (m.Checksum is set to it). Compact rather than indented: the per-note
// entries are most of a manifest, and their indentation was 0.23 of the
// help vault's 1.39 MB (`jq . manifest.json` shows it indented).
func (m *Manifest) Encode() ([]byte, error) {
	m.Checksum = zeroSum
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	b = append(b, '\n')
	at, ok := sumAt(b)
	if !ok {
		return nil, errors.New("encode manifest: no checksum field")
	}
	sum := sha256.Sum256(b)
	m.Checksum = hex.EncodeToString(sum[:])
	copy(b[at:], m.Checksum)
	return b, nil
}

// ErrManifestSum is wrapped by CheckManifestSum's errors: a manifest
// without its checksum, or whose bytes do not match it.
var ErrManifestSum = errors.New("manifest checksum mismatch")

// zeroSum stands for the checksum while it is computed.
var zeroSum = strings.Repeat("0", sha256.Size*2)

const sumKey = `"manifest_sha256":`

// CheckManifestSum checks raw, a manifest.json as read, against the
// checksum it holds. Snapshot readers call it before trusting a manifest:
// a manifest edited after publishing (and one whose checksum was removed)
// fails with an error wrapping ErrManifestSum. It reads the bytes, not a
// re-encoding, so any byte changed outside the checksum is caught.
func CheckManifestSum(raw []byte) error {
	at, ok := sumAt(raw)
	if !ok {
		return fmt.Errorf("%w: the manifest has no manifest_sha256; it was not written by vaultgraph index, or was edited after publishing: index the vault again", ErrManifestSum)
	}
	want := string(raw[at : at+len(zeroSum)])
	b := bytes.Clone(raw)
	copy(b[at:], zeroSum)
	sum := sha256.Sum256(b)
	if hex.EncodeToString(sum[:]) != want {
		return fmt.Errorf("%w: manifest.json was edited after publishing (its bytes do not match its manifest_sha256): index the vault again, or restore the snapshot from a copy", ErrManifestSum)
	}
	return nil
}

// sumAt returns the offset of the checksum's hex digits in b: after the
// last "manifest_sha256": key, spaces, and a quote.
func sumAt(b []byte) (int, bool) {
	i := bytes.LastIndex(b, []byte(sumKey))
	if i < 0 {
		return 0, false
	}
	i += len(sumKey)
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	if i >= len(b) || b[i] != '"' || i+1+len(zeroSum) >= len(b) || b[i+1+len(zeroSum)] != '"' {
		return 0, false
	}
	for _, c := range b[i+1 : i+1+len(zeroSum)] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return 0, false
		}
	}
	return i + 1, true
}
