"""The SASS of an object file, as the bench/sass_*.py scripts read it: each kernel's instructions
with their addresses, and its loops (backward branches). Needs cuobjdump (the CUDA toolkit on the
device machine)."""
import re
import subprocess


def kernels(obj, arch=None):
    """(mangled name, [(address, instruction)]) for each kernel in `obj`; every arch unless `arch`."""
    command = ['cuobjdump', '-sass'] + (['-arch', arch] if arch else []) + [obj]
    sass = subprocess.run(command, capture_output=True, text=True).stdout
    for text in re.split(r'\n\s+Function : ', sass)[1:]:
        name = text.split('\n', 1)[0]
        lines = []
        for line in text.split('\n'):
            m = re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?);', line)
            if m:
                lines.append((int(m.group(1), 16), m.group(2)))
        yield name, lines


def loops(lines, holds, innermost=False):
    """The bodies (instruction lists) of the loops for which holds(body) is true, in the order of
    their backward branches; with innermost, only those holding no other such loop."""
    index = {address: i for i, (address, _) in enumerate(lines)}
    spans = []
    for i, (address, instruction) in enumerate(lines):
        m = re.search(r'BRA\s.*?0x([0-9a-f]+)', instruction)
        if m and int(m.group(1), 16) < address and int(m.group(1), 16) in index:
            begin = index[int(m.group(1), 16)]
            if holds([x for _, x in lines[begin:i + 1]]):
                spans.append((begin, i + 1))
    for begin, end in spans:
        if not innermost or not any(begin <= b and e <= end and (b, e) != (begin, end) for b, e in spans):
            yield [x for _, x in lines[begin:end]]
