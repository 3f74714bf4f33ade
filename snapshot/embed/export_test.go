package embed

// NewBuiltinDims exposes the builtin embedder at another dimension, to test
// that the fingerprint follows it.
func NewBuiltinDims(dims int) *Builtin { return newBuiltin(dims) }
