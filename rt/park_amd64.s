#include "textflag.h"

// func cas32(p *uint32, old, new uint32) bool
TEXT ·cas32(SB),NOSPLIT,$0-17
	MOVQ	p+0(FP), BX
	MOVL	old+8(FP), AX
	MOVL	new+12(FP), CX
	LOCK
	CMPXCHGL	CX, 0(BX)
	SETEQ	ret+16(FP)
	RET
