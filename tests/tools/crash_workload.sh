#!/bin/sh
# A workload that crashes: some output, then SIGSEGV.
echo "loading model"
echo "fatal: device lost" >&2
kill -SEGV $$
