# gdb (gdb-multiarch) script for scripts/insn-trace.sh: single-step one
# system call of a guest and write the program counter of every instruction
# the kernel executed for it, one hexadecimal address per line.
#
# Which call: the first one the guest makes after a getppid() (the marker
# guest/bench/mseal_bench.c --probe issues right before the call it probes).
# From the C entry of the system call (do_syscall_64, do_el0_svc) to its
# return, so the entry work is in both kernels' counts alike.  A
# __cond_resched() on the way runs at full speed, not stepped (it may
# schedule, and stepping with interrupts masked would then wait forever),
# and counts as one instruction.
#
# Environment: INSN_PORT (QEMU's gdb port), INSN_OUT (output file),
# INSN_ARCH (x86_64 or arm64), INSN_LIMIT (give up after this many steps).
import os

import gdb

ARCH = os.environ["INSN_ARCH"]
# The marker, and the function every system call goes through.
MARKER = {"x86_64": "__x64_sys_getppid", "arm64": "__arm64_sys_getppid"}[ARCH]
DISPATCH = {"x86_64": "do_syscall_64", "arm64": "do_el0_svc"}[ARCH]
MASK = (1 << 64) - 1


def reg(name):
    return int(gdb.parse_and_eval(name)) & MASK


def return_address():
    """Where the function just entered returns to."""
    if ARCH == "arm64":
        return reg("$x30")
    return int(gdb.parse_and_eval("*(unsigned long *)$sp")) & MASK


def address(sym):
    return int(gdb.parse_and_eval("(unsigned long)&%s" % sym)) & MASK


def main():
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("target remote 127.0.0.1:%s" % os.environ["INSN_PORT"])
    gdb.execute("break *0x%x" % address(MARKER))
    gdb.execute("continue")
    gdb.execute("delete")
    # The marker returns; the next entry to the dispatcher is the probed call.
    gdb.execute("break *0x%x" % address(DISPATCH))
    gdb.execute("continue")
    gdb.execute("delete")
    resched = address("__cond_resched")
    limit = int(os.environ.get("INSN_LIMIT", "2000000"))
    ret = return_address()
    pcs = []
    while len(pcs) < limit:
        pc = reg("$pc")
        if pc == ret:
            break
        pcs.append(pc)
        if pc == resched:
            gdb.execute("tbreak *0x%x" % return_address(), to_string=True)
            gdb.execute("continue", to_string=True)
        else:
            gdb.execute("stepi", to_string=True)
    else:
        raise gdb.GdbError("no return after %d instructions" % limit)
    with open(os.environ["INSN_OUT"], "w") as f:
        f.writelines("%x\n" % pc for pc in pcs)
    gdb.execute("kill")


main()
