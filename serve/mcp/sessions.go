package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"
)

// Defaults of the HTTP sessions (Options.MaxSessions, Options.SessionIdle).
const (
	DefaultMaxSessions = 1000
	DefaultSessionIdle = 30 * time.Minute
)

// errUnknownSession is the answer to a session id that was never handed
// out, was ended with DELETE, or expired.
var errUnknownSession = errors.New("unknown session")

// sessions are the MCP sessions of streamable HTTP: handed out on
// initialize, checked on every later request, ended by DELETE, by idling
// past Options.SessionIdle (mcp-go's sweeper terminates them) or, past
// Options.MaxSessions, by a newer one (the least recently used goes).
// It implements mcp-go's server.SessionIdManager. Ended ids are forgotten
// at once: an ended session and one that never existed get the same
// answer (404), so nothing accumulates. Each session has at most one
// event stream (GET /mcp); ending the session, opening a newer stream or
// closing the registry ends it. Safe for concurrent use.
type sessions struct {
	mu     sync.Mutex
	max    int
	live   map[string]*session
	closed bool
	// done ends with Close, and every stream with it.
	done   context.Context
	cancel context.CancelFunc
}

type session struct {
	// version is the protocol version negotiated on initialize.
	version  string
	lastUsed time.Time
	// endStream ends the session's event stream, nil when none is open.
	endStream context.CancelFunc
	stream    uint64
}

func newSessions(max int) *sessions {
	done, cancel := context.WithCancel(context.Background())
	return &sessions{max: max, live: map[string]*session{}, done: done, cancel: cancel}
}

// Generate hands out a new session id: 128 random bits.
func (r *sessions) Generate() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.live) >= r.max {
		r.evictOldest()
	}
	r.live[id] = &session{lastUsed: time.Now()}
	return id
}

// evictOldest ends the least recently used session. r.mu is held.
func (r *sessions) evictOldest() {
	var oldest string
	var at time.Time
	for id, s := range r.live {
		if oldest == "" || s.lastUsed.Before(at) {
			oldest, at = id, s.lastUsed
		}
	}
	r.endLocked(oldest)
}

// Validate reports errUnknownSession for an id that is not live.
func (r *sessions) Validate(id string) (terminated bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.live[id]
	if !ok {
		return false, errUnknownSession
	}
	s.lastUsed = time.Now()
	return false, nil
}

// Terminate ends a session and its event stream; ending one that is not
// live is a no-op. Clients may always end their sessions.
func (r *sessions) Terminate(id string) (notAllowed bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endLocked(id)
	return false, nil
}

func (r *sessions) endLocked(id string) {
	if s, ok := r.live[id]; ok {
		if s.endStream != nil {
			s.endStream()
		}
		delete(r.live, id)
	}
}

// setVersion records the protocol version a session negotiated.
func (r *sessions) setVersion(id, version string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.live[id]; ok {
		s.version = version
	}
}

// version returns the protocol version a live session negotiated.
func (r *sessions) version(id string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.live[id]
	if !ok {
		return "", false
	}
	return s.version, true
}

// openStream returns the context of a new event stream of session id,
// which ends when the session does, when a newer stream of the session is
// opened, or on Close; and the function the stream calls when it ends.
// It fails with errUnknownSession when id is not live.
func (r *sessions) openStream(id string) (context.Context, func(), error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.live[id]
	if !ok || r.closed {
		return nil, nil, errUnknownSession
	}
	if s.endStream != nil {
		s.endStream()
	}
	ctx, cancel := context.WithCancel(r.done)
	s.stream++
	n := s.stream
	s.endStream = cancel
	s.lastUsed = time.Now()
	return ctx, func() {
		cancel()
		r.mu.Lock()
		defer r.mu.Unlock()
		if s, ok := r.live[id]; ok && s.stream == n {
			s.endStream = nil
		}
	}, nil
}

// count is the number of live sessions.
func (r *sessions) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.live)
}

// Close ends every event stream and refuses new ones, so that the HTTP
// server's shutdown does not wait for streams that never end. Sessions
// stay valid for the requests in flight.
func (r *sessions) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	r.cancel()
}
