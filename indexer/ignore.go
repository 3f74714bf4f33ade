package indexer

import (
	"fmt"

	"github.com/vaultgraph/vaultgraph/format/glob"
)

// compileIgnore compiles the --ignore patterns, which decide the vault
// paths a run skips besides dot-folders (see package format/glob).
func compileIgnore(globs []string) (*glob.Set, error) {
	s, err := glob.Compile(globs)
	if err != nil {
		return nil, fmt.Errorf("ignore %w", err)
	}
	return s, nil
}
