package mcp

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
	"slices"
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
// which is what the template vault://{path} matches. With several vaults
// the vault's name comes first, vault://NAME/People%2FAlice.md, which the
// template vault://{vault}/{path} matches.
func noteURI(vault, path string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(uriScheme) + len(vault) + 1 + len(path)*3/2)
	b.WriteString(uriScheme)
	if vault != "" {
		b.WriteString(vault + "/")
	}
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

// notePath is the vault name (when the URI has one) and note path of a
// vault:// URI, percent-decoded. The path's slashes are percent-encoded,
// so a plain slash can only end a vault name.
func notePath(uri string) (vault, path string, err error) {
	rest, ok := strings.CutPrefix(uri, uriScheme)
	if !ok {
		return "", "", errors.New("not a note resource: note URIs are vault://<path> with the path percent-encoded, e.g. vault://People%2FAlice.md")
	}
	if name, p, ok := strings.Cut(rest, "/"); ok {
		vault, rest = name, p
	}
	path, err = url.PathUnescape(rest)
	if err != nil || path == "" {
		return "", "", errors.New("not a note resource: the path is empty or not validly percent-encoded")
	}
	return vault, path, nil
}

func noteTemplate(vaults bool) mcp.ResourceTemplate {
	if vaults {
		return mcp.NewResourceTemplate(uriScheme+"{vault}/{path}", "note",
			mcp.WithTemplateTitle("A note of a vault"),
			mcp.WithTemplateDescription("A note's markdown by vault name and path, the path percent-encoded (vault://work/People%2FAlice.md), from the snapshot served. "+
				serve.VaultTextNotice),
			mcp.WithTemplateMIMEType(noteMIMEType))
	}
	return mcp.NewResourceTemplate(uriScheme+"{path}", "note",
		mcp.WithTemplateTitle("A note of the vault"),
		mcp.WithTemplateDescription("A note's markdown by vault path, percent-encoded (vault://People%2FAlice.md), from the snapshot served. "+
			serve.VaultTextNotice),
		mcp.WithTemplateMIMEType(noteMIMEType))
}

// resourceVault is the vault name a note URI carries: "" with one vault.
func (s *Server) resourceVault(name string) string {
	if s.vaults.Len() > 1 {
		return name
	}
	return ""
}

// syncResources lists the notes (not stubs) of every vault's snapshot as
// resources, replacing the previous list when the notes' paths, titles or
// sizes changed.
func (s *Server) syncResources(snaps []servedSnapshot) {
	var resources []server.ServerResource
	h := sha256.New()
	for _, x := range snaps {
		snap := x.snap
		if snap == nil || snap.Links == nil {
			continue
		}
		g := snap.Links
		resources = slices.Grow(resources, g.Len())
		for i := range g.Len() {
			n := g.Note(int32(i))
			if n.Stub || n.Path == "" {
				continue
			}
			var size int64
			if note, ok := snap.Notes.Lookup(n.ID); ok {
				size = note.Size
			}
			uri := noteURI(s.resourceVault(x.vault), n.Path)
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
// The text is copied before the snapshot is released. A URI that names no
// note was turned away before (markMissing), unless a swap removed the
// note since.
func (s *Server) readResource(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	v, path, err := s.resourceNote(req.Params.URI)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Params.URI, err)
	}
	snap, release := v.Store.Acquire()
	defer release()
	if snap == nil {
		return nil, errors.New(s.noSnapshot(v))
	}
	n, ok := snap.Notes.Lookup(path)
	if !ok || n.Stub {
		return nil, errors.New(noNote(path, snap.ID))
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{
		URI: req.Params.URI, MIMEType: noteMIMEType, Text: strings.Clone(n.Content),
		Meta: map[string]any{metaSnapshot: snap.ID, metaPath: n.Path, metaNotice: serve.VaultTextNotice},
	}}, nil
}

// markMissing runs before mcp-go looks up the resource a resources/read
// names. When the URI names no note of the snapshot served (or is no note
// URI, or no snapshot is served yet), it appends the reason to the URI, so
// that neither a listed resource nor the vault://{path} template matches:
// mcp-go then answers with the protocol's resource-not-found error (-32002,
// or -32602 from protocol version 2026-07-28 on, chosen per request),
// whose message quotes the URI and so the reason. The resource handler
// cannot do this itself: mcp-go v1.2.1 reports any error a handler returns
// as an internal error (-32603) and offers no way to pick the code.
func (s *Server) markMissing(_ context.Context, _ any, req *mcp.ReadResourceRequest) {
	if reason := s.missing(req.Params.URI); reason != "" {
		req.Params.URI += " (" + reason + ")"
	}
}

// missing says why uri names no note that can be read now, or returns "".
func (s *Server) missing(uri string) string {
	v, path, err := s.resourceNote(uri)
	if err != nil {
		return err.Error()
	}
	snap, release := v.Store.Acquire()
	defer release()
	if snap == nil {
		return s.noSnapshot(v)
	}
	if n, ok := snap.Notes.Lookup(path); !ok || n.Stub {
		return noNote(path, snap.ID)
	}
	if !s.template.URITemplate.Regexp().MatchString(uri) {
		// People/Alice.md written with its slash: the template does not
		// match, and mcp-go would only say the URI is unknown.
		return "the path must be percent-encoded: " + noteURI(s.resourceVault(v.Name), path)
	}
	return ""
}

// resourceNote is the vault and note path a URI names. With several
// vaults the URI must name one; with one, a URI naming it is read too.
func (s *Server) resourceNote(uri string) (store.Vault, string, error) {
	name, path, err := notePath(uri)
	if err != nil {
		return store.Vault{}, "", err
	}
	if name == "" && s.vaults.Len() > 1 {
		return store.Vault{}, "", fmt.Errorf("name the vault: vault://NAME/path with NAME one of %s", strings.Join(s.vaults.Names(), ", "))
	}
	if s.vaults.Len() == 1 && name != "" && name != s.vaults.Default().Name {
		// A path whose slash was not encoded (vault://People/Alice.md):
		// missing says how to write it.
		name, path = "", name+"/"+path
	}
	v, err := s.vaults.Lookup(name)
	if err != nil {
		return store.Vault{}, "", err
	}
	return v, path, nil
}

// noNote says that a path names no note, and how to find notes.
func noNote(path, snapshot string) string {
	return fmt.Sprintf("no note %q in snapshot %s; resources/list lists the notes, and the vector_search tool finds them by meaning", path, snapshot)
}
