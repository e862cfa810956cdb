"""The compiled resources of the FP64 tensor-core kernel instances, as the performance model reads
them: per instance (config, transposes, copy widths, C transposed), its registers and stack frame
(cuobjdump --dump-resource-usage) and the local-memory (spill) loads and stores inside its main loop
(the innermost loop holding the most DMMAs), in instructions and in bytes per thread, with the
DMMAs that loop issues. One JSON object per instance; needs cuobjdump (the device machine).
  python3 bench/sass_spills.py --commit abc1234 build-device/CMakeFiles/gemmkit.dir/generated/cuda/dgemm_tensorop_*.o
"""
import argparse
import datetime
import json
import re
import subprocess

from sass_read import kernels, loops

# dgemm_tensorop_kernel<TensorOpConfig<BM, BN, BK, WM, WN, stages, blocks/SM, prefetch, mma k>,
#                       trans A, trans B, vec A, vec B, C transposed, T>
MANGLED = re.compile(r'^_ZN7gemmkit4gemm21dgemm_tensorop_kernelINS0_14TensorOpConfigI'
                     r'((?:Li-?\d+E|Lb[01]E)+)EE((?:Li-?\d+E|Lb[01]E)+)(d|f)EEv')
CONFIG_FIELDS = ['bm', 'bn', 'bk', 'warp_m', 'warp_n', 'stages', 'blocks_per_sm', 'fragment_prefetch', 'mma_k']
FORM_FIELDS = ['trans_a', 'trans_b', 'vec_a', 'vec_b', 'c_transposed']


def template_values(text):
    return [int(v) for v in re.findall(r'L[ib](-?\d+)E', text)]


def resource_usage(obj):
    """Mangled name -> (registers, stack bytes) for the sm_90a kernels of `obj`."""
    out = subprocess.run(['cuobjdump', '--dump-resource-usage', obj], capture_output=True, text=True).stdout
    usage, arch = {}, None
    name = None
    for line in out.split('\n'):
        m = re.search(r'arch = (sm_\w+)', line)
        if m:
            arch = m.group(1)
        m = re.search(r'Function (\S+):', line)
        if m:
            name = m.group(1)
        m = re.search(r'REG:(\d+) STACK:(\d+)', line)
        if m and name and arch == 'sm_90a':
            usage[name] = (int(m.group(1)), int(m.group(2)))
    return usage


def opcode(instruction):
    """The opcode with its modifiers, past any predicate guard."""
    words = instruction.split()
    if words and words[0].startswith('@'):
        words = words[1:]
    return words[0] if words else ''


def is_op(instruction, op):
    code = opcode(instruction)
    return code == op or code.startswith(op + '.')


def access_bytes(instruction):
    width = re.search(r'\.(64|128)\b', opcode(instruction))
    return int(width.group(1)) // 8 if width else 4


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--commit', default='unknown')
    parser.add_argument('objects', nargs='+')
    args = parser.parse_args()
    date = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')
    for obj in args.objects:
        usage = resource_usage(obj)
        for name, lines in kernels(obj, 'sm_90a'):
            m = MANGLED.match(name)
            if not m:
                continue
            row = {'suite': 'sass-spills', 'arch': 'sm_90a'}
            row.update(zip(CONFIG_FIELDS, template_values(m.group(1))))
            row.update(zip(FORM_FIELDS, template_values(m.group(2))))
            row['dtype'] = 'f64' if m.group(3) == 'd' else 'f32'
            row['fragment_prefetch'] = bool(row['fragment_prefetch'])
            for key in ('trans_a', 'trans_b', 'c_transposed'):
                row[key] = bool(row[key])
            registers, stack = usage.get(name, (None, None))
            row['registers'], row['stack_bytes'] = registers, stack
            bodies = list(loops(lines, lambda body: sum(is_op(x, 'DMMA') for x in body) >= 2, innermost=True))
            body = max(bodies, key=lambda b: sum(is_op(x, 'DMMA') for x in b)) if bodies else []
            row['loop_instructions'] = len(body)
            row['loop_dmma'] = sum(is_op(x, 'DMMA') for x in body)
            row['loop_ldl'] = sum(is_op(x, 'LDL') for x in body)
            row['loop_stl'] = sum(is_op(x, 'STL') for x in body)
            row['loop_ldl_bytes'] = sum(access_bytes(x) for x in body if is_op(x, 'LDL'))
            row['loop_stl_bytes'] = sum(access_bytes(x) for x in body if is_op(x, 'STL'))
            row['object'] = obj.split('/')[-1]
            row['mangled'] = name
            row['commit'], row['date'] = args.commit, date
            print(json.dumps(row))


if __name__ == '__main__':
    main()
