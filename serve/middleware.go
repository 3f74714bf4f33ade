package serve

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
)

// Response headers and request locals.
const (
	headerSnapshot  = "X-Snapshot-Id"
	headerRequestID = "X-Request-Id"
	localRequestID  = "request_id"
	localSnapshot   = "snapshot"
	// localNoVault marks a request for a vault the server does not serve.
	localNoVault    = "no_vault"
	localAuthorized = "authorized"
	localVault      = "vault"
)

// slowRequest is the duration past which a request is logged at warn
// level even without the access log.
const slowRequest = 2 * time.Second

// observe is the outermost middleware: it gives the request an id,
// renders any error the rest of the chain returned (so that metrics and
// logs see the final status), makes sure the response names a snapshot
// when the client may read it (a request refused by authenticate, or a
// CORS preflight, learns nothing about the vault, not even which snapshot
// is served), and records metrics and the log line. It logs the route
// pattern, never the path (note names), the body or the query.
func (s *Server) observe(c *fiber.Ctx) error {
	start := time.Now()
	rid := c.Get(headerRequestID)
	if !validRequestID(rid) {
		rid = s.ids.next()
	}
	c.Locals(localRequestID, rid)
	c.Set(headerRequestID, rid)

	err := c.Next()
	snap, _ := c.Locals(localSnapshot).(string)
	if ok, _ := c.Locals(localAuthorized).(bool); !ok {
		snap = ""
	} else if none, _ := c.Locals(localNoVault).(bool); snap == "" && !none {
		snap = s.vault(c).Store.Current()
	}
	if err != nil {
		ae := s.errorFor(c, err)
		if werr := writeError(c, ae, snap); werr != nil {
			s.log.Error("writing an error response", "request_id", rid, "err", werr)
		}
	}
	if snap != "" && len(c.Response().Header.Peek(headerSnapshot)) == 0 {
		c.Set(headerSnapshot, snap)
	}
	status := c.Response().StatusCode()
	route := s.routeLabel(c)
	d := time.Since(start)
	s.metrics.observe(s.vault(c).Name, route, c.Method(), status, d)

	level := slog.LevelDebug
	switch {
	case status >= 500:
		level = slog.LevelError
	case d > slowRequest:
		level = slog.LevelWarn
	case s.opts.AccessLog:
		level = slog.LevelInfo
	}
	if s.log.Enabled(c.UserContext(), level) {
		s.log.Log(c.UserContext(), level, "request", "request_id", rid, "method", c.Method(), "route", route,
			"status", status, "ms", float64(d.Microseconds())/1000, "snapshot", snap, "bytes", len(c.Response().Body()))
	}
	return nil
}

// routeLabel is the route pattern that answered, or whose path the
// request names when it was refused before a route took it (401, 403,
// 413, or a method the route does not have); "unmatched" for paths no
// route has, so that scanners cannot blow up the label set.
func (s *Server) routeLabel(c *fiber.Ctx) string {
	if r := c.Route(); r != nil && r.Method == c.Method() {
		if s.routes[r.Path] {
			return r.Path
		}
		if p, ok := s.inVault[r.Path]; ok {
			return p
		}
	}
	return s.routeOf(c.Path())
}

// routeOf is the registered pattern matching path ("/notes/*" for
// /notes/People/Bob.md), "unmatched" when none does. The result is the
// pattern, never path, whose bytes fiber reuses.
func (s *Server) routeOf(path string) string {
	// /v/NAME/<route> counts under <route>.
	if rest, ok := strings.CutPrefix(path, "/v/"); ok {
		if name, tail, ok := strings.Cut(rest, "/"); ok {
			if _, err := s.vaults.Lookup(name); err == nil && name != "" {
				path = "/" + tail
			}
		}
	}
	for _, p := range s.patterns {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(path, prefix) {
				return p
			}
		} else if path == p {
			return p
		}
	}
	return "unmatched"
}

// withSnapshot runs h on the current snapshot, holding a reference for the
// whole request, or answers 503 when no snapshot is served yet. The
// response is encoded into memory of its own before the reference is
// released.
func (s *Server) withSnapshot(h func(*fiber.Ctx, *store.Snapshot) error) fiber.Handler {
	return func(c *fiber.Ctx) error {
		st := s.vault(c).Store
		snap, release := st.Acquire()
		defer release()
		if snap == nil {
			return noSnapshot(st)
		}
		c.Locals(localSnapshot, snap.ID)
		c.Set(headerSnapshot, snap.ID)
		return h(c, snap)
	}
}

// noSnapshot says why nothing is served yet, or no longer (the served
// snapshot was deleted and none other opens), with the last rejection when
// there was one.
func noSnapshot(store *store.Store) *apiError {
	st := store.Stats()
	watching := store.DataDir() + "/snapshots"
	publish := "run vaultgraph index --vault VAULT --data " + store.DataDir()
	if src := store.Source(); bucket.IsURL(src) {
		watching = src
		publish = "run vaultgraph index --vault VAULT --data DATA --push " + src
	}
	msg := "no snapshot is being served yet: the server is watching " + watching +
		" and serves the first good snapshot as soon as it is published (" + publish + ")"
	if fb := st.LastFallback; fb != nil && fb.Serving == "" {
		msg = "no snapshot is being served: snapshot " + fb.Deleted + " was deleted from disk (" + fb.Reason +
			") and no other snapshot opens; the server is watching " + watching +
			" and serves the next good snapshot as soon as it is published (" + publish + ")"
	}
	if st.LastRejection != nil {
		msg += "; " + strconv.FormatInt(st.Rejected, 10) + " snapshots were rejected, the last (" +
			st.LastRejection.ID + ") because: " + st.LastRejection.Reason
	}
	e := newError(http.StatusServiceUnavailable, KindNotReady, "%s", msg)
	e.RetryAfter = 5
	return e
}

// limiter bounds the heavy requests running at once. A request that finds
// every slot taken waits briefly, then is turned away: a queue of slow
// queries would only make every client time out.
type limiter struct {
	slots   chan struct{}
	wait    time.Duration
	metrics *metrics
}

func newLimiter(n int, wait time.Duration, m *metrics) *limiter {
	return &limiter{slots: make(chan struct{}, n), wait: wait, metrics: m}
}

func (l *limiter) acquire() bool {
	select {
	case l.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

func (l *limiter) release() { <-l.slots }

// heavyRoute runs h in one of the heavy slots, or answers 429 with
// Retry-After. The slot is taken before the snapshot, so waiting for one
// does not keep an old snapshot open.
func (s *Server) heavyRoute(h fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if per := s.vaultHeavy[s.vault(c).Name]; per != nil {
			if !per.acquire() {
				return s.tooMany(cap(per.slots), " for this vault")
			}
			defer per.release()
		}
		if !s.heavy.acquire() {
			return s.tooMany(cap(s.heavy.slots), "")
		}
		s.metrics.heavyInFlight.Inc()
		defer func() {
			s.metrics.heavyInFlight.Dec()
			s.heavy.release()
		}()
		return h(c)
	}
}

func (s *Server) tooMany(n int, scope string) error {
	s.metrics.heavyRejected.Inc()
	e := newError(http.StatusTooManyRequests, KindTooMany,
		"%d queries and searches are already running%s; retry shortly", n, scope)
	e.RetryAfter = 1
	return e
}

// idSource makes request ids: a random per-process prefix and a counter,
// unique without a syscall per request.
type idSource struct {
	prefix string
	n      atomic.Uint64
}

func newIDSource() *idSource {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return &idSource{prefix: hex.EncodeToString(b)}
}

func (ids *idSource) next() string {
	return ids.prefix + "-" + strconv.FormatUint(ids.n.Add(1), 36)
}

// validRequestID accepts a client's request id only when it is short and
// plain, since it goes into logs and headers.
func validRequestID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == ':') {
			return false
		}
	}
	return true
}
