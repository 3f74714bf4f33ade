package vaultgen

import (
	"errors"
	"fmt"
)

// Config describes a synthetic vault. The zero value of every field but
// Notes selects a default; for the share fields a negative value means
// none at all.
type Config struct {
	// Notes is the number of notes to write. It must be positive.
	Notes int
	// Seed selects the vault. Equal Configs write identical bytes.
	Seed int64
	// Folders is the number of folders, nested up to three deep
	// (default Notes/250, kept within 10..50).
	Folders int
	// MeanNoteBytes is the mean note size in bytes (default 3000). Sizes
	// are log-normal, so most notes are smaller and a few are seven times
	// larger or more.
	MeanNoteBytes int
	// LinksPerKB is the number of links and typed edges per 1,000 bytes of
	// note text (default 2.5, as in real vaults).
	LinksPerKB float64
	// TypedEdgeShare is the share of those links written as typed edges:
	// inline fields and frontmatter link values (default 0.2).
	TypedEdgeShare float64
	// MissingLinkShare is the share of links whose target note does not
	// exist (default 0.01).
	MissingLinkShare float64
	// FrontmatterShare is the share of notes with a frontmatter block
	// (default 0.85).
	FrontmatterShare float64
	// HubExponent is the Zipf exponent of link-target popularity
	// (default 1.0: at 10,000 notes the top note collects about a tenth of
	// all links). Larger values make hubs bigger.
	HubExponent float64
}

// Defaults of Config.
const (
	DefaultMeanNoteBytes    = 3000
	DefaultLinksPerKB       = 2.5
	DefaultTypedEdgeShare   = 0.2
	DefaultMissingLinkShare = 0.01
	DefaultFrontmatterShare = 0.85
	DefaultHubExponent      = 1.0
)

// withDefaults returns cfg with defaults filled in and negative shares
// turned into zero, or an error for a Config that cannot be generated.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Notes <= 0 {
		return cfg, fmt.Errorf("vaultgen: Notes = %d, want a positive number of notes", cfg.Notes)
	}
	if cfg.Folders < 0 || cfg.MeanNoteBytes < 0 || cfg.LinksPerKB < 0 || cfg.HubExponent < 0 {
		return cfg, errors.New("vaultgen: Folders, MeanNoteBytes, LinksPerKB and HubExponent must not be negative")
	}
	if cfg.Folders == 0 {
		cfg.Folders = min(max(cfg.Notes/250, 10), 50)
	}
	if cfg.MeanNoteBytes == 0 {
		cfg.MeanNoteBytes = DefaultMeanNoteBytes
	}
	if cfg.LinksPerKB == 0 {
		cfg.LinksPerKB = DefaultLinksPerKB
	}
	if cfg.HubExponent == 0 {
		cfg.HubExponent = DefaultHubExponent
	}
	share := func(name string, v *float64, def float64) error {
		switch {
		case *v == 0:
			*v = def
		case *v < 0:
			*v = 0
		case *v > 1:
			return fmt.Errorf("vaultgen: %s = %g, want a share between 0 and 1", name, *v)
		}
		return nil
	}
	if err := errors.Join(
		share("TypedEdgeShare", &cfg.TypedEdgeShare, DefaultTypedEdgeShare),
		share("MissingLinkShare", &cfg.MissingLinkShare, DefaultMissingLinkShare),
		share("FrontmatterShare", &cfg.FrontmatterShare, DefaultFrontmatterShare),
	); err != nil {
		return cfg, err
	}
	return cfg, nil
}
