"""Local-memory traffic inside the FP64 tensor-core kernels' loops, read from the SASS.

For each kernel in an object file, every loop (a backward branch) holding at least 16 DMMAs:
its length in instructions, its DMMAs, and the LDL / STL (spill) instructions inside it. The
unchecked and checked copies of the m16n8k8 loop show as two loops. Needs cuobjdump (sass_read.py).
  python3 bench/sass_loops.py build-device/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/dgemm_tensorop_128x64x16_w64x32_s3_b2_k8.cu.o
"""
import re
import sys

from sass_read import kernels, loops

for name, lines in kernels(sys.argv[1]):
    t = re.search(r"EELb(\d)ELb(\d)ELi(\d)ELi(\d)EEEv", name)
    found = [(len(body), sum('DMMA' in x for x in body),
              sum(x.split()[0].startswith(('LDL', '@P0 LDL')) or ' LDL' in x for x in body),
              sum(' STL' in x or x.startswith('STL') for x in body))
             for body in loops(lines, lambda body: sum('DMMA' in x for x in body) >= 16)]
    tag = "ta%s tb%s v%s%s" % t.groups() if t else name[:60]
    print(tag, 'loops(len,dmma,ldl,stl):', found)
