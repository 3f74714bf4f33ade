package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/cors"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"github.com/vaultgraph/vaultgraph/serve/store"
)

// Handler is the type of route handlers, including those of Mounts, and
// Ctx the request they are given.
type (
	Handler = fiber.Handler
	Ctx     = fiber.Ctx
)

// Server is the REST server over the snapshot stores of one or more
// vaults. It never writes to a snapshot or to a vault. Create it with New
// (one vault) or NewVaults, run it with Serve and stop it with Shutdown;
// the caller owns the stores and closes them after Shutdown returns.
//
// Every route answers at its path for the default vault and at
// /v/NAME/path for the vault NAME; a request holds its vault's store
// only, so no answer mixes vaults.
type Server struct {
	vaults  *store.Vaults
	opts    Options
	log     *slog.Logger
	app     *fiber.App
	metrics *metrics
	// heavy bounds the heavy requests of all vaults together, vaultHeavy
	// those of each vault (so that one busy vault leaves a slot to the
	// others); vaultHeavy is nil with one vault.
	heavy      *limiter
	answers    *answers // nil when Options.AnswerCache is negative
	vaultHeavy map[string]*limiter
	token      *[sha256.Size]byte
	started    time.Time
	ids        *idSource
	routes     map[string]bool // registered route patterns, the labels of metrics
	// patterns are the same, in registration order.
	patterns []string
	// inVault maps the /v/:vault variant of each route pattern to the
	// pattern itself, its label.
	inVault map[string]string
	// registered holds "METHOD pattern" of every route.
	registered map[string]bool
	openapi    []byte
}

// New builds the server's routes over st, the store of a single vault.
func New(st *store.Store, opts Options) (*Server, error) {
	return NewVaults(store.Single(st), opts)
}

// NewVaults builds the server's routes over every vault of vs.
func NewVaults(vs *store.Vaults, opts Options) (*Server, error) {
	opts = opts.withDefaults()
	s := &Server{
		vaults: vs, opts: opts, log: opts.Log,
		metrics: newMetrics(vs, opts.Collectors),
		token:   tokenDigest(opts.Token),
		started: time.Now(),
		ids:     newIDSource(),
		routes:  map[string]bool{}, registered: map[string]bool{}, inVault: map[string]string{},
	}
	s.heavy = newLimiter(opts.MaxHeavy, opts.HeavyWait, s.metrics)
	s.answers = newAnswers(opts.AnswerCache)
	if s.answers != nil {
		s.metrics.registerAnswers(s.answers)
	}
	if vs.Len() > 1 {
		// A vault may take all slots but one, so that a burst on one vault
		// never turns every request for another away.
		per := max(1, opts.MaxHeavy-1)
		s.vaultHeavy = map[string]*limiter{}
		for _, v := range vs.All() {
			s.vaultHeavy[v.Name] = newLimiter(per, opts.HeavyWait, s.metrics)
		}
	}
	names := []string{vs.Default().Name}
	for _, n := range vs.Names() {
		if n != names[0] {
			names = append(names, n)
		}
	}
	doc, err := openAPIDocument(opts.Version, names, opts.Mounts)
	if err != nil {
		return nil, err
	}
	s.openapi = doc
	s.app = fiber.New(fiber.Config{
		AppName:               "vaultgraph",
		DisableStartupMessage: true,
		CaseSensitive:         true,
		BodyLimit:             opts.BodyLimit,
		ReadTimeout:           opts.ReadTimeout,
		WriteTimeout:          opts.WriteTimeout,
		IdleTimeout:           opts.IdleTimeout,
		JSONEncoder:           encodeJSON,
		ErrorHandler:          s.serverError,
		// No route reads a form: a multipart body is refused by its
		// Content-Type (415), not parsed first.
		DisablePreParseMultipartForm: true,
	})
	s.app.Use(s.observe)
	s.app.Use(recover.New(recover.Config{EnableStackTrace: true, StackTraceHandler: s.logPanic}))
	if len(opts.CORSOrigins) > 0 {
		s.app.Use(cors.New(cors.Config{
			AllowOrigins:  strings.Join(opts.CORSOrigins, ","),
			AllowMethods:  "GET,POST,HEAD,OPTIONS",
			AllowHeaders:  "Authorization,Content-Type,X-Request-Id",
			ExposeHeaders: "X-Snapshot-Id,X-Request-Id,Retry-After",
		}))
	}
	s.app.Use(s.authenticate)
	if err := s.register(); err != nil {
		return nil, err
	}
	return s, nil
}

// register adds every route. Each must be documented in openapi.json
// (TestOpenAPIMatchesRoutes). Routes whose body is JSON take only
// Content-Type application/json (requireJSON), checked before they wait
// for a heavy slot.
func (s *Server) register() error {
	s.route(fiber.MethodGet, "/health", s.health)
	s.route(fiber.MethodGet, "/status", s.statusRoute)
	s.route(fiber.MethodPost, "/query", requireJSON(s.cachedRoute("/query", s.heavyRoute(s.withSnapshot(s.query)))))
	s.route(fiber.MethodPost, "/search", requireJSON(s.heavyRoute(s.withSnapshot(s.search))))
	s.route(fiber.MethodGet, "/notes/*", s.withSnapshot(s.note))
	s.route(fiber.MethodPost, "/graph", requireJSON(s.heavyRoute(s.withSnapshot(func(c *fiber.Ctx, snap *store.Snapshot) error {
		return s.linkGraph(c, snap.Links, nil)
	}))))
	s.route(fiber.MethodPost, "/retrieve", requireJSON(s.cachedRoute("/retrieve", s.heavyRoute(s.withSnapshot(func(c *fiber.Ctx, snap *store.Snapshot) error {
		return s.retrieval(c, snap.Retriever, snap.Embedder, snap.RetrieveErr)
	})))))
	s.route(fiber.MethodPost, "/retrieve_context", requireJSON(s.heavyRoute(s.withSnapshot(func(c *fiber.Ctx, snap *store.Snapshot) error {
		return s.retrieveContext(c, snap.Code, snap.CodeErr)
	}))))
	s.route(fiber.MethodGet, "/divergence", s.withSnapshot(func(c *fiber.Ctx, snap *store.Snapshot) error {
		return s.divergence(c, snap.Code, snap.CodeErr)
	}))
	s.route(fiber.MethodGet, "/metrics", s.metricsHandler())
	s.route(fiber.MethodGet, "/openapi.json", s.openAPI)
	s.route(fiber.MethodPost, "/admin/reload", s.reload)
	for _, m := range s.opts.Mounts {
		if s.registered[m.Method+" "+m.Path] {
			return fmt.Errorf("mount %s %s: route already registered", m.Method, m.Path)
		}
		h := m.Handler
		if m.Heavy {
			h = s.heavyRoute(h)
		}
		if takesJSON(m.Operation) {
			h = requireJSON(h)
		}
		// A mount answers for every vault itself (MCP tools take a vault
		// argument): it has no /v/NAME variant.
		s.addRoute(m.Method, m.Path, h)
	}
	return nil
}

// route adds a route at path, for the default vault, and at
// /v/:vault/path for the vault it names; a GET route answers HEAD too, as
// GET without the body (fasthttp leaves the body of a HEAD response out).
func (s *Server) route(method, path string, h fiber.Handler) {
	s.addRoute(method, path, h)
	prefixed := VaultPrefix + path
	s.app.Add(method, prefixed, s.inVaultRoute(h))
	s.inVault[prefixed] = path
	if method == fiber.MethodGet {
		s.app.Add(fiber.MethodHead, prefixed, s.inVaultRoute(h))
	}
}

// addRoute adds a route at path only (GET answers HEAD too).
func (s *Server) addRoute(method, path string, h fiber.Handler) {
	s.app.Add(method, path, h)
	if !s.routes[path] {
		s.patterns = append(s.patterns, path)
	}
	s.routes[path] = true
	s.registered[method+" "+path] = true
	if method == fiber.MethodGet {
		s.app.Add(fiber.MethodHead, path, h)
		s.registered[fiber.MethodHead+" "+path] = true
	}
}

// VaultPrefix is the route prefix that names the vault a request is for.
const VaultPrefix = "/v/:vault"

// inVaultRoute runs h for the vault the route's :vault parameter names, or
// answers 404 naming the vaults served.
func (s *Server) inVaultRoute(h fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		v, err := s.vaults.Lookup(c.Params("vault"))
		if err != nil {
			// No vault answered, so the 404 names no snapshot.
			c.Locals(localNoVault, true)
			return newError(http.StatusNotFound, KindNotFound, "%s; /v/NAME/... asks the vault NAME, the routes without it the default vault (%s)", err, s.vaults.Default().Name)
		}
		c.Locals(localVault, v)
		return h(c)
	}
}

// vault is the vault a request is for: the one its route names, else the
// default.
func (s *Server) vault(c *fiber.Ctx) store.Vault {
	if v, ok := c.Locals(localVault).(store.Vault); ok {
		return v
	}
	return s.vaults.Default()
}

// App returns the fiber application, for tests that walk its routes.
func (s *Server) App() *fiber.App { return s.app }

// Serve answers requests on ln until Shutdown. It refuses a listener on a
// non-loopback address when no token is configured.
func (s *Server) Serve(ln net.Listener) error {
	if err := CheckExposure(ln.Addr().String(), s.token != nil); err != nil {
		return err
	}
	return s.app.Listener(ln)
}

// Shutdown stops accepting connections and waits, until ctx ends, for the
// requests in flight to finish.
func (s *Server) Shutdown(ctx context.Context) error {
	return s.app.ShutdownWithContext(ctx)
}

// encodeJSON is fiber's JSON encoder: encoding/json without HTML
// escaping, since responses are read by programs, not pasted into pages.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// errorFor converts any error a handler returned into an API error; errors
// that are not the client's are logged and answered without detail.
func (s *Server) errorFor(c *fiber.Ctx, err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	if ae, ok := fromCypher(err); ok {
		return ae
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		return fromFiber(fe, s.opts.BodyLimit)
	}
	rid, _ := c.Locals(localRequestID).(string)
	s.log.Error("request failed", "request_id", rid, "route", s.routeLabel(c), "err", err)
	return newError(fiber.StatusInternalServerError, KindInternal, "internal error; the server log has the details under request id %s", rid)
}

// serverError handles errors raised before routing (a body over the
// limit, a read timeout, malformed HTTP), which skip the middleware.
func (s *Server) serverError(c *fiber.Ctx, err error) error {
	ae := s.errorFor(c, err)
	s.metrics.observe("", s.routeOf(c.Path()), c.Method(), ae.Status, 0)
	s.log.Debug("request refused before routing", "status", ae.Status, "kind", ae.Kind)
	cur := ""
	if s.authorized(c) {
		cur = s.vaults.Default().Store.Current()
	}
	if cur != "" {
		c.Set(headerSnapshot, cur)
	}
	return writeError(c, ae, cur)
}

func (s *Server) logPanic(c *fiber.Ctx, e any) {
	rid, _ := c.Locals(localRequestID).(string)
	s.log.Error("panic serving request", "request_id", rid, "route", s.routeLabel(c), "panic", fmt.Sprint(e), "stack", string(debug.Stack()))
}
