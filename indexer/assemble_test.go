package indexer

import (
	"reflect"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestReuseRowsCoverTheFormat fails when a column is added to format.Note or
// format.Chunk without being added to the rows the indexer reuses, which
// would silently drop it from every reused note.
func TestReuseRowsCoverTheFormat(t *testing.T) {
	check := func(full, meta any, rebuilt ...string) {
		skip := map[string]bool{}
		for _, f := range rebuilt {
			skip[f] = true
		}
		mt := reflect.TypeOf(meta)
		ft := reflect.TypeOf(full)
		for i := range ft.NumField() {
			f := ft.Field(i)
			if skip[f.Name] {
				continue
			}
			m, ok := mt.FieldByName(f.Name)
			if !ok {
				t.Errorf("%s.%s is not read back by %s", ft.Name(), f.Name, mt.Name())
				continue
			}
			if m.Tag.Get("parquet") != f.Tag.Get("parquet") {
				t.Errorf("%s.%s: tag %q, format has %q", mt.Name(), f.Name, m.Tag.Get("parquet"), f.Tag.Get("parquet"))
			}
		}
	}
	// Size and Modified come from the file as read now, Content and Text
	// from its bytes.
	check(format.Note{}, noteMeta{}, "Content", "Size", "Modified")
	check(format.Chunk{}, chunkMeta{}, "Text")
}
