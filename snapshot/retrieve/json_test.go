package retrieve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
)

// stdJSON is what the server's encoder (encoding/json without HTML
// escaping, the newline trimmed) writes for v.
func stdJSON(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func checkAppendJSON(t *testing.T, name string, res *retrieve.Result) {
	t.Helper()
	want := stdJSON(t, res)
	got, err := res.AppendJSON([]byte("prefix"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
		t.Errorf("%s: AppendJSON differs from encoding/json\n got %s\nwant %s", name, got, want)
	}
}

// TestAppendJSONEqualsEncodingJSON: the hand-written encoder writes the
// bytes encoding/json writes, for real results of every shape and for
// strings, numbers and empty values chosen to hit every escape and
// formatting rule.
func TestAppendJSONEqualsEncodingJSON(t *testing.T) {
	r := demoRetriever(t)
	ctx := context.Background()
	n := 0
	for _, q := range []string{"Who funds Ranking, and how much?", "Who leads Search?", "Why is Atlas paused?", "What does the crawler depend on?", "zzzz nothing matches this"} {
		for _, rank := range []string{retrieve.RankDistance, retrieve.RankPPR} {
			for depth := range retrieve.MaxDepth + 1 {
				res, err := r.Retrieve(ctx, retrieve.Request{Question: q, Rank: rank, Depth: retrieve.Depth(depth)})
				if err != nil {
					t.Fatal(err)
				}
				checkAppendJSON(t, q, res)
				for _, e := range res.Edges {
					if len(e.Properties) > 0 {
						n++
					}
				}
			}
		}
	}
	if n == 0 {
		t.Error("no result had an edge with properties")
	}

	weird := "a\"b\\c\n\r\t\b\f\x00\x01\x1f\x7f <>& é 日本 \u2028\u2029 \xff\xfe bad \xe2\x82 end"
	num := 2.5
	text := "x"
	ws := `[1,  2 ,{"a" : "b"}]`
	props := linkgraph.Properties{
		{Key: "amount<>&", Kind: format.KindFloat, TextValue: &text, Number: &num},
		format.PropertyFromJSON("list", format.KindList, ws),
		format.PropertyFromJSON("s", format.KindString, `"q\"<"`),
		{Key: "null", Kind: format.KindNull},
	}
	res := &retrieve.Result{
		Snapshot: weird, Question: weird, Notice: "",
		Chunks: []retrieve.Chunk{
			{ID: weird, Heading: weird, Text: weird, Via: weird, Score: 1e-7, PPR: 1e21, Line: -3},
			{Score: math.Copysign(0, -1), PPR: 0.1 + 0.2, Hops: 2},
			{Score: -1.5e-300, PPR: 123456789012345678901234.0},
			{Score: 1e20, PPR: 5e-324},
		},
		Edges: []retrieve.Edge{
			{ID: "e", Properties: props, Sentence: weird, Score: 0.999999999},
			{ID: "nil props"},
			{ID: "empty props", Properties: linkgraph.Properties{}, Score: -0.25},
		},
		Notes: []retrieve.Note{
			{Path: weird, Labels: []string{weird, ""}, Stub: true, Chunks: 3},
			{Labels: []string{}},
		},
		Truncated: true, Rank: "ppr", Depth: 3,
		Warnings: []string{weird}, ElapsedMS: 1.25e-8,
	}
	checkAppendJSON(t, "crafted", res)
	checkAppendJSON(t, "empty", &retrieve.Result{})
	checkAppendJSON(t, "empty slices", &retrieve.Result{Chunks: []retrieve.Chunk{}, Edges: []retrieve.Edge{}, Notes: []retrieve.Note{}, Warnings: []string{}})

	// Every byte value at every offset of the eight-byte fast path.
	var texts []string
	for c := 0; c < 256; c++ {
		for at := 0; at < 19; at++ {
			texts = append(texts, strings.Repeat("a", at)+string(rune(c))+string([]byte{byte(c)})+strings.Repeat("b", 18-at))
		}
	}
	for _, multi := range []string{"é", "日", "\u2028", "\u2029", "\U0001F600", "\xe2\x80", "\xf0\x9f\x98"} {
		for at := 0; at < 19; at++ {
			texts = append(texts, strings.Repeat("a", at)+multi+strings.Repeat("b", 18-at))
		}
	}
	chunks := make([]retrieve.Chunk, len(texts))
	for i, s := range texts {
		chunks[i].Text = s
	}
	checkAppendJSON(t, "bytes at offsets", &retrieve.Result{Chunks: chunks})

	for _, f := range []float64{math.NaN(), math.Inf(1)} {
		bad := &retrieve.Result{Chunks: []retrieve.Chunk{{Score: f}}}
		if _, err := bad.AppendJSON(nil); err == nil {
			t.Errorf("score %v: no error", f)
		}
	}
}
