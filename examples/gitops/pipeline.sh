#!/usr/bin/env bash
# The GitOps steps for a Neon Auth stack, the same in CI and on a laptop:
#
#   pipeline.sh preview STACK   pull requests: show what would change (fails on errors)
#   pipeline.sh up STACK        main branch: apply
#   pipeline.sh drift STACK     schedule: refresh state from Neon, then fail if the program and
#                               reality differ (exit 3), naming what drifted
#
# Runs in the program folder given by PROGRAM_DIR (default: examples/per-environment).
# Needs pulumi on PATH, a backend (pulumi login / PULUMI_BACKEND_URL) and the stack's config;
# the Neon key comes from the stack config or NEON_API_KEY.
set -euo pipefail

step=${1:?usage: pipeline.sh preview|up|drift STACK}
stack=${2:?usage: pipeline.sh preview|up|drift STACK}
program=${PROGRAM_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../per-environment" && pwd)}
cd "$program"
export PULUMI_SKIP_UPDATE_CHECK=true
common=(--stack "$stack" --non-interactive --color never)

case "$step" in
  preview)
    pulumi preview "${common[@]}" --diff
    ;;
  up)
    pulumi up "${common[@]}" --yes --skip-preview
    ;;
  drift)
    # refresh brings state in line with what exists at Neon; the preview that follows then
    # shows exactly what the program would change back: that difference is the drift.
    pulumi refresh "${common[@]}" --yes --skip-preview
    set +e
    pulumi preview "${common[@]}" --diff --expect-no-changes
    rc=$?
    set -e
    if [ "$rc" -ne 0 ]; then
      echo "DRIFT: stack $stack differs from what Neon has; the preview above lists it. Run 'pipeline.sh up $stack' to restore it." >&2
      exit 3
    fi
    echo "no drift: stack $stack matches Neon"
    ;;
  *)
    echo "unknown step $step (preview, up or drift)" >&2
    exit 2
    ;;
esac
