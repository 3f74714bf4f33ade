package format

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
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
			if tag == "-" {
				continue // not a column
			}
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
	if _, err := DecodeManifest([]byte(`{"format_version": 2, "id": "nope"}`)); err == nil {
		t.Fatal("manifest with invalid id accepted")
	}
}

// TestManifestEmbedderRevision: the model revision is optional, so
// manifests written before it existed read and write as they were.
func TestManifestEmbedderRevision(t *testing.T) {
	old := `{"format_version": 5, "id": "01JDXH0000000000000000000A", "embedder": {"provider": "ollama",
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
	if Version != 7 || !SupportedVersion(7) || !SupportedVersion(6) || !SupportedVersion(5) || SupportedVersion(4) || SupportedVersion(3) || SupportedVersion(2) || SupportedVersion(1) {
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

// TestPropertyColumns: each kind fills its own typed column and no other,
// so that a Parquet reader compares values without decoding JSON.
func TestPropertyColumns(t *testing.T) {
	str := func(s string) *string { return &s }
	num := func(f float64) *float64 { return &f }
	day := func(d int32) *int32 { return &d }
	instant := time.Date(2024, 5, 6, 6, 0, 0, 0, time.UTC)
	tests := []struct {
		kind string
		v    any
		want Property
		json string
	}{
		{KindString, "Rotterdam", Property{Key: "k", Kind: KindString, TextValue: str("Rotterdam")}, `"Rotterdam"`},
		{KindInt, int64(-3), Property{Key: "k", Kind: KindInt, TextValue: str("-3"), Number: num(-3)}, `-3`},
		{KindFloat, 2.5, Property{Key: "k", Kind: KindFloat, TextValue: str("2.5"), Number: num(2.5)}, `2.5`},
		{KindBool, false, Property{Key: "k", Kind: KindBool, TextValue: str("false"), Bool: new(bool)}, `false`},
		{KindDate, "1969-12-31", Property{Key: "k", Kind: KindDate, TextValue: str("1969-12-31"), Date: day(-1)}, `"1969-12-31"`},
		{KindDateTime, "2024-05-06T08:00:00+02:00", Property{Key: "k", Kind: KindDateTime, TextValue: str("2024-05-06T08:00:00+02:00"), DateTime: &instant}, `"2024-05-06T08:00:00+02:00"`},
		{KindList, []any{"a b", 1, nil, []any{true}}, Property{Key: "k", Kind: KindList, TextValue: str(`["a b",1,null,[true]]`), List: []*string{str("a b"), str("1"), nil, str("[true]")}}, `["a b",1,null,[true]]`},
		{KindMap, map[string]any{"city": "Paris"}, Property{Key: "k", Kind: KindMap, TextValue: str(`{"city":"Paris"}`)}, `{"city":"Paris"}`},
		{KindNull, nil, Property{Key: "k", Kind: KindNull}, `null`},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			p, err := NewProperty("k", tc.kind, tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, tc.want) {
				t.Errorf("NewProperty = %s, want %s", dump(p), dump(tc.want))
			}
			if p.JSON() != tc.json {
				t.Errorf("JSON = %s, want %s", p.JSON(), tc.json)
			}
			if q := PropertyFromJSON("k", tc.kind, tc.json); !reflect.DeepEqual(q, p) {
				t.Errorf("PropertyFromJSON = %s, want %s", dump(q), dump(p))
			}
		})
	}
	// A value that does not fit its kind keeps its text and no typed column.
	bad := PropertyFromJSON("k", KindDate, `"not a date"`)
	if bad.Text() != "not a date" || bad.Date != nil {
		t.Errorf("bad date: %s", dump(bad))
	}
}

func dump(p Property) string {
	b, _ := json.Marshal(p)
	return string(b)
}

// TestOlderVersionSaysHowToReplaceIt: a snapshot of an older format is
// refused with the command that writes one this build reads; a newer one
// asks for an upgrade. (Versions 2 and 3 have vector files of float32
// rows, which this build no longer reads.)
func TestOlderVersionSaysHowToReplaceIt(t *testing.T) {
	for v, want := range map[int]string{1: "run `vaultgraph index", 2: "run `vaultgraph index", 3: "run `vaultgraph index", 4: "run `vaultgraph index",
		Version + 1: "upgrade vaultgraph"} {
		_, err := DecodeManifest(fmt.Appendf(nil, `{"format_version": %d, "id": "01JDXH0000000000000000000A"}`, v))
		if !errors.Is(err, ErrUnknownVersion) || !strings.Contains(err.Error(), want) {
			t.Errorf("version %d: err = %v, want ErrUnknownVersion saying %q", v, err, want)
		}
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

// TestManifestIsCompactAndIndentedStillChecks: Encode writes compact JSON,
// and a manifest as builds before it wrote it (indented, its checksum over
// those bytes) still checks and decodes.
func TestManifestIsCompactAndIndentedStillChecks(t *testing.T) {
	m := &Manifest{FormatVersion: Version, ID: "01JDXH0000000000000000000A",
		Notes: map[string]NoteSignature{"a.md": {SHA256: strings.Repeat("ab", 32), Size: 3}}}
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b[:len(b)-1], []byte("\n")) || bytes.Contains(b, []byte(`": `)) {
		t.Fatalf("manifest is not compact:\n%s", b)
	}
	if err := CheckManifestSum(b); err != nil {
		t.Fatal(err)
	}
	// The older encoding: indented, checksum zeroed while summing.
	m.Checksum = zeroSum
	old, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	old = append(old, '\n')
	at, ok := sumAt(old)
	if !ok {
		t.Fatal("no checksum in the indented manifest")
	}
	sum := sha256.Sum256(old)
	copy(old[at:], hex.EncodeToString(sum[:]))
	if err := CheckManifestSum(old); err != nil {
		t.Fatalf("indented manifest: %v", err)
	}
	got, err := DecodeManifest(old)
	if err != nil || got.Notes["a.md"].Size != 3 {
		t.Fatalf("indented manifest decoded to %+v, %v", got, err)
	}
	old[at] ^= 1
	if err := CheckManifestSum(old); err == nil {
		t.Fatal("an edited indented manifest checks")
	}
}

func TestSkipped(t *testing.T) {
	ws := []Warning{
		{File: "a.md", Kind: WarnInvalidYAML, Message: "bad yaml"},
		{File: "b.md", Kind: WarnTooLarge, Message: "over the limit"},
		{File: "a.md", Kind: WarnBinary, Message: "NUL bytes"},
	}
	if w, ok := Skipped(ws, "a.md"); !ok || w.Kind != WarnBinary {
		t.Errorf("Skipped(a.md) = %+v, %v; want the binary warning, not the YAML one", w, ok)
	}
	if w, ok := Skipped(ws, "b.md"); !ok || w.Kind != WarnTooLarge {
		t.Errorf("Skipped(b.md) = %+v, %v", w, ok)
	}
	if _, ok := Skipped(ws, "c.md"); ok {
		t.Error("Skipped(c.md): no warning names it")
	}
}

// TestEmbedTextKey: EmbedTextKey is TextKey of EmbedText, whatever the
// buffer held before.
func TestEmbedTextKey(t *testing.T) {
	buf := []byte("left over from a longer text than any below")
	for _, c := range [][2]string{{"", "text"}, {"Note: A", "text"}, {"Note: A", ""}, {"", ""}, {"ctx\nSection: B", "é日本\n\nmore"}} {
		var got string
		got, buf = EmbedTextKey(buf, c[0], c[1])
		if want := TextKey(EmbedText(c[0], c[1])); got != want {
			t.Errorf("EmbedTextKey(%q, %q) = %s, want %s", c[0], c[1], got, want)
		}
	}
}
