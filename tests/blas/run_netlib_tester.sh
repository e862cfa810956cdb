#!/usr/bin/env bash
# Runs a netlib level-3 BLAS tester (Debian's libblas-test: xblat3d, xblat3s, ...) and checks its
# summary. The tester reads its .in file on stdin and writes the summary to the file the .in names
# (first line), so it runs in a fresh WORKDIR with a copy of the .in.
#
#   run_netlib_tester.sh WORKDIR INPUT.in -- COMMAND...
#
# COMMAND is the tester, usually behind gemmkit_blas_traced_run (which loads the drop-in for the
# tester alone and checks the trace); its stdin is the .in. Passes when COMMAND exits 0 and the
# summary says, for every routine the .in marks T, "PASSED THE TESTS OF ERROR-EXITS" (when the .in
# tests error exits) and "PASSED THE COMPUTATIONAL TESTS", ends with "END OF TESTS", and carries
# none of the testers' failure marks. Exit 77 (skipped) without the tester.
set -euo pipefail

[[ $# -ge 4 && "$3" == "--" ]] || { echo "usage: $0 WORKDIR INPUT.in -- COMMAND..." >&2; exit 2; }
workdir="$1"
input="$2"
shift 3

if [[ ! -r "$input" ]]; then
  echo "skipped: $input not found (apt-get install libblas-test)"
  exit 77
fi

rm -rf "$workdir"
mkdir -p "$workdir"
cp "$input" "$workdir/"
cd "$workdir"
in_name="$(basename "$input")"

# The summary file is the quoted name on the first line ('dblat3.out'); the tester opens it on
# the unit of the second line (6 is stdout, which gfortran then redirects into the file).
summary="$(sed -n "1s/^[[:space:]]*'\([^']*\)'.*/\1/p" "$in_name")"
[[ -n "$summary" ]] || { echo "FAIL: no summary file name on the first line of $in_name" >&2; exit 1; }
error_exits="$(sed -n '7s/^[[:space:]]*\([TF]\).*/\1/p' "$in_name")"
# Routine lines are "NAME   T ..." (format A7,L2); the names to check are those marked T.
mapfile -t routines < <(awk 'NR > 14 && NF >= 2 && $2 == "T" { print $1 }' "$in_name")
[[ ${#routines[@]} -gt 0 ]] || { echo "FAIL: no routine marked T in $in_name" >&2; exit 1; }

status=0
"$@" < "$in_name" > tester.stdout 2> tester.stderr || status=$?
cat tester.stdout tester.stderr
if [[ $status -ne 0 ]]; then
  [[ $status -eq 77 ]] && exit 77
  echo "FAIL: '$*' exited with status $status" >&2
  [[ -f "$summary" ]] && cat "$summary"
  exit 1
fi
if [[ ! -s "$summary" ]]; then
  echo "FAIL: the tester wrote no summary $workdir/$summary" >&2
  exit 1
fi

failures=()
for routine in "${routines[@]}"; do
  if [[ "$error_exits" == T ]] && ! grep -Eq "^ ${routine} +PASSED THE TESTS OF ERROR-EXITS *\$" "$summary"; then
    failures+=("$routine did not pass the error-exit tests")
  fi
  if ! grep -Eq "^ ${routine} +PASSED THE COMPUTATIONAL TESTS \\( *[0-9]+ CALLS\\) *\$" "$summary"; then
    failures+=("$routine did not pass the computational tests")
  fi
done
grep -Eq '^ *END OF TESTS *$' "$summary" || failures+=("no 'END OF TESTS': the tester stopped early")
# The testers' failure lines: '******* FATAL ERROR', '***** ILLEGAL VALUE ... NOT DETECTED',
# '******* XERBLA WAS CALLED WITH INFO = ...', '... FAILED ...', '... - SUSPECT *******',
# 'TESTS ABANDONED', 'ERROR IN DMMCH', 'WAS NOT TESTED'.
if grep -Eq '\*\*\*|FAIL|SUSPECT|ABANDONED|ERROR IN|NOT DETECTED|NOT TESTED|WILL NOT BE TESTED' "$summary"; then
  failures+=("failure lines in the summary:")
  while IFS= read -r line; do failures+=("  $line"); done \
    < <(grep -E '\*\*\*|FAIL|SUSPECT|ABANDONED|ERROR IN|NOT DETECTED|NOT TESTED' "$summary" | head -20)
fi

if [[ ${#failures[@]} -ne 0 ]]; then
  echo "----- $summary" >&2
  cat "$summary" >&2
  echo "-----" >&2
  printf 'FAIL: %s\n' "${failures[@]}" >&2
  exit 1
fi
echo "netlib $in_name: ${routines[*]} passed (error exits: $error_exits)"
