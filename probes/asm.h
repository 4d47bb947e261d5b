/*
 * asm.h: symbol boilerplate shared by the probe kernels in probes/<arch>/NAME.S,
 * so each kernel file holds only its loop.  Mach-O prefixes C symbols with
 * '_' and has no .type/.size; ELF wants both, and a .note.GNU-stack section
 * so the linker keeps the stack non-executable.
 */
#ifndef LAUKA_PROBE_ASM_H
#define LAUKA_PROBE_ASM_H

#if defined(__APPLE__)
#define FUNC(x) .text; .globl _##x; .p2align 4; _##x:
#define END(x)
#define NOTE_GNU_STACK
#else
#define FUNC(x) .text; .globl x; .type x, %function; .p2align 4; x:
#define END(x) .size x, .-x
#define NOTE_GNU_STACK .section .note.GNU-stack, "", %progbits
#endif

#endif
