#!/bin/sh
# A power meter: prints a reading every 10 ms until stopped.
# Usage: scripted_meter.sh watts|joules|bare|garbage
i=0
while true; do
  case "$1" in
    watts) echo "4.5 W" ;;
    joules) echo "$((i * 2)) J" ;;   # cumulative energy, 2 J per reading
    bare) echo "7.25" ;;
    garbage) echo "hello" ;;
  esac
  i=$((i + 1))
  sleep 0.01
done
