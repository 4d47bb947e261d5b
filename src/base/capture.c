/* base/capture.c: a helper command's output (see base/capture.h). */
#include "base/capture.h"
#include "base/error.h"
#include "base/exec-path.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int lk_capture(const char *const *argv, unsigned timeout_s, char *out, size_t len, int *code)
{
	char path[PATH_MAX];
	if (len)
		out[0] = '\0';
	*code = -1;
	if (exec_resolve(argv[0], path, sizeof(path)) < 0)
		return -LK_ENOENT;
	int fd[2];
	if (lk_cloexec_pipe(fd) < 0) {
		snprintf(out, len, "pipe: %s", strerror(errno));
		return -LK_EIO;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	pid_t pid;
	int e = posix_spawn(&pid, path, &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (e) {
		close(fd[0]);
		snprintf(out, len, "cannot run '%s': %s", argv[0], strerror(e));
		return -LK_EIO;
	}
	size_t n = 0;
	uint64_t deadline = lk_now_ns() + (uint64_t)timeout_s * 1000000000ull;
	bool late = false;
	for (;;) {
		uint64_t now = lk_now_ns();
		if (now >= deadline) {
			late = true;
			kill(pid, SIGKILL);
			break;
		}
		struct pollfd p = { fd[0], POLLIN, 0 };
		int pr = poll(&p, 1, (int)((deadline - now) / 1000000u) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue;
		char buf[512];
		ssize_t got = read(fd[0], buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		for (ssize_t i = 0; i < got && len && n < len - 1; i++)
			out[n++] = buf[i];
	}
	close(fd[0]);
	if (len)
		out[n] = '\0';
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (late) {
		snprintf(out, len, "'%s' did not finish within %u s", argv[0], timeout_s);
		return -LK_EIO;
	}
	*code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return 0;
}
