#!/usr/bin/env bash
# Instruction mix of GEMM kernels read from their SASS, seed 001's Table 3 for our kernels: per
# kernel, and per its main loop (the backward branch whose range holds the most FMAs: with the
# k-steps unrolled, the slice loop), the count of FFMA, DFMA, DMMA, shared loads by width, global
# loads by width, LDGSTS, shared stores, barriers, integer/address instructions (IMAD, IADD3 and the
# rest), branches, spills (LDL/STL), the total without NOPs, and the FMA fraction of that total.
# A table on stdout; with --json FILE, one JSON object per kernel and scope (suite "sass").
# Needs cuobjdump (the CUDA toolkit on the device machine).
#   bench/sass_mix.sh [--json FILE] [--filter REGEX] build-device/src/CMakeFiles/gemmkit_layer_kernels.dir/cuda/ladder/*.o
set -euo pipefail
json=""
filter="."
while [[ $# -gt 0 ]]; do
  case "$1" in
    --json) json="$2"; shift 2 ;;
    --filter) filter="$2"; shift 2 ;;
    *) break ;;
  esac
done
command -v cuobjdump >/dev/null || { echo "sass_mix.sh: cuobjdump not found" >&2; exit 2; }
demangle=cat
command -v cu++filt >/dev/null && demangle=cu++filt
command -v c++filt >/dev/null && [[ $demangle == cat ]] && demangle=c++filt
commit="${GEMMKIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
columns="FFMA DFMA DMMA LDS32 LDS64 LDS128 LDSM LDG32 LDG64 LDG128 LDGSTS STS BAR IMAD IADD3 INT BRA LDL STL"
printf "%-6s %-5s" arch scope
for c in $columns; do printf " %6s" "$c"; done
printf " %6s %6s  %s\n" total fma% kernel
[[ -n "$json" ]] && : >> "$json"
for object in "$@"; do
  cuobjdump -sass "$object" 2>/dev/null | awk -v columns="$columns" -v json="$json" -v filter="$filter" \
    -v object="$object" -v commit="$commit" -v date="$date" -v demangle="$demangle" '
    function classify(op,    base, width) {
      base = op; sub(/\..*/, "", base)
      width = op ~ /\.128/ ? "128" : (op ~ /\.64/ ? "64" : "32")
      if (base == "FFMA" || base == "DFMA" || base == "DMMA" || base == "LDSM" || base == "LDGSTS" || base == "BAR" ||
          base == "IMAD" || base == "IADD3" || base == "BRA" || base == "LDL" || base == "STL" || base == "STS") return base
      if (base == "LDS" || base == "LDG") return base width
      if (base ~ /^(IADD|LEA|LOP3|LOP|SHF|SHL|SHR|ISETP|SEL|MOV|IMNMX|IABS|PRMT|S2R|S2UR|UIADD3|UIMAD|ULEA|UMOV|ULOP3|USHF|ISCADD|P2R|R2P|PLOP3|VIADD|VIMNMX)$/) return "INT"
      return ""
    }
    function row(scope, first, last,    i, c, n, total, fma, line, js, name) {
      delete cnt; total = 0
      for (i = first; i <= last; i++) {
        total++
        c = classify(ops[i]); if (c != "") cnt[c]++
      }
      fma = cnt["FFMA"] + cnt["DFMA"] + cnt["DMMA"]
      line = sprintf("%-6s %-5s", arch, scope)
      js = sprintf("{\"suite\": \"sass\", \"kernel\": \"%s\", \"mangled\": \"%s\", \"arch\": \"%s\", \"scope\": \"%s\"", pretty, name_raw, arch, scope)
      for (i = 1; i <= ncol; i++) {
        line = line sprintf(" %6d", cnt[col[i]])
        js = js sprintf(", \"%s\": %d", col[i], cnt[col[i]])
      }
      line = line sprintf(" %6d %5.1f%%  %s", total, total ? 100 * fma / total : 0, pretty)
      js = js sprintf(", \"total\": %d, \"fma_fraction\": %.4f, \"instructions_first\": %d, \"instructions_last\": %d, \"object\": \"%s\", \"commit\": \"%s\", \"date\": \"%s\"}", total, total ? fma / total : 0, first, last, object, commit, date)
      print line
      if (json != "") print js >> json
    }
    function flush(    i, best, best_fma, j, f, c) {
      if (name_raw == "" || n == 0 || name_raw !~ filter) { n = 0; return }
      cmd = "echo " name_raw " | " demangle; cmd | getline pretty; close(cmd)
      gsub(/"/, "\\\"", pretty)
      row("all", 1, n)
      # Loops: a branch back to an earlier instruction; the one holding the most FMAs is the main loop.
      best = 0; best_fma = -1
      for (i = 1; i <= n; i++) {
        if (target[i] == "" || !(target[i] in index_of) || index_of[target[i]] >= i) continue
        f = 0
        for (j = index_of[target[i]]; j <= i; j++) { c = classify(ops[j]); if (c == "FFMA" || c == "DFMA" || c == "DMMA") f++ }
        if (f > best_fma) { best_fma = f; best = i }
      }
      if (best > 0) row("loop", index_of[target[best]], best)
      n = 0; delete ops; delete target; delete index_of
    }
    function norm(h) { sub(/^0x/, "", h); sub(/^0+/, "", h); return h == "" ? "0" : tolower(h) }
    BEGIN { ncol = split(columns, col, " ") }
    # A cubin header starts the next architecture: finish the last kernel of the previous one first.
    /arch = sm_/ { flush(); match($0, /sm_[0-9a-z]+/); arch = substr($0, RSTART, RLENGTH) }
    /Function :/ { flush(); name_raw = $NF }
    /^[ \t]+\/\*[0-9a-f]+\*\/[ \t]+[^ \t]/ {
      line = $0
      match(line, /\/\*[0-9a-f]+\*\//); address = substr(line, RSTART + 2, RLENGTH - 4)
      sub(/^[ \t]+\/\*[0-9a-f]+\*\/[ \t]+/, "", line); sub(/^@!?U?P[0-9T]+[ \t]+/, "", line)
      split(line, f, /[ \t;]+/); op = f[1]
      if (op == "" || op == "NOP") next
      n++; ops[n] = op; index_of[norm(address)] = n; target[n] = ""
      if (op ~ /^BRA/ && match(line, /0x[0-9a-f]+/)) target[n] = norm(substr(line, RSTART, RLENGTH))
    }
    END { flush() }'
done
