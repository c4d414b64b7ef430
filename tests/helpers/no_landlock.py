#!/usr/bin/env python3
"""Run a program as if the kernel had no Landlock: a seccomp filter makes
landlock_create_ruleset, landlock_add_rule and landlock_restrict_self fail
with ENOSYS (what a kernel without Landlock, or an old container seccomp
profile, answers). The real kernel, not a test switch inside automode.

usage: no_landlock.py PROGRAM [ARGS...]
"""
import ctypes
import os
import struct
import sys

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
ENOSYS = 38
# The same numbers on x86_64 and aarch64 (the generic table).
LANDLOCK_SYSCALLS = (444, 445, 446)

BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_RET_K = 0x06


def insn(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


prog = [insn(BPF_LD_W_ABS, 0, 0, 0)]  # seccomp_data.nr
for nr in LANDLOCK_SYSCALLS:
    prog.append(insn(BPF_JEQ_K, 0, 1, nr))
    prog.append(insn(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS))
prog.append(insn(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW))
code = b"".join(prog)
buf = ctypes.create_string_buffer(code, len(code))


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


fprog = SockFprog(len(prog), ctypes.addressof(buf))
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
    sys.exit("no_landlock: PR_SET_NO_NEW_PRIVS failed")
if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
    sys.exit("no_landlock: seccomp failed: %s" % os.strerror(ctypes.get_errno()))
os.execv(sys.argv[1], sys.argv[1:])
