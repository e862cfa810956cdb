#!/usr/bin/env bash
# Instruction mix of the GEMM kernels from their SASS (seed 001's Table 3 style): for each kernel
# in the given object files or binaries, the count of each opcode class the GEMM loop is made of.
# Needs cuobjdump (the CUDA toolkit on the device machine).
#   bench/sass_summary.sh build-device/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/*.o > sass.txt
set -euo pipefail
command -v cuobjdump >/dev/null || { echo "sass_summary.sh: cuobjdump not found" >&2; exit 2; }
printf "%-6s %6s %6s %6s %6s %6s %6s %6s %6s %6s  %s\n" arch DMMA DFMA LDS LDSM LDGSTS BAR STL LDL total kernel
for object in "$@"; do
  cuobjdump -sass "$object" 2>/dev/null | awk '
    function flush() {
      if (name != "") printf "%-6s %6d %6d %6d %6d %6d %6d %6d %6d %6d  %s\n", arch, c["DMMA"], c["DFMA"], c["LDS"], c["LDSM"], c["LDGSTS"], c["BAR"], c["STL"], c["LDL"], total, name
      delete c; total = 0
    }
    /arch = sm_/ { match($0, /sm_[0-9a-z]+/); arch = substr($0, RSTART, RLENGTH) }
    /Function :/ { flush(); name = $NF }
    /^ +\/\*[0-9a-f]+\*\// {
      line = $0; sub(/^ +\/\*[0-9a-f]+\*\/ +/, "", line); sub(/^@!?U?P[0-9T]+ +/, "", line)
      split(line, f, /[ .;]/); op = f[1]
      if (op == "") next
      total++
      if (op in want) c[op]++
    }
    BEGIN { split("DMMA DFMA LDS LDSM LDGSTS BAR STL LDL", w, " "); for (i in w) want[w[i]] = 1 }
    END { flush() }'
done
