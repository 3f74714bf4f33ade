package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// checkServer: a running server answers /health, and serves the newest
// good snapshot.
func (st *state) checkServer(ctx context.Context) Check {
	c := Check{Name: "server"}
	base, asked := strings.TrimRight(st.cfg.Server, "/"), st.cfg.Server != ""
	if !asked {
		base = DefaultServer
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/health", nil)
	if err != nil {
		return fail(c, fmt.Sprintf("--server %q: %v", st.cfg.Server, err), "pass the server's base URL, e.g. "+DefaultServer)
	}
	if st.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+st.cfg.Token)
	}
	res, err := st.cfg.HTTP.Do(req)
	if err != nil {
		if !asked {
			c.Status, c.Summary = Info, "no server answers at "+base
			c.Fix = "start one with vaultgraph serve --data " + st.cfg.Data + ", or pass --server URL to check another"
			return c
		}
		return fail(c, fmt.Sprintf("nothing answers at %s: %v", base, err), "start vaultgraph serve --data "+st.cfg.Data+", or check the address")
	}
	defer res.Body.Close()
	var h struct {
		Status   string  `json:"status"`
		Ready    bool    `json:"ready"`
		Snapshot *string `json:"snapshot"`
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode != http.StatusOK || json.Unmarshal(body, &h) != nil || h.Status == "" {
		return fail(c, fmt.Sprintf("%s/health answered %s, not vaultgraph's health document", base, res.Status),
			"is another program listening there? pass --server with vaultgraph's address")
	}
	if !h.Ready {
		return fail(c, fmt.Sprintf("the server at %s is up but serves no snapshot (%s)", base, h.Status),
			"it serves as soon as its data directory has a snapshot that verifies: see the snapshot check")
	}
	if h.Snapshot == nil {
		c.Status, c.Summary = Warn, fmt.Sprintf("the server at %s is ready, but will not say which snapshot it serves without its token", base)
		c.Fix = "set VAULTGRAPH_TOKEN (or --token-file) to the server's token"
		return c
	}
	served := *h.Snapshot
	switch {
	case st.damaged(served):
		return fail(c, fmt.Sprintf("the server at %s serves %s, whose files do not match its manifest", base, served),
			"restart it with --verify (or upgrade it: servers of this version verify before they swap)")
	case st.good == nil:
		c.Status, c.Summary = Warn, fmt.Sprintf("the server at %s serves %s, which this data directory does not have", base, served)
		c.Fix = "is it serving another data directory? compare its --data with " + st.cfg.Data
	case served == st.good.ID:
		c.Status, c.Summary = OK, fmt.Sprintf("the server at %s serves %s, the newest", base, served)
	case served < st.good.ID:
		c.Status, c.Summary = Warn, fmt.Sprintf("the server at %s serves %s, older than the newest %s", base, served, st.good.ID)
		c.Fix = "it swaps by itself within a minute; if it does not, POST /admin/reload or look at its log for a refused snapshot"
	default:
		c.Status, c.Summary = Warn, fmt.Sprintf("the server at %s serves %s, which this data directory does not have", base, served)
		c.Fix = "is it serving another data directory? compare its --data with " + st.cfg.Data
	}
	return c
}

// checkMCP: the command line that connects Claude Code to this data
// directory, with absolute paths.
func (st *state) checkMCP(context.Context) Check {
	c := Check{Name: "mcp", Status: Info}
	bin := st.cfg.Binary
	if bin == "" {
		bin = "vaultgraph"
	}
	c.Summary = "connect Claude Code to this data directory (read-only, over stdio):"
	c.Details = []string{fmt.Sprintf("claude mcp add vaultgraph -- %s serve --stdio --data %s", shellQuote(bin), shellQuote(st.cfg.Data))}
	if strings.Contains(bin, "go-build") {
		c.Details = append(c.Details, "this binary is a temporary one of go run: build one (go build -o ~/bin/vaultgraph ./cmd/vaultgraph) and use its path")
	}
	return c
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// damaged reports whether id is a snapshot of the data directory newer
// than the newest one that verifies.
func (st *state) damaged(id string) bool {
	if st.good != nil && id <= st.good.ID {
		return false
	}
	for _, e := range st.entries {
		if e.ID == id {
			return true
		}
	}
	return false
}
