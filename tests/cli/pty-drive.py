# pty-drive.py TIMEOUT STEPS -- ARGV...: runs ARGV on a new pseudo-terminal as its session leader and
# plays STEPS (or the file @STEPS), a JSON list of [regex, text, delay]: once the output so far matches regex, wait delay
# seconds and type text (control characters as "\u0003" for Ctrl-C, "\u001a" for Ctrl-Z).  Prints the
# output without CRs, then "RC=<exit code>"; exits 3 after TIMEOUT seconds, having killed ARGV.  With PTY_COLS set,
# the terminal is that many columns wide.
import json, os, pty, re, select, sys, time

timeout, argv = float(sys.argv[1]), sys.argv[4:]
steps = json.load(open(sys.argv[2][1:])) if sys.argv[2].startswith("@") else json.loads(sys.argv[2])
pid, fd = pty.fork()
if pid == 0:
    if os.environ.get("PTY_COLS"):  # the terminal's size, as a terminal emulator sets it
        import fcntl, struct, termios
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, int(os.environ["PTY_COLS"]), 0, 0))
    os.execvp(argv[0], argv)
out, start, step, status = b"", time.time(), 0, None


def read_some(wait):
    global out
    if select.select([fd], [], [], wait)[0]:
        try:
            data = os.read(fd, 4096)
        except OSError:  # EIO: the other side is closed
            data = b""
        out += data
        return bool(data)
    return False


while status is None:
    if time.time() - start > timeout:
        os.kill(pid, 9)
        sys.stdout.write(out.decode(errors="replace").replace("\r", "") + "\nTIMEOUT\n")
        sys.exit(3)
    read_some(0.05)
    while step < len(steps) and re.search(steps[step][0].encode(), out):
        time.sleep(steps[step][2])
        os.write(fd, steps[step][1].encode())
        step += 1
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
while read_some(0.1):
    pass
sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
print("RC=%d" % os.waitstatus_to_exitcode(status))
