package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/vaultgraph/vaultgraph/serve/store"
)

// Config is everything Run needs.
type Config struct {
	// DataDir holds the snapshots; it must exist.
	DataDir string
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

// Run serves the data directory until ctx ends, then shuts down
// gracefully: it stops accepting connections, lets the requests in flight
// finish (up to ShutdownTimeout), stops watching and closes every
// snapshot. It opens the newest good snapshot before it starts listening,
// so that its first answers come from a snapshot when there is one; with
// none it serves anyway, answering 503 with the reason on data routes
// until one is published.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 30 * time.Second
	}
	if err := CheckExposure(cfg.Addr, cfg.Server.Token != ""); err != nil {
		return err
	}
	cfg.Store.Log = cfg.Server.Log
	st, err := store.New(cfg.DataDir, cfg.Store)
	if err != nil {
		return err
	}
	log := cfg.Server.withDefaults().Log
	if _, err := st.Refresh(ctx); err != nil {
		return errors.Join(fmt.Errorf("open snapshots: %w", err), st.Close(context.Background()))
	}
	if st.Current() == "" {
		log.Warn("no snapshot to serve yet; answering 503 on data routes until one is published", "data", cfg.DataDir)
	}
	srv, err := New(st, cfg.Server)
	if err != nil {
		return errors.Join(err, st.Close(context.Background()))
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return errors.Join(fmt.Errorf("listen: %w", err), st.Close(context.Background()))
	}
	watchCtx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		_ = st.Watch(watchCtx, cfg.Watch)
	}()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "snapshot", st.Current(), "token", cfg.Server.Token != "",
		"verify", cfg.Store.Verify)
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
	shutdownErr := srv.Shutdown(sctx)
	stopWatch()
	<-watched
	closeErr := st.Close(sctx)
	if serveErr == nil && shutdownErr == nil && closeErr == nil {
		log.Info("stopped")
	}
	return errors.Join(serveErr, shutdownErr, closeErr)
}
