package format

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// notesManifest is a manifest around the notes value notes.
func notesManifest(notes string) []byte {
	return []byte(`{"format_version":5,"id":"01M8XTPM6D73X7TTQYC9J61Y1Q","created":"2026-12-03T11:30:12.813113038Z",` +
		`"counts":{"notes":2},"notes":` + notes + `,"files":{"notes-0001.parquet":{"size":3,"sha256":"ab"}},` +
		`"tables":{"notes":[{"rows":2}]},"manifest_sha256":"00"}`)
}

// sameAsJSON fails t unless unmarshalManifest makes of data what
// encoding/json makes of it, error included.
func sameAsJSON(t *testing.T, data []byte) {
	t.Helper()
	var want, got Manifest
	wantErr := json.Unmarshal(data, &want)
	gotErr := unmarshalManifest(data, &got)
	if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
		t.Fatalf("%s:\nerror %v, encoding/json's %v", data, gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(want, got) {
		t.Fatalf("%s:\ngot  %+v\nwant %+v", data, got, want)
	}
}

var notesCases = map[string]string{
	"plain":             `{"a.md":{"sha256":"43261662b5","size":2046,"modified":"2026-12-03T10:36:48.369353877Z"},"b/c.md":{"sha256":"dd","size":0,"modified":"2026-12-03T10:36:47Z"}}`,
	"empty":             `{}`,
	"null":              `null`,
	"spaces":            " { \"a.md\" :\n{ \"size\" : 7 ,\t\"sha256\" : \"x\" , \"modified\" : \"2026-01-02T03:04:05+02:00\" } } ",
	"escaped key":       `{"Tom \u0026 Jerry.md":{"sha256":"x","size":1,"modified":"2026-01-02T03:04:05Z"},"q\"uote\\.md":{"size":2}}`,
	"unicode key":       `{"Café/日本.md":{"sha256":"x","size":1,"modified":"2026-01-02T03:04:05Z"}}`,
	"invalid utf8 key":  "{\"caf\xe9.md\":{\"size\":1}}",
	"escaped value":     `{"a.md":{"sha256":"\u0078","size":1}}`,
	"unknown field":     `{"a.md":{"sha256":"x","size":1,"extra":[1,{"b":2}]}}`,
	"other case field":  `{"a.md":{"SHA256":"x","Size":1}}`,
	"missing fields":    `{"a.md":{"size":3},"b.md":{}}`,
	"duplicate key":     `{"a.md":{"size":3},"a.md":{"sha256":"y"}}`,
	"duplicate field":   `{"a.md":{"size":3,"size":4}}`,
	"float size":        `{"a.md":{"size":1.5}}`,
	"exponent size":     `{"a.md":{"size":1e3}}`,
	"negative size":     `{"a.md":{"size":-3}}`,
	"leading zero":      `{"a.md":{"size":012}}`,
	"huge size":         `{"a.md":{"size":99999999999999999999}}`,
	"string size":       `{"a.md":{"size":"3"}}`,
	"null size":         `{"a.md":{"size":null}}`,
	"bad time":          `{"a.md":{"modified":"yesterday"}}`,
	"null time":         `{"a.md":{"modified":null}}`,
	"control character": "{\"a\x01.md\":{\"size\":1}}",
	"trailing comma":    `{"a.md":{"size":1},}`,
	"not an object":     `[1,2]`,
	"unterminated":      `{"a.md":{"size":1}`,
	"no colon":          `{"a.md" {"size":1}}`,
}

func TestManifestNotesDecodeAsEncodingJSON(t *testing.T) {
	for name, notes := range notesCases {
		t.Run(name, func(t *testing.T) { sameAsJSON(t, notesManifest(notes)) })
	}
	for name, doc := range map[string]string{
		"notes twice":      `{"id":"x","notes":{"a.md":{"size":1}},"notes":{"b.md":{"size":2}}}`,
		"notes other case": `{"id":"x","notes":{"a.md":{"size":1}},"NOTES":{"b.md":{"size":2}}}`,
		"notes escaped":    `{"id":"x","\u006eotes":{"a.md":{"size":1}}}`,
		"notes long s":     `{"id":"x","noteſ":{"a.md":{"size":1}}}`,
		"no notes":         `{"id":"x","counts":{"notes":3}}`,
		"notes in string":  `{"id":"x,\"notes\":{","notes":{"a.md":{"size":1}}}`,
		"bad rest":         `{"id":3,"notes":{"a.md":{"size":1}}}`,
		"trailing data":    `{"id":"x","notes":{}} {}`,
		"not json":         `{"id":"x","notes":{}`,
	} {
		t.Run(name, func(t *testing.T) { sameAsJSON(t, []byte(doc)) })
	}
}

// TestManifestNotesFastPath checks that a manifest as Encode writes it
// takes the fast path: the notes come from parseNotes, not from
// encoding/json.
func TestManifestNotesFastPath(t *testing.T) {
	m := &Manifest{FormatVersion: Version, ID: "01M8XTPM6D73X7TTQYC9J61Y1Q", Notes: map[string]NoteSignature{
		"a.md":               {SHA256: "43261662b5", Size: 2046, Modified: time.Date(2026, 12, 3, 10, 36, 48, 369353877, time.UTC)},
		"Tom & Jerry/<b>.md": {SHA256: "dd", Size: 1},
		"Café/日本\u2028.md":   {SHA256: "ee", Size: 2, Modified: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("", 7200))},
	}}
	raw, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	notes, _, _, ok := topLevelNotes(raw)
	if !ok || len(notes) != len(m.Notes) {
		t.Fatalf("the fast path refused an encoded manifest (ok %v, %d notes)", ok, len(notes))
	}
	sameAsJSON(t, raw)
	got, err := DecodeManifest(raw)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range m.Notes {
		if g := got.Notes[p]; g.SHA256 != want.SHA256 || g.Size != want.Size || !g.Modified.Equal(want.Modified) {
			t.Errorf("%s: %+v, want %+v", p, g, want)
		}
	}
}

func FuzzManifestNotes(f *testing.F) {
	for _, notes := range notesCases {
		f.Add(notes)
	}
	f.Fuzz(func(t *testing.T, notes string) { sameAsJSON(t, notesManifest(notes)) })
}

// BenchmarkDecodeManifest decodes a manifest of 10,000 notes, the
// generated vault's.
//
//	go test ./format -run '^$' -bench DecodeManifest
func BenchmarkDecodeManifest(b *testing.B) {
	m := &Manifest{FormatVersion: Version, ID: "01M8XTPM6D73X7TTQYC9J61Y1Q", Notes: map[string]NoteSignature{}}
	at := time.Date(2026, 12, 3, 10, 36, 48, 369353877, time.UTC)
	for i := range 10000 {
		m.Notes[fmt.Sprintf("Ideas/Folder %d/Note About Thing %d.md", i%40, i)] = NoteSignature{
			SHA256: fmt.Sprintf("%064x", i*7919), Size: int64(1000 + i), Modified: at.Add(time.Duration(i) * time.Millisecond)}
	}
	raw, err := m.Encode()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("DecodeManifest", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := DecodeManifest(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var m Manifest
			if err := json.Unmarshal(raw, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
