#!/usr/bin/env bash
# Commit what an aeon-evals run wrote and push it to $BRANCH (written by `aeon-evals init`; the
# skill-evals workflow calls it after the run):
#   push-results.sh -- aeon-evals run [ARGS...]
# When the push is rejected (an agent pushed meanwhile, say to the same day's log), it starts
# again from the remote: resets to it, reruns the evaluation (the command after `--`, with
# --no-notify: the first run has notified already), commits and pushes again, at most
# $AEON_EVALS_PUSH_ATTEMPTS times (default 5). It never merges, rebases or force-pushes: no
# conflict markers, and the other writer's commit is kept whole. The evaluation is deterministic
# and takes about a second, so a rerun costs less than resolving a conflict.
# Environment: BRANCH (required), VERDICT (for the commit message), AEON_EVALS_PUSH_ATTEMPTS,
# AEON_EVALS_PUSH_PAUSE (seconds times the attempt number between attempts; default 2).
set -euo pipefail

: "${BRANCH:?BRANCH: the branch to push to}"
attempts=${AEON_EVALS_PUSH_ATTEMPTS:-5}
pause=${AEON_EVALS_PUSH_PAUSE:-2}
notify_state=memory/skill-evals-notify.json
if [ "${1:-}" = "--" ]; then shift; fi
if [ "$#" -eq 0 ]; then
  echo "usage: push-results.sh -- aeon-evals run [ARGS...]" >&2
  exit 2
fi

# What a run writes and the repository keeps, on either layout (articles/ or output/articles/;
# apps/dashboard/outputs/ or dashboard/outputs/): the article and its metrics file (the drift
# history), the issues and INDEX.md, the daily log, the dashboard card, the notify record and a
# starter evals.json. Anything else in the tree (site/, the cache, ./notify) is left alone.
stage() {
  local paths=() p
  shopt -s nullglob
  for p in articles/skill-evals-*.md articles/skill-evals-metrics-*.tsv \
    output/articles/skill-evals-*.md output/articles/skill-evals-metrics-*.tsv \
    apps/dashboard/outputs/skill-evals-*.json dashboard/outputs/skill-evals-*.json \
    memory/issues memory/logs memory/skill-evals-notify.json skills/skill-evals/evals.json; do
    if [ -e "$p" ]; then paths+=("$p"); fi
  done
  shopt -u nullglob
  if [ "${#paths[@]}" -gt 0 ]; then git add -A -- "${paths[@]}"; fi
}

# Commit the staged run files; false when nothing changed.
commit() {
  stage
  if git diff --cached --quiet; then
    return 1
  fi
  git commit -q -m "skill-evals: $(date -u +%F) ${VERDICT:-run}"
}

if ! commit; then
  echo "nothing changed: no commit"
  exit 0
fi
attempt=1
while true; do
  if git push -q origin "HEAD:refs/heads/$BRANCH"; then
    echo "pushed to $BRANCH (attempt $attempt)"
    exit 0
  fi
  if [ "$attempt" -ge "$attempts" ]; then
    break
  fi
  echo "push rejected (attempt $attempt): starting again from origin/$BRANCH"
  sleep "$((attempt * pause))"
  git fetch -q origin "$BRANCH"
  # What the first run sent is kept across the reset: the rerun must not send it again.
  saved=""
  if [ -f "$notify_state" ]; then
    saved=$(mktemp)
    cp "$notify_state" "$saved"
  fi
  git reset -q --hard FETCH_HEAD
  if [ -n "$saved" ]; then
    mkdir -p "$(dirname "$notify_state")"
    cp "$saved" "$notify_state"
    rm -f "$saved"
  fi
  set +e
  "$@" --no-notify
  code=$?
  set -e
  # 0 = done, 1 = --fail-on tripped, 3 = starter evals.json written: each leaves files to keep.
  case "$code" in
    0 | 1 | 3) ;;
    *)
      echo "::error title=skill-evals::the evaluation rerun on origin/$BRANCH exited $code; nothing pushed"
      exit 1
      ;;
  esac
  if ! commit; then
    echo "origin/$BRANCH already holds this evaluation: nothing to push"
    exit 0
  fi
  attempt=$((attempt + 1))
done
echo "::error title=skill-evals::push to $BRANCH rejected $attempts times; nothing pushed"
exit 1
