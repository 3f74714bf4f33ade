package serve_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/serve"
)

// TestOpenAPIMatchesRoutes walks the router and the OpenAPI document and
// requires the same routes and methods in both, each operation with
// responses, so neither can change without the other.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	data, _ := demoData(t)
	ts := startServer(t, data, serverConfig{opts: serve.Options{Mounts: []serve.Mount{{
		Method: "POST", Path: "/mcp", Handler: func(c *serve.Ctx) error { return nil },
		Operation: []byte(`{"operationId": "mcp", "responses": {"200": {"description": "ok"}}}`),
	}}}})

	param := regexp.MustCompile(`:([A-Za-z0-9_]+)`)
	routes := map[string]bool{}
	// Routes under the vault prefix, each the variant of a route (the
	// document's second server).
	inVault := map[string]bool{}
	for _, r := range ts.srv.App().GetRoutes(true) {
		if r.Method == http.MethodHead || r.Method == http.MethodOptions && r.Path == "/" {
			continue // fiber adds HEAD for every GET
		}
		p := param.ReplaceAllString(r.Path, "{$1}")
		p = strings.Replace(p, "*", "{path}", 1)
		if rest, ok := strings.CutPrefix(p, "/v/{vault}/"); ok {
			inVault[strings.ToLower(r.Method)+" /"+rest] = true
			continue
		}
		routes[strings.ToLower(r.Method)+" "+p] = true
	}

	var doc struct {
		OpenAPI string
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Paths map[string]map[string]struct {
			OperationID string         `json:"operationId"`
			Responses   map[string]any `json:"responses"`
		}
	}
	resp := ts.get("/openapi.json")
	if err := json.Unmarshal(resp.body, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Errorf("openapi = %q", doc.OpenAPI)
	}
	documented := map[string]bool{}
	ids := map[string]bool{}
	for path, item := range doc.Paths {
		for method, op := range item {
			documented[method+" "+path] = true
			if len(op.Responses) == 0 || op.OperationID == "" {
				t.Errorf("%s %s has no operationId or responses", method, path)
			}
			if ids[op.OperationID] {
				t.Errorf("operationId %q is used twice", op.OperationID)
			}
			ids[op.OperationID] = true
		}
	}
	for r := range routes {
		if !documented[r] {
			t.Errorf("route %s is not in openapi.json", r)
		}
	}
	for d := range documented {
		if !routes[d] {
			t.Errorf("openapi.json documents %s, which no route serves", d)
		}
	}
	if t.Failed() {
		t.Logf("routes: %v", keys(routes))
	}
	if !routes["post /mcp"] {
		t.Error("the mount is not routed")
	}
	// Every route but the mount has its /v/{vault} variant, as the
	// document's servers say.
	if len(doc.Servers) != 2 || doc.Servers[1].URL != "/v/{vault}" {
		t.Errorf("servers %+v, want / and /v/{vault}", doc.Servers)
	}
	for r := range routes {
		if !inVault[r] && r != "post /mcp" {
			t.Errorf("route %s has no /v/{vault} variant", r)
		}
	}
	for r := range inVault {
		if !routes[r] || r == "post /mcp" {
			t.Errorf("/v/{vault} variant of %s, which is no route or the mount", r)
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
