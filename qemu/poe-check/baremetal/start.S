// SPDX-License-Identifier: GPL-2.0
// Bare-metal POE check (issue 15): entry at EL1, exception vectors, and
// the switches into "attempts" at EL1 or EL0 that a fault ends.
	.section .text.start, "ax"
	.global _start
_start:
	ldr	x0, =stack_top
	mov	sp, x0
	ldr	x0, =vectors
	msr	vbar_el1, x0
	isb
	bl	main
	// PSCI SYSTEM_OFF (QEMU virt, no EL2/EL3: HVC conduit)
	ldr	x0, =0x84000008
	hvc	#0
1:	wfi
	b	1b

// long attempt(fn, arg, el0): run fn(arg) at EL1 (el0 == 0) or at EL0.
// Returns 0 if it completed, 1 if it took a synchronous exception (a
// fault), whose ESR/FAR are left in last_esr/last_far.  EL0 code ends
// with SVC #0.
	.global attempt
attempt:
	ldr	x9, =saved
	stp	x19, x20, [x9, #0]
	stp	x21, x22, [x9, #16]
	stp	x23, x24, [x9, #32]
	stp	x25, x26, [x9, #48]
	stp	x27, x28, [x9, #64]
	stp	x29, x30, [x9, #80]
	mov	x10, sp
	str	x10, [x9, #96]
	cbnz	x2, 1f
	mov	x9, x0
	mov	x0, x1
	blr	x9
	mov	x0, #0
	b	restore
1:	msr	elr_el1, x0
	mov	x0, #0x3c0		// EL0t, DAIF masked
	msr	spsr_el1, x0
	ldr	x0, =el0_stack_top
	msr	sp_el0, x0
	mov	x0, x1
	isb
	eret

// Back from an attempt: x0 = result.
restore:
	ldr	x9, =saved
	ldp	x19, x20, [x9, #0]
	ldp	x21, x22, [x9, #16]
	ldp	x23, x24, [x9, #32]
	ldp	x25, x26, [x9, #48]
	ldp	x27, x28, [x9, #64]
	ldp	x29, x30, [x9, #80]
	ldr	x10, [x9, #96]
	mov	sp, x10
	ret

sync_handler:
	mrs	x1, esr_el1
	mrs	x2, far_el1
	ldr	x9, =last_esr
	str	x1, [x9]
	ldr	x9, =last_far
	str	x2, [x9]
	lsr	x3, x1, #26
	and	x3, x3, #0x3f
	mov	x0, #1
	cmp	x3, #0x15		// SVC from AArch64: the EL0 code is done
	b.ne	restore
	mov	x0, #0
	b	restore

unexpected:
	ldr	x0, =0x84000008
	hvc	#0
	b	unexpected

	.balign	2048
vectors:
	.rept	4			// current EL with SP_EL0: not used
	b	unexpected
	.balign	128
	.endr
	b	sync_handler		// current EL with SP_ELx: synchronous
	.balign	128
	.rept	3
	b	unexpected
	.balign	128
	.endr
	b	sync_handler		// lower EL, AArch64: synchronous
	.balign	128
	.rept	7
	b	unexpected
	.balign	128
	.endr

	.data
	.balign	16
saved:	.space	112
	.global last_esr, last_far
last_esr: .quad	0
last_far: .quad	0
