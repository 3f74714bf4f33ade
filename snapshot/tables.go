package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/vaultgraph/vaultgraph/format"
)

// tableCodec compresses table pages. zstd's fastest level costs a third of
// the CPU of its default on note text for a few percent more bytes, and every
// Parquet reader that reads zstd reads it. The codec only pools encoders.
var tableCodec = &zstd.Codec{Level: zstd.SpeedFastest}

// WriteTable writes rows as a zstd-compressed Parquet file at path. The
// caller's Writer.Publish makes it durable. It is safe to call concurrently
// for different paths.
func WriteTable[T any](path string, rows []T) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	w := parquet.NewGenericWriter[T](f, parquet.Compression(tableCodec))
	_, err = w.Write(rows)
	if err == nil {
		err = w.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(fmt.Errorf("write table %s: %w", filepath.Base(path), err), os.Remove(path))
	}
	return nil
}

// ReadTable reads every row of the Parquet file at path. T may name a subset
// of the file's columns; only those are decoded.
func ReadTable[T any](path string) ([]T, error) {
	rows, err := parquet.ReadFile[T](path)
	if err != nil {
		return nil, fmt.Errorf("read table %s: %w", filepath.Base(path), err)
	}
	return rows, nil
}

// Notes returns the snapshot's notes and stubs.
func (s *Snapshot) Notes() ([]format.Note, error) {
	return ReadTable[format.Note](filepath.Join(s.Dir, format.NotesFile))
}

// Links returns every link as written in the snapshot's notes.
func (s *Snapshot) Links() ([]format.Link, error) {
	return ReadTable[format.Link](filepath.Join(s.Dir, format.LinksFile))
}

// Edges returns the snapshot's resolved edges.
func (s *Snapshot) Edges() ([]format.Edge, error) {
	return ReadTable[format.Edge](filepath.Join(s.Dir, format.EdgesFile))
}

// Chunks returns the snapshot's chunks.
func (s *Snapshot) Chunks() ([]format.Chunk, error) {
	return ReadTable[format.Chunk](filepath.Join(s.Dir, format.ChunksFile))
}
