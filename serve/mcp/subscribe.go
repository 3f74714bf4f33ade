package mcp

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// maxSubscriptions bounds the notes one session may subscribe to; further
// subscriptions are acknowledged but not tracked, and logged.
const maxSubscriptions = 10000

// subscriptions are the notes sessions subscribed to (resources/subscribe)
// and the content signature each had when the session last heard of it
// ("" for no such note), so that a swap tells each session which of its
// notes changed (notifications/resources/updated). Memory is bounded by
// what sessions subscribed to, never by the vault. Safe for concurrent
// use.
type subscriptions struct {
	mu        sync.Mutex
	bySession map[string]map[string]string
}

// signature is the content signature of the note a vault:// URI names in
// the snapshots served, "" when it names none.
func (s *Server) signature(snaps []servedSnapshot, uri string) string {
	v, path, err := s.resourceNote(uri)
	if err != nil {
		return ""
	}
	for _, x := range snaps {
		if x.vault != v.Name || x.snap == nil {
			continue
		}
		if n, ok := x.snap.Notes.Lookup(path); ok && !n.Stub {
			return n.Signature
		}
	}
	return ""
}

// subscribeHooks tracks subscriptions through mcp-go's hooks.
func (s *Server) subscribeHooks(hooks *server.Hooks) {
	hooks.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		cs := server.ClientSessionFromContext(ctx)
		if cs == nil {
			return
		}
		sig := ""
		if v, _, err := s.resourceNote(req.Params.URI); err == nil {
			snap, release := v.Store.Acquire()
			sig = s.signature([]servedSnapshot{{vault: v.Name, snap: snap}}, req.Params.URI)
			release()
		}
		s.subs.mu.Lock()
		defer s.subs.mu.Unlock()
		if s.subs.bySession == nil {
			s.subs.bySession = map[string]map[string]string{}
		}
		uris := s.subs.bySession[cs.SessionID()]
		if uris == nil {
			uris = map[string]string{}
			s.subs.bySession[cs.SessionID()] = uris
		}
		if _, ok := uris[req.Params.URI]; !ok && len(uris) >= maxSubscriptions {
			s.log.Warn("MCP session subscribed to too many notes; not tracking more", "max", maxSubscriptions)
			return
		}
		uris[req.Params.URI] = sig
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			s.subs.mu.Lock()
			defer s.subs.mu.Unlock()
			delete(s.subs.bySession[cs.SessionID()], req.Params.URI)
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) {
		s.subs.mu.Lock()
		defer s.subs.mu.Unlock()
		delete(s.subs.bySession, cs.SessionID())
	})
}

// notifyUpdated tells every session which of its subscribed notes the
// snapshots served changed, added or removed since it last heard.
func (s *Server) notifyUpdated(snaps []servedSnapshot) {
	type update struct{ session, uri string }
	var updates []update
	s.subs.mu.Lock()
	for session, uris := range s.subs.bySession {
		for uri, was := range uris {
			if now := s.signature(snaps, uri); now != was {
				uris[uri] = now
				updates = append(updates, update{session, uri})
			}
		}
	}
	s.subs.mu.Unlock()
	for _, u := range updates {
		// A session that went away meanwhile is no error.
		_ = s.mcp.SendNotificationToSpecificClient(u.session, string(mcp.MethodNotificationResourceUpdated), map[string]any{"uri": u.uri})
	}
}
