#include "textflag.h"

// func cas32(p *uint32, old, new uint32) bool
TEXT ·cas32(SB),NOSPLIT,$0-17
	MOVD	p+0(FP), R0
	MOVW	old+8(FP), R1
	MOVW	new+12(FP), R2
again:
	LDAXRW	(R0), R3
	CMPW	R1, R3
	BNE	fail
	STLXRW	R2, (R0), R3
	CBNZ	R3, again
	MOVD	$1, R4
	MOVB	R4, ret+16(FP)
	RET
fail:
	MOVB	ZR, ret+16(FP)
	RET
