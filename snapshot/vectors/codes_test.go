package vectors

import (
	"bytes"
	"math"
	"math/rand"
	"testing"
)

// TestDotCodes checks the kernel in use (assembly where the CPU has it)
// against the portable one, at the extremes of both codes.
func TestDotCodes(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{32, 64, 96, 384, 416, 1536, 4096} {
		qmax := queryCodeMax(n)
		for trial := range 50 {
			x, q := make([]byte, n), make([]int16, n)
			for i := range x {
				switch trial {
				case 0: // the largest sum a vector code and a query code can reach
					x[i], q[i] = 0x80, int16(-qmax)
				case 1:
					x[i], q[i] = codeMax, int16(qmax)
				default:
					x[i], q[i] = byte(r.Intn(256)), int16(r.Intn(2*qmax+1)-qmax)
				}
			}
			if got, want := dotCodes(x, q), dotCodesWide(x, q); int64(got) != want {
				t.Fatalf("n=%d trial %d: dotCodes = %d, want %d", n, trial, got, want)
			}
			if got, want := dotCodesGo(x, q), dotCodesWide(x, q); int64(got) != want {
				t.Fatalf("n=%d trial %d: dotCodesGo = %d, want %d", n, trial, got, want)
			}
		}
	}
}

// TestDotCodes8 checks the kernel comparing two vectors' codes (graph
// builds) against the portable one, at the extremes.
func TestDotCodes8(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, n := range []int{32, 64, 96, 256, 384, 416, 4096} {
		for trial := range 50 {
			x, y := make([]byte, n), make([]byte, n)
			for i := range x {
				switch trial {
				case 0:
					x[i], y[i] = 0x80, 0x80
				case 1:
					x[i], y[i] = 0x80, codeMax
				default:
					x[i], y[i] = byte(r.Intn(256)), byte(r.Intn(256))
				}
			}
			var want int64
			for i := range x {
				want += int64(int8(x[i])) * int64(int8(y[i]))
			}
			if got := dotCodes8(x, y); int64(got) != want {
				t.Fatalf("n=%d trial %d: dotCodes8 = %d, want %d", n, trial, got, want)
			}
			if got := dotCodes8Go(x, y); int64(got) != want {
				t.Fatalf("n=%d trial %d: dotCodes8Go = %d, want %d", n, trial, got, want)
			}
		}
	}
}

func dotCodesWide(x []byte, q []int16) int64 {
	var s int64
	for i := range q {
		s += int64(int8(x[i])) * int64(q[i])
	}
	return s
}

// TestCodedSimilarity bounds the error of similarities computed on codes,
// which steer graph searches.
func TestCodedSimilarity(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  vectorSet
	}{
		{"uniform", uniformSet(2, 200, 50, 384)},
		{"latent", latentSet(3, 200, 50, 384, 16)},
		{"odd dims", uniformSet(4, 200, 50, 77)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dims := len(tc.set.queries[0])
			cl := codeLen(dims)
			codes := make([]byte, RowLen(dims))
			qcodes := make([]int16, cl)
			worst, worstFine := 0.0, 0.0
			for _, q := range tc.set.queries {
				qscale := encodeQuery(qcodes, q)
				for _, v := range tc.set.rows.vecs {
					scale := Encode(codes, v)
					exact := float64(Dot(q, v))
					approx := float64(dotCodes(codes[:cl], qcodes)) * float64(qscale) * float64(scale)
					worst = max(worst, math.Abs(approx-exact))
					fine := approx + float64(dotCodes(codes[cl:], qcodes))*fineStep*float64(qscale)*float64(scale)
					worstFine = max(worstFine, math.Abs(fine-exact))
				}
			}
			// Both planes: rankings are those of the float32 vectors.
			if worstFine > 1e-4 {
				t.Errorf("largest error of a similarity on both planes: %.6f", worstFine)
			}
			// Rounding to 1/254 of the largest component: an error of a
			// few thousandths, far below the gaps between neighbours
			// that matter to a search.
			if worst > 0.01 {
				t.Errorf("largest error of a coded similarity: %.4f", worst)
			}
			t.Logf("largest error %.5f on the int8 codes, %.7f on both planes", worst, worstFine)
		})
	}
}

func TestEncodeZeroVector(t *testing.T) {
	codes := make([]byte, 64)
	codes[3], codes[40] = 9, 9
	if s := Encode(codes, make([]float32, 20)); s != 0 || codes[3] != 0 || codes[40] != 0 {
		t.Errorf("zero vector: scale %g, codes %v", s, codes)
	}
	q := make([]int16, 32)
	if s := encodeQuery(q, make([]float32, 20)); s != 0 {
		t.Errorf("zero query: scale %g", s)
	}
}

// TestPackFine packs every residual a file holds in every position of a
// group of four and unpacks it unchanged; a residual of a layout-2 file
// (any byte) is rounded to the nearest one a file holds.
func TestPackFine(t *testing.T) {
	fine := make([]byte, 8)
	packed := make([]byte, packedFineLen(len(fine)))
	back := make([]byte, len(fine))
	for r := -fineMax - 1; r <= fineMax; r++ {
		for pos := range fine {
			clear(fine)
			fine[pos] = byte(int8(r * fineUnit))
			fine[(pos+3)%len(fine)] = byte(int8(-r * fineUnit / 2 * 2))
			packFine(packed, fine)
			unpackFine(back, packed)
			if string(back) != string(fine) {
				t.Fatalf("residual %d at %d: %v packed and unpacked as %v", r, pos, fine, back)
			}
		}
	}
	for b := -128; b <= 127; b++ {
		got := int(fineRound(int8(b)))
		want := max(-fineMax-1, min(fineMax, int(math.Round(float64(b)/fineUnit)))) * fineUnit
		if b%fineUnit == fineUnit/2 || -b%fineUnit == fineUnit/2 {
			want = max(-fineMax-1, min(fineMax, int(math.Floor(float64(b)/fineUnit+0.5)))) * fineUnit
		}
		if got != want {
			t.Errorf("fineRound(%d) = %d, want %d", b, got, want)
		}
	}
}

// TestUnpackFineMatchesBytewise checks the eight-at-a-time unpacking
// against unpacking each group of three bytes on its own, for every
// length of whole groups up to a few words and random bytes.
func TestUnpackFineMatchesBytewise(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for groups := range 40 {
		src := make([]byte, 3*groups)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		want := make([]byte, 4*groups)
		for g := range groups {
			u := uint32(src[3*g]) | uint32(src[3*g+1])<<8 | uint32(src[3*g+2])<<16
			for k := range 4 {
				want[4*g+k] = byte(u>>(fineBits*k)) << (8 - fineBits)
			}
		}
		got := make([]byte, 4*groups)
		unpackFine(got, src)
		if !bytes.Equal(got, want) {
			t.Fatalf("%d groups: unpackFine gives %x, want %x", groups, got, want)
		}
		packed := make([]byte, len(src))
		packFine(packed, got)
		if !bytes.Equal(packed, src) {
			t.Fatalf("%d groups: packFine(unpackFine(x)) = %x, want %x", groups, packed, src)
		}
	}
}
