#!/usr/bin/env python3
"""Run a command as the foreground process of a fresh pseudo-terminal and
report what happened as JSON (for automode's terminal tests).

usage: pty_run.py [--tostop] [--ctrl-c-after S] [--send-after S TEXT] [--timeout S] -- CMD [ARGS...]
"""
import json
import os
import pty
import select
import signal
import sys
import termios
import time


def main():
    args = sys.argv[1:]
    tostop = False
    ctrl_c_after = None
    send = None
    timeout = 15.0
    while args and args[0] != "--":
        opt = args.pop(0)
        if opt == "--tostop":
            tostop = True
        elif opt == "--ctrl-c-after":
            ctrl_c_after = float(args.pop(0))
        elif opt == "--send-after":
            send = (float(args.pop(0)), args.pop(0).encode())
        elif opt == "--timeout":
            timeout = float(args.pop(0))
        else:
            sys.exit("unknown option " + opt)
    cmd = args[1:]
    start = time.monotonic()
    pid, master = pty.fork()
    if pid == 0:
        if tostop:
            attrs = termios.tcgetattr(0)
            attrs[3] |= termios.TOSTOP
            termios.tcsetattr(0, termios.TCSANOW, attrs)
        os.execvp(cmd[0], cmd)
    output = b""
    fg_pgrp = None
    sent_ctrl_c = False
    status = None
    while True:
        now = time.monotonic() - start
        if fg_pgrp is None and now > 0.3:
            try:
                fg_pgrp = os.tcgetpgrp(master)
            except OSError:
                fg_pgrp = -1
        if ctrl_c_after is not None and not sent_ctrl_c and now >= ctrl_c_after:
            os.write(master, b"\x03")
            sent_ctrl_c = True
        if send is not None and now >= send[0]:
            os.write(master, send[1])
            send = None
        if now > timeout:
            os.kill(pid, signal.SIGKILL)
        r, _, _ = select.select([master], [], [], 0.05)
        if r:
            try:
                data = os.read(master, 4096)
            except OSError:
                data = b""
            if data:
                output += data
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            # Drain what is left.
            while True:
                r, _, _ = select.select([master], [], [], 0.05)
                if not r:
                    break
                try:
                    data = os.read(master, 4096)
                except OSError:
                    break
                if not data:
                    break
                output += data
            break
    elapsed = time.monotonic() - start
    report = {
        "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "stopped": False,
        "output": output.decode("utf-8", "replace"),
        "elapsed": elapsed,
        "fg_pgrp": fg_pgrp,
        "child_pid": pid,
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
