#!/usr/bin/env bash
# Provide ./notify for aeon-evals the way the instance's own Aeon workflow does (written by
# `aeon-evals init`; the skill-evals workflow calls it before the run). In order:
#   1. an executable ./notify that is already there is kept;
#   2. scripts/notify.sh, copied as Aeon does since mid-2026 (`cp scripts/notify.sh ./notify`);
#   3. the script the instance's Aeon workflow generates (older Aeon: a heredoc
#      `cat > ./notify << 'NOTIFY_SCRIPT'` inside a `run: |` block of .github/workflows/aeon.yml),
#      taken out of that file as YAML and bash would read it.
# Aeon's notifier queues each message in .pending-notify/ and skips messages already listed in
# .notify-sent-hashes: both are created here, as Aeon's workflow does. Neither is committed.
# Prints one line saying what was provided; under GitHub Actions a notifier that cannot be
# provided is a ::warning:: annotation, never silent.
set -euo pipefail

workflow=${AEON_WORKFLOW:-.github/workflows/aeon.yml}
mkdir -p .pending-notify
touch .notify-sent-hashes

if [ -f ./notify ] && [ -x ./notify ]; then
  echo "notify: ./notify already present (kept)"
  exit 0
fi
if [ -f scripts/notify.sh ]; then
  cp scripts/notify.sh ./notify
  chmod +x ./notify
  echo "notify: ./notify copied from scripts/notify.sh"
  exit 0
fi
if [ -f "$workflow" ]; then
  # The heredoc body, without the block's indentation (the `cat` line's own), up to its delimiter.
  awk -v q="'" '
    state == 0 && $0 ~ /cat[ \t]+>[ \t]*(\.\/)?notify[ \t]*<</ {
      indent = match($0, /[^ ]/) - 1
      rest = substr($0, index($0, "<<") + 2)
      sub(/^-/, "", rest); sub(/^[ \t]*/, "", rest)
      gsub(/"/, "", rest); gsub(q, "", rest)
      sub(/[^A-Za-z0-9_].*$/, "", rest)
      if (rest == "") { exit }
      delim = rest; state = 1; next
    }
    state == 1 {
      line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t]+$/, "", line)
      if (line == delim) { exit }
      print substr($0, indent + 1)
    }
  ' "$workflow" > ./notify.generated
  if [ -s ./notify.generated ] && head -n 1 ./notify.generated | grep -q '^#!'; then
    mv ./notify.generated ./notify
    chmod +x ./notify
    echo "notify: ./notify generated as $workflow generates it"
    exit 0
  fi
  rm -f ./notify.generated
fi

message="no notifier: no executable ./notify, no scripts/notify.sh and no generated notify script in $workflow, so aeon-evals can alert no one"
if [ "${GITHUB_ACTIONS:-}" = "true" ]; then
  echo "::warning title=aeon-evals notify::$message"
else
  echo "notify: $message"
fi
