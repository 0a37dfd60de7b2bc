#!/bin/sh
# tests/data.sh — the real data sets from Debian's packages: scikit-learn's
# digits (python3-sklearn) and a slice of Fashion-MNIST (dataset-fashion-mnist)
# load with the shapes and label ranges their documentation gives; the
# training and test sets that tools/sklearn-reference rebuilds are dlsim's
# (same rows, same test-label order); and the 8-peer digits runs of
# scenarios/data pass their [expect] bounds (the sklearn reference minus
# 0.03).  .ci/run installs both packages (tools/install-deps); without one,
# its part is skipped with a message.
set -u
. "${DLSIM_SRCDIR:-.}/tests/lib.sh"
SRC=${DLSIM_SRCDIR:-.}
PROBE=${DLSIM_PROBE:-$(dirname "$DLSIM")/tests/data-probe}
SKDATA=/usr/lib/python3/dist-packages/sklearn/datasets/data
FMNIST=/usr/share/datasets/fashion-mnist
ran=0

# a missing folder is an error naming the file, [data] source and the package
cat > "$tmp/missing.ini" <<'INI'
[model]
kind = softmax
[data]
source = idx:/nonexistent-dlsim-data
INI
expect 2 "missing.ini: \[data\] source: .*apt-get install dataset-fashion-mnist" -- "$DLSIM" run "$tmp/missing.ini" -o "$tmp/m.db" -q
# hostile files within their own bounds, refused at load before anything
# is allocated or recorded (they once died in malloc, losing the run): a
# CSV label of a million (a million classes), a CSV whose softmax every peer
# holds a copy of (4000 features x 50 001 classes x 3 peers)
printf '1,2,0\n3,4,1000000\n' > "$tmp/label.csv"
printf '[model]\nkind = softmax\n[data]\nsource = csv:label.csv\n' > "$tmp/label.ini"
expect 2 "label.ini: \[data\] source: .*label.csv:2: the label (last column) must be an integer from 0 to 65535" -- \
  "$DLSIM" run "$tmp/label.ini" -o "$tmp/h.db" -q
awk 'BEGIN { for (i = 0; i < 4000; i++) printf "0,"; print 0; for (i = 0; i < 4000; i++) printf "0,"; print 50000 }' \
  > "$tmp/wide.csv"
printf '[model]\nkind = softmax\n[data]\nsource = csv:wide.csv\ntest_fraction = 0\n[peers]\ncount = 3\n' > "$tmp/wide.ini"
expect 2 "wide.ini: \[data\] source: a softmax of 4000 features and 50001 classes .* more than the run's bound of 500000000" -- \
  "$DLSIM" run "$tmp/wide.ini" -o "$tmp/h.db" -q
# a feature past a float's range: once inf, silently
printf '1,2,0\n3,1e39,1\n' > "$tmp/inf.csv"
printf '[model]\nkind = softmax\n[data]\nsource = csv:inf.csv\n' > "$tmp/inf.ini"
expect 2 "inf.ini: \[data\] source: .*inf.csv:2: column 2: 1e+39 is past a float's range" -- \
  "$DLSIM" run "$tmp/inf.ini" -o "$tmp/h.db" -q
# the results file holds no row of the refused runs
if [ ! -e "$tmp/h.db" ] || [ "$(sqlite3 "$tmp/h.db" 'SELECT count(*) FROM runs')" = 0 ]; then ok
else ko "refused runs left rows: $(sqlite3 "$tmp/h.db" 'SELECT run_id, status FROM runs')"; fi
# a gzip file of several members (cat a.gz b.gz) is one file, as gzip
# reads it: it once read as "truncated" after the first member
mkdir "$tmp/mm"
printf '\000\000\010\003\000\000\000\002\000\000\000\002' > "$tmp/i1"
printf '\000\000\000\002\000\377\063\146\001\002\003\377' > "$tmp/i2"
printf '\000\000\010\001\000\000\000\002\000\001' > "$tmp/l1"
for set in train t10k; do
  gzip -c "$tmp/i1" > "$tmp/a.gz" && gzip -c "$tmp/i2" > "$tmp/b.gz"
  cat "$tmp/a.gz" "$tmp/b.gz" > "$tmp/mm/$set-images-idx3-ubyte.gz"
  gzip -c "$tmp/l1" > "$tmp/mm/$set-labels-idx1-ubyte.gz"
done
expect 0 "^train rows 2 features 4 classes 2 labels 0..1 values 0..1$" -- "$PROBE" "idx:$tmp/mm" 0
if [ -f "$SKDATA/digits.csv.gz" ] && /usr/bin/python3 -c 'import sklearn' 2>/dev/null; then
  ran=1
  # 1797 images of 8x8 values 0..16, ten digits; seed 1 and test_fraction 0.2
  # as the scenarios: 359 test rows (round(0.2 x 1797))
  expect 0 "^train rows 1438 features 64 classes 10 labels 0..9 values 0..16$" -- "$PROBE" sklearn:digits 1 0.2
  grep -q "^test rows 359 features 64 classes 10 labels 0..9 values 0..16$" "$out" && ok || ko "digits test set: $(cat "$out")"
  for name in wine:178:13:3 breast_cancer:569:30:2 iris:150:4:3; do
    IFS=: read -r n rows feats classes <<EOT
$name
EOT
    expect 0 "^data $rows 0 $feats $classes 0$" -- "$PROBE" "sklearn:$n" 1 0
  done
  # the reference script's split is dlsim's
  expect 0 "self-test: .*: ok" -- /usr/bin/python3 "$SRC/tools/sklearn-reference" --self-test
  "$PROBE" sklearn:digits 1 0.2 | grep '^data ' > "$tmp/c.txt"
  /usr/bin/python3 "$SRC/tools/sklearn-reference" --data "$SRC/scenarios/data/digits-softmax.ini" > "$tmp/py.txt" 2>&1
  if cmp -s "$tmp/c.txt" "$tmp/py.txt"; then ok; else ko "digits split: dlsim $(cat "$tmp/c.txt"), script $(cat "$tmp/py.txt")"; fi
  # another seed: another split, and the script follows it
  "$PROBE" sklearn:digits 7 0.2 | grep '^data ' > "$tmp/c7.txt"
  /usr/bin/python3 "$SRC/tools/sklearn-reference" --data --seed 7 "$SRC/scenarios/data/digits-softmax.ini" > "$tmp/py7.txt" 2>&1
  if cmp -s "$tmp/c7.txt" "$tmp/py7.txt" && ! cmp -s "$tmp/c.txt" "$tmp/c7.txt"; then ok
  else ko "seed 7: dlsim $(cat "$tmp/c7.txt"), script $(cat "$tmp/py7.txt"), seed 1 $(cat "$tmp/c.txt")"; fi
  # the 8-peer DISCO runs reach the reference minus 0.03 (the bounds in the files)
  expect 0 "2 passed, 0 failed" -- "$DLSIM" check "$SRC/scenarios/data/digits-softmax.ini" "$SRC/scenarios/data/digits-mlp.ini"
  # docs/data.md's digits rows are what the scenarios give (4 decimals)
  "$DLSIM" run "$SRC/scenarios/data/digits-softmax.ini" "$SRC/scenarios/data/digits-mlp.ini" -o "$tmp/dg.db" -q
  for m in softmax mlp; do
    got=$(sqlite3 "$tmp/dg.db" "SELECT printf('%.4f', s.value) FROM summary s JOIN runs r USING (run_id) WHERE s.key = 'final_accuracy' AND r.scenario = 'digits-$m'")
    doc=$(awk -F' \\| ' -v m="$m" '$1 ~ /^\| digits/ && $2 ~ "^" m { print $5 }' "$SRC/docs/data.md")
    [ -n "$got" ] && [ "$got" = "$doc" ] && ok "docs/data.md's digits $m row" \
      || ko "docs/data.md's digits $m row says '$doc', the run gives '$got'"
  done
else
  echo "SKIP (part): scikit-learn's digits: install python3-sklearn (Debian's /usr/bin/python3)"
fi

if [ -f "$FMNIST/train-images-idx3-ubyte.gz" ]; then
  ran=1
  # the first 1000 training images, all 10 000 test images, 28x28, ten classes
  expect 0 "^train rows 1000 features 784 classes 10 labels 0..9 values 0..1$" -- "$PROBE" "idx:$FMNIST" 1000
  grep -q "^test rows 10000 features 784 classes 10 labels 0..9 values 0..1$" "$out" && ok || ko "fashion test set: $(cat "$out")"
  grep '^data ' "$out" > "$tmp/c.txt"
  # dlsim run reads the same slice: [data] limit = 1000, 4 peers, one round
  printf '[model]\nkind = softmax\n[data]\nsource = idx:%s\nlimit = 1000\n[training]\nrounds = 1\n[peers]\ncount = 4\n[protocol]\nmin_participants = 4\n' \
    "$FMNIST" > "$tmp/fm-run.ini"
  "$DLSIM" run "$tmp/fm-run.ini" -o "$tmp/fm.db" -q && ok || ko "dlsim run on the Fashion-MNIST slice"
  rows=$(sqlite3 "$tmp/fm.db" "SELECT value FROM summary WHERE key = 'final_accuracy'")
  awk -v a="$rows" 'BEGIN { exit !(a > 0.3 && a <= 1) }' && ok || ko "fashion slice: final_accuracy '$rows' (chance is 0.1)"
  # 250 images a peer at 1 ms each (sample_cost): about 0.25 s of training,
  # where all 60 000 would take 15 s
  t=$(sqlite3 "$tmp/fm.db" "SELECT value FROM summary WHERE key = 'sim_time_s'")
  awk -v t="$t" 'BEGIN { exit !(t > 0.25 && t < 5) }' && ok || ko "fashion slice: sim_time_s '$t': limit = 1000 not applied?"
  if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    printf '[data]\nsource = idx:%s\nlimit = 1000\n' "$FMNIST" > "$tmp/fm.ini"
    /usr/bin/python3 "$SRC/tools/sklearn-reference" --data "$tmp/fm.ini" > "$tmp/py.txt" 2>&1
    if cmp -s "$tmp/c.txt" "$tmp/py.txt"; then ok; else ko "fashion data: dlsim $(cat "$tmp/c.txt"), script $(cat "$tmp/py.txt")"; fi
  fi
else
  echo "SKIP (part): Fashion-MNIST: install dataset-fashion-mnist"
fi

[ "$ran" -eq 1 ] || { echo "SKIP: neither python3-sklearn nor dataset-fashion-mnist is installed"; finish; exit 77; }
finish
