#!/bin/sh
echo "coverage is not measured" >&2
exit 1
