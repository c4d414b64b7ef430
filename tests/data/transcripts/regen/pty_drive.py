#!/usr/bin/env python3
"""Drive a TUI in a pty: pty_drive.py LOG STEPS.json -- cmd...
STEPS: [["wait", regex, timeout], ["send", text], ["sleep", s]]"""
import os, pty, sys, json, re, time, select, signal
log, steps = sys.argv[1], json.load(open(sys.argv[2]))
cmd = sys.argv[sys.argv.index('--') + 1:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
import fcntl, termios, struct
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 50, 160, 0, 0))
buf = b''
out = open(log, 'wb')
ANSI = re.compile(rb'\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78DEHM]')
def pump(t):
    global buf
    end = time.time() + t
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], max(0, min(0.1, end - time.time())))
        if r:
            try:
                d = os.read(fd, 65536)
            except OSError:
                return False
            if not d:
                return False
            buf += d; out.write(d); out.flush()
    return True
def text():
    return ANSI.sub(b'', buf).decode('utf-8', 'replace')
mark = 0
for st in steps:
    if st[0] == 'wait':
        rx = re.compile(st[1]); deadline = time.time() + st[2]; ok = False
        while time.time() < deadline:
            t = text()
            if rx.search(t[mark:]):
                ok = True; break
            if not pump(0.2):
                break
        print('wait', st[1], 'OK' if ok else 'TIMEOUT', file=sys.stderr)
        mark = len(text())
        if not ok:
            print(text()[-3000:], file=sys.stderr)
    elif st[0] == 'send':
        for ch in st[1]:
            os.write(fd, ch.encode()); pump(0.02)
        print('sent', repr(st[1]), file=sys.stderr)
    elif st[0] == 'sleep':
        pump(st[1])
pump(2)
try:
    os.kill(pid, signal.SIGTERM)
except ProcessLookupError:
    pass
pump(1)
os.waitpid(pid, 0)
