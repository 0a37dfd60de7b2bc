#!/bin/sh
# install.sh - prepare a DISCO checkout for the DISCO guest (docs/guest.md,
# "DISCO as a guest"): install the npm dependencies of the workspaces
# discojs, discojs-node and server with no install scripts and no optional
# (native binary) packages, then compile the three with tsc.
#
#     sh guests/disco/install.sh --disco-src DIR      (or DISCO_SRC=DIR)
set -eu

src=${DISCO_SRC:-}
while [ $# -gt 0 ]; do
  case $1 in
    --disco-src) src=${2:?--disco-src needs a folder}; shift 2 ;;
    --disco-src=*) src=${1#--disco-src=}; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

missing=0
if [ -z "$src" ]; then
  echo "install.sh: no DISCO checkout: give --disco-src DIR or set DISCO_SRC" >&2
  echo "  (a checkout: git clone https://github.com/epfml/disco DIR; 10b4be70 or later)" >&2
  missing=1
elif [ ! -f "$src/package.json" ] || [ ! -d "$src/discojs" ] || [ ! -d "$src/server" ]; then
  echo "install.sh: $src is not a DISCO checkout (no package.json, discojs/ and server/)" >&2
  missing=1
fi
command -v node >/dev/null 2>&1 || { echo "install.sh: node is missing (Node 20 or later)" >&2; missing=1; }
command -v npm >/dev/null 2>&1 || { echo "install.sh: npm is missing (it comes with Node)" >&2; missing=1; }
[ $missing -eq 0 ] || exit 1

cd "$src"
# --no-save: the checkout's package-lock.json stays as it is
npm install --ignore-scripts --omit=optional --no-save --no-audit --no-fund \
  --include-workspace-root -w discojs -w discojs-node -w server
for w in discojs discojs-node server; do
  echo "install.sh: tsc in $w"
  (cd "$w" && ../node_modules/.bin/tsc)
done
echo "install.sh: $src is ready: DISCO_SRC=$src"
