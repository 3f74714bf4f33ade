package vectors

import (
	"math/rand"
	"testing"
)

// TestBuildKernelsAgree compares every build kernel this CPU has with the
// portable one on random codes (-127..127) of several lengths.
func TestBuildKernelsAgree(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	codes := func(n, pad int) []byte {
		b := make([]byte, pad)
		for i := range n {
			b[i] = byte(int8(r.Intn(255) - 127))
		}
		return b
	}
	for _, n := range []int{1, 20, 32, 64, 100, 256, 384, 1000, 1536} {
		for range 20 {
			cl := codeLen(n)
			cl64 := (cl + 63) / 64 * 64
			ci, ri, cj, rj := codes(n, cl64), codes(n, cl64), codes(n, cl64), codes(n, cl64)
			var sc, sr int32
			for k := range cl64 {
				sc += int32(int8(cj[k]))
				sr += int32(int8(rj[k]))
			}
			off := make([]byte, cl64)
			for k := range off {
				off[k] = ci[k] + 128
			}
			var q buildQuery
			q.set(ci[:cl], ri[:cl], cl64, off)
			wantCC, wantCross := dotBuildGo(q.qc, q.qr, cj, rj)
			// exact, from the definition
			var cc, cross int32
			for k := range n {
				cc += int32(int8(ci[k])) * int32(int8(cj[k]))
				cross += int32(int8(ci[k]))*int32(int8(rj[k])) + int32(int8(ri[k]))*int32(int8(cj[k]))
			}
			if cc != wantCC || cross != wantCross {
				t.Fatalf("n %d: portable kernel %d %d, want %d %d", n, wantCC, wantCross, cc, cross)
			}
			if gotCC, gotCross := buildDots(&q, cj, rj, sc, sr); gotCC != cc || gotCross != cross {
				t.Fatalf("n %d (VNNI %v, AVX2 %v): build kernel %d %d, want %d %d", n, useVNNI, useAVX2, gotCC, gotCross, cc, cross)
			}
			var q2 buildQuery // without offset planes, on a file's code length
			q2.set(ci[:cl], ri[:cl], cl, nil)
			if gotCC, gotCross := buildDots(&q2, cj[:cl], rj[:cl], 0, 0); gotCC != cc || gotCross != cross {
				t.Fatalf("n %d: file-length kernel %d %d, want %d %d", n, gotCC, gotCross, cc, cross)
			}
			if got, want := pairCodes(off, ci, cj, sc), dotCodes8Go(ci, cj); got != want || got != cc {
				t.Fatalf("n %d: pair kernel %d, portable %d, want %d", n, got, want, cc)
			}
		}
	}
	t.Logf("VNNI %v, AVX2 %v", useVNNI, useAVX2)
}

func BenchmarkBuildKernels(b *testing.B) {
	const n = 256
	r := rand.New(rand.NewSource(7))
	codes := make([]byte, 4*n)
	for i := range codes {
		codes[i] = byte(int8(r.Intn(255) - 127))
	}
	off := make([]byte, n)
	for k := range off {
		off[k] = codes[k] + 128
	}
	var q buildQuery
	q.set(codes[:n], codes[n:2*n], n, off)
	cj, rj := codes[2*n:3*n], codes[3*n:]
	var s int32
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			cc, cross := buildDots(&q, cj, rj, 1, 2)
			s += cc + cross
		}
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			cc, cross := dotBuildGo(q.qc, q.qr, cj, rj)
			s += cc + cross
		}
	})
	b.Run("pair", func(b *testing.B) {
		for b.Loop() {
			s += pairCodes(off, codes[:n], cj, 1)
		}
	})
	b.Run("pair-avx2", func(b *testing.B) {
		for b.Loop() {
			s += dotCodes8(codes[:n], cj)
		}
	})
	_ = s
}
