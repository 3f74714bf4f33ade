package embed_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/embed/embedtest"
)

const nomic = "nomic-embed-text:latest"

func TestOllamaRevisionIsTheModelDigest(t *testing.T) {
	srv := embedtest.NewOllama(t, "all-minilm:latest", nomic)
	e, err := embed.New("ollama:nomic-embed-text", fastRetries(embed.Config{OllamaHost: srv.URL()}))
	if err != nil {
		t.Fatal(err)
	}
	r := e.(embed.Revisioner)
	ctx := context.Background()
	if got := e.Info().Revision; got != "" {
		t.Errorf("revision before a lookup = %q, want none", got)
	}
	rev, err := r.Revision(ctx, 0)
	if err != nil || rev != srv.ModelDigest(nomic) || e.Info().Revision != rev {
		t.Fatalf("Revision = %q, %v; info %q; want the server's digest %q", rev, err, e.Info().Revision, srv.ModelDigest(nomic))
	}
	// ollama pull fetches new weights: an answer within maxAge comes from
	// the last lookup, maxAge 0 asks again.
	srv.SetDigest(nomic, embedtest.Digest("v2"))
	if again, err := r.Revision(ctx, time.Hour); err != nil || again != rev {
		t.Errorf("cached Revision = %q, %v, want the first digest %q", again, err, rev)
	}
	if srv.Lookups() != 1 {
		t.Errorf("%d lookups, want 1 (the second answer is cached)", srv.Lookups())
	}
	if rev, err := r.Revision(ctx, 0); err != nil || rev != embedtest.Digest("v2") || e.Info().Revision != rev {
		t.Errorf("Revision after the pull = %q, %v, want the new digest", rev, err)
	}

	// A model the server does not have.
	other, err := embed.New("ollama:mxbai-embed-large", fastRetries(embed.Config{OllamaHost: srv.URL()}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.(embed.Revisioner).Revision(ctx, 0); err == nil || !strings.Contains(err.Error(), "ollama pull mxbai-embed-large:latest") {
		t.Errorf("Revision of a missing model: err = %v, want a hint to pull it", err)
	}
	// A server that is down.
	srv.Fail(embedtest.Drop, -1)
	if _, err := r.Revision(ctx, 0); err == nil {
		t.Error("Revision with the server down: no error")
	}
}

func TestCheckComparesRevisions(t *testing.T) {
	e, err := embed.New("ollama", fastRetries(embed.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	info := e.Info()
	for _, tc := range []struct {
		recorded, now string
		mismatch      bool
	}{
		{"", "", false},
		{"aaaa", "", false}, // the server could not be asked
		{"", "bbbb", false}, // a manifest from before revisions
		{"aaaa", "aaaa", false},
		{"aaaa", "bbbb", true},
	} {
		rec := info.Manifest(768)
		rec.Revision = tc.recorded
		in := info
		in.Revision = tc.now
		err := embed.Check(rec, in)
		if got := errors.Is(err, embed.ErrModelMismatch); got != tc.mismatch {
			t.Errorf("recorded %q, now %q: err = %v, want mismatch %v", tc.recorded, tc.now, err, tc.mismatch)
		}
	}
}

// TestForSnapshotRefusesQueriesAfterAPull: a query embedder made for a
// snapshot checks the server's digest, at most once per RevisionTTL, and
// refuses once the model's weights changed under its name.
func TestForSnapshotRefusesQueriesAfterAPull(t *testing.T) {
	srv := embedtest.NewOllama(t)
	ctx := context.Background()
	recordedWith := func(rev string) *format.Embedder {
		e, err := embed.New("ollama", fastRetries(embed.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		m := e.Info().Manifest(embed.BuiltinDims)
		m.Revision = rev
		return m
	}
	query := func(rec *format.Embedder, ttl time.Duration) error {
		e, err := embed.ForSnapshot(rec, fastRetries(embed.Config{OllamaHost: srv.URL(), RevisionTTL: ttl}))
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := e.Embed(ctx, embed.Query, []string{"who funds search"}); err != nil {
				return err
			}
		}
		return nil
	}

	rec := recordedWith(srv.ModelDigest(nomic))
	if err := query(rec, time.Hour); err != nil {
		t.Fatalf("query with the recorded digest: %v", err)
	}
	if srv.Lookups() != 1 {
		t.Errorf("3 queries looked the digest up %d times, want 1", srv.Lookups())
	}

	srv.SetDigest(nomic, embedtest.Digest("v2"))
	err := query(rec, time.Nanosecond)
	if !errors.Is(err, embed.ErrModelMismatch) || !strings.Contains(err.Error(), "vaultgraph index --reembed") {
		t.Fatalf("query after a pull: err = %v, want ErrModelMismatch with the --reembed hint", err)
	}
	if err := query(recordedWith(embedtest.Digest("v2")), time.Nanosecond); err != nil {
		t.Errorf("query of a snapshot re-embedded with the new weights: %v", err)
	}

	// A snapshot from before revisions never asks.
	before := srv.Lookups()
	if err := query(recordedWith(""), time.Nanosecond); err != nil || srv.Lookups() != before {
		t.Errorf("snapshot without a revision: err %v, %d lookups", err, srv.Lookups()-before)
	}
	// A server that is down fails the query with its own error.
	srv.Fail(embedtest.Drop, -1)
	if err := query(rec, time.Nanosecond); err == nil || errors.Is(err, embed.ErrModelMismatch) {
		t.Errorf("query with the server down: err = %v, want the network error", err)
	}
}
