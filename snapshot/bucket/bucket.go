package bucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// ErrNotFound is returned by Head and Get for a key the bucket does not
// hold.
var ErrNotFound = errors.New("no such object")

// ErrExists is returned by Put with IfAbsent when the key is already
// taken (HTTP 412 from If-None-Match: *).
var ErrExists = errors.New("object already exists")

// Object describes one object of a bucket.
type Object struct {
	// Key is relative to the bucket's prefix.
	Key  string
	Size int64
	// Modified is the store's time of the last write, by the store's
	// clock.
	Modified time.Time
}

// PutOptions qualify a Put.
type PutOptions struct {
	// IfAbsent creates the object only if the key is free (If-None-Match:
	// *), returning ErrExists otherwise. A store that does not support
	// conditional writes overwrites instead.
	IfAbsent bool
	// SHA256 is the hex sha256 of the body, sent for the store to check
	// where it supports checksums; "" sends none.
	SHA256 string
}

// Bucket is an object store under one prefix. Implementations are safe
// for concurrent use. Keys are relative to the prefix and use forward
// slashes.
type Bucket interface {
	// List returns every object whose key starts with prefix, in key
	// order.
	List(ctx context.Context, prefix string) ([]Object, error)
	// Head describes the object at key; ErrNotFound if there is none.
	Head(ctx context.Context, key string) (Object, error)
	// Get opens the object at key for reading; ErrNotFound if there is
	// none. The caller closes the reader.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// Put writes size bytes from body as the object at key. It reads body
	// from its start, possibly more than once (signing, retries), and
	// does not close it. The object appears whole or not at all.
	Put(ctx context.Context, key string, body io.ReadSeeker, size int64, opts PutOptions) error
	// Delete removes the object at key; a missing object is not an
	// error.
	Delete(ctx context.Context, key string) error
	// String names the bucket and prefix for messages (s3://bucket/prefix),
	// never a credential.
	String() string
}

// Location is a parsed s3://BUCKET/PREFIX.
type Location struct {
	Bucket string
	// Prefix has no leading or trailing slash; "" is the bucket's root.
	Prefix string
}

// String returns s3://BUCKET/PREFIX.
func (l Location) String() string {
	if l.Prefix == "" {
		return "s3://" + l.Bucket
	}
	return "s3://" + l.Bucket + "/" + l.Prefix
}

// IsURL reports whether s names a bucket (s3://...) rather than a local
// directory.
func IsURL(s string) bool {
	return strings.HasPrefix(strings.ToLower(s), "s3://")
}

// ParseURL parses s3://BUCKET/PREFIX. The bucket name must be a valid S3
// bucket name; the prefix may be empty and must not contain "." or ".."
// segments.
func ParseURL(s string) (Location, error) {
	if !IsURL(s) {
		return Location{}, fmt.Errorf("%q is not a bucket URL: write s3://BUCKET/PREFIX", s)
	}
	u, err := url.Parse(s)
	if err != nil {
		return Location{}, fmt.Errorf("bucket URL: %w (write s3://BUCKET/PREFIX)", errors.Unwrap(err))
	}
	if u.User != nil {
		// Not repeated: it may hold a secret.
		return Location{}, fmt.Errorf("a bucket URL with a user name or password: write s3://BUCKET/PREFIX (credentials come from the environment or ~/.aws, never the URL)")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return Location{}, fmt.Errorf("bucket URL %q: write s3://BUCKET/PREFIX, with no query or fragment", s)
	}
	loc := Location{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}
	if !validBucketName(loc.Bucket) {
		return Location{}, fmt.Errorf("bucket URL %q: %q is not a bucket name (3 to 63 lower-case letters, digits, dots and dashes)", s, loc.Bucket)
	}
	if loc.Prefix != "" {
		for _, seg := range strings.Split(loc.Prefix, "/") {
			if seg == "" || seg == "." || seg == ".." {
				return Location{}, fmt.Errorf("bucket URL %q: the prefix %q has an empty, . or .. segment", s, loc.Prefix)
			}
		}
	}
	return loc, nil
}

func validBucketName(s string) bool {
	if len(s) < 3 || len(s) > 63 {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		case (r == '-' || r == '.') && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}
