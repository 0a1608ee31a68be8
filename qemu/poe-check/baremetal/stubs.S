// SPDX-License-Identifier: GPL-2.0
// The accesses that main.c attempts; x0 = address.  EL0 ones end with
// SVC #0 (they run without a stack), EL1 ones return.
	.text
	.macro	el0 name, insn:vararg
	.global	\name
\name:	\insn
	svc	#0
	.endm
	el0	el0_load, ldr w1, [x0]
	el0	el0_store, str w1, [x0]
	el0	el0_exec, blr x0

	.macro	el1 name, insn:vararg
	.global	\name
\name:	\insn
	ret
	.endm
	el1	el1_load, ldr w1, [x0]
	el1	el1_store, str w1, [x0]
	el1	el1_ldtr, ldtr w1, [x0]
	el1	el1_sttr, sttr w1, [x0]

	.global el1_exec
el1_exec:
	stp	x29, x30, [sp, #-16]!
	blr	x0
	ldp	x29, x30, [sp], #16
	ret

	.global read_mmfr3
read_mmfr3:				// x0 = where to store ID_AA64MMFR3_EL1
	mrs	x1, S3_0_C0_C7_3
	str	x1, [x0]
	ret
