package format

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestStringColumnsArePlain pins the encoding rule in doc.go: Kuzu's Parquet
// reader aborts on parquet-go's default delta encoding for strings.
func TestStringColumnsArePlain(t *testing.T) {
	for _, row := range []any{Note{}, Link{}, Edge{}, Chunk{}, Property{}} {
		typ := reflect.TypeOf(row)
		for i := range typ.NumField() {
			f := typ.Field(i)
			k := f.Type.Kind()
			if k == reflect.Slice {
				k = f.Type.Elem().Kind()
			}
			if k != reflect.String {
				continue
			}
			tag := f.Tag.Get("parquet")
			if !strings.Contains(tag, ",plain") && !strings.Contains(tag, ",dict") {
				t.Errorf("%s.%s: parquet tag %q lacks plain or dict encoding", typ.Name(), f.Name, tag)
			}
		}
	}
}

func TestSnapshotIDsSortAfterParent(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	first := NewSnapshotID(now, "")
	if !ValidSnapshotID(first) {
		t.Fatalf("NewSnapshotID gave invalid id %q", first)
	}
	// A clock that went backwards must still produce a later id.
	second := NewSnapshotID(now.Add(-time.Hour), first)
	if second <= first {
		t.Fatalf("id %q does not sort after parent %q", second, first)
	}
	for _, bad := range []string{"", ".tmp-" + first, "latest", strings.ToLower(first) + "x"} {
		if ValidSnapshotID(bad) {
			t.Errorf("ValidSnapshotID(%q) = true", bad)
		}
	}
}

func TestDecodeManifestRefusesUnknownVersion(t *testing.T) {
	_, err := DecodeManifest([]byte(`{"format_version": 99, "id": "01JDXH0000000000000000000A"}`))
	if !errors.Is(err, ErrUnknownVersion) {
		t.Fatalf("err = %v, want ErrUnknownVersion", err)
	}
	if _, err := DecodeManifest([]byte(`{"format_version": 1, "id": "nope"}`)); err == nil {
		t.Fatal("manifest with invalid id accepted")
	}
}

// TestManifestEmbedderRevision: the model revision is optional, so
// manifests written before it existed read and write as they were.
func TestManifestEmbedderRevision(t *testing.T) {
	old := `{"format_version": 1, "id": "01JDXH0000000000000000000A", "embedder": {"provider": "ollama",
		"model": "nomic-embed-text:latest", "dimensions": 768, "fingerprint": "ab", "kind": "semantic"}}`
	m, err := DecodeManifest([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if m.Embedder == nil || m.Embedder.Revision != "" {
		t.Fatalf("embedder of an old manifest: %+v", m.Embedder)
	}
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "revision") {
		t.Errorf("an embedder without a revision encodes one:\n%s", b)
	}
	m.Embedder.Revision = "0a109f422b47e3a30ba2b10eca18548e944e8a23073ee3f3e947efcf3c45e59f"
	if b, err = m.Encode(); err != nil {
		t.Fatal(err)
	}
	again, err := DecodeManifest(b)
	if err != nil || again.Embedder.Revision != m.Embedder.Revision {
		t.Fatalf("revision round trip: %+v, %v", again.Embedder, err)
	}
}

func TestFormatVersion(t *testing.T) {
	// Changing the on-disk format needs a new version and a changelog line
	// in version.go; update this test together with them.
	if Version != 1 {
		t.Fatalf("Version = %d", Version)
	}
}

func TestPropertyRoundTrip(t *testing.T) {
	tests := []struct {
		kind string
		v    any
		want any
		text string
	}{
		{KindString, "eng", "eng", "eng"},
		{KindInt, int64(120), int64(120), "120"},
		{KindFloat, 2.5, 2.5, "2.5"},
		{KindBool, true, true, "true"},
		{KindDate, "2020-09-14", "2020-09-14", "2020-09-14"},
		{KindList, []any{"a", 1.0}, []any{"a", 1.0}, `["a",1]`},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			p, err := NewProperty("k", tc.kind, tc.v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Decode()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Decode = %#v, want %#v", got, tc.want)
			}
			if p.Text() != tc.text {
				t.Errorf("Text = %q, want %q", p.Text(), tc.text)
			}
		})
	}
}

func TestNoteTitleAndFolder(t *testing.T) {
	if got := NoteTitleFromPath("People/Bob Smith.md"); got != "Bob Smith" {
		t.Errorf("title = %q", got)
	}
	if got := NoteFolder("People/Bob Smith.md"); got != "People" {
		t.Errorf("folder = %q", got)
	}
	if got := NoteFolder("Root.md"); got != "" {
		t.Errorf("folder = %q", got)
	}
}
