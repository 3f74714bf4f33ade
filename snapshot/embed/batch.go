package embed

import (
	"context"
	"sync"
	"sync/atomic"
)

// EmbedDocuments embeds texts as documents in batches of the embedder's
// size, running up to its concurrency of batches at once. It returns one
// vector per text, nil for each text that could not be embedded, and the
// error that stopped it (nil when every text has a vector).
//
// Once a batch fails (its retries exhausted) no further batch is started:
// a server that is down costs one batch's retries, not one per batch, and
// the texts left are reported as not embedded. When ctx ends it returns
// ctx's error. progress, if not nil, is called (from several goroutines,
// but never concurrently) with the number of texts embedded so far.
func EmbedDocuments(ctx context.Context, e Embedder, texts []string, progress func(done int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	size, conc := e.Batch()
	size, conc = max(size, 1), max(conc, 1)
	batches := (len(texts) + size - 1) / size
	var (
		next     atomic.Int64
		failed   atomic.Bool
		mu       sync.Mutex
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	for range min(conc, batches) {
		wg.Go(func() {
			for {
				b := int(next.Add(1)) - 1
				if b >= batches || failed.Load() || ctx.Err() != nil {
					return
				}
				lo, hi := b*size, min((b+1)*size, len(texts))
				vecs, err := e.Embed(ctx, Document, texts[lo:hi])
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					failed.Store(true)
					mu.Unlock()
					return
				}
				copy(out[lo:hi], vecs)
				done += hi - lo
				if progress != nil {
					progress(done)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return out, err
	}
	return out, firstErr
}
