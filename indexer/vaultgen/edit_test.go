package vaultgen

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// linkText is everything in a note that Edit must keep: links, embeds,
// fields and tags, in order.
func linkText(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return keepToken.FindAllString(string(data), -1)
}

func TestEditChangesOnlyNNotes(t *testing.T) {
	cfg := Config{Notes: 300, Seed: 3}
	dir, _ := generate(t, cfg)
	before := hashVault(t, dir)
	links := map[string][]string{}
	for p := range before {
		links[p] = linkText(t, filepath.Join(dir, p))
	}

	paths, err := Edit(dir, 11, 25)
	if err != nil {
		t.Fatalf("Edit: %v", err)
	}
	if len(paths) != 25 || !slices.IsSorted(paths) {
		t.Fatalf("Edit returned %d paths (sorted: %v), want 25 sorted", len(paths), slices.IsSorted(paths))
	}
	after := hashVault(t, dir)
	var changed []string
	for p, sum := range after {
		if before[p] != sum {
			changed = append(changed, p)
		}
	}
	slices.Sort(changed)
	if !reflect.DeepEqual(changed, paths) || len(after) != len(before) {
		t.Fatalf("changed files %v (of %d, was %d), Edit reported %v", changed, len(after), len(before), paths)
	}
	for _, p := range paths {
		if got := linkText(t, filepath.Join(dir, p)); !reflect.DeepEqual(got, links[p]) {
			t.Errorf("%s: links, fields or tags changed:\n was %q\n now %q", p, links[p], got)
		}
	}

	// The same edit of the same vault writes the same bytes.
	dir2, _ := generate(t, cfg)
	if _, err := Edit(dir2, 11, 25); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(hashVault(t, dir2), after) {
		t.Error("the same Edit of two identical vaults wrote different bytes")
	}

	// Editing again with the same seed picks the same notes and changes
	// them again.
	again, err := Edit(dir, 11, 25)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, paths) {
		t.Errorf("second Edit chose %v, first %v", again, paths)
	}
	third := hashVault(t, dir)
	for _, p := range paths {
		if third[p] == after[p] {
			t.Errorf("%s unchanged by the second Edit", p)
		}
	}
}

func TestEditRefusesTooMany(t *testing.T) {
	dir, _ := generate(t, Config{Notes: 20, Seed: 1})
	before := hashVault(t, dir)
	if _, err := Edit(dir, 1, 21); err == nil {
		t.Fatal("Edit of 21 notes in a 20-note vault succeeded")
	}
	if !reflect.DeepEqual(hashVault(t, dir), before) {
		t.Error("a failed Edit changed files")
	}
	if paths, err := Edit(dir, 1, 0); err != nil || len(paths) != 0 {
		t.Errorf("Edit of 0 notes = %v, %v", paths, err)
	}
}

// TestEditHandWrittenVaults runs Edit on copies of the fixture vaults: it
// must edit only prose of real notes, leave dot-folders and binary files
// alone, and never fail on bad input.
func TestEditHandWrittenVaults(t *testing.T) {
	for _, tc := range []struct {
		vault string
		n     int
	}{
		{"demo-vault", 12},
		{"broken-vault", 4},
	} {
		t.Run(tc.vault, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", tc.vault))); err != nil {
				t.Fatal(err)
			}
			before := hashVault(t, dir)
			links := map[string][]string{}
			for p := range before {
				links[p] = linkText(t, filepath.Join(dir, p))
			}
			paths, err := Edit(dir, 5, tc.n)
			if err != nil {
				t.Fatalf("Edit: %v", err)
			}
			after := hashVault(t, dir)
			changed := 0
			for p, sum := range after {
				if sum == before[p] {
					continue
				}
				changed++
				if !slices.Contains(paths, p) || strings.HasPrefix(p, ".") || p == "Binary.md" {
					t.Errorf("%s changed but must not", p)
				}
				if got := linkText(t, filepath.Join(dir, p)); !reflect.DeepEqual(got, links[p]) {
					t.Errorf("%s: links, fields or tags changed:\n was %q\n now %q", p, links[p], got)
				}
			}
			if changed != tc.n || len(after) != len(before) {
				t.Errorf("%d files changed (%d files, was %d), want %d", changed, len(after), len(before), tc.n)
			}
		})
	}
}
