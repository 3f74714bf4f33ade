// Package s3bucket implements bucket.Bucket on the S3 protocol with the AWS
// SDK for Go v2, for AWS S3 and the stores that speak its protocol (MinIO,
// Ceph RGW, Cloudflare R2, Google Cloud Storage's S3 interface,
// versitygw).
//
// Credentials, region and endpoint come from the SDK's default chain and
// nowhere else: the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN, AWS_PROFILE, AWS_REGION), the shared config and
// credentials files (~/.aws/config, ~/.aws/credentials), SSO, web
// identity, and container and instance roles. Another store is reached by
// AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL (or endpoint_url in a profile);
// with one set, requests use path-style addressing
// (https://host/bucket/key), which every S3-compatible store accepts. No
// credential ever appears in a URL, a flag, an error or a log line: String
// names the bucket and prefix only.
//
// Checksums are sent only where this package asks for them (the
// x-amz-checksum-sha256 of every upload, which the store verifies) rather
// than the SDK's default trailing CRC32 on every request, which several
// S3-compatible stores refuse.
package s3bucket
