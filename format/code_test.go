package format

import "testing"

func TestCodeEmbedText(t *testing.T) {
	for in, want := range map[string]string{
		"fetchEpisode(id)":         "fetch Episode(id)",
		"generate_daily_episode()": "generate daily episode()",
		"HTTPServer v2Beta":        "HTTP Server v 2Beta",
		"utf8Len":                  "utf 8Len",
	} {
		if got := SplitIdentifiers(in); got != want {
			t.Errorf("SplitIdentifiers(%q) = %q, want %q", in, got, want)
		}
	}
	c := CodeChunk{ID: "code:app/web/src/api.ts#fetchEpisode", File: "code:app/web/src/api.ts", Text: "export async function fetchEpisode() {}"}
	if got, want := CodeEmbedText(c), "web src api ts: fetch Episode\n\nexport async function fetch Episode() {}"; got != want {
		t.Errorf("CodeEmbedText = %q, want %q", got, want)
	}
}
