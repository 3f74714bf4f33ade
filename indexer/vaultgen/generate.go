package vaultgen

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// ErrNotEmpty is returned by Generate for a directory that already holds
// files: a synthetic vault never mixes with, or overwrites, real notes.
var ErrNotEmpty = errors.New("directory is not empty")

// Stats counts what Generate wrote. Links, TypedEdges and Unresolved count
// occurrences as written, which is what a parser should find: Links plus
// TypedEdges is the number of links a parser reports for the vault (one
// per link as written, before resolution), and link-like text inside code
// is in neither.
type Stats struct {
	Notes   int   `json:"notes"`
	Folders int   `json:"folders"`
	Bytes   int64 `json:"bytes"` // total size of the notes
	// Links are body links: wikilinks, embeds and markdown links.
	Links  int `json:"links"`
	Embeds int `json:"embeds"` // the embeds among Links
	// TypedEdges are the targets of inline fields (each target of a
	// comma-separated list counts) and frontmatter link values.
	TypedEdges int `json:"typed_edges"`
	// Unresolved are the links and typed edges whose target note does
	// not exist; Stubs is the number of distinct such targets.
	Unresolved int `json:"unresolved"`
	Stubs      int `json:"stubs"`
	// MaxBacklinks is the number of links and typed edges into the most
	// linked note: the size of the biggest hub.
	MaxBacklinks int `json:"max_backlinks"`
}

// Generate writes a synthetic vault of cfg.Notes notes into dir and
// reports what it wrote. dir must be empty or absent (it is created);
// otherwise Generate returns an error wrapping ErrNotEmpty. The same
// Config always writes the same bytes, whatever the machine or number of
// CPUs. Notes are written in parallel, one goroutine per CPU: 10,000
// notes (30 MB) take about half a second on two idle cores, and the time
// grows linearly with Notes; a busy disk can make file creation dominate.
//
// On error, dir may hold part of a vault; remove it before trying again.
// Nothing is fsynced: a synthetic vault can always be regenerated.
//
// Generate backs the CLI command
//
//	vaultgraph gen --notes N [--seed S] [--folders F] [--note-bytes B]
//	               [--links-per-kb L] [--typed-share T] [--missing-share M] DIR
//
// Each flag sets one Config field (Notes, Seed, Folders, MeanNoteBytes,
// LinksPerKB, TypedEdgeShare, MissingLinkShare). --notes is required;
// every other flag left unset stays zero so that Generate applies its
// default (a negative share means none). The command prints the returned
// Stats (as JSON with --json) and exits non-zero on error; on ErrNotEmpty
// it should tell the user to pick an empty or new directory.
func Generate(dir string, cfg Config) (Stats, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Stats{}, err
	}
	if err := prepareDir(dir); err != nil {
		return Stats{}, err
	}
	p := newPlan(cfg)
	for _, f := range p.folders {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(f)), 0o755); err != nil {
			return Stats{}, fmt.Errorf("vaultgen: create folder: %w", err)
		}
	}
	if err := writeObsidianConfig(dir); err != nil {
		return Stats{}, err
	}
	results, err := p.writeNotes(dir)
	if err != nil {
		return Stats{}, err
	}
	return p.stats(results), nil
}

// prepareDir creates dir, or checks that it is an empty directory.
func prepareDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("vaultgen: create vault directory: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("vaultgen: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("vaultgen: %s: %w", dir, ErrNotEmpty)
	}
	return nil
}

// writeObsidianConfig writes the .obsidian folder that makes dir open as a
// vault in Obsidian. Indexers must ignore it.
func writeObsidianConfig(dir string) error {
	const appJSON = "{\n  \"alwaysUpdateLinks\": true,\n  \"newLinkFormat\": \"shortest\"\n}\n"
	cfgDir := filepath.Join(dir, ".obsidian")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		return fmt.Errorf("vaultgen: create .obsidian: %w", err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "app.json"), []byte(appJSON), 0o644); err != nil {
		return fmt.Errorf("vaultgen: write .obsidian/app.json: %w", err)
	}
	return nil
}

// writeNotes writes every note, one worker per CPU taking the next note
// number from a shared counter, and returns each worker's counts. The
// first error stops all workers.
func (p *plan) writeNotes(dir string) ([]*counts, error) {
	workers := min(runtime.GOMAXPROCS(0), len(p.notes))
	results := make([]*counts, workers)
	errs := make([]error, workers)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for k := range workers {
		c := &counts{backlinks: make([]int32, len(p.notes)), stubs: make([]bool, len(p.missing))}
		results[k] = c
		wg.Go(func() {
			var buf []byte
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(p.notes) {
					return
				}
				buf = p.writeNote(i, buf[:0], c)
				name := filepath.Join(dir, filepath.FromSlash(p.notes[i].path))
				if err := os.WriteFile(name, buf, 0o644); err != nil {
					errs[k] = fmt.Errorf("vaultgen: write note: %w", err)
					failed.Store(true)
					return
				}
				c.bytes += int64(len(buf))
			}
		})
	}
	wg.Wait()
	return results, errors.Join(errs...)
}

// stats sums the workers' counts.
func (p *plan) stats(results []*counts) Stats {
	st := Stats{Folders: len(p.folders)}
	backlinks := make([]int32, len(p.notes))
	stubs := make([]bool, len(p.missing))
	for _, c := range results {
		st.Notes += c.notes
		st.Bytes += c.bytes
		st.Links += c.links
		st.Embeds += c.embeds
		st.TypedEdges += c.typed
		st.Unresolved += c.unresolved
		for i, n := range c.backlinks {
			backlinks[i] += n
		}
		for i, used := range c.stubs {
			stubs[i] = stubs[i] || used
		}
	}
	for _, n := range backlinks {
		st.MaxBacklinks = max(st.MaxBacklinks, int(n))
	}
	for _, used := range stubs {
		if used {
			st.Stubs++
		}
	}
	return st
}
