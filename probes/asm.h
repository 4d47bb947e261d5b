/*
 * asm.h: symbol boilerplate shared by the probe kernels in probes/<arch>/NAME.S,
 * so each kernel file holds only its loop.  Mach-O prefixes C symbols with
 * '_' and has no .type/.size; ELF wants both, and a .note.GNU-stack section
 * so the linker keeps the stack non-executable.  One directive per line:
 * ';' separates statements in GNU as but starts a comment in Apple's arm64
 * assembler.
 */
#ifndef LAUKA_PROBE_ASM_H
#define LAUKA_PROBE_ASM_H

#if defined(__APPLE__)
#define SYM(x) _##x
#define TYPE_FUNCTION(x)
#define SIZE(x)
#define NOTE_GNU_STACK
#else
#define SYM(x) x
#define TYPE_FUNCTION(x) .type x, %function
#define SIZE(x) .size x, .-x
#define NOTE_GNU_STACK .section .note.GNU-stack, "", %progbits
#endif

#endif
