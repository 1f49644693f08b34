#!/usr/bin/env bash
# The evaluation a user might script instead of aeon-evals, used by scripts/bench.py as a baseline.
#
#   bash scripts/bench_baseline.sh ROOT SPECS.TSV [TODAY]
#
# SPECS.TSV (written by bench.py beside the instance), one skill per line, tab-separated:
#   skill  output_glob  section|-  min_words  required(\x1f-joined)|-  forbidden(\x1f-joined)|-
#   numeric_pattern|-  min|-  max|-
# Per skill: newest match with `ls | sort | tail -1`; a log section cut out with awk; `wc -w`;
# one `grep -E` per pattern; the numeric check with grep -oE. Prints `skill<TAB>STATUS<TAB>words`.
# It does less than aeon-evals (no staleness, quality, diff, issues, article or site), which
# favours the baseline in the comparison.
set -u
root=$1
specs=$2
cd "$root" || exit 2
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

while IFS=$'\t' read -r skill glob section minw req forb npat nmin nmax; do
  # shellcheck disable=SC2086  # the glob must expand
  newest=$(ls -1 $glob 2>/dev/null | sort | tail -1)
  if [ -z "$newest" ]; then
    printf '%s\tNO_OUTPUT\t-\n' "$skill"
    continue
  fi
  file=$newest
  if [ "$section" != "-" ]; then
    level=${section%%[!#]*}
    awk -v want="$section" -v lvl="${#level}" '
      /^#+[ \t]/ { match($0, /^#+/); if (inside && RLENGTH <= lvl) inside = 0
                   if ($0 == want) inside = 1 }
      inside { print }' "$newest" > "$tmp"
    file=$tmp
  fi
  status=PASS
  words=$(wc -w < "$file")
  [ "$words" -lt "$minw" ] && status=FAIL
  if [ "$req" != "-" ]; then
    IFS=$'\x1f' read -r -a pats <<< "$req"
    for p in "${pats[@]}"; do
      grep -qE -- "$p" "$file" || status=FAIL
    done
  fi
  if [ "$forb" != "-" ]; then
    IFS=$'\x1f' read -r -a pats <<< "$forb"
    for p in "${pats[@]}"; do
      grep -qE -- "$p" "$file" && status=FAIL
    done
  fi
  if [ "$npat" != "-" ]; then
    value=$(grep -oE -m1 -- "$npat" "$file" | head -1 | grep -oE '[0-9][0-9,.]*' | tr -d ,)
    if [ -z "$value" ]; then
      [ "$status" = PASS ] && status=WARN
    elif ! awk -v v="$value" -v lo="$nmin" -v hi="$nmax" 'BEGIN { exit !(v >= lo && v <= hi) }'; then
      status=FAIL
    fi
  fi
  printf '%s\t%s\t%s\n' "$skill" "$status" "$words"
done < "$specs"
