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
# and counts as one instruction.  On arm64 a load/store-exclusive loop runs
# at full speed too, counted as one pass of its straight path: stepping
# clears the exclusive monitor, so the store would never succeed.
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


def insn(pc):
    """The instruction at @pc as gdb disassembles it: (mnemonic, operands)."""
    text = gdb.execute("x/i 0x%x" % pc, to_string=True).split(":", 1)[1].split()
    return text[0], " ".join(text[1:])


_exclusive = {}


def exclusive_end(pc):
    """
    arm64: if @pc starts a load/store-exclusive loop (ldxr/ldaxr ... stxr
    ... cbnz back), the address after the loop; else None.
    """
    if ARCH != "arm64":
        return None
    if pc not in _exclusive:
        _exclusive[pc] = _exclusive_scan(pc)
    return _exclusive[pc]


def _exclusive_scan(pc):
    if not insn(pc)[0].startswith(("ldx", "ldax")):
        return None
    stored = False
    for i in range(1, 16):
        op, _ = insn(pc + 4 * i)
        if op.startswith(("stx", "stlx")):
            stored = True
        elif stored and op in ("cbnz", "cbz"):
            return pc + 4 * (i + 1)
    return None


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
        end = exclusive_end(pc)
        if end is not None:
            # Counted as the loop's straight path (one pass, store succeeds).
            pcs.extend(range(pc + 4, end, 4))
            gdb.execute("tbreak *0x%x" % end, to_string=True)
            gdb.execute("continue", to_string=True)
        elif pc == resched:
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
