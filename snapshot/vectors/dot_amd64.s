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

