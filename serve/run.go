package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"time"

	"github.com/vaultgraph/vaultgraph/serve/store"
)

// Config is everything Run needs.
type Config struct {
	// DataDir holds the snapshots; it may not exist yet.
	DataDir string
	// Source, when set, replaces DataDir as where the snapshots come from
	// (a bucket mirrored into a cache: store.Bucket).
	Source store.Source
	// Addr is the listen address (DefaultAddr when empty).
	Addr string
	// Store opens snapshots; Server answers requests.
	Store  store.Options
	Server Options
	// Watch configures how new snapshots are noticed.
	Watch store.WatchOptions
	// ShutdownTimeout bounds the wait for requests in flight on shutdown
	// (default 30s).
	ShutdownTimeout time.Duration
	// Ready, when set, is called once the server accepts connections, with
	// the address it is bound to.
	Ready func(addr net.Addr)
}

// DefaultAddr is the default listen address: loopback only.
const DefaultAddr = "127.0.0.1:7337"

func (cfg Config) withDefaults() Config {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 30 * time.Second
	}
	cfg.Server = cfg.Server.withDefaults()
	cfg.Store.Log = cfg.Server.Log
	return cfg
}

// Run serves the data directory over HTTP until ctx ends, then shuts down
// gracefully: it stops accepting connections, lets the requests in flight
// finish (up to ShutdownTimeout), stops watching and closes every
// snapshot. It opens the newest good snapshot before it starts listening,
// so that its first answers come from a snapshot when there is one; with
// none it serves anyway, answering 503 with the reason on data routes
// until one is published.
func Run(ctx context.Context, cfg Config) error {
	cfg = cfg.withDefaults()
	if err := CheckExposure(cfg.Addr, cfg.Server.Token != ""); err != nil {
		return err
	}
	return WithStore(ctx, cfg, func(ctx context.Context, st *store.Store) error {
		return ServeHTTP(ctx, st, cfg)
	})
}

// WithStore runs serve with the data directory's snapshot store: it opens
// the newest good snapshot, keeps the store following new snapshots while
// serve runs, and closes every snapshot once serve has returned and its
// requests have finished. Every front end (HTTP, MCP on stdio) shares this
// lifecycle.
func WithStore(ctx context.Context, cfg Config, serve func(ctx context.Context, st *store.Store) error) error {
	cfg = cfg.withDefaults()
	log := cfg.Server.Log
	src := cfg.Source
	if src == nil {
		src = store.Local(cfg.DataDir)
	}
	st, err := store.NewFrom(src, cfg.Store)
	if err != nil {
		return err
	}
	if _, err := st.Refresh(ctx); err != nil {
		return errors.Join(fmt.Errorf("open snapshots: %w", err), st.Close(context.Background()))
	}
	if st.Current() == "" {
		msg := "no snapshot to serve yet; answering with the reason until one is published"
		if cfg.Source != nil {
			msg = "no snapshot in the bucket yet, or none that downloads and verifies; answering with the reason until one is pushed"
		} else if _, err := os.Stat(cfg.DataDir); errors.Is(err, fs.ErrNotExist) {
			msg = "the data directory does not exist yet (check the path if it should); waiting for vaultgraph index to create it and publish a snapshot"
		}
		log.Warn(msg, "data", src.String())
	}
	watchCtx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		_ = st.Watch(watchCtx, cfg.Watch)
	}()
	serveErr := serve(ctx, st)
	stopWatch()
	<-watched
	cctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	closeErr := st.Close(cctx)
	if serveErr == nil && closeErr == nil {
		log.Info("stopped")
	}
	return errors.Join(serveErr, closeErr)
}

// ServeHTTP answers the REST API (and cfg.Server.Mounts) over st on
// cfg.Addr until ctx ends, then stops accepting connections and lets the
// requests in flight finish, up to cfg.ShutdownTimeout. The caller owns st.
func ServeHTTP(ctx context.Context, st *store.Store, cfg Config) error {
	cfg = cfg.withDefaults()
	log := cfg.Server.Log
	srv, err := New(st, cfg.Server)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "snapshot", st.Current(), "token", cfg.Server.Token != "",
		"verify", cfg.Store.Verify, "mounts", len(cfg.Server.Mounts))
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr())
	}
	var serveErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down: finishing requests in flight")
	case serveErr = <-served:
		serveErr = fmt.Errorf("serve: %w", serveErr)
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	return errors.Join(serveErr, srv.Shutdown(sctx))
}
