/*
 * base/probe-path.h: where lauka finds its probe program (lauka-probe).
 *
 * In order: $LAUKA_PROBE; lauka-probe next to the running lauka binary (the
 * build tree: build/lauka and build/lauka-probe); the installed location,
 * $(LIBEXECDIR)/lauka/lauka-probe, reached from the binary's own directory
 * by the relative path from $(BINDIR) to $(LIBEXECDIR) that the Makefile
 * computed (mk/install.mk), so an installed tree works wherever it is moved
 * or staged (DESTDIR, Homebrew's Cellar) and from any working directory.
 * The binary's own path is /proc/self/exe on Linux and
 * _NSGetExecutablePath on macOS, both with symlinks resolved (Homebrew links
 * bin/lauka into its prefix).
 */
#ifndef LAUKA_PROBE_PATH_H
#define LAUKA_PROBE_PATH_H

#include <stddef.h>

/*
 * Fill buf with the probe program's path.  Returns 0, or -1 after printing
 * one `error:` line (naming every place it looked) and a `fix:` line.
 */
int probe_path_find(char *buf, size_t len);

/* Pure: join the binary's directory and a relative path ("../libexec/lauka") into buf. */
void probe_path_join(char *buf, size_t len, const char *bindir, const char *rel, const char *file);

#endif
