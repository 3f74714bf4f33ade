package bm25

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestZZCache(t *testing.T) {
	var texts []string
	filepath.WalkDir("/work/shared/vaults/obsidian-help", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			b, _ := os.ReadFile(p)
			texts = append(texts, string(b))
		}
		return nil
	})
	var tk Tokenizer
	var buf []string
	n := 0
	st := time.Now()
	for _, s := range texts {
		buf = tk.AppendTerms(buf[:0], s)
		n += len(buf)
	}
	t.Log("entries", len(tk.folded), "bytes", tk.foldedBytes, "terms", n, time.Since(st))
	st = time.Now()
	for _, s := range texts {
		buf = tk.AppendTerms(buf[:0], s)
		n += len(buf)
	}
	t.Log("warm", time.Since(st))
}
