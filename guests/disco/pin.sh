#!/bin/sh
# pin.sh FILE... - pin each guest scenario's [expect] to what DISCO's own code
# does: `dlsim check` runs it, and every expectation it fails is set to the
# value the run gave, with a comment that keeps the value it had (for a
# guest twin made by guestify.sh: the C machines' pin); a violation the file
# does not expect is added.  DISCO is right by definition: what is left is
# a difference to explain (docs/conformance.md).  A file that passes is not
# touched.  DLSIM (default ./dlsim) and DISCO_SRC as for run.sh.
set -eu
dlsim=${DLSIM:-./dlsim}
for f in "$@"; do
  out=$("$dlsim" check "$f" 2>/dev/null) && continue
  # FAIL lines: `    KEY: expected OP V, actual A` and
  # `    violations.P: N, not expected (...)`
  printf '%s\n' "$out" | awk '
    /^    [^ ]+: expected / { k = $1; sub(/:$/, "", k); a = $0; sub(/.*, actual /, "", a); print k "\t" a }
    /^    violations\.[^ ]+: [0-9]+, not expected/ { k = $1; sub(/:$/, "", k); print k "\t" $2 + 0 "\tnew" }' > "$f.pins"
  awk -F'\t' -v OFS='' '
    NR == FNR { pin[$1] = $2; if ($3 == "new") add[$1] = $2; next }
    /^\[/ { sec = $0 }
    sec == "[expect]" && /^[^#]/ {
      k = $0; sub(/ *[<>=!].*/, "", k)
      if (k in pin) { print "# C: " $0; print k " = " pin[k]; next }
    }
    { print }
    END { for (k in add) print k " = " add[k] "   # not pinned for C" }' "$f.pins" "$f" > "$f.new"
  mv "$f.new" "$f"
  rm -f "$f.pins"
done
