//go:build amd64 && !purego

#include "textflag.h"

// func dotCodesAVX2(x *byte, q *int16, n int) int32
//
// Dot product of n int8 codes at x with n int16 query codes at q; n is a
// positive multiple of 32. Codes are sign-extended to int16 and multiplied
// in pairs into int32 lanes (VPMADDWD), so nothing saturates; callers bound
// the query codes so that the sum cannot overflow.
TEXT ·dotCodesAVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ q+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	CMPQ CX, $64
	JB   tail

loop64:
	VPMOVSXBW (SI), Y2
	VPMOVSXBW 16(SI), Y3
	VPMOVSXBW 32(SI), Y4
	VPMOVSXBW 48(SI), Y5
	VPMADDWD  (DI), Y2, Y2
	VPMADDWD  32(DI), Y3, Y3
	VPMADDWD  64(DI), Y4, Y4
	VPMADDWD  96(DI), Y5, Y5
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	VPADDD    Y4, Y0, Y0
	VPADDD    Y5, Y1, Y1
	ADDQ      $64, SI
	ADDQ      $128, DI
	SUBQ      $64, CX
	CMPQ      CX, $64
	JAE       loop64

tail:
	TESTQ     CX, CX
	JZ        done
	VPMOVSXBW (SI), Y2
	VPMOVSXBW 16(SI), Y3
	VPMADDWD  (DI), Y2, Y2
	VPMADDWD  32(DI), Y3, Y3
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1

done:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET

// func dotCodes8AVX2(x *byte, y *byte, n int) int32
//
// Dot product of n int8 codes at x with n int8 codes at y; n is a positive
// multiple of 32. Both are sign-extended to int16 and multiplied in pairs
// into int32 lanes (VPMADDWD): 127*127*2 per lane and step, so sums of up
// to 65,536 dimensions cannot overflow.
TEXT ·dotCodes8AVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

loop32:
	VPMOVSXBW (SI), Y2
	VPMOVSXBW 16(SI), Y3
	VPMOVSXBW (DI), Y4
	VPMOVSXBW 16(DI), Y5
	VPMADDWD  Y4, Y2, Y2
	VPMADDWD  Y5, Y3, Y3
	VPADDD    Y2, Y0, Y0
	VPADDD    Y3, Y1, Y1
	ADDQ      $32, SI
	ADDQ      $32, DI
	SUBQ      $32, CX
	JNZ       loop32

	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET

// func prefetchLinesAsm(p *byte, n int)
//
// PREFETCHT0 of the n cache lines from p.
TEXT ·prefetchLinesAsm(SB), NOSPLIT, $0-16
	MOVQ       p+0(FP), AX
	MOVQ       n+8(FP), CX
	TESTQ      CX, CX
	JLE        pdone
ploop:
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	DECQ       CX
	JNZ        ploop
pdone:
	RET


// func dotBuildAVX2(qc, qr *int16, c, r *byte, n int) (cc, cross int32)
//
// The two sums of a build distance (buildcodes.go): cc = sum qc*c and
// cross = sum qc*r + qr*c, over n dimensions, a positive multiple of 16;
// qc and qr are a node's int8 and residual codes widened to int16, c and r
// another node's. Codes are sign-extended and multiplied in pairs into
// int32 lanes (VPMADDWD): exact, as the portable kernel.
TEXT ·dotBuildAVX2(SB), NOSPLIT, $0-48
	MOVQ qc+0(FP), SI
	MOVQ qr+8(FP), DX
	MOVQ c+16(FP), DI
	MOVQ r+24(FP), R8
	MOVQ n+32(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y7, Y7, Y7

bloop16:
	VPMOVSXBW (DI), Y2
	VPMOVSXBW (R8), Y3
	VPMADDWD  (SI), Y2, Y4
	VPMADDWD  (SI), Y3, Y5
	VPMADDWD  (DX), Y2, Y6
	VPADDD    Y4, Y0, Y0
	VPADDD    Y5, Y1, Y1
	VPADDD    Y6, Y7, Y7
	ADDQ      $32, SI
	ADDQ      $32, DX
	ADDQ      $16, DI
	ADDQ      $16, R8
	SUBQ      $16, CX
	JNZ       bloop16

	VPADDD       Y7, Y1, Y1
	VEXTRACTI128 $1, Y0, X3
	VPADDD       X3, X0, X0
	VEXTRACTI128 $1, Y1, X4
	VPADDD       X4, X1, X1
	VPSHUFD      $0x4E, X0, X3
	VPADDD       X3, X0, X0
	VPSHUFD      $0x4E, X1, X4
	VPADDD       X4, X1, X1
	VPSHUFD      $0xB1, X0, X3
	VPADDD       X3, X0, X0
	VPSHUFD      $0xB1, X1, X4
	VPADDD       X4, X1, X1
	VMOVD        X0, AX
	VMOVD        X1, BX
	VZEROUPPER
	MOVL         AX, cc+40(FP)
	MOVL         BX, cross+44(FP)
	RET

// func dotBuildVNNI(a, b, c, r *byte, n int) (cc, cross int32)
//
// The raw sums of a build distance with AVX-512 VNNI (VPDPBUSD multiplies
// unsigned by signed bytes, four products per int32 lane): a and b are a
// node's int8 and residual codes plus 128, c and r another node's codes;
// cc = sum a*c and cross = sum a*r + b*c, over n dimensions, a positive
// multiple of 64. The caller subtracts 128 times the sums of c and r.
TEXT ·dotBuildVNNI(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DX
	MOVQ c+16(FP), DI
	MOVQ r+24(FP), R8
	MOVQ n+32(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2

vloop64:
	VMOVDQU64 (DI), Z4
	VMOVDQU64 (SI), Z5
	VMOVDQU64 (DX), Z6
	VPDPBUSD  Z4, Z5, Z0
	VPDPBUSD  (R8), Z5, Z1
	VPDPBUSD  Z4, Z6, Z2
	ADDQ      $64, SI
	ADDQ      $64, DX
	ADDQ      $64, DI
	ADDQ      $64, R8
	SUBQ      $64, CX
	JNZ       vloop64

	VPADDD        Z2, Z1, Z1
	VEXTRACTI64X4 $1, Z0, Y3
	VPADDD        Y3, Y0, Y0
	VEXTRACTI64X4 $1, Z1, Y4
	VPADDD        Y4, Y1, Y1
	VEXTRACTI128  $1, Y0, X3
	VPADDD        X3, X0, X0
	VEXTRACTI128  $1, Y1, X4
	VPADDD        X4, X1, X1
	VPSHUFD       $0x4E, X0, X3
	VPADDD        X3, X0, X0
	VPSHUFD       $0x4E, X1, X4
	VPADDD        X4, X1, X1
	VPSHUFD       $0xB1, X0, X3
	VPADDD        X3, X0, X0
	VPSHUFD       $0xB1, X1, X4
	VPADDD        X4, X1, X1
	VMOVD         X0, AX
	VMOVD         X1, BX
	VZEROUPPER
	MOVL          AX, cc+40(FP)
	MOVL          BX, cross+44(FP)
	RET

// func dotCodes8VNNI(x, y *byte, n int) int32
//
// Sum of x*y over n bytes (n a positive multiple of 64) of two nodes' int8
// codes, plus 128 times the sum of y: x is made unsigned in the register
// (x XOR 0x80 is x+128), multiplied by the signed y with VPDPBUSD, and the
// caller takes 128*sum(y) off.
TEXT ·dotCodes8VNNI(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	MOVL   $0x80808080, AX
	VPBROADCASTD AX, Z7
	CMPQ   CX, $128
	JB     c8tail

c8loop128:
	VPXORD    (SI), Z7, Z4
	VPXORD    64(SI), Z7, Z5
	VPDPBUSD  (DI), Z4, Z0
	VPDPBUSD  64(DI), Z5, Z1
	ADDQ      $128, SI
	ADDQ      $128, DI
	SUBQ      $128, CX
	CMPQ      CX, $128
	JAE       c8loop128

c8tail:
	TESTQ     CX, CX
	JZ        c8done
	VPXORD    (SI), Z7, Z4
	VPDPBUSD  (DI), Z4, Z0

c8done:
	VPADDD        Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y3
	VPADDD        Y3, Y0, Y0
	VEXTRACTI128  $1, Y0, X3
	VPADDD        X3, X0, X0
	VPSHUFD       $0x4E, X0, X3
	VPADDD        X3, X0, X0
	VPSHUFD       $0xB1, X0, X3
	VPADDD        X3, X0, X0
	VMOVD         X0, AX
	VZEROUPPER
	MOVL          AX, ret+24(FP)
	RET

// func dotBuildBatchVNNI(a, b, rows *byte, stride int, ids *candidate, count, n int, out *int32)
//
// dotBuildVNNI of the query (a, b) with each of count candidates, 8 bytes
// apart, whose first 4 bytes are the node: node ids[k]'s
// int8 codes are n bytes at rows + ids[k]*stride, its residual codes the
// n bytes after them. out receives the raw cc and cross of node k at
// out[2k] and out[2k+1]. The rows of the node pf ahead are prefetched
// (stride bytes from the row) while one is computed.
TEXT ·dotBuildBatchVNNI(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DX
	MOVQ rows+16(FP), R9
	MOVQ stride+24(FP), R10
	MOVQ ids+32(FP), R11
	MOVQ count+40(FP), R12
	MOVQ n+48(FP), R13
	MOVQ out+56(FP), R14
	TESTQ R12, R12
	JZ    bend

bnext:
	// prefetch the rows of the node 4 ahead, if any
	CMPQ  R12, $4
	JBE   bnopf
	MOVL  32(R11), AX
	IMULQ R10, AX
	LEAQ  (R9)(AX*1), BX
	MOVQ  R10, CX
bpf:
	PREFETCHT0 (BX)
	ADDQ  $64, BX
	SUBQ  $64, CX
	JA    bpf
bnopf:
	MOVL  (R11), AX
	IMULQ R10, AX
	LEAQ  (R9)(AX*1), DI
	LEAQ  (DI)(R13*1), R8
	XORQ  CX, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2

bloop:
	VMOVDQU64 (DI)(CX*1), Z4
	VMOVDQU64 (SI)(CX*1), Z5
	VMOVDQU64 (DX)(CX*1), Z6
	VPDPBUSD  Z4, Z5, Z0
	VPDPBUSD  (R8)(CX*1), Z5, Z1
	VPDPBUSD  Z4, Z6, Z2
	ADDQ      $64, CX
	CMPQ      CX, R13
	JB        bloop

	VPADDD        Z2, Z1, Z1
	VEXTRACTI64X4 $1, Z0, Y3
	VPADDD        Y3, Y0, Y0
	VEXTRACTI64X4 $1, Z1, Y4
	VPADDD        Y4, Y1, Y1
	VEXTRACTI128  $1, Y0, X3
	VPADDD        X3, X0, X0
	VEXTRACTI128  $1, Y1, X4
	VPADDD        X4, X1, X1
	VPSHUFD       $0x4E, X0, X3
	VPADDD        X3, X0, X0
	VPSHUFD       $0x4E, X1, X4
	VPADDD        X4, X1, X1
	VPSHUFD       $0xB1, X0, X3
	VPADDD        X3, X0, X0
	VPSHUFD       $0xB1, X1, X4
	VPADDD        X4, X1, X1
	VMOVD         X0, AX
	VMOVD         X1, BX
	MOVL          AX, (R14)
	MOVL          BX, 4(R14)
	ADDQ          $8, R14
	ADDQ          $8, R11
	DECQ          R12
	JNZ           bnext

bend:
	VZEROUPPER
	RET

// func dotCodesBatchVNNI(q *int16, codes *byte, stride int, ids *candidate, count, n int, out *int32)
//
// dotCodes of the int16 query codes q with each of count candidates, 8
// bytes apart, whose first 4 bytes are the node: node ids[k]'s n int8
// codes (n a positive multiple of 32) are at codes + ids[k]*stride. The
// codes are sign-extended to int16 and multiplied in pairs into int32
// lanes (VPDPWSSD, AVX-512 VNNI): exact, as dotCodesAVX2. out[k] receives
// the sum. The codes of the candidate 4 ahead are prefetched.
TEXT ·dotCodesBatchVNNI(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), SI
	MOVQ codes+8(FP), R9
	MOVQ stride+16(FP), R10
	MOVQ ids+24(FP), R11
	MOVQ count+32(FP), R12
	MOVQ n+40(FP), R13
	MOVQ out+48(FP), R14
	TESTQ R12, R12
	JZ    qend

qnext:
	CMPQ  R12, $4
	JBE   qnopf
	MOVL  32(R11), AX
	IMULQ R10, AX
	LEAQ  (R9)(AX*1), BX
	MOVQ  R13, CX
qpf:
	PREFETCHT0 (BX)
	ADDQ  $64, BX
	SUBQ  $64, CX
	JG    qpf
qnopf:
	MOVL  (R11), AX
	IMULQ R10, AX
	LEAQ  (R9)(AX*1), DI
	XORQ  CX, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	MOVQ  R13, DX
	CMPQ  DX, $64
	JB    qtail

qloop:
	VPMOVSXBW (DI)(CX*1), Z4
	VPMOVSXBW 32(DI)(CX*1), Z5
	VPDPWSSD  (SI)(CX*2), Z4, Z0
	VPDPWSSD  64(SI)(CX*2), Z5, Z1
	ADDQ      $64, CX
	SUBQ      $64, DX
	CMPQ      DX, $64
	JAE       qloop

qtail:
	TESTQ     DX, DX
	JZ        qsum
	VPMOVSXBW (DI)(CX*1), Z4
	VPDPWSSD  (SI)(CX*2), Z4, Z0

qsum:
	VPADDD        Z1, Z0, Z0
	VEXTRACTI64X4 $1, Z0, Y3
	VPADDD        Y3, Y0, Y0
	VEXTRACTI128  $1, Y0, X3
	VPADDD        X3, X0, X0
	VPSHUFD       $0x4E, X0, X3
	VPADDD        X3, X0, X0
	VPSHUFD       $0xB1, X0, X3
	VPADDD        X3, X0, X0
	VMOVD         X0, AX
	MOVL          AX, (R14)
	ADDQ          $4, R14
	ADDQ          $8, R11
	DECQ          R12
	JNZ           qnext

qend:
	VZEROUPPER
	RET

// func similarityAVX512(q *float32, c, r *byte, n int) (s, t float32)
//
// s = sum q*c and t = sum q*r over n dimensions, a positive multiple of
// 16: a float32 query with a row's int8 and residual codes, converted to
// float32 (AVX-512F) and multiplied and added in 16 lanes.
TEXT ·similarityAVX512(SB), NOSPLIT, $0-40
	MOVQ   q+0(FP), SI
	MOVQ   c+8(FP), DI
	MOVQ   r+16(FP), R8
	MOVQ   n+24(FP), CX
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	CMPQ   CX, $32
	JB     stail

sloop32:
	VPMOVSXBD   (DI), Z4
	VPMOVSXBD   (R8), Z5
	VPMOVSXBD   16(DI), Z6
	VPMOVSXBD   16(R8), Z7
	VCVTDQ2PS   Z4, Z4
	VCVTDQ2PS   Z5, Z5
	VCVTDQ2PS   Z6, Z6
	VCVTDQ2PS   Z7, Z7
	VMOVUPS     (SI), Z8
	VMOVUPS     64(SI), Z9
	VFMADD231PS Z8, Z4, Z0
	VFMADD231PS Z8, Z5, Z1
	VFMADD231PS Z9, Z6, Z2
	VFMADD231PS Z9, Z7, Z3
	ADDQ        $32, DI
	ADDQ        $32, R8
	ADDQ        $128, SI
	SUBQ        $32, CX
	CMPQ        CX, $32
	JAE         sloop32

stail:
	TESTQ       CX, CX
	JZ          ssum
	VPMOVSXBD   (DI), Z4
	VPMOVSXBD   (R8), Z5
	VCVTDQ2PS   Z4, Z4
	VCVTDQ2PS   Z5, Z5
	VMOVUPS     (SI), Z8
	VFMADD231PS Z8, Z4, Z0
	VFMADD231PS Z8, Z5, Z1

ssum:
	VADDPS        Z2, Z0, Z0
	VADDPS        Z3, Z1, Z1
	VEXTRACTF64X4 $1, Z0, Y2
	VADDPS        Y2, Y0, Y0
	VEXTRACTF64X4 $1, Z1, Y3
	VADDPS        Y3, Y1, Y1
	VEXTRACTF128  $1, Y0, X2
	VADDPS        X2, X0, X0
	VEXTRACTF128  $1, Y1, X3
	VADDPS        X3, X1, X1
	VHADDPS       X0, X0, X0
	VHADDPS       X0, X0, X0
	VHADDPS       X1, X1, X1
	VHADDPS       X1, X1, X1
	VZEROUPPER
	MOVSS         X0, s+32(FP)
	MOVSS         X1, t+36(FP)
	RET

// func dotBuildBatchAVX2(qc, qa, qr, ra, rows *byte, stride int, ids *candidate, count, n int, out *int32)
//
// The raw sums of a build distance (buildcodes.go) of the query with each
// of count candidates, 8 bytes apart, whose first 4 bytes are the node, on
// a build copy whose residual planes hold quarter residuals: node ids[k]'s
// int8 codes c are n bytes (a positive multiple of 32) at rows +
// ids[k]*stride, its quarter residuals r the n bytes after them. qc and qr
// are the query's codes and quarter residuals, qa and ra their magnitudes.
// out[2k] receives cc = sum qc*c, out[2k+1] sum qc*r + qr*c (a quarter of
// cross). VPMADDUBSW multiplies unsigned by signed bytes into int16 pairs:
// the query's magnitude times the node's codes with the query's signs
// (VPSIGNB) is the product. Nothing saturates: codes are -127..127, so a
// pair of cc is at most 2*127*127 = 32,258, and quarter residuals
// -32..31, so a pair of either cross term is at most 2*127*32 and their
// sum 16,256. The pairs are added into int32 lanes (VPMADDWD by ones).
// The rows of the node 4 ahead are prefetched while one is computed.
TEXT ·dotBuildBatchAVX2(SB), NOSPLIT, $0-80
	MOVQ qc+0(FP), SI
	MOVQ qa+8(FP), DX
	MOVQ qr+16(FP), R8
	MOVQ ra+24(FP), R9
	MOVQ rows+32(FP), R10
	MOVQ stride+40(FP), R11
	MOVQ ids+48(FP), R12
	MOVQ count+56(FP), R13
	MOVQ n+64(FP), BX
	MOVQ out+72(FP), R14
	TESTQ R13, R13
	JZ    qend
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15 // int16 ones

qnext:
	CMPQ  R13, $4
	JBE   qnopf
	MOVL  32(R12), AX
	IMULQ R11, AX
	LEAQ  (R10)(AX*1), DI
	MOVQ  R11, CX
qpf:
	PREFETCHT0 (DI)
	ADDQ  $64, DI
	SUBQ  $64, CX
	JA    qpf
qnopf:
	MOVL  (R12), AX
	IMULQ R11, AX
	LEAQ  (R10)(AX*1), DI
	LEAQ  (DI)(BX*1), AX
	XORQ  CX, CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

qloop:
	VMOVDQU    (DI)(CX*1), Y4 // c
	VMOVDQU    (AX)(CX*1), Y6 // r
	VMOVDQU    (DX)(CX*1), Y5 // |qc|
	VPSIGNB    (SI)(CX*1), Y4, Y7
	VPMADDUBSW Y7, Y5, Y7
	VPMADDWD   Y15, Y7, Y7
	VPADDD     Y7, Y0, Y0
	VPSIGNB    (SI)(CX*1), Y6, Y8
	VPMADDUBSW Y8, Y5, Y8
	VMOVDQU    (R9)(CX*1), Y10 // |qr|
	VPSIGNB    (R8)(CX*1), Y4, Y9
	VPMADDUBSW Y9, Y10, Y9
	VPADDW     Y9, Y8, Y8
	VPMADDWD   Y15, Y8, Y8
	VPADDD     Y8, Y1, Y1
	ADDQ       $32, CX
	CMPQ       CX, BX
	JB         qloop

	VEXTRACTI128 $1, Y0, X3
	VPADDD       X3, X0, X0
	VEXTRACTI128 $1, Y1, X4
	VPADDD       X4, X1, X1
	VPSHUFD      $0x4E, X0, X3
	VPADDD       X3, X0, X0
	VPSHUFD      $0x4E, X1, X4
	VPADDD       X4, X1, X1
	VPSHUFD      $0xB1, X0, X3
	VPADDD       X3, X0, X0
	VPSHUFD      $0xB1, X1, X4
	VPADDD       X4, X1, X1
	VMOVD        X0, AX
	VMOVD        X1, DI
	MOVL         AX, (R14)
	MOVL         DI, 4(R14)
	ADDQ         $8, R14
	ADDQ         $8, R12
	DECQ         R13
	JNZ          qnext

qend:
	VZEROUPPER
	RET

// func dotCodes8SignAVX2(x *byte, y *byte, n int) int32
//
// Dot product of n int8 codes at x with n at y, all -127..127; n is a
// positive multiple of 32. |x| times y with the signs of x (VPABSB,
// VPSIGNB, VPMADDUBSW): a pair is at most 2*127*127 = 32,258, so nothing
// saturates; the pairs are added into int32 lanes (VPMADDWD by ones).
TEXT ·dotCodes8SignAVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR    Y0, Y0, Y0
	VPXOR    Y1, Y1, Y1
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15 // int16 ones
	CMPQ     CX, $64
	JB       s8tail

s8loop64:
	VPABSB     (SI), Y2
	VPABSB     32(SI), Y3
	VMOVDQU    (DI), Y4
	VMOVDQU    32(DI), Y5
	VPSIGNB    (SI), Y4, Y4
	VPSIGNB    32(SI), Y5, Y5
	VPMADDUBSW Y4, Y2, Y4
	VPMADDUBSW Y5, Y3, Y5
	VPMADDWD   Y15, Y4, Y4
	VPMADDWD   Y15, Y5, Y5
	VPADDD     Y4, Y0, Y0
	VPADDD     Y5, Y1, Y1
	ADDQ       $64, SI
	ADDQ       $64, DI
	SUBQ       $64, CX
	CMPQ       CX, $64
	JAE        s8loop64

s8tail:
	TESTQ      CX, CX
	JZ         s8done
	VPABSB     (SI), Y2
	VMOVDQU    (DI), Y4
	VPSIGNB    (SI), Y4, Y4
	VPMADDUBSW Y4, Y2, Y4
	VPMADDWD   Y15, Y4, Y4
	VPADDD     Y4, Y0, Y0

s8done:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET
