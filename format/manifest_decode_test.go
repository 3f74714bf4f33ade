package format

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestDecodeManifestWithoutNotes: the same manifest as DecodeManifest's
// but for Notes; the notes object is still checked as JSON, and the
// version and id checks apply as before.
func TestDecodeManifestWithoutNotes(t *testing.T) {
	m := &Manifest{FormatVersion: Version, ID: "01M8XVBK0HWBJ78N0ZNYKHH7TA", Created: time.Unix(1700000000, 0).UTC(),
		Notes: map[string]NoteSignature{"A.md": {SHA256: strings.Repeat("a", 64), Size: 3}, "B/C.md": {Size: 7}},
		Files: map[string]FileInfo{"notes.parquet": {Size: 10, SHA256: strings.Repeat("b", 64)}}, Counts: Counts{Notes: 2}}
	data, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	full, err := DecodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	lean, err := DecodeManifestWithoutNotes(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Notes) != 2 || lean.Notes != nil {
		t.Fatalf("notes: %d decoded in full, %v without", len(full.Notes), lean.Notes)
	}
	full.Notes = nil
	if !reflect.DeepEqual(full, lean) {
		t.Errorf("without notes:\n%+v\nin full:\n%+v", lean, full)
	}
	for name, bad := range map[string]string{
		"notes not JSON": strings.Replace(string(data), `"notes":{`, `"notes":{x`, 1),
		"other version":  strings.Replace(string(data), `"format_version":`, `"format_version":9`, 1),
		"no id":          strings.Replace(string(data), `"id":"01M8XVBK0HWBJ78N0ZNYKHH7TA"`, `"id":""`, 1),
	} {
		if bad == string(data) {
			t.Fatalf("%s: the case changed nothing", name)
		}
		_, errFull := DecodeManifest([]byte(bad))
		_, errLean := DecodeManifestWithoutNotes([]byte(bad))
		if errLean == nil || errFull == nil || errors.Is(errFull, ErrUnknownVersion) != errors.Is(errLean, ErrUnknownVersion) {
			t.Errorf("%s: %v, in full %v", name, errLean, errFull)
		}
	}
}
