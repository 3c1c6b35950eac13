#!/bin/sh
# One shard of heddle's search of a kernel; the shard comes from Bazel's environment.
set -u
cd "$KERNELS" || exit 2
exec "$HEDDLE" test -strategy "$1" -run 'TestBug|TestFixed' -out "$OUT" ./threelockcycle
