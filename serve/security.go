package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// TokenEnv is the environment variable holding the bearer token.
const TokenEnv = "VAULTGRAPH_TOKEN"

// MinTokenLength is the shortest token accepted: a token is the only thing
// between the network and the vault's contents.
const MinTokenLength = 16

// LoadToken returns the bearer token from file (when given) or else from
// the environment variable TokenEnv, "" when neither is set. A token that is
// too short is refused; warning is non-empty when the file can be read by
// other users.
func LoadToken(file string, getenv func(string) string) (token, warning string, err error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", "", fmt.Errorf("read token file: %w", err)
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return "", "", fmt.Errorf("token file %s is empty", file)
		}
		if fi, err := os.Stat(file); err == nil && fi.Mode().Perm()&0o077 != 0 {
			warning = fmt.Sprintf("token file %s can be read by other users (mode %s); chmod 600 it", file, fi.Mode().Perm())
		}
	} else {
		token = strings.TrimSpace(getenv(TokenEnv))
	}
	if token != "" && len(token) < MinTokenLength {
		return "", "", fmt.Errorf("the bearer token is %d characters long; use at least %d (e.g. openssl rand -hex 32)", len(token), MinTokenLength)
	}
	return token, warning, nil
}

// CheckExposure refuses an address that cannot be listened on (no port,
// a port out of range), and a non-loopback address without a token. addr is host:port as given to --addr or the address a listener
// is bound to; an empty host or a wildcard address is not loopback, and
// neither is a name other than localhost (it may resolve anywhere).
func CheckExposure(addr string, haveToken bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w (write HOST:PORT, e.g. 127.0.0.1:7337)", addr, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("listen address %q: invalid port %q: give a port from 1 to 65535 (0 for any free one)", addr, port)
	}
	if haveToken {
		return nil
	}
	if isLoopbackHost(host) {
		return nil
	}
	return fmt.Errorf("refusing to listen on %s without a bearer token: anyone who can reach that address could read the vault. "+
		"Set %s or pass --token-file FILE (clients then send \"Authorization: Bearer <token>\"), or bind to 127.0.0.1", addr, TokenEnv)
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// tokenDigest is compared instead of the token itself, so the comparison
// takes the same time whatever the length of the token sent.
func tokenDigest(token string) *[sha256.Size]byte {
	if token == "" {
		return nil
	}
	d := sha256.Sum256([]byte(token))
	return &d
}

// authenticate enforces the bearer token on every route but /health, and
// without a token refuses Host headers that are not loopback names, so a
// web page cannot reach a loopback server through DNS rebinding. A request
// it lets through is marked, so that responses name the snapshot only to
// clients allowed to read it (see observe).
func (s *Server) authenticate(c *fiber.Ctx) error {
	if c.Path() == "/health" {
		return c.Next()
	}
	if err := s.authorize(c); err != nil {
		return err
	}
	c.Locals(localAuthorized, true)
	return c.Next()
}

// authorize returns the error of a request that may not read the vault: a
// missing or wrong token when the server has one, a Host header that is
// not a loopback name (nor allowed) when it has none, and, either way, a
// browser request from a web page of another origin than those allowed
// with --cors-origin.
func (s *Server) authorize(c *fiber.Ctx) *apiError {
	if origin := c.Get(fiber.HeaderOrigin); origin != "" && !s.originAllowed(origin, string(c.Request().Host())) {
		return newError(fiber.StatusForbidden, KindForbidden,
			"a web page of origin %s may not read this server (allow it with --cors-origin %s)", origin, origin)
	}
	if s.token == nil {
		host := string(c.Request().Host())
		if host == "" {
			// Without a token the Host header is the only guard against
			// DNS rebinding; a request that sends none cannot be checked.
			return newError(fiber.StatusForbidden, KindForbidden,
				"the request has no Host header; send one naming the server (localhost or 127.0.0.1), or configure a token")
		}
		if !s.hostAllowed(host) {
			return newError(fiber.StatusForbidden, KindForbidden,
				"Host header is not a loopback name; this server takes only local requests (use --allow-host, or configure a token)")
		}
		return nil
	}
	scheme, tok, ok := strings.Cut(c.Get(fiber.HeaderAuthorization), " ")
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	if !ok || !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(sum[:], s.token[:]) != 1 {
		return newError(fiber.StatusUnauthorized, KindUnauthorized, `send "Authorization: Bearer <token>"`)
	}
	return nil
}

// authorized reports whether the request passed authenticate, or would
// have (for /health and for errors raised before routing), and may so
// learn which snapshot is served.
func (s *Server) authorized(c *fiber.Ctx) bool {
	if ok, _ := c.Locals(localAuthorized).(bool); ok {
		return true
	}
	return s.authorize(c) == nil
}

// originAllowed reports whether a browser may send a request from a page of
// origin to this server: an origin named with --cors-origin ("*" for any),
// or the server's own (the Host the request was sent to). Browsers send
// Origin with every cross-origin request, simple POSTs included, which
// CORS alone does not stop from reaching the server; other clients send
// none.
func (s *Server) originAllowed(origin, host string) bool {
	for _, o := range s.opts.CORSOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}

func (s *Server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if isLoopbackHost(host) {
		return true
	}
	for _, h := range s.opts.AllowedHosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}
