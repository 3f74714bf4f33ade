package format

import (
	"encoding/json"
	"errors"
	"fmt"
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
}

// NoteSignature identifies the content of one note file.
type NoteSignature struct {
	SHA256   string    `json:"sha256"`
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
}

// FileInfo is the size and sha256 (hex) of one snapshot file.
type FileInfo struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// DecodeManifest parses manifest.json. It returns an error wrapping
// ErrUnknownVersion for a format version this build cannot read, and an
// error for a manifest missing its id.
func DecodeManifest(data []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
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
	return &m, nil
}

// Encode returns the manifest as indented JSON.
func (m *Manifest) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	return append(b, '\n'), nil
}
