#include "textflag.h"
#include "go_asm.h"

// func returnPCs(pcs *[unwound]uintptr) int
//
// Frameless ($0), so BP is still its caller's frame pointer: each frame
// holds its caller's frame pointer at 0(BP) and its return address at
// 8(BP), as Go's amd64 frames do for every function that calls another.
TEXT ·returnPCs(SB), NOSPLIT, $0-16
	MOVQ pcs+0(FP), DI
	MOVQ BP, AX
	XORQ CX, CX
loop:
	CMPQ CX, $const_unwound
	JGE done
	TESTQ AX, AX
	JZ done
	MOVQ 8(AX), DX
	MOVQ DX, (DI)(CX*8)
	INCQ CX
	MOVQ (AX), AX
	JMP loop
done:
	MOVQ CX, ret+8(FP)
	RET
