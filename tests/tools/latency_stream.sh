#!/bin/sh
# A long-running workload with a known latency distribution: reports
# iterations 1..COUNT taking 1..COUNT ms, as JSON lines or as text lines, then
# ends as asked: "exit" (status 0), "crash" (SIGSEGV) or "hang".
# Usage: latency_stream.sh json|text COUNT exit|crash|hang
format=$1 count=$2 after=$3
echo "loading model"
i=1
while [ "$i" -le "$count" ]; do
  if [ "$format" = json ]; then
    echo "{\"iteration\": $i, \"latency_ms\": $i}"
  else
    echo "iteration $i took $i ms"
  fi
  i=$((i + 1))
done
case "$after" in
  crash) echo "fatal: device lost" >&2; kill -SEGV $$ ;;
  hang) exec sleep 30 ;;
esac
exit 0
