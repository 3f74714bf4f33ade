package bucket

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// Lock timing (see the package documentation). A holder rewrites its lock
// object every LockRefresh; one older than LockStale, by the store's
// clock, is stale.
const (
	LockRefresh = 5 * time.Minute
	LockStale   = 30 * time.Minute
)

// ErrLocked is returned by Push and GC when another push or gc holds the
// bucket in a way that excludes them.
var ErrLocked = errors.New("the bucket prefix is locked")

// Lock kinds.
const (
	lockPush = "push"
	lockGC   = "gc"
)

// lockInfo is the body of a lock object: who holds it, for messages and
// for telling a crashed holder on this host from a live one.
type lockInfo struct {
	Kind    string    `json:"kind"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
}

// heldLock is a lock object this process wrote and refreshes.
type heldLock struct {
	b    Bucket
	key  string
	body []byte
	stop chan struct{}
	done sync.WaitGroup
	once sync.Once
}

// acquireLock writes a lock of kind and checks the others: a gc lock
// excludes every other live lock, a push lock only live gc locks. On
// conflict it removes its own lock and returns ErrLocked naming the
// holder. The lock is refreshed until release is called.
func acquireLock(ctx context.Context, b Bucket, kind string) (*heldLock, error) {
	host, _ := os.Hostname()
	info := lockInfo{Kind: kind, Host: host, PID: os.Getpid(), Started: time.Now().UTC()}
	body, err := json.Marshal(info)
	if err != nil {
		return nil, err
	}
	l := &heldLock{b: b, key: locksDir + kind + "-" + ulid.Make().String() + manifestExt, body: body, stop: make(chan struct{})}
	if err := b.Put(ctx, l.key, bytes.NewReader(body), int64(len(body)), PutOptions{IfAbsent: true}); err != nil {
		return nil, fmt.Errorf("lock %s: %w", b, err)
	}
	conflict, err := l.check(ctx, kind)
	if err == nil && conflict != "" {
		err = fmt.Errorf("%w: %s; try again when it is done (a lock not refreshed for %s is ignored, or remove the lock object if its holder is gone)", ErrLocked, conflict, LockStale)
	}
	if err != nil {
		// Not ctx: the lock must go even when ctx ended.
		return nil, errors.Join(err, b.Delete(context.WithoutCancel(ctx), l.key))
	}
	l.done.Add(1)
	go l.refresh()
	return l, nil
}

// release stops refreshing the lock and removes it; calling it again is
// harmless. A lock that cannot be removed goes stale after LockStale.
func (l *heldLock) release() {
	l.once.Do(func() {
		close(l.stop)
		l.done.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = l.b.Delete(ctx, l.key)
	})
}

// check lists the lock objects and returns a description of the first
// live one that excludes a lock of kind, "" when none.
func (l *heldLock) check(ctx context.Context, kind string) (string, error) {
	own, err := l.b.Head(ctx, l.key)
	if err != nil {
		return "", fmt.Errorf("lock %s: %w", l.b, err)
	}
	locks, err := l.b.List(ctx, locksDir)
	if err != nil {
		return "", fmt.Errorf("lock %s: %w", l.b, err)
	}
	for _, o := range locks {
		if o.Key == l.key {
			continue
		}
		otherKind := lockKind(o.Key)
		if kind == lockPush && otherKind != lockGC {
			continue
		}
		info, live := lockLive(ctx, l.b, o, own.Modified)
		if live {
			return describeLock(l.b, o, info), nil
		}
	}
	return "", nil
}

// lockKind is the kind a lock key names ("" for a key that is no lock).
func lockKind(key string) string {
	name := strings.TrimPrefix(key, locksDir)
	kind, _, ok := strings.Cut(name, "-")
	if !ok {
		return ""
	}
	return kind
}

// lockLive reads the lock object o and reports whether it is live at now
// (the store's clock): refreshed within LockStale, and not held by a
// process of this host that has exited. A lock that cannot be read is
// taken as live unless it is stale by its age.
func lockLive(ctx context.Context, b Bucket, o Object, now time.Time) (lockInfo, bool) {
	var info lockInfo
	if now.Sub(o.Modified) > LockStale {
		return info, false
	}
	r, err := b.Get(ctx, o.Key)
	if err != nil {
		return info, !errors.Is(err, ErrNotFound)
	}
	data, err := io.ReadAll(io.LimitReader(r, 1<<16))
	r.Close()
	if err != nil || json.Unmarshal(data, &info) != nil {
		return info, true
	}
	if host, _ := os.Hostname(); info.Host == host && info.PID > 0 && !processAlive(info.PID) {
		return info, false
	}
	return info, true
}

func describeLock(b Bucket, o Object, info lockInfo) string {
	if info.Kind == "" {
		return fmt.Sprintf("%s/%s is held (written %s)", b, o.Key, o.Modified.Format(time.RFC3339))
	}
	return fmt.Sprintf("a %s from %s (pid %d) started %s holds %s/%s", info.Kind, info.Host, info.PID, info.Started.Format(time.RFC3339), b, o.Key)
}

// refresh rewrites the lock object every LockRefresh until stopped, so
// that others never take a long push or gc for a crashed one.
func (l *heldLock) refresh() {
	defer l.done.Done()
	t := time.NewTicker(LockRefresh)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), LockRefresh)
			_ = l.b.Put(ctx, l.key, bytes.NewReader(l.body), int64(len(l.body)), PutOptions{})
			cancel()
		}
	}
}

// staleLocks returns the lock objects that are stale at now.
func staleLocks(ctx context.Context, b Bucket, now time.Time, except string) ([]Object, error) {
	locks, err := b.List(ctx, locksDir)
	if err != nil {
		return nil, err
	}
	var out []Object
	for _, o := range locks {
		if o.Key == except {
			continue
		}
		if _, live := lockLive(ctx, b, o, now); !live {
			out = append(out, o)
		}
	}
	return out, nil
}
