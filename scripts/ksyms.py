"""Kernel text symbols from a System.map, for the insn-trace and
insn-profile reports: the function an address is in."""
import bisect


class Symbols:
    def __init__(self, system_map):
        syms = []
        with open(system_map) as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 3 and fields[1] in "tTwW":
                    syms.append((int(fields[0], 16), fields[2]))
        syms.sort()
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]
        # The text ends at _etext (or, without it, at the last text symbol).
        ends = [a for a, n in syms if n in ("_etext", "__etext")]
        self.end = ends[0] if ends else (self.addrs[-1] if self.addrs else 0)

    def name(self, pc):
        """The function @pc is in, or "?" below the first symbol."""
        i = bisect.bisect_right(self.addrs, pc) - 1
        return self.names[i] if i >= 0 else "?"

    def in_text(self, pc):
        return bool(self.addrs) and self.addrs[0] <= pc < self.end
