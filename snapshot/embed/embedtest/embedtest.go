// Package embedtest runs in-process HTTP servers that speak the wire
// formats of Ollama's POST /api/embed and GET /api/tags (the models and
// their digests) and OpenAI's POST /v1/embeddings, for tests of the remote
// embedders and of everything built on them. They embed with the builtin
// embedder (so vectors mean something), check every request they receive
// the way the real servers would, count what they embed, and can be told
// to fail or, for Ollama, to report a model's new digest after a pull.
package embedtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// Failure is how a server answers while it is failing.
type Failure int

const (
	// OK answers normally.
	OK Failure = iota
	// Status500 answers 500 {"error": "..."}.
	Status500
	// Status429 answers 429 Too Many Requests.
	Status429
	// Hang answers nothing until the client gives up (a timeout).
	Hang
	// Drop closes the connection without an answer (a crashed server).
	Drop
)

// server is what both fakes share: counting, failure injection and
// request problems.
type server struct {
	t        testing.TB
	srv      *httptest.Server
	builtin  *embed.Builtin
	mu       sync.Mutex
	hits     int // every request, failed ones too
	requests int
	texts    []string
	problems []string
	failing  Failure
	failN    int // failures left; -1 = until told otherwise
	okLeft   int // requests answered before failing starts
}

func newServer(t testing.TB, h func(s *server, w http.ResponseWriter, r *http.Request)) *server {
	s := &server{t: t, builtin: embed.NewBuiltin()}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits++
		s.mu.Unlock()
		h(s, w, r)
	}))
	t.Cleanup(func() {
		s.srv.CloseClientConnections()
		s.srv.Close()
		if p := s.Problems(); len(p) > 0 {
			t.Errorf("embedding server received bad requests:\n%s", strings.Join(p, "\n"))
		}
	})
	return s
}

// URL returns the server's base URL.
func (s *server) URL() string { return s.srv.URL }

// Fail makes the next n requests (n < 0: every request until Fail(OK, 0))
// fail the way f says.
func (s *server) Fail(f Failure, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing, s.failN, s.okLeft = f, n, 0
}

// FailAfter answers the next ok requests normally, then fails every
// request the way f says until Fail(OK, 0).
func (s *server) FailAfter(ok int, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing, s.failN, s.okLeft = f, -1, ok
}

// Requests returns the number of requests answered with vectors.
func (s *server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Hits returns the number of requests received, failed ones included.
func (s *server) Hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits
}

// Texts returns every text embedded, prefixes included, in arrival order.
func (s *server) Texts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.texts)
}

// Reset forgets the texts and requests counted so far.
func (s *server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.texts, s.requests, s.hits = nil, 0, 0
}

// Problems lists requests that did not follow the wire format.
func (s *server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.problems)
}

func (s *server) problem(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.problems = append(s.problems, fmt.Sprintf(format, args...))
}

// failure returns the failure to inject for this request, if any.
func (s *server) failure() Failure {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failing == OK || s.failN == 0 {
		return OK
	}
	if s.okLeft > 0 {
		s.okLeft--
		return OK
	}
	if s.failN > 0 {
		s.failN--
	}
	return s.failing
}

// inject answers a failing request; it reports whether it did.
func (s *server) inject(w http.ResponseWriter, r *http.Request, errBody string) bool {
	switch s.failure() {
	case Status500:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, errBody)
	case Status429:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, errBody)
	case Hang:
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	case Drop:
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
			}
		}
	default:
		return false
	}
	return true
}

// embed computes vectors for texts and counts them.
func (s *server) embed(texts []string) [][]float32 {
	vecs, err := s.builtin.Embed(context.Background(), embed.Document, texts)
	if err != nil {
		s.t.Errorf("embedtest: %v", err)
	}
	s.mu.Lock()
	s.requests++
	s.texts = append(s.texts, texts...)
	s.mu.Unlock()
	return vecs
}

func (s *server) checkJSONPost(r *http.Request, path string) bool {
	ok := true
	if r.Method != http.MethodPost {
		s.problem("%s %s: want POST", r.Method, r.URL.Path)
		ok = false
	}
	if r.URL.Path != path {
		s.problem("%s %s: want path %s", r.Method, r.URL.Path, path)
		ok = false
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		s.problem("%s: Content-Type %q, want application/json", r.URL.Path, ct)
	}
	return ok
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
