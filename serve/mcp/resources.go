package mcp

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
)

// Notes as resources.
const (
	uriScheme    = "vault://"
	noteMIMEType = "text/markdown"
	// Keys of the _meta of a note's contents.
	metaSnapshot = "vaultgraph/snapshot"
	metaNotice   = "vaultgraph/notice"
	metaPath     = "vaultgraph/path"
)

// noteURI is the resource URI of the note at path: vault:// and the path
// escaped as RFC 6570 simple expansion escapes a {path} value, every byte
// but the unreserved A-Z a-z 0-9 - . _ ~ percent-encoded (so "/" is %2F),
// which is what the template vault://{path} matches.
func noteURI(path string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(uriScheme) + len(path)*3/2)
	b.WriteString(uriScheme)
	for i := 0; i < len(path); i++ {
		c := path[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// notePath is the note path of a vault:// URI, percent-decoded.
func notePath(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, uriScheme)
	if !ok {
		return "", fmt.Errorf("%q is not a note resource: note URIs are vault://<path> with the path percent-encoded, e.g. vault://People%%2FAlice.md", uri)
	}
	p, err := url.PathUnescape(rest)
	if err != nil || p == "" {
		return "", fmt.Errorf("%q is not a note resource: the path is empty or not validly percent-encoded", uri)
	}
	return p, nil
}

func noteTemplate() mcp.ResourceTemplate {
	return mcp.NewResourceTemplate(uriScheme+"{path}", "note",
		mcp.WithTemplateTitle("A note of the vault"),
		mcp.WithTemplateDescription("A note's markdown by vault path, percent-encoded (vault://People%2FAlice.md), from the snapshot served. "+
			serve.VaultTextNotice),
		mcp.WithTemplateMIMEType(noteMIMEType))
}

// syncResources lists snap's notes (not stubs) as resources, replacing the
// previous list when the notes' paths, titles or sizes changed.
func (s *Server) syncResources(snap *store.Snapshot) {
	var resources []server.ServerResource
	h := sha256.New()
	if snap != nil && snap.Links != nil {
		g := snap.Links
		resources = make([]server.ServerResource, 0, g.Len())
		for i := range g.Len() {
			n := g.Note(int32(i))
			if n.Stub || n.Path == "" {
				continue
			}
			var size int64
			if note, ok := snap.Notes.Lookup(n.ID); ok {
				size = note.Size
			}
			uri := noteURI(n.Path)
			h.Write([]byte(uri + "\x00" + n.Title + "\x00" + strconv.FormatInt(size, 10) + "\x00"))
			resources = append(resources, server.ServerResource{
				Resource: mcp.NewResource(uri, n.Path, mcp.WithResourceTitle(n.Title), mcp.WithMIMEType(noteMIMEType), mcp.WithResourceSize(size)),
				Handler:  s.readResource,
			})
		}
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	if p := s.synced.Load(); p != nil && sum == s.notes {
		return
	}
	// SetResources notifies initialised sessions of the change.
	s.mcp.SetResources(resources...)
	s.notes = sum
}

// readResource reads a note by its vault:// URI from the snapshot served.
// The text is copied before the snapshot is released.
func (s *Server) readResource(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	path, err := notePath(req.Params.URI)
	if err != nil {
		return nil, err
	}
	snap, release := s.st.Acquire()
	defer release()
	if snap == nil {
		return nil, fmt.Errorf("%s", s.noSnapshot())
	}
	n, ok := snap.Notes.Lookup(path)
	if !ok || n.Stub {
		return nil, fmt.Errorf("no note %q in snapshot %s; list notes with resources/list, or find them with the vector_search tool", path, snap.ID)
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{
		URI: req.Params.URI, MIMEType: noteMIMEType, Text: strings.Clone(n.Content),
		Meta: map[string]any{metaSnapshot: snap.ID, metaPath: n.Path, metaNotice: serve.VaultTextNotice},
	}}, nil
}
