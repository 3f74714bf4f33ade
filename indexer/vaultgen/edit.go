package vaultgen

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// editStream seeds the choice of notes Edit rewrites; like planStream it
// lies above every note number.
const editStream = math.MaxUint64 - 1

// Edit rewrites one paragraph in each of n notes of the vault in dir, for
// benchmarks of incremental indexing, and returns the vault-relative paths
// (forward slashes, sorted) of the notes it changed. It works on any vault,
// not only generated ones: it edits Markdown files outside dot-folders
// such as .obsidian and .trash, and only plain prose paragraphs, never
// frontmatter, headings, lists, fields, tables or code.
//
// The words of the paragraph change; its links, embeds, inline fields,
// tags, inline code and block id stay, in order, so the vault's link graph
// is unchanged and only text (and so chunks and vectors) must be redone.
// The choice of notes depends on seed; the new words depend on seed and
// the note's current content, so calling Edit again with the same seed
// edits the same notes again, differently.
//
// Edit returns an error, before changing anything, if fewer than n notes
// have a paragraph to rewrite. Each note is replaced by renaming a
// temporary file over it, so a concurrent reader sees the old note or the
// new one, never a mix. If writing fails part way, the notes already
// rewritten stay rewritten and the error says which note failed.
func Edit(dir string, seed int64, n int) ([]string, error) {
	if n < 0 {
		return nil, fmt.Errorf("vaultgen: edit %d notes: want a number >= 0", n)
	}
	notes, err := listNotes(dir)
	if err != nil {
		return nil, err
	}
	type edit struct {
		rel  string
		data []byte
		mode fs.FileMode
	}
	var edits []edit
	r := rand.New(rand.NewPCG(uint64(seed), editStream))
	for _, k := range r.Perm(len(notes)) {
		if len(edits) == n {
			break
		}
		name := filepath.Join(dir, filepath.FromSlash(notes[k]))
		info, err := os.Stat(name)
		if err != nil {
			return nil, fmt.Errorf("vaultgen: edit: %w", err)
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("vaultgen: edit: %w", err)
		}
		if out, ok := rewriteParagraph(data, seed, notes[k]); ok {
			edits = append(edits, edit{notes[k], out, info.Mode().Perm()})
		}
	}
	if len(edits) < n {
		return nil, fmt.Errorf("vaultgen: edit %d notes: only %d of the %d notes in %s have a paragraph to rewrite", n, len(edits), len(notes), dir)
	}
	paths := make([]string, 0, n)
	for _, e := range edits {
		if err := replaceFile(filepath.Join(dir, filepath.FromSlash(e.rel)), e.data, e.mode); err != nil {
			return nil, fmt.Errorf("vaultgen: edit %s: %w", e.rel, err)
		}
		paths = append(paths, e.rel)
	}
	slices.Sort(paths)
	return paths, nil
}

// listNotes returns the vault-relative paths of the regular .md files in
// dir, outside dot-folders, sorted.
func listNotes(dir string) ([]string, error) {
	var notes []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.EqualFold(filepath.Ext(p), ".md") {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			notes = append(notes, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("vaultgen: list notes: %w", err)
	}
	slices.Sort(notes)
	return notes, nil
}

// replaceFile writes data to a temporary file beside name and renames it
// over name.
func replaceFile(name string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".vaultgen-edit-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	err = errors.Join(err, tmp.Chmod(mode), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		return errors.Join(err, os.Remove(tmp.Name()))
	}
	return nil
}

// rewriteParagraph returns data with one prose paragraph's words replaced,
// or false if the note has no prose paragraph of three words or more or is
// binary (holds NUL bytes), which an indexer would not read as a note.
func rewriteParagraph(data []byte, seed int64, rel string) ([]byte, bool) {
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, false
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	paras := proseParagraphs(lines)
	if len(paras) == 0 {
		return nil, false
	}
	h := fnv.New64a()
	h.Write([]byte(rel))
	h.Write(data)
	r := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
	p := paras[r.IntN(len(paras))]
	old := bytes.TrimRight(bytes.Join(lines[p[0]:p[1]], nil), "\r\n")
	z := newZipf(len(commonWords), wordExponent)
	for range 10 {
		text := rewriteProse(r, z, string(old))
		if text == string(old) {
			continue
		}
		eol := "\n"
		if bytes.HasSuffix(lines[p[1]-1], []byte("\r\n")) {
			eol = "\r\n"
		} else if !bytes.HasSuffix(lines[p[1]-1], []byte("\n")) {
			eol = ""
		}
		var out bytes.Buffer
		out.Grow(len(data) + len(text))
		out.Write(bytes.Join(lines[:p[0]], nil))
		out.WriteString(text + eol)
		out.Write(bytes.Join(lines[p[1]:], nil))
		return out.Bytes(), true
	}
	return nil, false
}

var (
	// fieldLine matches a line that starts with an inline field: key::.
	fieldLine = regexp.MustCompile(`^[+-]?[\p{L}_][^:\[\]` + "`" + `]*::`)
	// keepToken matches what a paragraph rewrite must keep: inline code,
	// bracketed inline fields, wikilinks and embeds, markdown links, tags
	// and a trailing block id.
	keepToken = regexp.MustCompile("`[^`]*`" +
		`|\[[^\[\]\n]*::\s*(?:!?\[\[[^\]\n]*\]\]|[^\]\n]*)\]` +
		`|!?\[\[[^\]\n]*\]\]` +
		`|!?\[[^\]\n]*\]\([^)\n]*\)` +
		`|(?:^|\s)#[^\s#]+` +
		`|\s\^[A-Za-z0-9-]+\s*$`)
)

// proseParagraphs returns [start, end) line ranges of the paragraphs of
// plain prose in a note: not frontmatter, code, headings, lists, quotes,
// tables, HTML, embeds on their own line or inline-field lines.
func proseParagraphs(lines [][]byte) [][2]int {
	start := 0
	if len(lines) > 0 && isDelimiter(bytes.TrimPrefix(lines[0], []byte("\ufeff"))) {
		for i := 1; i < len(lines); i++ {
			if isDelimiter(lines[i]) {
				start = i + 1
				break
			}
		}
	}
	var paras [][2]int
	fence := ""
	para := -1
	closePara := func(end int) {
		if para >= 0 && len(bytes.Fields(bytes.Join(lines[para:end], nil))) >= 3 {
			paras = append(paras, [2]int{para, end})
		}
		para = -1
	}
	for i := start; i < len(lines); i++ {
		t := strings.TrimSpace(string(lines[i]))
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			closePara(i)
			fence = t[:3]
			continue
		}
		if !isProseLine(t) {
			closePara(i)
			continue
		}
		if para < 0 {
			para = i
		}
	}
	closePara(len(lines))
	return paras
}

func isDelimiter(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r\n")) == "---"
}

// isProseLine reports whether a trimmed line can be part of a plain prose
// paragraph.
func isProseLine(t string) bool {
	if t == "" || fieldLine.MatchString(t) {
		return false
	}
	switch t[0] {
	case '#', '-', '*', '+', '>', '|', '<', '!', '$', '=', '%', '^':
		return false
	}
	if i := strings.IndexAny(t, ".)"); i > 0 && i <= 3 && strings.Trim(t[:i], "0123456789") == "" {
		return false // ordered list item
	}
	return true
}

// rewriteProse replaces the words of a paragraph with as many new words,
// keeping every keepToken match in place and in order. A sentence left
// open at the end is closed after its last word, before any trailing
// tags or block id.
func rewriteProse(r *rand.Rand, z zipf, old string) string {
	var b []byte
	sentence := 0     // words left in the current sentence
	lastWordEnd := -1 // where the last word written ends in b
	writeWords := func(gap string) {
		for range len(strings.Fields(gap)) {
			if len(b) > 0 {
				b = append(b, ' ')
			}
			w := drawWord(r, z)
			if sentence == 0 {
				w = capitalise(w)
				sentence = 6 + r.IntN(15)
			}
			b = append(b, w...)
			lastWordEnd = len(b)
			if sentence--; sentence == 0 {
				b = append(b, '.')
			}
		}
	}
	last := 0
	for _, m := range keepToken.FindAllStringIndex(old, -1) {
		writeWords(old[last:m[0]])
		if sentence == 0 {
			sentence = 6 + r.IntN(15) // a sentence that starts with a link
		}
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, strings.TrimSpace(old[m[0]:m[1]])...)
		last = m[1]
	}
	writeWords(old[last:])
	if sentence > 0 && lastWordEnd >= 0 {
		b = slices.Insert(b, lastWordEnd, '.')
	}
	return string(b)
}
