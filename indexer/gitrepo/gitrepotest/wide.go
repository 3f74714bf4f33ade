package gitrepotest

import (
	"fmt"
	"testing"
)

// WideModules is how many session modules Wide makes.
const WideModules = 12

// Wide makes, in one commit, a repository whose answers are large: a
// Python package of WideModules session modules that all sign cookies
// with one signing module, each with its own test, so that a question
// about session cookie signing fills every bucket of retrieve_context
// (its answer at the default k is over 6 KB of JSON). WideVault documents
// it under the name "app".
func Wide(t testing.TB, dir string) *Repo {
	r := New(t, dir)
	files := map[string]string{
		"shop/__init__.py": "# the shop package\n",
		"shop/signing.py": `"""Signs and verifies session cookies with the secret key."""


def sign_session_cookie(secret_key, payload):
    return secret_key + ":" + payload


def verify_session_cookie(secret_key, cookie):
    return cookie.startswith(secret_key + ":")
`,
	}
	for i := range WideModules {
		files[fmt.Sprintf("shop/sessions/session_store_backend_%02d.py", i)] = fmt.Sprintf(`"""Session store backend %[1]d: keeps the session cookie signed with the secret key."""
from shop.signing import sign_session_cookie, verify_session_cookie


class SessionCookieStoreBackend%[1]d:
    def save_signed_session_cookie(self, secret_key, session):
        return sign_session_cookie(secret_key, str(session))

    def open_signed_session_cookie(self, secret_key, cookie):
        return verify_session_cookie(secret_key, cookie)

    def rotate_session_secret_key(self, old_key, new_key, cookie):
        if verify_session_cookie(old_key, cookie):
            return sign_session_cookie(new_key, cookie)
`, i)
		files[fmt.Sprintf("tests/sessions/test_session_store_backend_%02d.py", i)] = fmt.Sprintf(`from shop.sessions.session_store_backend_%02[1]d import SessionCookieStoreBackend%[1]d


def test_session_cookie_is_signed_with_the_secret_key_%[1]d():
    SessionCookieStoreBackend%[1]d().save_signed_session_cookie("k", {})


def test_rotating_the_secret_key_keeps_the_session_cookie_%[1]d():
    SessionCookieStoreBackend%[1]d().rotate_session_secret_key("a", "b", "a:x")
`, i)
	}
	r.Commit("shop: session store backends", files)
	return r
}

// WideVault documents the Wide repository, named "app": a note per
// session module, each flagging its secret rotation as dangerous.
var WideVault = func() map[string]string {
	v := map[string]string{}
	for i := range WideModules {
		v[fmt.Sprintf("Sessions/Session store backend %02d.md", i)] = fmt.Sprintf(`---
type: Decision
---
# Session store backend %02[1]d signs the session cookie

The session cookie of backend %[1]d is signed with the secret key; rotating
the secret key must keep old cookies readable for one interval.

documents:: [[code:app/shop/sessions/session_store_backend_%02[1]d.py]]
dangerous:: [[code:app/shop/sessions/session_store_backend_%02[1]d.py#SessionCookieStoreBackend%[1]d]] {why: "rotating the secret key logs every user of backend %[1]d out"}
`, i)
	}
	return v
}()
