package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// requestsGroup sends abusive requests to a running server over a copy
// of the demo vault. After each, the server must be alive and answer
// /health; at the end the vault must be unchanged and the server stop
// cleanly.
func requestsGroup(s *suite) {
	vault := filepath.Join(s.tmp, "requests-vault")
	data := filepath.Join(s.tmp, "requests-data")
	var srv *server
	var before map[string]string
	if !s.run("index the demo vault, start a server", 10*time.Minute, func(ctx context.Context) error {
		if err := exec.CommandContext(ctx, "cp", "-R", "testdata/demo-vault", vault).Run(); err != nil {
			return err
		}
		if _, err := s.vgOK(ctx, "index", "--vault", vault, "--data", data, "--quiet"); err != nil {
			return err
		}
		var err error
		if before, err = treeSum(vault); err != nil {
			return err
		}
		srv, err = s.startServer(ctx, data)
		return err
	}) {
		return
	}
	for _, c := range abuses {
		s.run(c.name, 5*time.Minute, func(ctx context.Context) error {
			if err := c.run(ctx, srv); err != nil {
				return err
			}
			return srv.alive(ctx)
		})
	}
	s.run("the vault was not written to and the server stops cleanly", 3*time.Minute, func(ctx context.Context) error {
		after, err := treeSum(vault)
		if err != nil {
			return err
		}
		if err := sameTree(before, after); err != nil {
			return err
		}
		if _, err := s.vgOK(ctx, "snapshot", "verify", "--data", data); err != nil {
			return err
		}
		return srv.stop()
	})
}

type abuse struct {
	name string
	run  func(ctx context.Context, srv *server) error
}

// want4xx checks that a request was refused with a client error.
func want4xx(code int, body string, err error) error {
	if err != nil {
		return err
	}
	if code < 400 || code >= 500 {
		return fmt.Errorf("status %d, want a 4xx: %s", code, tail(body, 300))
	}
	return nil
}

// raw sends bytes over a new TCP connection and returns what comes back
// until the server closes it or a minute passes.
func raw(ctx context.Context, addr string, req []byte) (string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	if _, err := conn.Write(req); err != nil && !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
		return "", err
	}
	b, err := io.ReadAll(conn)
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return string(b), fmt.Errorf("no answer and no close within a minute")
		}
	}
	return string(b), nil
}

// rawStatus is the status code of a raw HTTP answer, 0 when the server
// closed the connection without one.
func rawStatus(answer string) int {
	var code int
	if _, err := fmt.Sscanf(answer, "HTTP/1.1 %d", &code); err != nil {
		fmt.Sscanf(answer, "HTTP/1.0 %d", &code)
	}
	return code
}

func nested(depth int) any {
	var v any = 1
	for range depth {
		v = []any{v}
	}
	return v
}

var abuses = []abuse{
	{"a parameter nested 1,000 deep", func(ctx context.Context, srv *server) error {
		return want4xx(srv.postJSON(ctx, "/query", map[string]any{"query": "RETURN $p AS x", "params": map[string]any{"p": nested(1000)}}))
	}},
	{"a search whose then-parameters nest 1,000 deep", func(ctx context.Context, srv *server) error {
		return want4xx(srv.postJSON(ctx, "/search", map[string]any{"query": "alice", "then": "RETURN $p", "params": map[string]any{"p": nested(1000)}}))
	}},
	{"a JSON body nested 100,000 deep", func(ctx context.Context, srv *server) error {
		body := `{"query":"RETURN 1","params":{"p":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}`
		return want4xx(srv.do(ctx, http.MethodPost, "/query", "application/json", strings.NewReader(body)))
	}},
	{"a query nested 10,000 parentheses deep", func(ctx context.Context, srv *server) error {
		q := "RETURN " + strings.Repeat("(", 10000) + "1" + strings.Repeat(")", 10000)
		return want4xx(srv.postJSON(ctx, "/query", map[string]any{"query": q}))
	}},
	{"a 64 MB body", func(ctx context.Context, srv *server) error {
		body := `{"query":"RETURN 1","params":{"p":"` + strings.Repeat("a", 64<<20) + `"}}`
		code, b, err := srv.do(ctx, http.MethodPost, "/query", "application/json", strings.NewReader(body))
		if err != nil {
			// The server may close the connection once the limit is
			// passed, before the client finished sending.
			if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "broken pipe") {
				return nil
			}
			return err
		}
		return want4xx(code, b, nil)
	}},
	{"a body longer than its Content-Length says, and one shorter", func(ctx context.Context, srv *server) error {
		long := "POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{\"query\":\"RETURN 1\"}"
		if a, err := raw(ctx, srv.addr, []byte(long)); err != nil {
			return err
		} else if c := rawStatus(a); c != 0 && (c < 400 || c >= 500) {
			return fmt.Errorf("longer body: %s", tail(a, 200))
		}
		short := "POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n{\"query\""
		a, err := raw(ctx, srv.addr, []byte(short))
		if err != nil {
			return err
		}
		if c := rawStatus(a); c != 0 && (c < 400 || c >= 500) {
			return fmt.Errorf("shorter body: %s", tail(a, 200))
		}
		return nil
	}},
	{"Content-Length and Transfer-Encoding together", func(ctx context.Context, srv *server) error {
		req := "POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
			"14\r\n{\"query\":\"RETURN 1\"}\r\n0\r\n\r\nGET /status HTTP/1.1\r\nHost: x\r\n\r\n"
		a, err := raw(ctx, srv.addr, []byte(req))
		if err != nil {
			return err
		}
		if strings.Count(a, "HTTP/1.1 ") > 1 {
			return fmt.Errorf("the smuggled request was answered: %s", tail(a, 300))
		}
		return nil
	}},
	{"a 1 MB header and 10,000 headers", func(ctx context.Context, srv *server) error {
		big := "GET /status HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 1<<20) + "\r\nConnection: close\r\n\r\n"
		a, err := raw(ctx, srv.addr, []byte(big))
		if err != nil {
			return err
		}
		if c := rawStatus(a); c != 0 && (c < 400 || c >= 500) {
			return fmt.Errorf("1 MB header answered %d", c)
		}
		var b strings.Builder
		b.WriteString("GET /status HTTP/1.1\r\nHost: x\r\n")
		for i := range 10000 {
			fmt.Fprintf(&b, "X-H%d: v\r\n", i)
		}
		b.WriteString("Connection: close\r\n\r\n")
		a, err = raw(ctx, srv.addr, []byte(b.String()))
		if err != nil {
			return err
		}
		if c := rawStatus(a); c != 0 && (c < 400 || c >= 500) {
			return fmt.Errorf("10,000 headers answered %d", c)
		}
		return nil
	}},
	{"bad UTF-8 in queries, searches, paths and JSON", func(ctx context.Context, srv *server) error {
		for _, body := range []string{`{"query":"RETURN '` + "\xff\xfe" + `' AS x"}`, `{"query":"MATCH (n {title: '` + "\xc3\x28" + `'}) RETURN n"}`} {
			code, b, err := srv.do(ctx, http.MethodPost, "/query", "application/json", strings.NewReader(body))
			if err != nil {
				return err
			}
			if code >= 500 {
				return fmt.Errorf("bad UTF-8 query: %d %s", code, tail(b, 200))
			}
		}
		code, b, err := srv.do(ctx, http.MethodPost, "/search", "application/json", strings.NewReader(`{"query":"`+"\xff\xfe\xfd"+`"}`))
		if err != nil {
			return err
		}
		if code >= 500 {
			return fmt.Errorf("bad UTF-8 search: %d %s", code, tail(b, 200))
		}
		code, b, err = srv.do(ctx, http.MethodGet, "/notes/%ff%fe.md", "", nil)
		if err != nil {
			return err
		}
		if code >= 500 {
			return fmt.Errorf("bad UTF-8 note path: %d %s", code, tail(b, 200))
		}
		return nil
	}},
	{"malformed JSON, wrong types and wrong content types", func(ctx context.Context, srv *server) error {
		for _, c := range []struct{ path, ctype, body string }{
			{"/query", "application/json", `{"query":`},
			{"/query", "application/json", `[1,2,3]`},
			{"/query", "application/json", `{"query":{"a":1}}`},
			{"/query", "application/json", `{"query":"RETURN 1","max_rows":-5,"timeout":"forever"}`},
			{"/query", "application/xml", `<query>RETURN 1</query>`},
			{"/search", "application/json", `{"query":"x","k":1e308}`},
			{"/search", "application/json", `{"query":"x","k":-1}`},
			{"/graph", "application/json", `{"op":"traverse","from":"` + strings.Repeat("a", 100000) + `","depth":1000000}`},
			{"/retrieve", "application/json", `{"query":"x","k":100000000,"depth":1000}`},
		} {
			if err := want4xx(srv.do(ctx, http.MethodPost, c.path, c.ctype, strings.NewReader(c.body))); err != nil {
				return fmt.Errorf("%s %s: %w", c.path, c.body[:min(len(c.body), 60)], err)
			}
		}
		return nil
	}},
	{"path traversal in note paths", func(ctx context.Context, srv *server) error {
		for _, p := range []string{"/notes/../../../../etc/passwd", "/notes/..%2f..%2f..%2f..%2fetc%2fpasswd", "/notes/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
			"/notes//etc/passwd", "/notes/People/..%5c..%5c..%5cetc%5cpasswd", "/v/..%2f..%2f/status", "/notes/%00.md"} {
			code, body, err := srv.do(ctx, http.MethodGet, p, "", nil)
			if err != nil {
				return err
			}
			if strings.Contains(body, "root:") {
				return fmt.Errorf("%s served a file outside the snapshot", p)
			}
			if code == http.StatusOK || code >= 500 {
				return fmt.Errorf("%s: %d %s", p, code, tail(body, 200))
			}
		}
		return nil
	}},
	{"path traversal in vault:// resources (MCP)", func(ctx context.Context, srv *server) error {
		session, err := mcpInitialize(ctx, srv)
		if err != nil {
			return err
		}
		for i, uri := range []string{"vault://../../../../etc/passwd", "vault://..%2F..%2F..%2Fetc%2Fpasswd", "vault:///etc/passwd",
			"vault://%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "vault://People%2F..%2F..%2F..%2Fetc%2Fpasswd", "file:///etc/passwd", "vault://" + strings.Repeat("%2F..", 5000)} {
			code, body, err := mcpCall(ctx, srv, session, i+2, "resources/read", map[string]any{"uri": uri})
			if err != nil {
				return err
			}
			if strings.Contains(body, "root:") {
				return fmt.Errorf("%s served a file outside the snapshot", uri)
			}
			if code >= 500 || !strings.Contains(body, `"error"`) {
				return fmt.Errorf("%s: %d %s", uri, code, tail(body, 300))
			}
		}
		return nil
	}},
	{"MCP arguments nested 1,000 deep and 10 MB", func(ctx context.Context, srv *server) error {
		session, err := mcpInitialize(ctx, srv)
		if err != nil {
			return err
		}
		code, body, err := mcpCall(ctx, srv, session, 2, "tools/call", map[string]any{"name": "query", "arguments": map[string]any{"query": "RETURN $p", "params": map[string]any{"p": nested(1000)}}})
		if err != nil {
			return err
		}
		if code >= 500 || !strings.Contains(body, "error") && !strings.Contains(body, `"isError":true`) {
			return fmt.Errorf("nested arguments: %d %s", code, tail(body, 300))
		}
		code, body, err = mcpCall(ctx, srv, session, 3, "tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": strings.Repeat("a ", 5<<20)}})
		if err != nil && !strings.Contains(err.Error(), "reset") && !strings.Contains(err.Error(), "broken pipe") {
			return err
		}
		if code >= 500 {
			return fmt.Errorf("10 MB arguments: %d %s", code, tail(body, 300))
		}
		return nil
	}},
	{"200 slowloris connections while others are served", func(ctx context.Context, srv *server) error {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for range 200 {
			c, err := net.Dial("tcp", srv.addr)
			if err != nil {
				return err
			}
			conns = append(conns, c)
			if _, err := c.Write([]byte("GET /status HTTP/1.1\r\nHost: x\r\nX-Slow: ")); err != nil {
				return err
			}
		}
		// Others are served while the slow requests are open.
		for i := range 20 {
			code, body, err := srv.do(ctx, http.MethodGet, "/status", "", nil)
			if err != nil || code != http.StatusOK {
				return fmt.Errorf("request %d while slow connections are open: %d %v %s", i, code, err, tail(body, 200))
			}
		}
		// The slow ones are cut off by the server's read timeout (10 s by
		// default); wait for the close, however long it takes.
		for i, c := range conns {
			_ = c.SetReadDeadline(time.Now().Add(3 * time.Minute))
			b, _ := io.ReadAll(bufio.NewReader(c))
			if c := rawStatus(string(b)); c == http.StatusOK {
				return fmt.Errorf("slow connection %d was answered 200", i)
			}
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return ctx.Err()
			}
		}
		return nil
	}},
	{"thousands of concurrent connections", func(ctx context.Context, srv *server) error {
		var lim syscall.Rlimit
		n := 2000
		if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && int(lim.Cur)/2-100 < n {
			n = int(lim.Cur)/2 - 100
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		codes := map[int]int{}
		var errs []string
		start := make(chan struct{})
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				tr := &http.Transport{DisableKeepAlives: true}
				defer tr.CloseIdleConnections()
				c := &http.Client{Transport: tr, Timeout: 3 * time.Minute}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+srv.addr+"/status", nil)
				resp, err := c.Do(req)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err.Error())
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				codes[resp.StatusCode]++
			}()
		}
		close(start)
		wg.Wait()
		bad := len(errs)
		for code, k := range codes {
			if code != http.StatusOK && code != http.StatusServiceUnavailable && code != http.StatusTooManyRequests {
				bad += k
			}
		}
		if bad > 0 {
			first := ""
			if len(errs) > 0 {
				first = errs[0]
			}
			return fmt.Errorf("%d of %d connections failed (statuses %v; first error %s)", bad, n, codes, first)
		}
		return nil
	}},
	{"200 concurrent heavy queries", func(ctx context.Context, srv *server) error {
		var wg sync.WaitGroup
		var mu sync.Mutex
		codes := map[int]int{}
		var first error
		for range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, _, err := srv.postJSON(ctx, "/query", map[string]any{"query": "MATCH (a)-[*1..4]-(b) RETURN count(*)"})
				mu.Lock()
				defer mu.Unlock()
				if err != nil && first == nil {
					first = err
				}
				codes[code]++
			}()
		}
		wg.Wait()
		if first != nil {
			return first
		}
		for code := range codes {
			if code >= 500 && code != http.StatusServiceUnavailable && code != http.StatusGatewayTimeout {
				return fmt.Errorf("statuses %v", codes)
			}
		}
		return nil
	}},
	{"write queries and procedure calls", func(ctx context.Context, srv *server) error {
		for _, q := range []string{"CREATE (n:X)", "MATCH (n) DETACH DELETE n", "MATCH (n) SET n.title = 'x'", "CALL show_tables()",
			"COPY Note FROM '/etc/passwd'", "LOAD FROM '/etc/passwd' RETURN *", "ATTACH '/tmp/x.kuzu' AS x", "INSTALL httpfs", "RETURN 1; CREATE (n)"} {
			code, body, err := srv.postJSON(ctx, "/query", map[string]any{"query": q})
			if err := want4xx(code, body, err); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		n, err := srv.countQuery(ctx, "MATCH (n) RETURN count(n)")
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("the notes are gone")
		}
		return nil
	}},
}

// mcpInitialize opens an MCP session over streamable HTTP and returns
// its id.
func mcpInitialize(ctx context.Context, srv *server) (string, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-03-26", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "torture", "version": "1"}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+srv.addr+"/mcp", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("initialize: %d %s", resp.StatusCode, tail(string(b), 300))
	}
	session := resp.Header.Get("Mcp-Session-Id")
	_, _, err = mcpSend(ctx, srv, session, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return session, err
}

func mcpCall(ctx context.Context, srv *server, session string, id int, method string, params any) (int, string, error) {
	return mcpSend(ctx, srv, session, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

func mcpSend(ctx context.Context, srv *server, session string, msg any) (int, string, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return 0, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+srv.addr+"/mcp", bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	return resp.StatusCode, string(b), err
}
