/*
 * base/capture.h: run a short helper command and keep what it printed: the
 * Xcode discovery of the xctrace backend (`xcrun --find xctrace`,
 * `xcode-select -p`) and `lauka doctor --macos` (`DevToolsSecurity -status`).
 * Not for measured commands (spawn/runner.h runs those).
 */
#ifndef LAUKA_BASE_CAPTURE_H
#define LAUKA_BASE_CAPTURE_H

#include <stddef.h>

/*
 * Run argv (argv[0] searched in PATH as execvp does) with stdin on
 * /dev/null, stdout and stderr into out (NUL-terminated, at most len - 1
 * bytes kept, the rest read and dropped), and wait at most timeout_s
 * seconds (then SIGKILL).  Returns 0 with its exit status in *code (128 +
 * signal when killed), -LK_ENOENT when argv[0] is not found, -LK_EIO when
 * it cannot be started or timed out (a message in out).
 */
int lk_capture(const char *const *argv, unsigned timeout_s, char *out, size_t len, int *code);

#endif
