#!/usr/bin/env python3
"""Run a program as if the system refused unprivileged user namespaces
(Ubuntu 24.04's AppArmor policy, Docker's default seccomp profile): a
seccomp filter makes unshare and clone with CLONE_NEWUSER fail with EPERM,
and clone3 with ENOSYS (so callers fall back to clone). The real kernel,
not a test switch inside automode.

usage: no_userns.py PROGRAM [ARGS...]
"""
import ctypes
import os
import platform
import struct
import sys

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
EPERM = 1
ENOSYS = 38
CLONE_NEWUSER = 0x10000000
if platform.machine() == "x86_64":
    UNSHARE, CLONE, CLONE3 = 272, 56, 435
else:  # the generic table (aarch64)
    UNSHARE, CLONE, CLONE3 = 97, 220, 435

BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_JSET_K = 0x45
BPF_RET_K = 0x06


def insn(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


# seccomp_data: nr at 0, args from 16 (the low half of arg 0 at 16).
prog = [
    insn(BPF_LD_W_ABS, 0, 0, 0),
    insn(BPF_JEQ_K, 0, 1, CLONE3),
    insn(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS),
    insn(BPF_JEQ_K, 1, 0, UNSHARE),
    insn(BPF_JEQ_K, 0, 3, CLONE),
    insn(BPF_LD_W_ABS, 0, 0, 16),
    insn(BPF_JSET_K, 0, 1, CLONE_NEWUSER),
    insn(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM),
    insn(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
]
code = b"".join(prog)
buf = ctypes.create_string_buffer(code, len(code))


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


fprog = SockFprog(len(prog), ctypes.addressof(buf))
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
    sys.exit("no_userns: PR_SET_NO_NEW_PRIVS failed")
if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
    sys.exit("no_userns: seccomp failed: %s" % os.strerror(ctypes.get_errno()))
os.execv(sys.argv[1], sys.argv[1:])
