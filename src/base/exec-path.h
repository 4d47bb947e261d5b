/*
 * base/exec-path.h: where a command name leads, as execvp would search for it.
 * Used by the runner (the measured command), the backends that start a tool of
 * their own (valgrind, xctrace) and record's early 126/127 checks.
 */
#ifndef LAUKA_EXEC_PATH_H
#define LAUKA_EXEC_PATH_H

#include <stddef.h>

/*
 * Resolve argv[0] like execvp would (PATH search when it has no '/').
 * Returns 0 and the path in buf, or -ENOENT / -EACCES, or -ENAMETOOLONG
 * when `file` itself does not fit in buf (never a shortened path).
 */
int exec_resolve(const char *file, char *buf, size_t len);

#endif
