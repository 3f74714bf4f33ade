//go:build amd64 && !purego

#include "textflag.h"

// func addScaledAVX2(out *float32, row *int8, w float32, n int)
//
// out[i] += w * float32(row[i]) for i < n, n a positive multiple of 8:
// eight int8 values sign-extended to int32, converted (exactly), multiplied
// by w and added, each step rounded as Go rounds the scalar expression.
TEXT ·addScaledAVX2(SB), NOSPLIT, $0-32
	MOVQ         out+0(FP), DI
	MOVQ         row+8(FP), SI
	VBROADCASTSS w+16(FP), Y0
	MOVQ         n+24(FP), CX

loop:
	VPMOVSXBD (SI), Y1
	VCVTDQ2PS Y1, Y1
	VMULPS    Y0, Y1, Y1
	VADDPS    (DI), Y1, Y1
	VMOVUPS   Y1, (DI)
	ADDQ      $8, SI
	ADDQ      $32, DI
	SUBQ      $8, CX
	JNZ       loop
	VZEROUPPER
	RET
