package s3bucket

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
)

// defaultRegion is used when the chain names none: S3-compatible stores
// mostly ignore the region but SigV4 needs one.
const defaultRegion = "us-east-1"

// Bucket is an S3 bucket under a prefix. It is safe for concurrent use.
type Bucket struct {
	client *s3.Client
	loc    bucket.Location
}

var _ bucket.Bucket = (*Bucket)(nil)

// Open returns the bucket at loc, configured by the SDK's default chain
// (see the package documentation). It makes no request: a missing bucket
// or bad credentials show up on first use.
func Open(ctx context.Context, loc bucket.Location) (*Bucket, error) {
	cfg, err := config.LoadDefaultConfig(ctx,
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	)
	if err != nil {
		return nil, fmt.Errorf("configure S3 for %s: %w", loc, err)
	}
	if cfg.Region == "" {
		cfg.Region = defaultRegion
	}
	pathStyle := os.Getenv("AWS_ENDPOINT_URL_S3") != "" || os.Getenv("AWS_ENDPOINT_URL") != "" || cfg.BaseEndpoint != nil
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = pathStyle
	})
	return &Bucket{client: client, loc: loc}, nil
}

// String returns s3://BUCKET/PREFIX.
func (b *Bucket) String() string { return b.loc.String() }

func (b *Bucket) key(k string) string {
	if b.loc.Prefix == "" {
		return k
	}
	return b.loc.Prefix + "/" + k
}

// List returns the objects whose keys start with prefix, in key order.
func (b *Bucket) List(ctx context.Context, prefix string) ([]bucket.Object, error) {
	full := b.key(prefix)
	strip := len(b.key(""))
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: &b.loc.Bucket, Prefix: &full})
	var out []bucket.Object
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, b.wrap("list", prefix, err)
		}
		for _, o := range page.Contents {
			k := aws.ToString(o.Key)
			if len(k) < strip {
				continue
			}
			out = append(out, bucket.Object{Key: k[strip:], Size: aws.ToInt64(o.Size), Modified: aws.ToTime(o.LastModified)})
		}
	}
	return out, nil
}

// Head describes the object at key.
func (b *Bucket) Head(ctx context.Context, key string) (bucket.Object, error) {
	full := b.key(key)
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.loc.Bucket, Key: &full})
	if err != nil {
		return bucket.Object{}, b.wrap("head", key, err)
	}
	return bucket.Object{Key: key, Size: aws.ToInt64(out.ContentLength), Modified: aws.ToTime(out.LastModified)}, nil
}

// Get opens the object at key.
func (b *Bucket) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	full := b.key(key)
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.loc.Bucket, Key: &full})
	if err != nil {
		return nil, b.wrap("get", key, err)
	}
	return out.Body, nil
}

// Put writes the object at key in one request.
func (b *Bucket) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, opts bucket.PutOptions) error {
	full := b.key(key)
	in := &s3.PutObjectInput{Bucket: &b.loc.Bucket, Key: &full, Body: body, ContentLength: &size}
	if opts.IfAbsent {
		in.IfNoneMatch = aws.String("*")
	}
	if opts.SHA256 != "" {
		raw, err := hex.DecodeString(opts.SHA256)
		if err != nil {
			return fmt.Errorf("put %s/%s: checksum %q: %w", b, key, opts.SHA256, err)
		}
		in.ChecksumSHA256 = aws.String(base64.StdEncoding.EncodeToString(raw))
	}
	if _, err := b.client.PutObject(ctx, in); err != nil {
		return b.wrap("put", key, err)
	}
	return nil
}

// Delete removes the object at key.
func (b *Bucket) Delete(ctx context.Context, key string) error {
	full := b.key(key)
	if _, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.loc.Bucket, Key: &full}); err != nil {
		if err := b.wrap("delete", key, err); !errors.Is(err, bucket.ErrNotFound) {
			return err
		}
	}
	return nil
}

// wrap maps the store's answers to the bucket package's errors and names
// the object and what to check.
func (b *Bucket) wrap(op, key string, err error) error {
	where := b.String() + "/" + key
	if key == "" || strings.HasSuffix(key, "/") {
		where = b.String() + "/" + key + "*"
	}
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	var nsb *types.NoSuchBucket
	var api smithy.APIError
	status := 0
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	code := ""
	if errors.As(err, &api) {
		code = api.ErrorCode()
	}
	switch {
	case errors.As(err, &nsb) || code == "NoSuchBucket":
		return fmt.Errorf("%s %s: the bucket %s does not exist (create it, or check the URL and AWS_ENDPOINT_URL_S3): %w", op, where, b.loc.Bucket, err)
	case unknownKey(code):
		return fmt.Errorf("%s %s: access denied: the store knows no such access key; check AWS_ACCESS_KEY_ID (or AWS_PROFILE, ~/.aws/credentials): %w", op, where, err)
	case op != "put" && op != "list" && (errors.As(err, &nsk) || errors.As(err, &nf) || code == "NoSuchKey" || code == "NotFound" ||
		(status == http.StatusNotFound && code == "")):
		// A put never means "no such object", and a 404 with a code of
		// its own (a store's unknown user) is that error, kept with its
		// message.
		return fmt.Errorf("%s %s: %w", op, where, bucket.ErrNotFound)
	case code == "PreconditionFailed" || code == "ConditionalRequestConflict" || status == http.StatusPreconditionFailed:
		return fmt.Errorf("%s %s: %w", op, where, bucket.ErrExists)
	case code == "AccessDenied" || code == "SignatureDoesNotMatch" || status == http.StatusForbidden:
		return fmt.Errorf("%s %s: access denied: check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or ~/.aws/credentials) and the bucket's policy: %w", op, where, err)
	}
	return fmt.Errorf("%s %s: %w", op, where, err)
}

// unknownKey reports whether a store's error code says the access key id
// is unknown: S3's InvalidAccessKeyId (403), or a 404 some stores send
// instead, such as versitygw's XAdminUserNotFound.
func unknownKey(code string) bool {
	return code == "InvalidAccessKeyId" || code == "XAdminUserNotFound"
}
