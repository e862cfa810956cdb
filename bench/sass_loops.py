"""Local-memory traffic inside the FP64 tensor-core kernels' loops, read from the SASS.

For each kernel in an object file, every loop (a backward branch) holding at least 16 DMMAs:
its length in instructions, its DMMAs, and the LDL / STL (spill) instructions inside it. The
unchecked and checked copies of the m16n8k8 loop show as two loops. Needs cuobjdump (the CUDA
toolkit on the device machine).
  python3 bench/sass_loops.py build-device/CMakeFiles/gemmkit.dir/generated/cuda/dgemm_tensorop_18.cu.o
"""
import re
import subprocess
import sys

obj = sys.argv[1]
txt=subprocess.run(['cuobjdump','-sass',obj],capture_output=True,text=True).stdout
funcs=re.split(r'\n\s+Function : ',txt)[1:]
for f in funcs:
    name=f.split('\n',1)[0]
    t=re.search(r"EELb(\d)ELb(\d)ELi(\d)ELi(\d)EEEv",name)
    lines=[]
    for l in f.split('\n'):
        m=re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?);',l)
        if m: lines.append((int(m.group(1),16),m.group(2)))
    addr={a:i for i,(a,_) in enumerate(lines)}
    loops=[]
    for i,(a,ins) in enumerate(lines):
        m=re.search(r'BRA\s+(?:`\(\.L_x_\d+\)|)\s*0x([0-9a-f]+)',ins) or re.search(r'BRA .*?0x([0-9a-f]+)',ins)
        if m:
            tgt=int(m.group(1),16)
            if tgt<a and tgt in addr:
                body=[x for _,x in lines[addr[tgt]:i+1]]
                d=sum('DMMA' in x for x in body)
                if d>=16:
                    loops.append((len(body),d,sum(x.split()[0].startswith(('LDL','@P0 LDL')) or ' LDL' in x for x in body),sum(' STL' in x or x.startswith('STL') for x in body)))
    tag="ta%s tb%s v%s%s"%t.groups() if t else name[:60]
    print(tag, 'loops(len,dmma,ldl,stl):',loops)
