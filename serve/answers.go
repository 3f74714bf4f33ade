package serve

import (
	"container/list"
	"hash/maphash"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// A snapshot never changes, so the answer to a request is a function of
// the snapshot that answered it and the request itself. answers keeps
// the encoded bodies of recent successful answers of POST /query and POST
// /retrieve, by vault, route, snapshot id and request body, least recently
// used first out, within a byte budget (Options.AnswerCache). An answer
// found there is sent as it was first encoded, elapsed_ms included (the
// time computing it took), with the header X-Answer-Cache: hit; it takes
// no heavy slot and no snapshot reference, since nothing of the snapshot
// is read. Errors, 429s and timeouts are never kept, so a request that
// failed is computed again. Answers of a replaced snapshot are never hit
// again and leave as newer ones come in.
//
// An answer is kept the second time it is computed, not the first: the
// cache remembers the keys of answers computed once (a hash each, the
// last seenGeneration of them and the generation before), and keeps an
// answer whose key it remembers. Agents and scripts send many requests
// once; kept, their answers filled the budget with bodies never asked for
// again, a copy of every computed answer's body was garbage soon after,
// and the live heap held the budget besides the snapshot: under bench.sh's
// mixed load (every request new) the cache took 20 MB of a 180 MB live
// heap, and the heap limit gave it half as much again as headroom. A
// request sent again is computed twice, then answered from the cache.
type answers struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // of *answer, most recently used first
	byKey map[answerKey]*list.Element
	// seen and seenBefore hold the hashes of keys computed once, the
	// current generation and the one before it.
	seen, seenBefore map[uint64]struct{}
	seed             maphash.Seed
}

// seenGeneration is how many keys computed once a generation remembers:
// at 1,000 computed requests a second, a request sent again within 8 to
// 16 seconds is kept; the two generations take about 0.6 MB.
const seenGeneration = 8192

// answerKey names an answer. Body is the request body as sent: requests
// that differ only in spacing or member order are answered separately,
// which costs a recomputation, never a wrong answer.
type answerKey struct {
	vault, route, snapshot, query, body string
}

type answer struct {
	key  answerKey
	body []byte
}

// answerOverhead approximates the bytes an entry costs besides its key
// and body (list element, map slot, headers).
const answerOverhead = 160

// Answer cache bounds: a body or answer larger than a sixteenth of the
// budget is not kept, so that one answer cannot empty the cache.
const (
	DefaultAnswerCache = 16 << 20
	answerShare        = 16
)

// headerAnswerCache marks an answer sent from the cache.
const headerAnswerCache = "X-Answer-Cache"

func newAnswers(max int) *answers {
	if max <= 0 {
		return nil
	}
	return &answers{max: max, order: list.New(), byKey: map[answerKey]*list.Element{},
		seen: map[uint64]struct{}{}, seed: maphash.MakeSeed()}
}

// admit reports whether the answer to k, just computed, should be kept:
// when the cache does not hold it and it was computed once before. A key
// seen for the first time is remembered instead. (Two keys of the same
// hash make one of them kept at its first computation: never a wrong
// answer.)
func (a *answers) admit(k answerKey) bool {
	h := maphash.Comparable(a.seed, k)
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.byKey[k]; ok {
		return false
	}
	_, now := a.seen[h]
	_, before := a.seenBefore[h]
	if now || before {
		delete(a.seen, h)
		delete(a.seenBefore, h)
		return true
	}
	if len(a.seen) >= seenGeneration {
		a.seenBefore, a.seen = a.seen, make(map[uint64]struct{}, seenGeneration)
	}
	a.seen[h] = struct{}{}
	return false
}

func (k answerKey) cost() int {
	return len(k.vault) + len(k.route) + len(k.snapshot) + len(k.query) + len(k.body) + answerOverhead
}

func (a *answers) get(k answerKey) ([]byte, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.byKey[k]
	if !ok {
		return nil, false
	}
	a.order.MoveToFront(e)
	return e.Value.(*answer).body, true
}

// put keeps body (which the cache then owns) as the answer to k.
func (a *answers) put(k answerKey, body []byte) {
	cost := k.cost() + len(body)
	if cost > a.max/answerShare {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.byKey[k]; ok {
		return
	}
	a.byKey[k] = a.order.PushFront(&answer{key: k, body: body})
	a.size += cost
	for a.size > a.max {
		last := a.order.Back()
		old := last.Value.(*answer)
		a.order.Remove(last)
		delete(a.byKey, old.key)
		a.size -= old.key.cost() + len(old.body)
	}
}

// bytes is the budget in use.
func (a *answers) bytes() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.size
}

// cachedRoute answers a request from the answer cache when it holds the
// answer to it from the snapshot now served, and otherwise runs h and
// keeps its answer when it succeeded and was computed once before
// (answers.admit). It wraps a route whose handler
// holds the snapshot (heavyRoute(withSnapshot(...))), so a hit skips
// both; the key is made from the snapshot that answered, read after h,
// so an answer computed across a swap is kept under the snapshot that
// computed it.
func (s *Server) cachedRoute(route string, h fiber.Handler) fiber.Handler {
	if s.answers == nil {
		return h
	}
	return func(c *fiber.Ctx) error {
		v := s.vault(c)
		key := answerKey{vault: v.Name, route: route, query: string(c.Request().URI().QueryString())}
		if len(c.Body()) > s.answers.max/answerShare {
			return h(c)
		}
		if id := v.Store.Current(); id != "" {
			key.snapshot, key.body = id, string(c.Body())
			if body, ok := s.answers.get(key); ok {
				s.metrics.answerHits.Inc()
				c.Locals(localSnapshot, id)
				c.Set(headerSnapshot, id)
				c.Set(headerAnswerCache, "hit")
				c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
				return c.Send(body)
			}
		}
		if err := h(c); err != nil {
			return err
		}
		s.metrics.answerMisses.Inc()
		id, _ := c.Locals(localSnapshot).(string)
		if c.Response().StatusCode() != fiber.StatusOK || id == "" {
			return nil
		}
		if key.body == "" || key.snapshot != id {
			key.snapshot, key.body = id, string(c.Body())
		}
		if s.answers.admit(key) {
			s.answers.put(key, append([]byte(nil), c.Response().Body()...))
		}
		return nil
	}
}
