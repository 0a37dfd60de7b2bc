#!/bin/sh
# run.sh - start the DISCO guest (driver.mjs) on the checkout named by
# --disco-src DIR or DISCO_SRC; dlsim's guest_command runs it.
here=$(dirname "$0")
exec node "$here/driver.mjs" "$@"
