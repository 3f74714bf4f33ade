package embed

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"syscall"
	"time"
)

// retryPolicy retries an operation with exponential backoff and full
// jitter: attempt n waits a random time up to base*2^n, capped at max.
type retryPolicy struct {
	attempts int // total tries, at least 1
	base     time.Duration
	max      time.Duration
	// refusedIsFinal ends the tries at a refused connection: nothing
	// listens at the host, which retrying within a second rarely changes.
	refusedIsFinal bool
}

// forTask is the policy for embedding texts of task t. A query is embedded
// while somebody waits for the answer, and a search or retrieval can answer
// without vectors (from BM25), so a refused connection ends its tries at
// once instead of waiting out the backoff; an index run keeps retrying, as
// a model server being restarted comes back.
func (p retryPolicy) forTask(t Task) retryPolicy {
	p.refusedIsFinal = t == Query
	return p
}

// errPermanent marks an error that retrying cannot fix (a 400, a missing
// model, a bad key).
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return permanentError{err} }

// retryAfter marks an error whose server said how long to wait.
type retryAfterError struct {
	err  error
	wait time.Duration
}

func (e retryAfterError) Error() string { return e.err.Error() }
func (e retryAfterError) Unwrap() error { return e.err }

// do runs op until it succeeds, fails permanently, the attempts run out or
// ctx ends. It returns op's last error (ctx's error when ctx ended first).
func (p retryPolicy) do(ctx context.Context, op func(ctx context.Context) error) error {
	var err error
	for attempt := 0; attempt < max(p.attempts, 1); attempt++ {
		if attempt > 0 {
			wait := p.backoff(attempt)
			var ra retryAfterError
			if errors.As(err, &ra) && ra.wait > 0 {
				wait = min(ra.wait, p.max)
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		err = op(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var pe permanentError
		if errors.As(err, &pe) {
			return pe.err
		}
		if p.refusedIsFinal && errors.Is(err, syscall.ECONNREFUSED) {
			return err
		}
	}
	return err
}

func (p retryPolicy) backoff(attempt int) time.Duration {
	d := p.base << min(attempt-1, 20)
	if d <= 0 || d > p.max {
		d = p.max
	}
	return time.Duration(rand.Int64N(int64(d)) + 1)
}

// retryableStatus reports whether an HTTP status may pass on retry.
func retryableStatus(code int) bool {
	return code == 408 || code == 425 || code == 429 || code >= 500
}

// isTimeout reports a network timeout (the per-request deadline).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
