package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
)

// TestGraphRAGHandlers drives the POST /graph and POST /retrieve handlers
// through the server's middleware and error handling, on routes this test
// adds (register wires them once the store builds the components).
func TestGraphRAGHandlers(t *testing.T) {
	data := t.TempDir()
	res, err := indexer.Run(context.Background(), indexer.Options{
		Vault: filepath.Join("..", "testdata", "demo-vault"), Data: data,
		Stages: []indexer.Stage{&indexer.EmbedStage{Embedder: embed.NewBuiltin()}, indexer.BM25Stage{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	sn, err := snapshot.Open(res.Dir, snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := linkgraph.Load(sn)
	if err != nil {
		t.Fatal(err)
	}
	r, err := retrieve.Open(sn, embed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st, err := store.New(data, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	if _, err := st.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	s, err := New(st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.app.Post("/graph", s.withSnapshot(func(c *fiber.Ctx, _ *store.Snapshot) error { return s.linkGraph(c, g, nil) }))
	s.app.Post("/retrieve", s.withSnapshot(func(c *fiber.Ctx, _ *store.Snapshot) error {
		return s.retrieval(c, r, embed.NewBuiltin(), nil)
	}))
	s.app.Post("/retrieve-unavailable", s.withSnapshot(func(c *fiber.Ctx, _ *store.Snapshot) error {
		return s.retrieval(c, nil, nil, errUnavailableForTest)
	}))

	post := func(path, body string) (int, map[string]any) {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Host = "localhost"
		req.Header.Set("Content-Type", "application/json")
		resp, err := s.app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var out map[string]any
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s: %v: %s", path, err, b)
		}
		return resp.StatusCode, out
	}

	code, out := post("/graph", `{"action":"neighbors","sourcePath":"Projects/Search.md","maxNodes":3}`)
	if code != 200 || out["operation"] != "neighbors" || len(out["nodes"].([]any)) != 4 || out["truncated"] != true {
		t.Errorf("neighbors: %d %v", code, out)
	}
	code, out = post("/graph", `{"action":"path","sourcePath":"Mallory","targetPath":"Crawler","edgeTypes":["distrusts","leads","depends_on"]}`)
	if paths, _ := out["paths"].([]any); code != 200 || len(paths) != 1 || len(paths[0].([]any)) != 4 {
		t.Errorf("path: %d %v", code, out)
	}
	for body, want := range map[string]int{
		`{"action":"neighbors","sourcePath":"Kickoff"}`:                400,
		`{"action":"neighbors","sourcePath":"No Such Note"}`:           404,
		`{"action":"fly","sourcePath":"Search"}`:                       400,
		`{"action":"traverse","sourcePath":"Search","fileFilter":"("}`: 400,
		`{"action":"traverse","maxDepth":"deep"}`:                      400,
	} {
		if code, out := post("/graph", body); code != want {
			t.Errorf("%s: %d, want %d: %v", body, code, want, out)
		}
	}

	code, out = post("/retrieve", `{"question":"What does the Search project depend on, and who works on it?","k":5,"depth":1}`)
	if code != 200 || !strings.Contains(out["notice"].(string), "instructions") || len(out["chunks"].([]any)) == 0 {
		t.Fatalf("retrieve: %d %v", code, out)
	}
	funds := false
	for _, e := range out["edges"].([]any) {
		e := e.(map[string]any)
		funds = funds || (e["type"] == "funds" && e["target"] == "Projects/Search.md")
	}
	if !funds {
		t.Error("retrieve: Acme's funding edge missing")
	}
	if code, out := post("/retrieve", `{"question":""}`); code != 400 {
		t.Errorf("empty question: %d %v", code, out)
	}
	if code, out := post("/retrieve", `{"question":"q","k":100000}`); code != 400 {
		t.Errorf("huge k: %d %v", code, out)
	}
	if code, out := post("/retrieve-unavailable", `{"question":"q"}`); code != 501 || !strings.Contains(out["error"].(map[string]any)["message"].(string), "built without") {
		t.Errorf("unavailable: %d %v", code, out)
	}
}

var errUnavailableForTest = errorString("retrieval is not available: snapshot X was built without the embedding stage")

type errorString string

func (e errorString) Error() string { return string(e) }
