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


def exclusive_loop(pc):
    """
    arm64: if @pc starts a load/store-exclusive loop (ldxr/ldaxr ... stxr
    ... cbnz back to @pc), (end, exits): the address after the loop, and
    (branch, target) for each branch that may leave it early (a cmpxchg's
    failed compare).  None otherwise.
    """
    if ARCH != "arm64":
        return None
    if pc not in _exclusive:
        _exclusive[pc] = _exclusive_scan(pc)
    return _exclusive[pc]


def _branch_target(operands):
    target = operands.split(",")[-1].split()[0]
    return int(target, 16) if target.startswith("0x") else None


def _exclusive_scan(pc):
    if not insn(pc)[0].startswith(("ldx", "ldax")):
        return None
    stored, exits = False, []
    for i in range(1, 16):
        at = pc + 4 * i
        op, operands = insn(at)
        if op.startswith(("stx", "stlx")):
            stored = True
        elif op in ("cbnz", "cbz", "tbz", "tbnz") or op.startswith("b."):
            target = _branch_target(operands)
            if stored and op == "cbnz" and target == pc:
                return at + 4, exits
            if target is None:
                return None
            exits.append((at, target))
        elif op in ("b", "br", "ret", "bl", "blr"):
            return None
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
        loop = exclusive_loop(pc)
        if loop is not None:
            # Run it; count the straight path up to where it left (one pass).
            end, exits = loop
            for target in {end} | {t for _, t in exits}:
                gdb.execute("tbreak *0x%x" % target, to_string=True)
            gdb.execute("continue", to_string=True)
            gdb.execute("delete", to_string=True)
            landed = reg("$pc")
            last = end
            for branch, target in exits:
                if target == landed and target != end:
                    last = branch + 4
                    break
            pcs.extend(range(pc + 4, last, 4))
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
