"""Register-bank conflicts of the FFMAs in the FP32 SIMT kernels' main loops, read from the SASS.

For each kernel in the object files, every innermost loop (a backward branch) holding at least 256
FFMAs: its length, its FFMAs, the source operands they read from the reuse cache, and the FFMAs two
of whose register sources read from the register file fall in one bank, counting banks as the register
number modulo 2 (Volta and later, as microbenchmarks report them) and modulo 4 (Maxwell).
Needs cuobjdump (sass_read.py).
  python3 bench/sass_banks.py build-device/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/sgemm_simt_128x128x16_w32x64_t8x8_s4_b2.cu.o
"""
import re
import sys

from sass_read import kernels, loops


def conflicts(body):
    """An operand flagged .reuse stays in its slot's reuse cache for the next instruction, which then
    reads it from there: only operands not so cached are read from the register banks."""
    ffma = cached_reads = 0
    clashes = {2: 0, 4: 0}
    flagged = {}  # operand slot -> register the previous instruction left in the reuse cache
    for instruction in body:
        fields = instruction.split(None, 1)
        operands = fields[1].split(',') if len(fields) > 1 else []
        sources = operands[1:] if instruction.startswith('FFMA') else []
        now_flagged = {}
        registers = []
        for slot, operand in enumerate(sources):
            m = re.match(r'\s*-?\|?R(\d+)', operand)
            if not m:
                continue
            register = int(m.group(1))
            if '.reuse' in operand:
                now_flagged[slot] = register
            if flagged.get(slot) == register:
                cached_reads += 1
            else:
                registers.append(register)
        flagged = now_flagged
        if not instruction.startswith('FFMA'):
            continue
        ffma += 1
        for banks in clashes:
            in_banks = [r % banks for r in registers]
            clashes[banks] += len(in_banks) != len(set(in_banks))
    return len(body), ffma, cached_reads, clashes[2], clashes[4]


def short_name(name):
    kind = 'stream_k' if 'stream_k' in name else 'fixup' if 'fixup' in name else 'plain'
    config = re.search(r'SimtConfigI((?:Li\d+E)+)E', name)
    case = re.search(r'EE(Lb\dELb\dELi\dELi\d)E', name)
    dims = 'x'.join(re.findall(r'Li(\d+)E', config.group(1))) if config else '?'
    return '%s %s %s' % (kind, dims, case.group(1) if case else '?')


for obj in sys.argv[1:]:
    for name, lines in kernels(obj, 'sm_90a'):
        # Innermost loops only: the stream-K walk's loop holds the main loop.
        for body in loops(lines, lambda body: sum(x.startswith('FFMA') for x in body) >= 256, innermost=True):
            length, ffma, reused, mod2, mod4 = conflicts(body)
            print('%-60s loop %5d instr %5d FFMA %5d cached %5d clash mod2 %5d mod4' %
                  (short_name(name), length, ffma, reused, mod2, mod4))
