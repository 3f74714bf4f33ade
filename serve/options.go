package serve

import (
	"log/slog"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Options configure a Server. The zero value of every field selects the
// default named in its comment.
type Options struct {
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// every route but /health. It is compared in constant time and never
	// logged. Without a token the server refuses requests whose Host
	// header is not a loopback name (DNS rebinding).
	Token string
	// AllowedHosts are further Host header names accepted without a token
	// (besides localhost and loopback addresses).
	AllowedHosts []string
	// CORSOrigins enables CORS for these origins ("*" for any). No CORS
	// headers are sent when empty.
	CORSOrigins []string

	// BodyLimit caps request bodies (default 1 MiB).
	BodyLimit int
	// ReadTimeout, WriteTimeout and IdleTimeout bound a connection reading
	// a request, writing a response and waiting for the next request
	// (defaults 10s, 60s, 120s). WriteTimeout should exceed QueryTimeout.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// QueryTimeout is the longest a query may run, and the default when a
	// request names none (default 30s).
	QueryTimeout time.Duration
	// MaxRows is the row cap of query results, and the default when a
	// request names none (default 1000).
	MaxRows int
	// MaxResultBytes caps the encoded rows of one result; rows past it are
	// cut and the result marked truncated (default 8 MiB).
	MaxResultBytes int
	// MaxK caps the hits of one search (default 100).
	MaxK int
	// MaxHeavy bounds the heavy requests (queries and searches) running at
	// once (default 2 x GOMAXPROCS). A request finding every slot taken
	// waits up to HeavyWait (default 200ms), then gets 429 with
	// Retry-After.
	MaxHeavy  int
	HeavyWait time.Duration
	// AnswerCache is the byte budget of the answers of POST /query and
	// POST /retrieve kept by snapshot and request (default
	// DefaultAnswerCache, 16 MiB; negative turns the cache off). See
	// answers.
	AnswerCache int
	// ReloadTimeout bounds POST /admin/reload (default 5m: opening a large
	// snapshot with --verify reads all of it).
	ReloadTimeout time.Duration

	// AccessLog logs every request at info level; otherwise at debug,
	// with failures (5xx) and slow requests always logged.
	AccessLog bool
	// Log receives the server's structured logs (discarded when nil).
	Log *slog.Logger
	// Version is reported by /status and /openapi.json.
	Version string

	// Mounts are routes added by other features (MCP over HTTP), served
	// behind the same authentication, limits, logging and metrics.
	Mounts []Mount
	// Collectors are further metrics of those features, served on
	// /metrics with the server's own.
	Collectors []prometheus.Collector
}

// Mount is a route another feature adds to the server.
type Mount struct {
	Method, Path string
	Handler      Handler
	// Heavy routes count against MaxHeavy.
	Heavy bool
	// Operation is the route's OpenAPI operation object (JSON); the
	// OpenAPI test requires one for every route.
	Operation []byte
}

// Defaults of Options.
const (
	DefaultBodyLimit      = 1 << 20
	DefaultReadTimeout    = 10 * time.Second
	DefaultWriteTimeout   = 60 * time.Second
	DefaultIdleTimeout    = 120 * time.Second
	DefaultQueryTimeout   = 30 * time.Second
	DefaultMaxRows        = 1000
	DefaultMaxResultBytes = 8 << 20
	DefaultMaxK           = 100
	DefaultHeavyWait      = 200 * time.Millisecond
	DefaultReloadTimeout  = 5 * time.Minute
)

// DefaultMaxHeavy is the default of Options.MaxHeavy.
func DefaultMaxHeavy() int { return 2 * runtime.GOMAXPROCS(0) }

func (o Options) withDefaults() Options {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	defInt := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defInt(&o.BodyLimit, DefaultBodyLimit)
	def(&o.ReadTimeout, DefaultReadTimeout)
	def(&o.WriteTimeout, DefaultWriteTimeout)
	def(&o.IdleTimeout, DefaultIdleTimeout)
	def(&o.QueryTimeout, DefaultQueryTimeout)
	defInt(&o.MaxRows, DefaultMaxRows)
	defInt(&o.MaxResultBytes, DefaultMaxResultBytes)
	defInt(&o.MaxK, DefaultMaxK)
	defInt(&o.MaxHeavy, DefaultMaxHeavy())
	def(&o.HeavyWait, DefaultHeavyWait)
	def(&o.ReloadTimeout, DefaultReloadTimeout)
	if o.AnswerCache == 0 {
		o.AnswerCache = DefaultAnswerCache
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	return o
}
