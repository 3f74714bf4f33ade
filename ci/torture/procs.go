package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ran is what a finished command did.
type ran struct {
	code           int // -1 when killed by a signal
	signal         string
	stdout, stderr string
}

func (r ran) String() string {
	what := fmt.Sprintf("exit %d", r.code)
	if r.signal != "" {
		what = "killed by " + r.signal
	}
	return fmt.Sprintf("%s; stderr: %s", what, tail(r.stderr, 600))
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// vg runs the binary to its end (or ctx's).
func (s *suite) vg(ctx context.Context, args ...string) (ran, error) {
	cmd := exec.CommandContext(ctx, s.bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := ran{stdout: out.String(), stderr: errb.String()}
	if ctx.Err() != nil {
		return r, fmt.Errorf("vaultgraph %s: %w", strings.Join(args, " "), ctx.Err())
	}
	if err != nil && cmd.ProcessState == nil {
		return r, err
	}
	r.code = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.signal = ws.Signal().String()
	}
	return r, nil
}

// vgOK runs the binary and fails unless it exits 0.
func (s *suite) vgOK(ctx context.Context, args ...string) (ran, error) {
	r, err := s.vg(ctx, args...)
	if err != nil {
		return r, err
	}
	if r.code != 0 {
		return r, fmt.Errorf("vaultgraph %s: %s", strings.Join(args, " "), r)
	}
	return r, nil
}

// crashed reports output that shows a crash (a Go panic, a fatal signal
// inside the engine) whatever the exit code.
func crashed(stderr string) bool {
	for _, sign := range []string{"panic:", "fatal error:", "SIGSEGV", "SIGABRT", "goroutine 1 ["} {
		if strings.Contains(stderr, sign) {
			return true
		}
	}
	return false
}

// treeSum describes every entry below dir (files by sha256, links by
// target, directories and modes), without following links, so that any
// write into a vault shows.
func treeSum(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "link " + target
		case d.IsDir():
			out[rel] = "dir " + info.Mode().String()
		default:
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("file %s %s %d", info.Mode(), hex.EncodeToString(h.Sum(nil)), info.ModTime().UnixNano())
		}
		return nil
	})
	return out, err
}

// sameTree compares two treeSum results and names the first differences.
func sameTree(before, after map[string]string) error {
	var diffs []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			diffs = append(diffs, "removed "+k)
		} else if w != v {
			diffs = append(diffs, "changed "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, "added "+k)
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	sort.Strings(diffs)
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("and %d more", len(diffs)-5))
	}
	return fmt.Errorf("the vault was written to: %s", strings.Join(diffs, ", "))
}

// server is a running `vaultgraph serve`.
type server struct {
	cmd    *exec.Cmd
	addr   string
	mu     sync.Mutex
	stderr bytes.Buffer
	exited chan struct{}
}

func (s *suite) startServer(ctx context.Context, data string, args ...string) (*server, error) {
	args = append([]string{"serve", "--data", data, "--addr", "127.0.0.1:0", "--graph-memory", "64"}, args...)
	cmd := exec.Command(s.bin, args...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	srv := &server{cmd: cmd, exited: make(chan struct{})}
	addr := make(chan string, 1)
	re := regexp.MustCompile(`msg=listening addr=(\S+)`)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			srv.mu.Lock()
			if srv.stderr.Len() < 4<<20 {
				srv.stderr.WriteString(line + "\n")
			}
			srv.mu.Unlock()
			if m := re.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		_ = cmd.Wait()
		close(srv.exited)
	}()
	select {
	case srv.addr = <-addr:
		return srv, nil
	case <-srv.exited:
		return nil, fmt.Errorf("serve exited before listening: %s", tail(srv.log(), 600))
	case <-ctx.Done():
		srv.stop()
		return nil, fmt.Errorf("serve did not start listening: %w", ctx.Err())
	}
}

func (srv *server) log() string {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.stderr.String()
}

// alive checks that the process runs, has not crashed and answers
// /health.
func (srv *server) alive(ctx context.Context) error {
	select {
	case <-srv.exited:
		return fmt.Errorf("the server exited (%s): %s", srv.cmd.ProcessState, tail(srv.log(), 800))
	default:
	}
	if crashed(srv.log()) {
		return fmt.Errorf("the server logged a crash: %s", tail(srv.log(), 800))
	}
	code, body, err := srv.do(ctx, http.MethodGet, "/health", "", nil)
	if err != nil {
		return fmt.Errorf("/health: %w", err)
	}
	if code != http.StatusOK {
		return fmt.Errorf("/health: %d %s", code, body)
	}
	return nil
}

// stop ends the server with SIGTERM and checks it exits cleanly.
func (srv *server) stop() error {
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-srv.exited:
	case <-time.After(2 * time.Minute):
		_ = srv.cmd.Process.Kill()
		<-srv.exited
		return fmt.Errorf("the server did not stop within 2 minutes of SIGTERM")
	}
	if code := srv.cmd.ProcessState.ExitCode(); code != 0 {
		return fmt.Errorf("the server exited %d after SIGTERM: %s", code, tail(srv.log(), 800))
	}
	return nil
}

var client = &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

// do sends one request and returns the status and body.
func (srv *server) do(ctx context.Context, method, path, contentType string, body io.Reader) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://"+srv.addr+path, body)
	if err != nil {
		return 0, "", err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	return resp.StatusCode, string(b), err
}

// postJSON posts v as JSON.
func (srv *server) postJSON(ctx context.Context, path string, v any) (int, string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, "", err
	}
	return srv.do(ctx, http.MethodPost, path, "application/json", bytes.NewReader(b))
}

// status reads /status.
func (srv *server) status(ctx context.Context) (statusReply, error) {
	var st statusReply
	code, body, err := srv.do(ctx, http.MethodGet, "/status", "", nil)
	if err != nil {
		return st, err
	}
	if code != http.StatusOK {
		return st, fmt.Errorf("/status: %d %s", code, body)
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		return st, fmt.Errorf("/status: %w", err)
	}
	return st, nil
}

type statusReply struct {
	Snapshot  string `json:"snapshot"`
	Snapshots struct {
		Rejected int64 `json:"rejected"`
		Swaps    int64 `json:"swaps"`
	} `json:"snapshots"`
}

// countQuery runs a query that returns one count and reads it.
func (srv *server) countQuery(ctx context.Context, query string) (int64, error) {
	code, body, err := srv.postJSON(ctx, "/query", map[string]any{"query": query})
	if err != nil {
		return 0, err
	}
	if code != http.StatusOK {
		return 0, fmt.Errorf("%s: %d %s", query, code, tail(body, 300))
	}
	var res struct {
		Rows [][]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		return 0, err
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		return 0, fmt.Errorf("%s: %s", query, tail(body, 300))
	}
	n, ok := res.Rows[0][0].(float64)
	if !ok {
		return 0, errors.New(query + ": not a count: " + tail(body, 300))
	}
	return int64(n), nil
}
