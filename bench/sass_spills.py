"""The compiled resources of the GEMM kernel instances, as the performance model reads them: per
instance of the tensor-core kernel (config, transposes, copy widths, C transposed; FP64 and FP32
operands) and of the FP32 SIMT kernel (config, transposes, copy widths), its registers and stack
frame (cuobjdump --dump-resource-usage) and its main loop (the innermost loop holding the most
DMMAs, or FFMAs): instructions, the math instructions, shared loads, and the local-memory (spill)
loads and stores in instructions and in bytes per thread. One JSON object per instance; needs
cuobjdump (the device machine).
  python3 bench/sass_spills.py --commit abc1234 build-device/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/*.o
"""
import argparse
import datetime
import json
import re
import subprocess

from sass_read import kernels, loops

# dgemm_tensorop_kernel<TensorOpConfig<BM, BN, BK, WM, WN, stages, blocks/SM, prefetch, mma k>,
#                       trans A, trans B, vec A, vec B, C transposed, T>
TENSOROP = re.compile(r'^_ZN7gemmkit4gemm21dgemm_tensorop_kernelINS0_14TensorOpConfigI'
                      r'((?:Li-?\d+E|Lb[01]E)+)EE((?:Li-?\d+E|Lb[01]E)+)(d|f)EEv')
TENSOROP_CONFIG = ['bm', 'bn', 'bk', 'warp_m', 'warp_n', 'stages', 'blocks_per_sm', 'fragment_prefetch', 'mma_k']
TENSOROP_FORM = ['trans_a', 'trans_b', 'vec_a', 'vec_b', 'c_transposed']
# sgemm_simt_kernel<SimtConfig<BM, BN, BK, WM, WN, TM, TN, stages, blocks/SM>, trans A, trans B, vec A, vec B>
SIMT = re.compile(r'^_ZN7gemmkit4gemm17sgemm_simt_kernelINS0_10SimtConfigI((?:Li-?\d+E)+)EE((?:Li-?\d+E|Lb[01]E)+)EEv')
SIMT_CONFIG = ['bm', 'bn', 'bk', 'warp_m', 'warp_n', 'thread_m', 'thread_n', 'stages', 'blocks_per_sm']
SIMT_FORM = ['trans_a', 'trans_b', 'vec_a', 'vec_b']


def parse(name):
    """(kernel family, config and form fields, math opcode) of a mangled name, or None."""
    m = TENSOROP.match(name)
    if m:
        row = {'kernel': 'tensorop', 'dtype': 'f64' if m.group(3) == 'd' else 'f32'}
        row.update(zip(TENSOROP_CONFIG, template_values(m.group(1))))
        row.update(zip(TENSOROP_FORM, template_values(m.group(2))))
        row['fragment_prefetch'] = bool(row['fragment_prefetch'])
        row['c_transposed'] = bool(row['c_transposed'])
        math = 'DMMA'
    else:
        m = SIMT.match(name)
        if not m:
            return None
        row = {'kernel': 'simt', 'dtype': 'f32'}
        row.update(zip(SIMT_CONFIG, template_values(m.group(1))))
        row.update(zip(SIMT_FORM, template_values(m.group(2))))
        math = 'FFMA'
    row['trans_a'], row['trans_b'] = bool(row['trans_a']), bool(row['trans_b'])
    return row, math


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
            parsed = parse(name)
            if not parsed:
                continue
            fields, math = parsed
            row = {'suite': 'sass-spills', 'arch': 'sm_90a'}
            row.update(fields)
            registers, stack = usage.get(name, (None, None))
            row['registers'], row['stack_bytes'] = registers, stack
            bodies = list(loops(lines, lambda body: sum(is_op(x, math) for x in body) >= 2, innermost=True))
            body = max(bodies, key=lambda b: sum(is_op(x, math) for x in b)) if bodies else []
            row['loop_instructions'] = len(body)
            row['loop_math'] = math
            row['loop_dmma'] = sum(is_op(x, 'DMMA') for x in body)
            row['loop_ffma'] = sum(is_op(x, 'FFMA') for x in body)
            row['loop_lds'] = sum(is_op(x, 'LDS') for x in body)
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
